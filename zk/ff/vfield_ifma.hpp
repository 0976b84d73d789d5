// vfield<F>: the eight-lane vector form of BLS12-381's Fp and Fp2 behind one interface (mul,
// sqr, add, sub, neg, zero test, select, lane access, gather and scatter, the batch inversion's
// norm), so that code over a curve's coordinates (the MSM's buckets, the key loader's on-curve
// checks) is written once for G1 and G2. W is the number of radix-2^52 elements per coordinate.
//
// Include only inside a CUZK_IFMA_TARGET_BEGIN / _END region, after zk/ff/fp_ifma.hpp.
#pragma once

#include "zk/ff/fp_ifma.hpp"

namespace cuzk::zk::ifma {

using bls12_381::fp2;

template <class F>
struct vfield;

template <>
struct vfield<fp> {
  static constexpr int W = 1;
  using V = v8;
  static V mul(const V& a, const V& b) { return ifma::mul(a, b); }
  static V sqr(const V& a) { return ifma::sqr(a); }
  static V sub(const V& a, const V& b) { return ifma::sub(a, b); }
  static V add(const V& a, const V& b) { return ifma::add(a, b); }
  static V neg(const V& a) { return ifma::neg(a); }
  static fp get_lane(const V& v, int l) {
    fe52 e;
    for (int j = 0; j < limbs; ++j) e.l[j] = u64(v.l[j][l]);
    return ifma::to_scalar(e);
  }
  static void set_lane(V& v, int l, const fp& x) {
    fe52 e = ifma::to_vec(x);
    for (int j = 0; j < limbs; ++j) v.l[j][l] = (long long)e.l[j];
  }
  static __mmask8 zero_mask(const V& a) { return is_zero_mod_p(a); }
  static V select(__mmask8 m, const V& a, const V& b) {  // b in the lanes of m, else a
    V r;
    for (int j = 0; j < limbs; ++j) r.l[j] = _mm512_mask_blend_epi64(m, a.l[j], b.l[j]);
    return r;
  }
  static V one() { return broadcast(k.one); }
  static V load(const fe52* const* src) { return gather(src); }
  static void store(const V& v, fe52* const* dst, __mmask8 keep) { scatter(v, dst, keep); }
  static void to_vec(const fp& x, fe52* out) { out[0] = ifma::to_vec(x); }
  static void raw52(const fp& x, fe52* out) { out[0] = radix52(x.m); }  // x * 2^384, radix 2^52
  static fp to_scalar(const fe52* in) { return ifma::to_scalar(in[0]); }
  // The batch inversions run in Fp: an Fp element is its own norm.
  static V norm(const V& a) { return a; }
  static V inverse_from_norm(const V&, const V& inv_norm) { return inv_norm; }
};

template <>
struct vfield<fp2> {
  static constexpr int W = 2;
  using B = vfield<fp>;
  struct V {
    v8 c0, c1;
  };
  // (a0 + a1 u)(b0 + b1 u) with u^2 = -1, Karatsuba with lazy reduction: three double-width
  // products, the sums unreduced, and one reduction per coefficient (two, not three).
  static V mul(const V& a, const V& b) {
    v8_wide t0 = mul_wide(a.c0, b.c0), t1 = mul_wide(a.c1, b.c1), s01;
    for (int c = 0; c < 2 * limbs; ++c) s01.t[c] = _mm512_add_epi64(t0.t[c], t1.t[c]);
    v8 c0 = redc(sub_wide(t0, t1));
    v8 c1 = redc(sub_wide(mul_wide(add_unreduced(a.c0, a.c1), add_unreduced(b.c0, b.c1)), s01));
    return {c0, c1};
  }
  // (a0 + a1)(a0 - a1) + 2 a0 a1 u
  static V sqr(const V& a) {
    return {ifma::mul(add_unreduced(a.c0, a.c1), ifma::sub(a.c0, a.c1)), ifma::mul(add_unreduced(a.c0, a.c0), a.c1)};
  }
  static V sub(const V& a, const V& b) { return {ifma::sub(a.c0, b.c0), ifma::sub(a.c1, b.c1)}; }
  static V add(const V& a, const V& b) { return {ifma::add(a.c0, b.c0), ifma::add(a.c1, b.c1)}; }
  static V neg(const V& a) { return {ifma::neg(a.c0), ifma::neg(a.c1)}; }
  static fp2 get_lane(const V& v, int l) { return {B::get_lane(v.c0, l), B::get_lane(v.c1, l)}; }
  static void set_lane(V& v, int l, const fp2& x) { B::set_lane(v.c0, l, x.c0), B::set_lane(v.c1, l, x.c1); }
  static __mmask8 zero_mask(const V& a) { return is_zero_mod_p(a.c0) & is_zero_mod_p(a.c1); }
  static V select(__mmask8 m, const V& a, const V& b) { return {B::select(m, a.c0, b.c0), B::select(m, a.c1, b.c1)}; }
  static V one() { return {broadcast(k.one), v8{}}; }
  static V load(const fe52* const* src) {
    const fe52* hi[8];
    for (int i = 0; i < 8; ++i) hi[i] = src[i] + 1;
    return {gather(src), gather(hi)};
  }
  static void store(const V& v, fe52* const* dst, __mmask8 keep) {
    fe52* hi[8];
    for (int i = 0; i < 8; ++i) hi[i] = dst[i] + 1;
    scatter(v.c0, dst, keep);
    scatter(v.c1, hi, keep);
  }
  static void to_vec(const fp2& x, fe52* out) { out[0] = ifma::to_vec(x.c0), out[1] = ifma::to_vec(x.c1); }
  static void raw52(const fp2& x, fe52* out) { out[0] = radix52(x.c0.m), out[1] = radix52(x.c1.m); }
  static fp2 to_scalar(const fe52* in) { return {ifma::to_scalar(in[0]), ifma::to_scalar(in[1])}; }
  // a0^2 + a1^2 = a conj(a), in Fp: the batch inversions multiply norms (one Fp product per step
  // instead of an Fp2 product's three) and 1/a = conj(a) / N(a) costs two Fp products at the end.
  static v8 norm(const V& a) {
    v8_wide t0 = mul_wide(a.c0, a.c0), t1 = mul_wide(a.c1, a.c1);
    for (int c = 0; c < 2 * limbs; ++c) t0.t[c] = _mm512_add_epi64(t0.t[c], t1.t[c]);
    return redc(t0);
  }
  static V inverse_from_norm(const V& a, const v8& inv_norm) {
    return {ifma::mul(a.c0, inv_norm), ifma::mul(ifma::neg(a.c1), inv_norm)};
  }
};

}  // namespace cuzk::zk::ifma
