// Quadratic extension Fp12 = Fp6[w]/(w^2 - v): c0 + c1 w with c0, c1 in Fp6.
//
// The pairing target field of BLS12 curves, in the tower used by zkcrypto/blst/@noble/curves and
// snarkjs (vk_alphabeta_12 is serialized from c0.c0.c0 ... c1.c2.c1 in this order).
#pragma once

#include <cstdint>

#include "zk/ff/fp6.hpp"

namespace cuzk::zk {

template <class F6>
struct fp12_t {
  using base = F6;
  using F2 = typename F6::base;
  F6 c0{}, c1{};

  static constexpr fp12_t zero() { return {}; }
  static constexpr fp12_t one() { return {F6::one(), F6::zero()}; }
  constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  constexpr bool is_one() const { return *this == one(); }
  constexpr bool operator==(const fp12_t&) const = default;

  friend constexpr fp12_t operator+(const fp12_t& a, const fp12_t& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  friend constexpr fp12_t operator-(const fp12_t& a, const fp12_t& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  constexpr fp12_t operator-() const { return {-c0, -c1}; }
  constexpr fp12_t& operator+=(const fp12_t& b) { return *this = *this + b; }
  constexpr fp12_t& operator-=(const fp12_t& b) { return *this = *this - b; }
  constexpr fp12_t& operator*=(const fp12_t& b) { return *this = *this * b; }

  // Karatsuba over Fp6: three Fp6 multiplications.
  friend constexpr fp12_t operator*(const fp12_t& a, const fp12_t& b) {
    F6 t0 = a.c0 * b.c0, t1 = a.c1 * b.c1;
    return {t0 + t1.mul_by_nonresidue(), (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1};
  }

  // Complex squaring: two Fp6 multiplications.
  constexpr fp12_t sqr() const {
    F6 ab = c0 * c1;
    F6 t = (c0 + c1) * (c0 + c1.mul_by_nonresidue());
    return {t - ab - ab.mul_by_nonresidue(), ab.dbl()};
  }

  // x^(p^6): the conjugation of Fp12 over Fp6 (w -> -w); the inverse on the cyclotomic subgroup.
  constexpr fp12_t conjugate() const { return {c0, -c1}; }

  constexpr fp12_t inverse() const {
    F6 d = (c0.sqr() - c1.sqr().mul_by_nonresidue()).inverse();
    return {c0 * d, -(c1 * d)};
  }

  // * (o0 + o1 v + o4 v w): the shape of a line function on the M-twist.
  constexpr fp12_t mul_by_014(const F2& o0, const F2& o1, const F2& o4) const {
    F6 t0 = c0.mul_by_01(o0, o1);
    F6 t1 = c1.mul_by_1(o4);
    return {t1.mul_by_nonresidue() + t0, (c1 + c0).mul_by_01(o0, o1 + o4) - t0 - t1};
  }

  // x -> x^(p^k).
  constexpr fp12_t frobenius_map(unsigned k) const {
    using T = detail::tower_frobenius<F2>;
    k %= 12;
    return {c0.frobenius_map(k), c1.frobenius_map(k) * T::omega[k]};
  }

  // Granger-Scott squaring (eprint 2009/565), valid only in the cyclotomic subgroup
  // {x : x^(p^4 - p^2 + 1) = 1}, where every value lies after the final exponentiation's easy part.
  constexpr fp12_t cyclotomic_sqr() const {
    auto fp4_sqr = [](const F2& a, const F2& b, F2& first, F2& second) {
      F2 a2 = a.sqr(), b2 = b.sqr();
      first = b2.mul_by_nonresidue() + a2;
      second = (a + b).sqr() - a2 - b2;
    };
    F2 t3, t4, t5, t6, t7, t8;
    fp4_sqr(c0.c0, c1.c1, t3, t4);
    fp4_sqr(c1.c0, c0.c2, t5, t6);
    fp4_sqr(c0.c1, c1.c2, t7, t8);
    F2 t9 = t8.mul_by_nonresidue();
    return {{(t3 - c0.c0).dbl() + t3, (t5 - c0.c1).dbl() + t5, (t7 - c0.c2).dbl() + t7},
            {(t9 + c1.c0).dbl() + t9, (t4 + c1.c1).dbl() + t4, (t6 + c1.c2).dbl() + t6}};
  }

  // x^e in the cyclotomic subgroup.
  constexpr fp12_t cyclotomic_pow(std::uint64_t e) const {
    fp12_t r = one();
    bool started = false;
    for (int i = 63; i >= 0; --i) {
      if (started) r = r.cyclotomic_sqr();
      if ((e >> i) & 1) {
        r = started ? r * *this : *this;
        started = true;
      }
    }
    return r;
  }

  // Generic square-and-multiply by a little-endian integer (bigint).
  template <class E>
  constexpr fp12_t pow(const E& e) const {
    fp12_t r = one();
    for (std::size_t i = e.bit_length(); i-- > 0;) {
      r = r.sqr();
      if (e.bit(i)) r *= *this;
    }
    return r;
  }
};

}  // namespace cuzk::zk
