// Eight BLS12-381 Fp elements at once, on AVX-512 IFMA (VPMADD52LUQ / VPMADD52HUQ).
//
// Why: the scalar MULX product (montgomery_x86_64.hpp) is ~90 cycles and bound by its carry
// chains; IFMA multiplies eight 52-bit pairs per instruction, so eight independent products (eight
// bucket additions of a batch-affine MSM) cost about as much as two or three scalar ones.
//
// Lane values use radix52.hpp's form: radix 2^52, R = 2^416, lazily reduced to [0, 2p). Since
// 4p < 2^416 the Montgomery product of two such values is again below 2p without a final
// subtraction; add and sub end in one conditional correction by 2p.
//
// Include only inside a CUZK_IFMA_TARGET_BEGIN / _END region (zk/ff/ifma_target.hpp), and run
// that code only where the CPU has AVX-512 IFMA.
#pragma once

#include <immintrin.h>

#include "zk/ff/radix52.hpp"

namespace cuzk::zk::ifma {

// Eight lanes of one element: l[j] holds limb j of all eight lanes.
struct v8 {
  __m512i l[limbs];
};

inline __m512i bcast(u64 x) { return _mm512_set1_epi64((long long)x); }

// Carries limbs 0..6 into their successors (limb values may be negative: arithmetic shifts).
inline void carry_signed(__m512i* t) {
  const __m512i m = bcast(mask52);
  for (int j = 0; j < limbs - 1; ++j) {
    t[j + 1] = _mm512_add_epi64(t[j + 1], _mm512_srai_epi64(t[j], 52));
    t[j] = _mm512_and_si512(t[j], m);
  }
}

// s - 2p where that is non-negative, else s (s in [0, 4p), limbs carried): result in [0, 2p).
inline v8 reduce_2p(const v8& s) {
  v8 d;
  for (int j = 0; j < limbs; ++j) d.l[j] = _mm512_sub_epi64(s.l[j], bcast(k.two_p.l[j]));
  carry_signed(d.l);
  __mmask8 neg = _mm512_movepi64_mask(d.l[limbs - 1]);  // sign of the top limb
  v8 r;
  for (int j = 0; j < limbs; ++j) r.l[j] = _mm512_mask_blend_epi64(neg, d.l[j], s.l[j]);
  return r;
}

inline v8 add(const v8& a, const v8& b) {
  v8 s;
  for (int j = 0; j < limbs; ++j) s.l[j] = _mm512_add_epi64(a.l[j], b.l[j]);
  carry_signed(s.l);
  return reduce_2p(s);
}

// a + b carried but not reduced: below 4p, good only as an operand of mul.
inline v8 add_unreduced(const v8& a, const v8& b) {
  v8 s;
  for (int j = 0; j < limbs; ++j) s.l[j] = _mm512_add_epi64(a.l[j], b.l[j]);
  carry_signed(s.l);
  return s;
}

inline v8 sub(const v8& a, const v8& b) {
  v8 d, e;
  for (int j = 0; j < limbs; ++j) {
    d.l[j] = _mm512_sub_epi64(a.l[j], b.l[j]);
    e.l[j] = _mm512_add_epi64(d.l[j], bcast(k.two_p.l[j]));
  }
  carry_signed(d.l);
  carry_signed(e.l);
  __mmask8 neg = _mm512_movepi64_mask(d.l[limbs - 1]);
  v8 r;
  for (int j = 0; j < limbs; ++j) r.l[j] = _mm512_mask_blend_epi64(neg, d.l[j], e.l[j]);
  return r;
}

// 2p - a: the negation of a value in [0, 2p], itself in [0, 2p].
inline v8 neg(const v8& a) {
  v8 d;
  for (int j = 0; j < limbs; ++j) d.l[j] = _mm512_sub_epi64(bcast(k.two_p.l[j]), a.l[j]);
  carry_signed(d.l);
  return d;
}

// A double-width product in 16 columns of 64 bits, not yet carried: column k holds the sum of
// the 52-bit halves of products landing at bit 52k (at most 16 of them, so below 2^56).
struct v8_wide {
  __m512i t[2 * limbs];
};

inline v8_wide mul_wide(const v8& a, const v8& b) {
  v8_wide w;
  const __m512i zero = _mm512_setzero_si512();
  for (auto& x : w.t) x = zero;
#pragma GCC unroll 8
  for (int i = 0; i < limbs; ++i) {
#pragma GCC unroll 8
    for (int j = 0; j < limbs; ++j) {
      w.t[i + j] = _mm512_madd52lo_epu64(w.t[i + j], a.l[j], b.l[i]);
      w.t[i + j + 1] = _mm512_madd52hi_epu64(w.t[i + j + 1], a.l[j], b.l[i]);
    }
  }
  return w;
}

// Montgomery reduction w / 2^416 mod p of a double-width value below p * 2^416 / 2 whose columns
// are non-negative and below 2^62: eight rows, then the carries. Result below 2p.
inline v8 redc(v8_wide w) {
  __m512i* t = w.t;
  const __m512i zero = _mm512_setzero_si512();
  const __m512i inv = bcast(k.inv52);
#pragma GCC unroll 8
  for (int i = 0; i < limbs; ++i) {
    // m depends only on t[i] mod 2^52, which is all that VPMADD52 reads of it.
    __m512i m = _mm512_madd52lo_epu64(zero, t[i], inv);
#pragma GCC unroll 8
    for (int j = 0; j < limbs; ++j) {
      t[i + j] = _mm512_madd52lo_epu64(t[i + j], m, bcast(k.p.l[j]));
      t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], m, bcast(k.p.l[j]));
    }
    t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_srli_epi64(t[i], 52));  // t[i] is now 0 mod 2^52
  }
  v8 r;
  for (int j = 0; j < limbs; ++j) r.l[j] = t[limbs + j];
  carry_signed(r.l);
  return r;
}

// Montgomery product a * b / 2^416 for operands below 2^398 (limbs < 2^52): below 2p.
// Product scanning into 16 columns, then eight reduction rows; a column collects at most 32
// 52-bit terms plus carries, so the 64-bit lanes never overflow.
inline v8 mul(const v8& a, const v8& b) { return redc(mul_wide(a, b)); }

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

// a^2: the cross products once, doubled.
inline v8 sqr(const v8& a) {
  v8_wide w, d;
  const __m512i zero = _mm512_setzero_si512();
  for (int j = 0; j < 2 * limbs; ++j) w.t[j] = zero, d.t[j] = zero;
#pragma GCC unroll 8
  for (int i = 0; i < limbs; ++i) {
#pragma GCC unroll 8
    for (int j = i + 1; j < limbs; ++j) {
      d.t[i + j] = _mm512_madd52lo_epu64(d.t[i + j], a.l[j], a.l[i]);
      d.t[i + j + 1] = _mm512_madd52hi_epu64(d.t[i + j + 1], a.l[j], a.l[i]);
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < limbs; ++i) {
    w.t[2 * i] = _mm512_madd52lo_epu64(_mm512_add_epi64(d.t[2 * i], d.t[2 * i]), a.l[i], a.l[i]);
    w.t[2 * i + 1] = _mm512_madd52hi_epu64(_mm512_add_epi64(d.t[2 * i + 1], d.t[2 * i + 1]), a.l[i], a.l[i]);
  }
  return redc(w);
}

// Lanes equal to 0 mod p (0 or p: values are below 2p).
inline __mmask8 is_zero_mod_p(const v8& a) {
  __mmask8 z = 0xff, e = 0xff;
  for (int j = 0; j < limbs; ++j) {
    z &= _mm512_cmpeq_epi64_mask(a.l[j], _mm512_setzero_si512());
    e &= _mm512_cmpeq_epi64_mask(a.l[j], bcast(k.p.l[j]));
  }
  return z | e;
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
