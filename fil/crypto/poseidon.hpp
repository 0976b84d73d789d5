// Poseidon over BLS12-381's Fr as neptune computes it for Filecoin (filecoin-hashers' PoseidonHasher):
// width t = arity + 1, x^5 S-box, R_F = 8 full rounds (4 + 4) around R_P partial rounds (55, 56, 57, 57
// for arity 2, 4, 8, 11), the Merkle-tree domain tag 2^arity - 1 as element 0, the output is element 1.
// Constants are generated the way the Poseidon paper specifies and neptune implements:
//  - round constants: the Grain LFSR seeded with 80 bits (field 1, S-box 1, field size 255, t, R_F,
//    R_P, then 30 ones), 160 bits discarded, bits taken in pairs (a 1 emits the next bit), 255-bit
//    big-endian samples rejected when >= r; (R_F + R_P) t of them, added before each round's S-boxes;
//  - MDS: the Cauchy matrix M[i][j] = 1 / (i + (t + j)).
// This is the plain permutation (neptune's hash_correct); neptune's optimized constants compute the
// same function.
#pragma once

#include <span>

#include "fil/types.hpp"

#include <vector>

namespace cuzk::fil::crypto {

// The plain (unoptimized) parameters of one arity: width t = arity + 1, R_P, the (R_F + R_P) t round
// constants in order and the t x t MDS matrix (row-major). The circuit (fil/circuit/poseidon) derives
// neptune's optimized constants from these.
struct poseidon_constants {
  unsigned t = 0, r_p = 0;
  std::vector<fr> round;
  std::vector<fr> mds;
};
inline constexpr unsigned poseidon_full_rounds = 8;
const poseidon_constants& poseidon_constants_for(unsigned arity);

// Hash `inputs.size()` in {2, 4, 8, 11} field elements (the arities Filecoin uses).
fr poseidon(std::span<const fr> inputs);
// The same permutation with another domain tag as element 0 (neptune's HashType::Custom).
fr poseidon(std::span<const fr> inputs, const fr& domain_tag);
// storage-proofs-update's POSEIDON_CONSTANTS_GEN_RANDOMNESS tag, HashType::Custom(Arbitrary(1)):
// id * 2^40 (phi, rho and the challenges' digests; the round constants are the Merkle-tree ones).
fr gen_randomness_tag();
// The 2-to-1 hash of commitments (comm_r = poseidon(comm_c, comm_r_last)); throws input_error naming
// the values when they are not field elements.
domain poseidon2(const domain& a, const domain& b);

}  // namespace cuzk::fil::crypto
