// Precomputed shifted copies of MSM bases: set s holds 2^(c s) P_i, so a scalar's window-j digit
// can go into the same buckets as window 0's (sum_j d_j 2^(c j) P = sum_j d_j (2^(c j) P)). With
// one set per window an MSM reduces one window's buckets instead of one per window and needs no
// Horner combination; with S sets (fewer, where memory is short) the windows come in groups of S
// that share a bucket array (window j: set j mod S, array j div S; msm.cuh), so ceil(W / S) arrays
// are reduced and combined c S doublings apart. Memory: S copies of the bases (set 0 the plain
// one); S x points < 2^31 (31-bit point indices in the sorted pairs).
//
// Each point's sets are made by one thread: c doublings per set in Jacobian coordinates, then one
// field inversion for all of them (Montgomery's trick over the set's Z values). Written against
// the field templates only, so the host tests run it through the emulated carry chains.
#pragma once

#include <cstddef>

#include "cuzk/gpu/curve.cuh"

namespace cuzk::gpu {

// Jacobian point (x = X/Z^2, y = Y/Z^3; Z = 0 is infinity) on y^2 = x^3 + b: only doubling.
template <class F>
struct jacobian_d {
  F X, Y, Z;
  // dbl-2009-l (a = 0): 2M + 5S. Z = 0 stays 0, and a point with y = 0 goes to Z = 0.
  CUZK_HD jacobian_d dbl() const {
    F A = X.sqr(), B = Y.sqr(), C = B.sqr();
    F D = ((X + B).sqr() - A - C).dbl();
    F E = A.dbl() + A;
    F X3 = E.sqr() - D.dbl();
    F C8 = C.dbl().dbl().dbl();
    return {X3, E * (D - X3) - C8, (Y * Z).dbl()};
  }
};

// The most windows one point's sets may have (window bits >= 12 keep it below this).
inline constexpr unsigned max_shifted_sets = 24;

// out[j * stride] = 2^(c j) p for j = 0 .. sets - 1, in affine form (infinity as all-zero bytes).
template <class F>
CUZK_HD void shifted_copies(const affine_d<F>& p, unsigned c, unsigned sets, affine_d<F>* out, std::size_t stride) {
  out[0] = p;
  if (p.is_identity()) {
    for (unsigned j = 1; j < sets; ++j) out[j * stride] = {F::zero(), F::zero()};
    return;
  }
  // Pass 1: the Jacobian multiples, X and Y parked in their output slots, Z and the running
  // product of the Z values (infinity counts as 1) kept per set.
  F z[max_shifted_sets], prefix[max_shifted_sets];
  jacobian_d<F> r{p.x, p.y, F::one()};
  F acc = F::one();
  for (unsigned j = 1; j < sets; ++j) {
    for (unsigned k = 0; k < c; ++k) r = r.dbl();
    out[j * stride] = {r.X, r.Y};
    z[j] = r.Z;
    acc = r.Z.is_zero() ? acc : acc * r.Z;
    prefix[j] = acc;
  }
  // Pass 2: one inversion, then 1/Z_j = (1/prod_{<=j}) * prod_{<j} from the last set down.
  F inv = acc.inverse();
  for (unsigned j = sets - 1; j >= 1; --j) {
    affine_d<F>& o = out[j * stride];
    if (z[j].is_zero()) {
      o = {F::zero(), F::zero()};
      continue;
    }
    F zi = j > 1 ? inv * prefix[j - 1] : inv;
    inv = inv * z[j];
    F zi2 = zi.sqr();
    o.x = o.x * zi2;
    o.y = o.y * (zi2 * zi);
  }
}

}  // namespace cuzk::gpu
