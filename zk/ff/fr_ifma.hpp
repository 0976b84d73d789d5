// Eight BLS12-381 Fr elements at once on AVX-512 IFMA: the NTT's field (zk/ntt/ntt_ifma.cpp).
//
// Radix 2^52, 5 limbs (260 bits), Montgomery form with R = 2^260, lazily reduced below 2r (the
// arithmetic is ifma_lanes.hpp's, for 5 limbs). The scalar fr uses R = 2^256; the NTT keeps its data in that form and stores its
// twiddles as w * 2^260 instead, so that mul(x * 2^256, w * 2^260) = x * w * 2^256 and the data
// needs only the radix change (shifts) on the way in and out.
//
// Include only inside a CUZK_IFMA_TARGET_BEGIN / _END region (zk/ff/ifma_target.hpp).
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "zk/bls12_381/fields.hpp"
#include "zk/ff/ifma_lanes.hpp"

namespace cuzk::zk::ifma_fr {

using u64 = std::uint64_t;
using bls12_381::fr;
inline constexpr int limbs = 5;
using ifma_lanes::mask52;

struct constants {
  u64 r[limbs], two_r[limbs], to_r260[limbs];  // to_r260: 2^264 mod r (x * 2^256 -> x * 2^260)
  u64 inv52;                                   // -r^-1 mod 2^52
};

inline constexpr void split52(const bigint<4>& x, u64* out) {
  out[0] = x.limb[0] & mask52;
  out[1] = ((x.limb[0] >> 52) | (x.limb[1] << 12)) & mask52;
  out[2] = ((x.limb[1] >> 40) | (x.limb[2] << 24)) & mask52;
  out[3] = ((x.limb[2] >> 28) | (x.limb[3] << 36)) & mask52;
  out[4] = x.limb[3] >> 16;
}

inline constexpr constants make_constants() {
  constants c{};
  split52(fr::P, c.r);
  bigint<4> r2 = fr::P;
  r2.add_in_place(fr::P);
  split52(r2, c.two_r);
  split52(detail::pow2_mod(fr::P, 264), c.to_r260);
  c.inv52 = detail::neg_inv64(fr::P.limb[0]) & mask52;
  return c;
}
inline constexpr constants k = make_constants();

// The field's parameters for ifma_lanes.hpp.
struct fr52 {
  static constexpr int L = limbs;
  static constexpr const u64* m = k.r;
  static constexpr const u64* two_m = k.two_r;
  static constexpr u64 inv52 = k.inv52;
};

using v5 = ifma_lanes::lanes<limbs>;
using ifma_lanes::bcast;

inline v5 add(const v5& a, const v5& b) { return ifma_lanes::add<fr52>(a, b); }
inline v5 sub(const v5& a, const v5& b) { return ifma_lanes::sub<fr52>(a, b); }
inline v5 mul(const v5& a, const v5& b) { return ifma_lanes::mul<fr52>(a, b); }

// Eight consecutive fr (their Montgomery representations, 4 x 64 bits each) <-> lanes.
inline v5 load8(const fr* src) {
  const __m512i* p = reinterpret_cast<const __m512i*>(src);
  __m512i a = _mm512_loadu_si512(p), b = _mm512_loadu_si512(p + 1), c = _mm512_loadu_si512(p + 2),
          d = _mm512_loadu_si512(p + 3);
  __m512i x[4];
  for (int j = 0; j < 4; ++j) {
    __m512i lo = _mm512_permutex2var_epi64(a, _mm512_set_epi64(0, 0, 0, 0, 12 + j, 8 + j, 4 + j, j), b);
    __m512i hi = _mm512_permutex2var_epi64(c, _mm512_set_epi64(12 + j, 8 + j, 4 + j, j, 0, 0, 0, 0), d);
    x[j] = _mm512_mask_blend_epi64(0xf0, lo, hi);
  }
  const __m512i m = bcast(mask52);
  v5 r;
  r.l[0] = _mm512_and_si512(x[0], m);
  r.l[1] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(x[0], 52), _mm512_slli_epi64(x[1], 12)), m);
  r.l[2] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(x[1], 40), _mm512_slli_epi64(x[2], 24)), m);
  r.l[3] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(x[2], 28), _mm512_slli_epi64(x[3], 36)), m);
  r.l[4] = _mm512_srli_epi64(x[3], 16);
  return r;
}

// Stores fully reduced values (below r), as fr expects.
inline void store8(const v5& v, fr* dst) {
  v5 y = ifma_lanes::sub_if_above<limbs>(v, k.r);
  __m512i x[4];
  x[0] = _mm512_or_si512(y.l[0], _mm512_slli_epi64(y.l[1], 52));
  x[1] = _mm512_or_si512(_mm512_srli_epi64(y.l[1], 12), _mm512_slli_epi64(y.l[2], 40));
  x[2] = _mm512_or_si512(_mm512_srli_epi64(y.l[2], 24), _mm512_slli_epi64(y.l[3], 28));
  x[3] = _mm512_or_si512(_mm512_srli_epi64(y.l[3], 36), _mm512_slli_epi64(y.l[4], 16));
  const __m512i lo01 = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0), hi01 = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
  __m512i m01 = _mm512_permutex2var_epi64(x[0], lo01, x[1]), m23 = _mm512_permutex2var_epi64(x[2], lo01, x[3]);
  __m512i n01 = _mm512_permutex2var_epi64(x[0], hi01, x[1]), n23 = _mm512_permutex2var_epi64(x[2], hi01, x[3]);
  const __m512i first = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0), second = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
  __m512i* p = reinterpret_cast<__m512i*>(dst);
  _mm512_storeu_si512(p, _mm512_permutex2var_epi64(m01, first, m23));
  _mm512_storeu_si512(p + 1, _mm512_permutex2var_epi64(m01, second, m23));
  _mm512_storeu_si512(p + 2, _mm512_permutex2var_epi64(n01, first, n23));
  _mm512_storeu_si512(p + 3, _mm512_permutex2var_epi64(n01, second, n23));
}

// Lanes of 8 scalar twiddles (Montgomery fr) in the vector twiddle form w * 2^260.
inline v5 twiddles(const fr* w) {
  v5 x = load8(w);  // (values below r: already reduced)
  v5 c;
  for (int j = 0; j < limbs; ++j) c.l[j] = bcast(k.to_r260[j]);
  return mul(x, c);
}

}  // namespace cuzk::zk::ifma_fr
