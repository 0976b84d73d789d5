// Eight elements of a prime field at once on AVX-512 IFMA (VPMADD52LUQ / VPMADD52HUQ): the
// arithmetic that fp_ifma.hpp (Fp, 8 limbs) and fr_ifma.hpp (Fr, 5 limbs) instantiate.
//
// An element is L limbs of 52 bits in Montgomery form with R = 2^(52 L), lazily reduced: any
// representative in [0, 2m) with every limb below 2^52, where 4m < R so that the product of two
// such values is again below 2m without a final subtraction; add and sub end in one conditional
// correction by 2m. Params supplies L, the limbs of m and 2m, and -m^-1 mod 2^52.
//
// Include only inside a CUZK_IFMA_TARGET_BEGIN / _END region (zk/ff/ifma_target.hpp).
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace cuzk::zk::ifma_lanes {

using u64 = std::uint64_t;
inline constexpr u64 mask52 = (u64{1} << 52) - 1;

// l[j] holds limb j of all eight lanes.
template <int L>
struct lanes {
  __m512i l[L];
};

// A double-width product in 2L columns of 64 bits, not yet carried: column c holds the sum of
// the 52-bit halves of products landing at bit 52c (at most 2L of them).
template <int L>
struct wide {
  __m512i t[2 * L];
};

inline __m512i bcast(u64 x) { return _mm512_set1_epi64((long long)x); }

// Carries limbs 0 .. L-2 into their successors (limbs may be negative: arithmetic shifts).
template <int L>
inline void carry(__m512i* t) {
  const __m512i m = bcast(mask52);
  for (int j = 0; j < L - 1; ++j) {
    t[j + 1] = _mm512_add_epi64(t[j + 1], _mm512_srai_epi64(t[j], 52));
    t[j] = _mm512_and_si512(t[j], m);
  }
}

// x - c where that is non-negative, else x (limbs carried; c a constant such as m or 2m).
template <int L>
inline lanes<L> sub_if_above(const lanes<L>& x, const u64* c) {
  lanes<L> d, r;
  for (int j = 0; j < L; ++j) d.l[j] = _mm512_sub_epi64(x.l[j], bcast(c[j]));
  carry<L>(d.l);
  __mmask8 neg = _mm512_movepi64_mask(d.l[L - 1]);  // the sign of the top limb
  for (int j = 0; j < L; ++j) r.l[j] = _mm512_mask_blend_epi64(neg, d.l[j], x.l[j]);
  return r;
}

// a + b carried but not reduced: below 4m, good only as an operand of mul.
template <int L>
inline lanes<L> add_unreduced(const lanes<L>& a, const lanes<L>& b) {
  lanes<L> s;
  for (int j = 0; j < L; ++j) s.l[j] = _mm512_add_epi64(a.l[j], b.l[j]);
  carry<L>(s.l);
  return s;
}

template <class P>
inline lanes<P::L> add(const lanes<P::L>& a, const lanes<P::L>& b) {
  return sub_if_above<P::L>(add_unreduced<P::L>(a, b), P::two_m);
}

template <class P>
inline lanes<P::L> sub(const lanes<P::L>& a, const lanes<P::L>& b) {
  constexpr int L = P::L;
  lanes<L> d, e, r;
  for (int j = 0; j < L; ++j) {
    d.l[j] = _mm512_sub_epi64(a.l[j], b.l[j]);
    e.l[j] = _mm512_add_epi64(d.l[j], bcast(P::two_m[j]));
  }
  carry<L>(d.l);
  carry<L>(e.l);
  __mmask8 neg = _mm512_movepi64_mask(d.l[L - 1]);
  for (int j = 0; j < L; ++j) r.l[j] = _mm512_mask_blend_epi64(neg, d.l[j], e.l[j]);
  return r;
}

// 2m - a: the negation of a value in [0, 2m], itself in [0, 2m].
template <class P>
inline lanes<P::L> neg(const lanes<P::L>& a) {
  lanes<P::L> d;
  for (int j = 0; j < P::L; ++j) d.l[j] = _mm512_sub_epi64(bcast(P::two_m[j]), a.l[j]);
  carry<P::L>(d.l);
  return d;
}

template <int L>
[[gnu::always_inline]] inline wide<L> mul_wide(const lanes<L>& a, const lanes<L>& b) {
  wide<L> w;
  const __m512i zero = _mm512_setzero_si512();
  for (auto& x : w.t) x = zero;
#pragma GCC unroll 8
  for (int i = 0; i < L; ++i) {
#pragma GCC unroll 8
    for (int j = 0; j < L; ++j) {
      w.t[i + j] = _mm512_madd52lo_epu64(w.t[i + j], a.l[j], b.l[i]);
      w.t[i + j + 1] = _mm512_madd52hi_epu64(w.t[i + j + 1], a.l[j], b.l[i]);
    }
  }
  return w;
}

// Montgomery reduction w / R mod m of a double-width value below m R / 2 whose columns are
// non-negative and below 2^62: L rows, then the carries. Result below 2m.
// Always inlined: out of line, the double-width value (2L vectors) goes through memory, and
// the compiler's choice flips with unrelated edits elsewhere in a file (measured: -10% on an MSM).
template <class P>
[[gnu::always_inline]] inline lanes<P::L> redc(wide<P::L> w) {
  constexpr int L = P::L;
  __m512i* t = w.t;
  const __m512i zero = _mm512_setzero_si512();
  const __m512i inv = bcast(P::inv52);
#pragma GCC unroll 8
  for (int i = 0; i < L; ++i) {
    // q depends only on t[i] mod 2^52, which is all that VPMADD52 reads of it.
    __m512i q = _mm512_madd52lo_epu64(zero, t[i], inv);
#pragma GCC unroll 8
    for (int j = 0; j < L; ++j) {
      t[i + j] = _mm512_madd52lo_epu64(t[i + j], q, bcast(P::m[j]));
      t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], q, bcast(P::m[j]));
    }
    t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_srli_epi64(t[i], 52));  // t[i] is now 0 mod 2^52
  }
  lanes<L> r;
  for (int j = 0; j < L; ++j) r.l[j] = t[L + j];
  carry<L>(r.l);
  return r;
}

// a * b / R for operands with limbs below 2^52 and product below m R / 2: below 2m. A column
// collects at most 4L 52-bit terms plus carries, so the 64-bit lanes never overflow.
template <class P>
inline lanes<P::L> mul(const lanes<P::L>& a, const lanes<P::L>& b) {
  return redc<P>(mul_wide<P::L>(a, b));
}

// a^2: the cross products once, doubled.
template <class P>
inline lanes<P::L> sqr(const lanes<P::L>& a) {
  constexpr int L = P::L;
  wide<L> w, d;
  const __m512i zero = _mm512_setzero_si512();
  for (int j = 0; j < 2 * L; ++j) w.t[j] = zero, d.t[j] = zero;
#pragma GCC unroll 8
  for (int i = 0; i < L; ++i) {
#pragma GCC unroll 8
    for (int j = i + 1; j < L; ++j) {
      d.t[i + j] = _mm512_madd52lo_epu64(d.t[i + j], a.l[j], a.l[i]);
      d.t[i + j + 1] = _mm512_madd52hi_epu64(d.t[i + j + 1], a.l[j], a.l[i]);
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < L; ++i) {
    w.t[2 * i] = _mm512_madd52lo_epu64(_mm512_add_epi64(d.t[2 * i], d.t[2 * i]), a.l[i], a.l[i]);
    w.t[2 * i + 1] = _mm512_madd52hi_epu64(_mm512_add_epi64(d.t[2 * i + 1], d.t[2 * i + 1]), a.l[i], a.l[i]);
  }
  return redc<P>(w);
}

// Lanes equal to 0 mod m (0 or m: values are below 2m).
template <class P>
inline __mmask8 is_zero_mod(const lanes<P::L>& a) {
  __mmask8 z = 0xff, e = 0xff;
  for (int j = 0; j < P::L; ++j) {
    z &= _mm512_cmpeq_epi64_mask(a.l[j], _mm512_setzero_si512());
    e &= _mm512_cmpeq_epi64_mask(a.l[j], bcast(P::m[j]));
  }
  return z | e;
}

}  // namespace cuzk::zk::ifma_lanes
