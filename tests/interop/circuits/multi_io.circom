pragma circom 2.0.0;

// Several public inputs and outputs, a few private inputs, linear and non-linear constraints.
// Public signals in public.json order: prod, total, sq[0..2] (outputs), x, y, z (public inputs).
template MultiIO() {
    signal input x;            // public
    signal input y;            // public
    signal input z;            // public
    signal input k[3];         // private
    signal output prod;
    signal output total;
    signal output sq[3];

    signal xy;
    xy <== x * y;
    prod <== xy * z;
    for (var i = 0; i < 3; i++) {
        sq[i] <== (k[i] + i) * (k[i] + x);
    }
    total <== sq[0] + sq[1] + sq[2] + 5 * prod - y;   // linear in signals: folded by circom
    // a constraint where the same wire appears on both sides with coefficients
    signal w;
    w <== (3 * x + 2 * k[0] - z) * (k[1] - 7 * y + 1);
}

component main {public [x, y, z]} = MultiIO();
