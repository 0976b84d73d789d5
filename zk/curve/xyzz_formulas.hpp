// The XYZZ point formulas (a = 0; Bernstein-Lange 2008: dbl-2008-s-1, madd-2008-s, add-2008-s),
// written once for the host's xyzz_t (zk/curve/short_weierstrass.hpp) and the device's xyzz_d
// (gpu/include/cuzk/gpu/curve.cuh), as sppark's ec/xyzz_t.hpp compiles for both.
//
// Templates over the field type F, which needs +, -, *, sqr(), dbl(), is_zero() and F::one(): the
// host's fp_t and fp2, the device's mont_t, fp2_d and the G2 MSM's call-wrapped field alike. Under
// nvcc they are __host__ __device__ and forced inline, so a kernel gets the same straight-line code
// as when the formulas were written inside it. ZZ = 0 is the point at infinity; the special cases
// (P = Q doubles, P = -Q gives infinity) are inside the additions.
#pragma once

#if defined(__CUDACC__)
#define CUZK_XYZZ_FN __host__ __device__ __forceinline__ constexpr
#else
#define CUZK_XYZZ_FN constexpr inline
#endif

namespace cuzk::zk::xyzz {

// (X/ZZ, Y/ZZZ) with ZZ^3 = ZZZ^2.
template <class F>
struct coords {
  F X, Y, ZZ, ZZZ;
};

// 2 (x, y) for an affine point (y != 0 on curves of odd order).
template <class F>
CUZK_XYZZ_FN coords<F> dbl_affine(const F& x, const F& y) {
  F U = y.dbl(), V = U.sqr(), W = U * V, S = x * V;
  F M = x.sqr();
  M = M.dbl() + M;
  F X3 = M.sqr() - S.dbl();
  F Y3 = M * (S - X3) - W * y;
  return {X3, Y3, V, W};
}

template <class F>
CUZK_XYZZ_FN coords<F> dbl(const coords<F>& p) {
  if (p.ZZ.is_zero()) return p;
  F U = p.Y.dbl(), V = U.sqr(), W = U * V, S = p.X * V;
  F M = p.X.sqr();
  M = M.dbl() + M;
  F X3 = M.sqr() - S.dbl();
  F Y3 = M * (S - X3) - W * p.Y;
  return {X3, Y3, V * p.ZZ, W * p.ZZZ};
}

// p + (x, y); the caller has skipped the affine point at infinity.
template <class F>
CUZK_XYZZ_FN coords<F> add_affine(const coords<F>& p, const F& x, const F& y) {
  if (p.ZZ.is_zero()) return {x, y, F::one(), F::one()};
  F U2 = x * p.ZZ, S2 = y * p.ZZZ;
  F P = U2 - p.X, R = S2 - p.Y;
  if (P.is_zero()) {
    if (R.is_zero()) return dbl_affine(x, y);
    F z = P;  // zero
    return {z, z, z, z};
  }
  F PP = P.sqr(), PPP = P * PP, Q = p.X * PP;
  F X3 = R.sqr() - PPP - Q.dbl();
  F Y3 = R * (Q - X3) - p.Y * PPP;
  return {X3, Y3, p.ZZ * PP, p.ZZZ * PPP};
}

template <class F>
CUZK_XYZZ_FN coords<F> add(const coords<F>& p, const coords<F>& q) {
  if (q.ZZ.is_zero()) return p;
  if (p.ZZ.is_zero()) return q;
  F U1 = p.X * q.ZZ, U2 = q.X * p.ZZ, S1 = p.Y * q.ZZZ, S2 = q.Y * p.ZZZ;
  F P = U2 - U1, R = S2 - S1;
  if (P.is_zero()) {
    if (R.is_zero()) return dbl(p);
    F z = P;  // zero
    return {z, z, z, z};
  }
  F PP = P.sqr(), PPP = P * PP, Q = U1 * PP;
  F X3 = R.sqr() - PPP - Q.dbl();
  F Y3 = R * (Q - X3) - S1 * PPP;
  return {X3, Y3, p.ZZ * q.ZZ * PP, p.ZZZ * q.ZZZ * PPP};
}

}  // namespace cuzk::zk::xyzz
