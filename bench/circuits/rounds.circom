pragma circom 2.0.0;

// Parametric benchmark circuit: a Poseidon-like permutation over a width-3 state (x^5 S-boxes,
// a fixed 3x3 mixing matrix), repeated until the circuit has exactly N constraints.
// Each round costs 9 constraints (x^2, x^4, x^5 per state element); the rest of N is a
// multiplication chain. Witness values are full-size field elements, not bits.
// The main component is generated per size (bench/prove_vs_snarkjs.sh, tests/interop):
//   include "rounds.circom"; component main {public [seed]} = Rounds(N);
template Rounds(N) {
    signal input seed;          // public
    signal input key[3];        // private
    signal output digest;

    var R = (N - 2) \ 9;
    var EXTRA = N - 9 * R - 2;  // 2: chain[0] and the final digest constraint
    signal x2[R][3];
    signal x4[R][3];
    signal x5[R][3];
    var s[3] = [seed + key[0], key[1], key[2]];
    for (var r = 0; r < R; r++) {
        for (var i = 0; i < 3; i++) {
            x2[r][i] <== s[i] * s[i];
            x4[r][i] <== x2[r][i] * x2[r][i];
            x5[r][i] <== x4[r][i] * s[i];
        }
        // mixing matrix [[2,1,1],[1,2,1],[1,1,3]] plus a round constant: linear, costs no constraint
        s[0] = 2 * x5[r][0] + x5[r][1] + x5[r][2] + r + 1;
        s[1] = x5[r][0] + 2 * x5[r][1] + x5[r][2];
        s[2] = x5[r][0] + x5[r][1] + 3 * x5[r][2];
    }
    signal chain[EXTRA + 1];
    chain[0] <== (s[0] + s[1]) * (s[2] + 1);
    for (var j = 0; j < EXTRA; j++) {
        chain[j + 1] <== chain[j] * (s[2] + j);
    }
    digest <== chain[EXTRA] * seed;
}
