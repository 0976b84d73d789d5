// Eight BLS12-381 Fp elements at once, on AVX-512 IFMA (VPMADD52LUQ / VPMADD52HUQ).
//
// Why: the scalar MULX product (montgomery_x86_64.hpp) is ~90 cycles and bound by its carry
// chains; IFMA multiplies eight 52-bit pairs per instruction, so eight independent products (eight
// bucket additions of a batch-affine MSM) cost about as much as two or three scalar ones.
//
// Lane values use radix52.hpp's form: radix 2^52, R = 2^416, lazily reduced to [0, 2p); the
// arithmetic is ifma_lanes.hpp's, for 8 limbs. Here: the Fp parameters, the Fp2 products'
// lazy-reduction offset, and the 8x8 transposes that gather and scatter lanes.
//
// Include only inside a CUZK_IFMA_TARGET_BEGIN / _END region (zk/ff/ifma_target.hpp), and run
// that code only where the CPU has AVX-512 IFMA.
#pragma once

#include <immintrin.h>

#include "zk/ff/ifma_lanes.hpp"
#include "zk/ff/radix52.hpp"

namespace cuzk::zk::ifma {

// The field's parameters for ifma_lanes.hpp.
struct fp52 {
  static constexpr int L = limbs;
  static constexpr const u64* m = k.p.l;
  static constexpr const u64* two_m = k.two_p.l;
  static constexpr u64 inv52 = k.inv52;
};

using v8 = ifma_lanes::lanes<limbs>;
using v8_wide = ifma_lanes::wide<limbs>;
using ifma_lanes::bcast;

inline v8 add(const v8& a, const v8& b) { return ifma_lanes::add<fp52>(a, b); }
inline v8 add_unreduced(const v8& a, const v8& b) { return ifma_lanes::add_unreduced<limbs>(a, b); }
inline v8 sub(const v8& a, const v8& b) { return ifma_lanes::sub<fp52>(a, b); }
inline v8 neg(const v8& a) { return ifma_lanes::neg<fp52>(a); }
inline v8_wide mul_wide(const v8& a, const v8& b) { return ifma_lanes::mul_wide<limbs>(a, b); }
inline v8 redc(const v8_wide& w) { return ifma_lanes::redc<fp52>(w); }
// Operands below 2^398 (the product below p * 2^416 / 2): below 2p.
inline v8 mul(const v8& a, const v8& b) { return ifma_lanes::mul<fp52>(a, b); }
inline v8 sqr(const v8& a) { return ifma_lanes::sqr<fp52>(a); }
inline __mmask8 is_zero_mod_p(const v8& a) { return ifma_lanes::is_zero_mod<fp52>(a); }

// x + K - y (+ K - z) column by column, where K = p * 2^408 is written with every column at
// least 2^59 (each column lends 2^60 to the one below): a multiple of p, so it leaves the
// reduced value unchanged, and large enough that no column goes negative for products of
// operands below 4p. Used for Fp2 products with one reduction per coefficient (lazy reduction):
// x + K - y < 2^790, so redc returns below 2^374 + p < 2p.
struct wide_offset {
  u64 col[2 * limbs];
};
inline constexpr wide_offset make_wide_offset() {
  bigint<13> kp{};  // p * 2^408 = p << (6 * 64 + 24)
  for (int j = 0; j < 6; ++j) {
    kp.limb[j + 6] |= fp::P.limb[j] << 24;
    kp.limb[j + 7] |= fp::P.limb[j] >> 40;
  }
  wide_offset w{};
  for (int c = 0; c < 2 * limbs; ++c) {
    unsigned bit = 52u * unsigned(c), q = bit / 64, s = bit % 64;
    u64 v = q < 13 ? kp.limb[q] >> s : 0;
    if (s > 12 && q + 1 < 13) v |= kp.limb[q + 1] << (64 - s);
    w.col[c] = v & mask52;
  }
  for (int c = 0; c + 1 < 2 * limbs; ++c) w.col[c] += u64{1} << 60, w.col[c + 1] -= u64{1} << 8;
  return w;
}
inline constexpr wide_offset kwide = make_wide_offset();
static_assert(kwide.col[2 * limbs - 1] < (u64{1} << 20), "the offset's top column must not have borrowed below zero");

inline v8_wide sub_wide(const v8_wide& x, const v8_wide& y) {
  v8_wide r;
  for (int c = 0; c < 2 * limbs; ++c)
    r.t[c] = _mm512_sub_epi64(_mm512_add_epi64(x.t[c], bcast(kwide.col[c])), y.t[c]);
  return r;
}
inline v8_wide sub_wide(const v8_wide& x, const v8_wide& y, const v8_wide& z) {
  v8_wide r;
  for (int c = 0; c < 2 * limbs; ++c)
    r.t[c] = _mm512_sub_epi64(_mm512_sub_epi64(_mm512_add_epi64(x.t[c], bcast(kwide.col[c])), y.t[c]), z.t[c]);
  return r;
}

inline v8 broadcast(const fe52& x) {
  v8 r;
  for (int j = 0; j < limbs; ++j) r.l[j] = bcast(x.l[j]);
  return r;
}

// Eight lanes from eight elements in memory and back: an 8x8 transpose of 64-bit words.
inline void transpose8(__m512i* r) {
  // Stage 1: pairs of 64-bit words; stage 2: pairs of 128-bit blocks; stage 3: 256-bit halves.
  __m512i a[8], b[8];
  for (int i = 0; i < 8; i += 2) {
    a[i] = _mm512_unpacklo_epi64(r[i], r[i + 1]);
    a[i + 1] = _mm512_unpackhi_epi64(r[i], r[i + 1]);
  }
  const __m512i lo2 = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0), hi2 = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
  for (int i = 0; i < 8; i += 4) {
    for (int j = 0; j < 2; ++j) {
      b[i + j] = _mm512_permutex2var_epi64(a[i + j], lo2, a[i + j + 2]);
      b[i + j + 2] = _mm512_permutex2var_epi64(a[i + j], hi2, a[i + j + 2]);
    }
  }
  const __m512i lo4 = _mm512_set_epi64(11, 10, 9, 8, 3, 2, 1, 0), hi4 = _mm512_set_epi64(15, 14, 13, 12, 7, 6, 5, 4);
  for (int j = 0; j < 4; ++j) {
    r[j] = _mm512_permutex2var_epi64(b[j], lo4, b[j + 4]);
    r[j + 4] = _mm512_permutex2var_epi64(b[j], hi4, b[j + 4]);
  }
}

inline v8 gather(const fe52* const* src) {
  v8 r;
  for (int i = 0; i < 8; ++i) r.l[i] = _mm512_load_si512(src[i]->l);
  transpose8(r.l);
  return r;
}

// Stores lane i to dst[i] for the lanes set in `keep`.
inline void scatter(const v8& v, fe52* const* dst, __mmask8 keep = 0xff) {
  v8 r = v;
  transpose8(r.l);
  for (int i = 0; i < 8; ++i)
    if (keep >> i & 1) _mm512_store_si512(dst[i]->l, r.l[i]);
}

}  // namespace cuzk::zk::ifma
