// BLS12-381 Fp elements in radix 2^52 (8 limbs, 416 bits), the memory form of the AVX-512 IFMA
// field (fp_ifma.hpp); no vector instructions here, so any translation unit may include it.
//
// Values are in Montgomery form with R = 2^416 and *lazily reduced*: any representative in
// [0, 2p) with every limb below 2^52. The scalar fp_t uses R = 2^384, so values cross between the
// two forms by one scalar product (to_vec / to_scalar).
#pragma once

#include <cstdint>

#include "zk/bls12_381/fields.hpp"

namespace cuzk::zk::ifma {

using u64 = std::uint64_t;
using bls12_381::fp;
inline constexpr int limbs = 8;
inline constexpr u64 mask52 = (u64{1} << 52) - 1;

// One element of one lane in memory: what a bucket or a prepared base stores per coordinate.
struct alignas(64) fe52 {
  u64 l[limbs];
};

// Radix conversions of plain integers below 2^384 (limbs < 2^52 on the 52-bit side).
inline constexpr fe52 radix52(const bigint<6>& x) {
  fe52 r{};
  for (int k = 0; k < limbs; ++k) {
    unsigned bit = 52u * unsigned(k), w = bit / 64, s = bit % 64;
    u64 v = w < 6 ? x.limb[w] >> s : 0;
    if (s > 12 && w + 1 < 6) v |= x.limb[w + 1] << (64 - s);
    r.l[k] = v & mask52;
  }
  return r;
}
inline constexpr bigint<6> radix64(const fe52& x) {
  bigint<6> r{};
  unsigned __int128 acc = 0;
  unsigned bits = 0, w = 0;
  for (int k = 0; k < limbs && w < 6; ++k) {
    acc |= (unsigned __int128)x.l[k] << bits;
    bits += 52;
    while (bits >= 64 && w < 6) r.limb[w++] = u64(acc), acc >>= 64, bits -= 64;
  }
  if (w < 6) r.limb[w] = u64(acc);
  return r;
}

struct constants {
  fe52 p, two_p, one;  // one: 2^416 mod p, the vector form of 1
  fe52 up52;           // 2^448 mod p: a vector product by it takes x * 2^384 to x * 2^416
  u64 inv52;           // -p^-1 mod 2^52
  fp up, down;         // scalar factors that move a value between R = 2^384 and R = 2^416
};

inline constexpr constants make_constants() {
  constexpr auto P = fp::P;
  constants c{};
  c.p = radix52(P);
  bigint<6> p2 = P;
  p2.add_in_place(P);
  c.two_p = radix52(p2);
  c.one = radix52(detail::pow2_mod(P, 416));
  c.up52 = radix52(detail::pow2_mod(P, 448));
  c.inv52 = detail::neg_inv64(P.limb[0]) & mask52;
  c.up = fp::from_mont(detail::pow2_mod(P, 416));
  c.down = fp::from_mont(detail::pow2_mod(P, 352));
  return c;
}
inline constexpr constants k = make_constants();

// Scalar <-> vector form of one element (one scalar product each way; used per base, per bucket).
inline fe52 to_vec(const fp& x) { return radix52((x * k.up).m); }
inline fp to_scalar(const fe52& v) {
  bigint<6> r = radix64(v);
  if (!(r < fp::P)) r.sub_in_place(fp::P);  // lazily reduced: below 2p
  return fp::from_mont(r) * k.down;
}

}  // namespace cuzk::zk::ifma
