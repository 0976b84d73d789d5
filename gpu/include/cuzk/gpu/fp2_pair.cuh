// Fp2 arithmetic shared by a pair of adjacent lanes: lane h (0 or 1) of the pair holds the
// component c_h of every Fp2 value c0 + c1 u (u^2 = -1), so one G2 point costs each lane half the
// registers, and the pair computes a product with the work of one lazy Karatsuba product
// (mont.cuh, fp2_d::mul_lazy: three double-width products, two REDCs) split evenly:
//
//   lane h:  t_h = a_h b_h                      (lane 0: a0 b0, lane 1: a1 b1)
//            P_h = (a0 + a1) * (rows [H h, H h + H) of b0 + b1),  H = N / 2 limbs
//   swap:    each lane sends (t_h, P_h) to the other
//   lane 0:  c0 = REDC(t0 - t1 (+ p R when negative))
//   lane 1:  c1 = REDC(P0 + 2^(32 H) P1 - t0 - t1) = REDC(a0 b1 + a1 b0)
//
// so each lane does 1.5 double-width products and one REDC. Both lanes run the same instructions
// (the lane-dependent operands are selects), as SIMT requires. The lanes' exchanges are the
// caller's (msm_g2.cu: warp shuffles); the stages here are plain functions of the values each lane
// holds, so that the host emulation checks them (gpu/tests/emulated_field_test.cpp).
//
// Bounds (p < 2^(32N - 3), R = 2^(32N)): a0 + a1 and b0 + b1 are below 2p and fit N limbs; the
// Karatsuba middle P0 + 2^(32H) P1 = (a0 + a1)(b0 + b1) < 4 p^2 < p R fits 2N limbs, and so does
// lane 0's version of it with the halves swapped (discarded there); lane 1's a0 b1 + a1 b0 < 2 p^2
// and lane 0's t0 - t1 (+ p R when negative) are in [0, p R): REDC's input bound holds on both.
#pragma once

#include "cuzk/gpu/mont.cuh"

namespace cuzk::gpu::fp2_pair {

// What a lane sends its partner after its products: t_h and its rows of the middle product.
template <class F>
struct products {
  typename F::wide t;
  uint32_t rows[F::N + F::N / 2];
};

// Lane h's rows of the middle product, from its own a_h, b_h and its partner's components
// pa = a_(1-h), pb = b_(1-h) (its t_h = F::mul_wide(a, b) needs no partner: the device computes it
// first, while the partner's components are on their way, and holds fewer registers at a time).
template <class F>
CUZK_HD void middle_rows(unsigned h, const F& a, const F& b, const F& pa, const F& pb, uint32_t* rows) {
  constexpr int N = F::N, H = N / 2;
  const F sa = F::add_unreduced(a, pa), sb = F::add_unreduced(b, pb);  // the same on both lanes
  uint32_t rows_b[H];
CUZK_UNROLL
  for (int k = 0; k < H; ++k) rows_b[k] = h ? sb.v[H + k] : sb.v[k];
  F::template mul_rows<H>(rows, sa, rows_b);
}
template <class F>
CUZK_HD products<F> mul_products(unsigned h, const F& a, const F& b, const F& pa, const F& pb) {
  products<F> r;
  r.t = F::mul_wide(a, b);
  middle_rows(h, a, b, pa, pb, r.rows);
  return r;
}

// Lane h's component of the product, from its products and its partner's.
template <class F>
CUZK_HD F mul_finish(unsigned h, const products<F>& own, const products<F>& other) {
  constexpr int N = F::N, H = N / 2;
  using W = typename F::wide;
  // The middle product on lane 1 (P0 is the partner's rows, P1 its own, 2^(32 H) up).
  W mid;
CUZK_UNROLL
  for (int k = 0; k < H; ++k) mid.v[k] = other.rows[k];
  mid.v[H] = ptx::add_cc(other.rows[H], own.rows[0]);
CUZK_UNROLL
  for (int k = H + 1; k < N + H; ++k) mid.v[k] = ptx::addc_cc(other.rows[k], own.rows[k - H]);
CUZK_UNROLL
  for (int k = N + H; k < 2 * N - 1; ++k) mid.v[k] = ptx::addc_cc(own.rows[k - H], 0);
  mid.v[2 * N - 1] = ptx::addc(own.rows[2 * N - 1 - H], 0);
  // Lane 0: t0 - t1 (+ p R); lane 1: (mid - t1) - t0, never negative. Both subtract the partner's t.
  const W m = F::wide_sub(mid, own.t);
  W x;
CUZK_UNROLL
  for (int k = 0; k < 2 * N; ++k) x.v[k] = h ? m.v[k] : own.t.v[k];
  return F::redc(F::wide_sub_mod(x, other.t));
}

// The schoolbook alternative: lane h computes c_h = REDC(a_h y + pa w), one double-width sum of two
// products (mont_t::mul_wide2) and one REDC, with only a_(1-h), b_(1-h) from its partner:
//   lane 0:  c0 = a0 b0 + a1 (p - b1)      y = b_h,       w = -pb
//   lane 1:  c1 = a1 b0 + a0 b1            y = pb (b0),   w = b_h (b1)
// Per lane 2 products instead of 1.5 and no second exchange: more multiplications, fewer other
// instructions. Both sums are below 2 p^2 < p R.
template <class F>
CUZK_HD F mul_school(unsigned h, const F& a, const F& b, const F& pa, const F& pb) {
  const F nb = -pb;
  F y, w;
CUZK_UNROLL
  for (int k = 0; k < F::N; ++k) y.v[k] = h ? pb.v[k] : b.v[k], w.v[k] = h ? b.v[k] : nb.v[k];
  return F::redc(F::mul_wide2(a, y, pa, w));
}

// Lane h's factors of the square's component c_h = x y: c0 = (a0 - a1)(a0 + a1), c1 = (2 a1) a0.
// x is reduced; y may be a0 + a1 unreduced (below 2p), which mont_t's product takes as its second
// factor (operator*: the result below x + p, then one conditional subtraction).
template <class F>
CUZK_HD void sqr_factors(unsigned h, const F& a, const F& pa, F& x, F& y) {
  const F s = F::add_unreduced(a, pa), d = a - pa, t = a.dbl();
CUZK_UNROLL
  for (int k = 0; k < F::N; ++k) x.v[k] = h ? t.v[k] : d.v[k], y.v[k] = h ? pa.v[k] : s.v[k];
}

}  // namespace cuzk::gpu::fp2_pair
