// Short-Weierstrass points (a = 0) for device code: affine input points with the zkey layout
// (all-zero = infinity) and XYZZ accumulators (ZZ = 0 = infinity) on the formulas the host's
// xyzz_t uses (zk/curve/xyzz_formulas.hpp, one copy for both).
#pragma once

#include "cuzk/gpu/fields.cuh"
#include "zk/curve/affine_batch_formulas.hpp"  // batch-affine additions (msm.cuh), the host's tests too
#include "zk/curve/xyzz_formulas.hpp"

namespace cuzk::gpu {

template <class F>
struct affine_d {
  F x, y;
  CUZK_HD bool is_identity() const { return x.is_zero() && y.is_zero(); }
  CUZK_HD static affine_d identity() { return {F::zero(), F::zero()}; }
};

template <class F>
struct xyzz_d {
  F X, Y, ZZ, ZZZ;

  CUZK_HD static xyzz_d identity() { return {F::zero(), F::zero(), F::zero(), F::zero()}; }
  CUZK_HD bool is_identity() const { return ZZ.is_zero(); }

  // The formulas: zk/curve/xyzz_formulas.hpp (shared with the host's xyzz_t).
  using coords = zk::xyzz::coords<F>;
  CUZK_HD coords c() const { return {X, Y, ZZ, ZZZ}; }
  CUZK_HD static xyzz_d of(const coords& p) { return {p.X, p.Y, p.ZZ, p.ZZZ}; }

  CUZK_HD xyzz_d dbl() const { return of(zk::xyzz::dbl(c())); }
  CUZK_HD static xyzz_d dbl_affine(const F& x, const F& y) { return of(zk::xyzz::dbl_affine(x, y)); }
  // this += (x, y); the caller has skipped the point at infinity.
  CUZK_HD void add_affine(const F& x, const F& y) { *this = of(zk::xyzz::add_affine(c(), x, y)); }
  CUZK_HD void add(const xyzz_d& q) { *this = of(zk::xyzz::add(c(), q.c())); }
};

using g1_affine_d = affine_d<fp_d>;
using g1_xyzz_d = xyzz_d<fp_d>;
using g2_affine_d = affine_d<fp2_dev>;
using g2_xyzz_d = xyzz_d<fp2_dev>;

}  // namespace cuzk::gpu
