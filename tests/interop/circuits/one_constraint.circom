pragma circom 2.0.0;

// Exactly one constraint: c = a * b with public output c.
template One() {
    signal input a;
    signal input b;
    signal output c;
    c <== a * b;
}

component main = One();
