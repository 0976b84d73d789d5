pragma circom 2.0.0;

include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";

// Boolean-heavy: every input decomposed into bits, then pairwise comparisons (mostly 0/1 wires,
// like the PoRep witnesses the prover is tuned for). About 1,100 constraints.
template BooleanHeavy(N, BITS) {
    signal input v[N];
    signal input limit;              // public
    signal output below;             // how many v[i] < limit
    signal output sorted;            // 1 if v is non-decreasing

    component bits[N];
    for (var i = 0; i < N; i++) {
        bits[i] = Num2Bits(BITS);
        bits[i].in <== v[i];
    }
    component lt[N];
    var count = 0;
    for (var i = 0; i < N; i++) {
        lt[i] = LessThan(BITS);
        lt[i].in[0] <== v[i];
        lt[i].in[1] <== limit;
        count += lt[i].out;
    }
    below <== count;
    component le[N - 1];
    signal acc[N];
    acc[0] <== 1;
    for (var i = 0; i + 1 < N; i++) {
        le[i] = LessEqThan(BITS);
        le[i].in[0] <== v[i];
        le[i].in[1] <== v[i + 1];
        acc[i + 1] <== acc[i] * le[i].out;
    }
    sorted <== acc[N - 1];
}

component main {public [limit]} = BooleanHeavy(8, 60);
