// Short-Weierstrass points (a = 0) for device code: affine input points with the zkey layout
// (all-zero = infinity) and XYZZ accumulators (ZZ = 0 = infinity), the formulas of
// zk/curve/short_weierstrass.hpp with the same special cases (P = Q, P = -Q, infinity).
#pragma once

#include "cuzk/gpu/fields.cuh"

namespace cuzk::gpu {

template <class F>
struct affine_d {
  F x, y;
  CUZK_HD bool is_identity() const { return x.is_zero() && y.is_zero(); }
};

template <class F>
struct xyzz_d {
  F X, Y, ZZ, ZZZ;

  CUZK_HD static xyzz_d identity() { return {F::zero(), F::zero(), F::zero(), F::zero()}; }
  CUZK_HD bool is_identity() const { return ZZ.is_zero(); }

  CUZK_HD xyzz_d dbl() const {
    if (is_identity()) return *this;
    F U = Y.dbl(), V = U.sqr(), W = U * V, S = X * V;
    F M = X.sqr();
    M = M.dbl() + M;
    F X3 = M.sqr() - S.dbl();
    F Y3 = M * (S - X3) - W * Y;
    return {X3, Y3, V * ZZ, W * ZZZ};
  }

  CUZK_HD static xyzz_d dbl_affine(const F& x, const F& y) {
    F U = y.dbl(), V = U.sqr(), W = U * V, S = x * V;
    F M = x.sqr();
    M = M.dbl() + M;
    F X3 = M.sqr() - S.dbl();
    F Y3 = M * (S - X3) - W * y;
    return {X3, Y3, V, W};
  }

  // this += (x, y); the caller has skipped the point at infinity.
  CUZK_HD void add_affine(const F& x, const F& y) {
    if (is_identity()) {
      *this = {x, y, F::one(), F::one()};
      return;
    }
    F U2 = x * ZZ, S2 = y * ZZZ;
    F P = U2 - X, R = S2 - Y;
    if (P.is_zero()) {
      if (R.is_zero()) *this = dbl_affine(x, y);
      else *this = identity();
      return;
    }
    F PP = P.sqr(), PPP = P * PP, Q = X * PP;
    F X3 = R.sqr() - PPP - Q.dbl();
    F Y3 = R * (Q - X3) - Y * PPP;
    *this = {X3, Y3, ZZ * PP, ZZZ * PPP};
  }

  CUZK_HD void add(const xyzz_d& q) {
    if (q.is_identity()) return;
    if (is_identity()) {
      *this = q;
      return;
    }
    F U1 = X * q.ZZ, U2 = q.X * ZZ, S1 = Y * q.ZZZ, S2 = q.Y * ZZZ;
    F P = U2 - U1, R = S2 - S1;
    if (P.is_zero()) {
      if (R.is_zero()) *this = dbl();
      else *this = identity();
      return;
    }
    F PP = P.sqr(), PPP = P * PP, Q = U1 * PP;
    F X3 = R.sqr() - PPP - Q.dbl();
    F Y3 = R * (Q - X3) - S1 * PPP;
    *this = {X3, Y3, ZZ * q.ZZ * PP, ZZZ * q.ZZZ * PPP};
  }
};

using g1_affine_d = affine_d<fp_d>;
using g1_xyzz_d = xyzz_d<fp_d>;
using g2_affine_d = affine_d<fp2_dev>;
using g2_xyzz_d = xyzz_d<fp2_dev>;

}  // namespace cuzk::gpu
