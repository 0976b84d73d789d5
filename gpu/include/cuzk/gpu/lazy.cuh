// Field values kept in [0, 2p) instead of [0, p) ("lazy" reduction), for the NTT's passes.
//
// A Montgomery product a b / R with a < p and any b < 2^(32N) is below a + p < 2p before its final
// conditional subtraction (mont.cuh, operator*'s bounds), so a chain of butterflies can drop that
// subtraction (~17 SASS instructions of ~210 for Fr) if the sums and differences work modulo 2p
// instead of p: a + b < 4p (Fr: 4p > 2^256, so the sum's carry out of the top limb is kept) less
// 2p when at least 2p, and a - b plus 2p when negative, both back in [0, 2p) for inputs below 2p.
// They cost what the reduced + and - cost (one instruction more for the carry). The first operand
// of mul must be reduced (the NTT's roots and twiddles are); reduce() takes [0, 2p) to [0, p).
// Needs the modulus' top bit spare (2p < 2^(32N)); both BLS12-381 fields have it.
#pragma once

#include "cuzk/gpu/mont.cuh"

namespace cuzk::gpu::lazy {

// Limb i of 2p.
template <class P>
CUZK_HD constexpr uint32_t twice_mod(int i) {
  return (P::mod(i) << 1) | (i > 0 ? P::mod(i - 1) >> 31 : 0u);
}

// a + b mod 2p for a, b < 2p: in [0, 2p).
template <class P>
CUZK_HD mont_t<P> add(const mont_t<P>& a, const mont_t<P>& b) {
  constexpr int N = P::N;
  static_assert(P::mod(N - 1) < 0x80000000u, "2p must fit the limbs");
  mont_t<P> s, t;
  s.v[0] = ptx::add_cc(a.v[0], b.v[0]);
CUZK_UNROLL
  for (int i = 1; i < N; ++i) s.v[i] = ptx::addc_cc(a.v[i], b.v[i]);
  const uint32_t carry = ptx::addc(0, 0);
  t.v[0] = ptx::sub_cc(s.v[0], twice_mod<P>(0));
CUZK_UNROLL
  for (int i = 1; i < N; ++i) t.v[i] = ptx::subc_cc(s.v[i], twice_mod<P>(i));
  // carry - borrow: 0 when s (with its carry) is at least 2p, all ones when it is below.
  const uint32_t below = ptx::subc(carry, 0);
CUZK_UNROLL
  for (int i = 0; i < N; ++i) s.v[i] = below ? s.v[i] : t.v[i];
  return s;
}

// a - b mod 2p for a, b < 2p: in [0, 2p).
template <class P>
CUZK_HD mont_t<P> sub(const mont_t<P>& a, const mont_t<P>& b) {
  constexpr int N = P::N;
  mont_t<P> r;
  r.v[0] = ptx::sub_cc(a.v[0], b.v[0]);
CUZK_UNROLL
  for (int i = 1; i < N; ++i) r.v[i] = ptx::subc_cc(a.v[i], b.v[i]);
  const uint32_t mask = ptx::subc(0, 0);
  r.v[0] = ptx::add_cc(r.v[0], twice_mod<P>(0) & mask);
CUZK_UNROLL
  for (int i = 1; i < N - 1; ++i) r.v[i] = ptx::addc_cc(r.v[i], twice_mod<P>(i) & mask);
  r.v[N - 1] = ptx::addc(r.v[N - 1], twice_mod<P>(N - 1) & mask);
  return r;
}

// a b / R mod p in [0, 2p), for a < p and any b (b < 2p here).
template <class P>
CUZK_HD mont_t<P> mul(const mont_t<P>& a, const mont_t<P>& b) {
  return mont_t<P>::mul_unreduced(a, b);
}

// a / 2^s mod p in [0, 2p), for a < 2p and 1 <= s <= 31 (the inverse NTT's 1/n, n = 2^s): one
// Montgomery step of radix 2^s instead of a product by n^-1. m = a (-p^-1) mod 2^s makes a + m p
// a multiple of 2^s, and (a + m p) / 2^s < (2p + 2^s p) / 2^s <= 2p; in Montgomery form (x R) / 2^s
// is (x / 2^s) R. N wide multiply-adds and N shifts: Fr ~70 SASS instructions with s at run time
// (sm_90, counted in a one-kernel cubin) against ~236 for the reduced product by n^-1.
template <class P>
CUZK_HD mont_t<P> div_pow2(const mont_t<P>& a, unsigned s) {
  constexpr int N = P::N;
  const uint32_t m = (a.v[0] * P::m0) & ((1u << s) - 1);
  uint32_t t[N + 1];
  uint64_t c = 0;  // m p_i + a_i + carry < 2^64
CUZK_UNROLL
  for (int i = 0; i < N; ++i) {
    c += uint64_t(m) * P::mod(i) + a.v[i];
    t[i] = uint32_t(c);
    c >>= 32;
  }
  t[N] = uint32_t(c);
  mont_t<P> r;
CUZK_UNROLL
  for (int i = 0; i < N; ++i) r.v[i] = (t[i] >> s) | (t[i + 1] << (32 - s));
  return r;
}

// [0, 2p) -> [0, p).
template <class P>
CUZK_HD mont_t<P> reduce(mont_t<P> a) {
  mont_t<P>::reduce_once(a.v);
  return a;
}

}  // namespace cuzk::gpu::lazy
