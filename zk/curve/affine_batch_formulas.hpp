// Affine point addition split around its one inversion (a = 0 short Weierstrass), so that a batch
// of additions shares a single inversion by Montgomery's trick: for each addition acc += p, `plan`
// says which case applies and gives its denominator d; the caller multiplies the batch's d into
// running prefix products, inverts the last one, walks back (1/d_j = inv * prefix_(j-1), then
// inv *= d_j) and calls `finish` with each 1/d. An addition then costs 3 products for the trick
// and 3 for the formula (lambda, lambda^2, lambda (x1 - x3)) plus its share of the inversion,
// against ~10 for a mixed XYZZ addition.
//
// Written once for the host (tests: zk's fp / fp2) and the device (the batch-affine accumulation
// of gpu/src/msm.cuh), like xyzz_formulas.hpp. The point at infinity is (0, 0) (not on the curve:
// b != 0), as in the zkey's affine layout. The collisions of a batch are cases of `plan`:
// acc at infinity (takes p, no inversion), p == acc (doubling: d = 2y), p == -acc (infinity, no
// inversion). The same bucket twice in one batch cannot happen to a caller that gives each
// accumulator at most one addition per batch.
#pragma once

#include "zk/curve/xyzz_formulas.hpp"  // CUZK_XYZZ_FN

namespace cuzk::zk::affine_batch {

enum op : unsigned { none = 0, take = 1, add = 2, dbl = 3, cancel = 4 };

template <class F>
CUZK_XYZZ_FN bool is_infinity(const F& x, const F& y) {
  return x.is_zero() && y.is_zero();
}

// The case of (ax, ay) += (px, py) (p not at infinity) and its denominator (one when there is
// nothing to invert).
template <class F>
CUZK_XYZZ_FN unsigned plan(const F& ax, const F& ay, const F& px, const F& py, F& d) {
  if (is_infinity(ax, ay)) {
    d = F::one();
    return take;
  }
  F dx = px - ax;
  if (!dx.is_zero()) {
    d = dx;
    return add;
  }
  if ((py - ay).is_zero()) {
    d = ay.dbl();  // y != 0: the curve's order is odd
    return dbl;
  }
  d = F::one();
  return cancel;
}

// The denominator of a planned case again (the backward walk needs it and keeps no copy).
template <class F>
CUZK_XYZZ_FN F denominator(unsigned o, const F& ax, const F& ay, const F& px) {
  if (o == add) return px - ax;
  if (o == dbl) return ay.dbl();
  return F::one();
}

// (ax, ay) += (px, py) for a planned case, given inv = 1 / d.
template <class F>
CUZK_XYZZ_FN void finish(unsigned o, F& ax, F& ay, const F& px, const F& py, const F& inv) {
  if (o == take) {
    ax = px;
    ay = py;
  } else if (o == cancel) {
    ax = F::zero();
    ay = F::zero();
  } else if (o == add || o == dbl) {
    F lambda;
    if (o == add) {
      lambda = (py - ay) * inv;
    } else {
      F m = ax.sqr();
      lambda = (m.dbl() + m) * inv;
    }
    F x3 = lambda.sqr() - ax - px;  // dbl: px == ax
    ay = lambda * (ax - x3) - ay;
    ax = x3;
  }
}

}  // namespace cuzk::zk::affine_batch
