// Fast prime-order subgroup checks by endomorphisms (Bowe, eprint 2019/814; Scott, eprint 2021/1130;
// proofs of correctness for all curve points in eprint 2022/352):
//   G1: phi(P) == [-x^2] P,  phi(x, y) = (beta x, y), beta a primitive cube root of unity in Fp;
//   G2: psi(P) == [x] P,     psi the untwist-Frobenius-twist endomorphism.
// About 64-128 doublings instead of the 255 of the definition [r]P = O (in_prime_subgroup in
// curves.hpp), which the tests cross-check these against. Input points must be on the curve.
#pragma once

#include "zk/bls12_381/curves.hpp"

namespace cuzk::zk::bls12_381 {

bool g1_in_subgroup(const g1_affine& p);
bool g2_in_subgroup(const g2_affine& p);

// The endomorphisms themselves (exposed for tests).
g1_affine g1_phi(const g1_affine& p);
g2_affine g2_psi(const g2_affine& p);

}  // namespace cuzk::zk::bls12_381
