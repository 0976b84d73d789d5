// Quadratic extension F[u]/(u^2 + 1) over a base field with P = 3 mod 4 (BLS12-381's Fp2).
#pragma once

#include <optional>

namespace cuzk::zk {

template <class F>
struct fp2_t {
  using base = F;
  F c0{}, c1{};

  static constexpr fp2_t zero() { return {}; }
  static constexpr fp2_t one() { return {F::one(), F::zero()}; }
  constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  constexpr bool operator==(const fp2_t&) const = default;

  friend constexpr fp2_t operator+(const fp2_t& a, const fp2_t& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  friend constexpr fp2_t operator-(const fp2_t& a, const fp2_t& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  constexpr fp2_t operator-() const { return {-c0, -c1}; }
  constexpr fp2_t dbl() const { return {c0.dbl(), c1.dbl()}; }

  // Karatsuba: three base multiplications. Where the base field allows it (F::lazy_ok, see
  // montgomery.hpp: operands below 2P are fine for F's multiplication), the sums a0 + a1 and
  // b0 + b1 feed the product unreduced, saving two conditional subtractions.
  friend constexpr fp2_t operator*(const fp2_t& a, const fp2_t& b) {
    F v0 = a.c0 * b.c0, v1 = a.c1 * b.c1;
    if constexpr (requires { F::lazy_ok; }) {
      if constexpr (F::lazy_ok)
        return {v0 - v1, F::sum_unreduced(a.c0, a.c1) * F::sum_unreduced(b.c0, b.c1) - v0 - v1};
    }
    return {v0 - v1, (a.c0 + a.c1) * (b.c0 + b.c1) - v0 - v1};
  }
  friend constexpr fp2_t operator*(const fp2_t& a, const F& s) { return {a.c0 * s, a.c1 * s}; }
  constexpr fp2_t& operator+=(const fp2_t& b) { return *this = *this + b; }
  constexpr fp2_t& operator-=(const fp2_t& b) { return *this = *this - b; }
  constexpr fp2_t& operator*=(const fp2_t& b) { return *this = *this * b; }

  // (a + bu)^2 = (a + b)(a - b) + 2ab u; lazily (as in *) (a + b) and 2a go in unreduced.
  constexpr fp2_t sqr() const {
    if constexpr (requires { F::lazy_ok; }) {
      if constexpr (F::lazy_ok)
        return {F::sum_unreduced(c0, c1) * (c0 - c1), F::sum_unreduced(c0, c0) * c1};
    }
    return {(c0 + c1) * (c0 - c1), (c0 * c1).dbl()};
  }
  constexpr fp2_t conjugate() const { return {c0, -c1}; }
  // Multiplication by the sextic non-residue 1 + u (used by Fp6 and the G2 twist).
  constexpr fp2_t mul_by_nonresidue() const { return {c0 - c1, c0 + c1}; }
  constexpr F norm() const { return c0.sqr() + c1.sqr(); }

  constexpr fp2_t inverse() const {
    F t = norm().inverse();
    return {c0 * t, -(c1 * t)};
  }
  // The same through F::inverse_vartime (safegcd.hpp): variable time, for public data only.
  fp2_t inverse_vartime() const {
    F t = norm().inverse_vartime();
    return {c0 * t, -(c1 * t)};
  }

  template <class E>
  constexpr fp2_t pow(const E& e) const {
    fp2_t r = one();
    for (std::size_t i = e.bit_length(); i-- > 0;) {
      r = r.sqr();
      if (e.bit(i)) r *= *this;
    }
    return r;
  }

  // Frobenius x -> x^P is conjugation, since u^P = -u for P = 3 mod 4.
  constexpr fp2_t frobenius() const { return conjugate(); }

  // Square root (Adj & Rodriguez-Henriquez, Alg. 9, for P = 3 mod 4); nullopt for a non-square.
  std::optional<fp2_t> sqrt() const {
    if (is_zero()) return zero();
    using R = typename F::repr;
    R e1 = F::P;  // (P - 3) / 4
    R three{};
    three.limb[0] = 3;
    e1.sub_in_place(three);
    e1.shr1();
    e1.shr1();
    fp2_t a1 = pow(e1);
    fp2_t alpha = a1 * a1 * *this;
    fp2_t x0 = a1 * *this;
    fp2_t minus_one = -one();
    if (alpha == minus_one) {
      fp2_t r{-x0.c1, x0.c0};  // u * x0
      if (r.sqr() == *this) return r;
      return std::nullopt;
    }
    R e2 = F::P;  // (P - 1) / 2
    e2.shr1();
    fp2_t b = (one() + alpha).pow(e2);
    fp2_t r = b * x0;
    if (r.sqr() == *this) return r;
    return std::nullopt;
  }

  // zcash's sign rule for Fp2: compare c1 first, c0 when c1 is zero.
  constexpr bool lexicographically_largest() const {
    if (!c1.is_zero()) return c1.lexicographically_largest();
    return c0.lexicographically_largest();
  }
};

}  // namespace cuzk::zk
