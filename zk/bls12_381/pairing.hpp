// The optimal ate pairing of BLS12-381: e: G1 x G2 -> GT, GT the r-th roots of unity in Fp12.
//
// Miller loop over |x| = 0xd201000000010000 (x is negative: the loop result is conjugated), with
// the G2 point kept on the M-twist in homogeneous projective coordinates and line functions of
// the sparse shape (o0 + o1 v + o4 v w). Final exponentiation: the easy part (p^6 - 1)(p^2 + 1)
// and the hard part by the x-addition chain of zkcrypto/@noble/curves, so results equal theirs
// (and snarkjs's vk_alphabeta_12) coefficient by coefficient.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "zk/bls12_381/curves.hpp"
#include "zk/ff/fp12.hpp"

namespace cuzk::zk::bls12_381 {

using fp6 = fp6_t<fp2>;
using fp12 = fp12_t<fp6>;

// The BLS parameter x = -bls_x_abs.
inline constexpr std::uint64_t bls_x_abs = 0xd201000000010000ull;

// A G2 point's Miller-loop line coefficients (68 lines: one per doubling and per addition), for
// points used in many pairings (a verifying key's gamma, delta): the loop then only evaluates the
// lines at P. About 20 KB.
struct g2_prepared {
  struct line {
    fp2 c0, c1, c2;  // evaluated at P as c0 + (c1 Px) v + (c2 Py) v w
  };
  std::vector<line> lines;  // empty for the identity
  bool is_identity() const { return lines.empty(); }
};
g2_prepared prepare_g2(const g2_affine& q);

// f_{|x|,Q}(P), conjugated for the negative x; one when either point is the identity.
fp12 miller_loop(const g1_affine& p, const g2_affine& q);
// Product of Miller loops sharing the Fp12 squarings; pairs with an identity point contribute one.
fp12 multi_miller_loop(std::span<const std::pair<g1_affine, g2_affine>> pairs);
fp12 multi_miller_loop(std::span<const std::pair<g1_affine, const g2_prepared*>> pairs);
// f^(3 (p^12 - 1) / r): the x-chain of the hard part yields this fixed multiple (3 is coprime to r,
// so the pairing stays bilinear and non-degenerate); zkcrypto and @noble/curves compute the same.
fp12 final_exponentiation(const fp12& f);

fp12 pairing(const g1_affine& p, const g2_affine& q);
// prod e(P_i, Q_i) == 1 with one multi-Miller loop and one final exponentiation. Points must be on
// their curves and in the prime-order subgroups (callers validate untrusted input first).
bool pairing_product_is_one(std::span<const std::pair<g1_affine, g2_affine>> pairs);

}  // namespace cuzk::zk::bls12_381
