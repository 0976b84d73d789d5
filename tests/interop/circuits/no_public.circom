pragma circom 2.0.0;

// No public signals at all: no outputs, no public inputs (nPublic = 0, IC has one point).
template NoPublic() {
    signal input a;
    signal input b;
    signal c;
    signal d;
    signal e;
    c <== a * b;
    d <== c * c + a;
    e <== (d - b) * (c + 1);
}

component main = NoPublic();
