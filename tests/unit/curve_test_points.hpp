// Points with known discrete logs, for tests that build verifying keys and proofs from a trapdoor:
// a random non-zero scalar k and k·G in G1 or G2 (never the identity, which readers refuse).
#pragma once

#include <random>

#include "zk/bls12_381/curves.hpp"

namespace cuzk::zk::test {

using namespace cuzk::zk::bls12_381;

inline fr random_nonzero_fr(std::mt19937_64& g) {
  bigint<4> b{};
  do {
    for (auto& l : b.limb) l = g();
    b.limb[3] &= (std::uint64_t{1} << 63) - 1;
  } while (!fr::is_canonical(b) || b.is_zero());
  return fr::from_canonical(b);
}
inline g1_affine g1_mul(const fr& k) { return g1_jacobian(g1_curve::generator()).mul(k.to_canonical()).to_affine(); }
inline g2_affine g2_mul(const fr& k) { return g2_jacobian(g2_curve::generator()).mul(k.to_canonical()).to_affine(); }

}  // namespace cuzk::zk::test
