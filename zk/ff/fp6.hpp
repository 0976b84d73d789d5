// Cubic extension Fp6 = Fp2[v]/(v^3 - xi), xi = the Fp2 sextic non-residue (1 + u for BLS12-381).
//
// The standard BLS12 tower, identical to zkcrypto/blst/@noble/curves and snarkjs's ffjavascript:
// an element is c0 + c1 v + c2 v^2 with c0, c1, c2 in Fp2. F2 must provide mul_by_nonresidue()
// (multiplication by xi), conjugate() (its p-power Frobenius) and a base field with modulus P.
#pragma once

#include <array>
#include <cstddef>

namespace cuzk::zk {

namespace detail {
// Frobenius constants of the Fp2 -> Fp6 -> Fp12 tower, derived from the one definition
// omega_k = xi^((p^k - 1)/6), at compile time:
//   v^(p^k) = v * xi^((p^k-1)/3) = v * omega_k^2,   w^(p^k) = w * omega_k   (w^2 = v, v^3 = xi).
// Only omega_1 needs an exponentiation; (p^k - 1)/6 = p (p^(k-1) - 1)/6 + (p - 1)/6 gives
// omega_k = frobenius(omega_(k-1)) * omega_1.
template <class F2>
constexpr std::array<F2, 12> tower_omega() {
  using F = typename F2::base;
  auto e = F::P;  // (p - 1) / 6
  e.limb[0] -= 1;  // p is odd: no borrow
  e.div_small(6);
  F2 xi = F2::one().mul_by_nonresidue();
  std::array<F2, 12> w{};
  w[0] = F2::one();
  w[1] = xi.pow(e);
  for (std::size_t k = 2; k < 12; ++k) w[k] = w[k - 1].conjugate() * w[1];
  return w;
}

template <class F2>
constexpr std::array<F2, 12> powers_of(const std::array<F2, 12>& a, unsigned n) {
  std::array<F2, 12> r{};
  for (std::size_t k = 0; k < 12; ++k) {
    F2 x = F2::one();
    for (unsigned i = 0; i < n; ++i) x *= a[k];
    r[k] = x;
  }
  return r;
}

template <class F2>
struct tower_frobenius {
  static constexpr std::array<F2, 12> omega = tower_omega<F2>();          // w^(p^k)  = omega[k] w
  static constexpr std::array<F2, 12> gamma1 = powers_of<F2>(omega, 2);   // v^(p^k)  = gamma1[k] v
  static constexpr std::array<F2, 12> gamma2 = powers_of<F2>(omega, 4);   // v^(2p^k) = gamma2[k] v^2
};

template <class F2>
constexpr F2 frobenius_pow(const F2& a, unsigned k) {
  return (k & 1) ? a.conjugate() : a;
}
}  // namespace detail

template <class F2>
struct fp6_t {
  using base = F2;
  F2 c0{}, c1{}, c2{};

  static constexpr fp6_t zero() { return {}; }
  static constexpr fp6_t one() { return {F2::one(), F2::zero(), F2::zero()}; }
  constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero() && c2.is_zero(); }
  constexpr bool operator==(const fp6_t&) const = default;

  friend constexpr fp6_t operator+(const fp6_t& a, const fp6_t& b) { return {a.c0 + b.c0, a.c1 + b.c1, a.c2 + b.c2}; }
  friend constexpr fp6_t operator-(const fp6_t& a, const fp6_t& b) { return {a.c0 - b.c0, a.c1 - b.c1, a.c2 - b.c2}; }
  constexpr fp6_t operator-() const { return {-c0, -c1, -c2}; }
  constexpr fp6_t dbl() const { return {c0.dbl(), c1.dbl(), c2.dbl()}; }
  constexpr fp6_t& operator+=(const fp6_t& b) { return *this = *this + b; }
  constexpr fp6_t& operator-=(const fp6_t& b) { return *this = *this - b; }
  constexpr fp6_t& operator*=(const fp6_t& b) { return *this = *this * b; }

  // Karatsuba-style: six Fp2 multiplications.
  friend constexpr fp6_t operator*(const fp6_t& a, const fp6_t& b) {
    F2 t0 = a.c0 * b.c0, t1 = a.c1 * b.c1, t2 = a.c2 * b.c2;
    return {t0 + ((a.c1 + a.c2) * (b.c1 + b.c2) - t1 - t2).mul_by_nonresidue(),
            (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1 + t2.mul_by_nonresidue(),
            (a.c0 + a.c2) * (b.c0 + b.c2) - t0 - t2 + t1};
  }
  friend constexpr fp6_t operator*(const fp6_t& a, const F2& s) { return {a.c0 * s, a.c1 * s, a.c2 * s}; }

  // Chung-Hasan SQR2.
  constexpr fp6_t sqr() const {
    F2 s0 = c0.sqr(), s1 = (c0 * c1).dbl(), s3 = (c1 * c2).dbl(), s4 = c2.sqr();
    F2 s2 = (c0 - c1 + c2).sqr();
    return {s3.mul_by_nonresidue() + s0, s4.mul_by_nonresidue() + s1, s1 + s2 + s3 - s0 - s4};
  }

  // Multiplication by v: (c0, c1, c2) v = (xi c2, c0, c1).
  constexpr fp6_t mul_by_nonresidue() const { return {c2.mul_by_nonresidue(), c0, c1}; }

  // Sparse products used by the Miller loop's line evaluations.
  constexpr fp6_t mul_by_1(const F2& b1) const {  // * (b1 v)
    return {(c2 * b1).mul_by_nonresidue(), c0 * b1, c1 * b1};
  }
  constexpr fp6_t mul_by_01(const F2& b0, const F2& b1) const {  // * (b0 + b1 v)
    F2 t0 = c0 * b0, t1 = c1 * b1;
    return {((c1 + c2) * b1 - t1).mul_by_nonresidue() + t0, (b0 + b1) * (c0 + c1) - t0 - t1,
            (c0 + c2) * b0 - t0 + t1};
  }

  constexpr fp6_t inverse() const {
    F2 t0 = c0.sqr() - (c1 * c2).mul_by_nonresidue();
    F2 t1 = c2.sqr().mul_by_nonresidue() - c0 * c1;
    F2 t2 = c1.sqr() - c0 * c2;
    F2 d = ((c2 * t1 + c1 * t2).mul_by_nonresidue() + c0 * t0).inverse();
    return {t0 * d, t1 * d, t2 * d};
  }

  // Square-and-multiply by a little-endian integer (bigint).
  template <class E>
  constexpr fp6_t pow(const E& e) const {
    fp6_t r = one();
    for (std::size_t i = e.bit_length(); i-- > 0;) {
      r = r.sqr();
      if (e.bit(i)) r *= *this;
    }
    return r;
  }

  // x -> x^(p^k).
  constexpr fp6_t frobenius_map(unsigned k) const {
    using T = detail::tower_frobenius<F2>;
    k %= 12;
    return {detail::frobenius_pow(c0, k), detail::frobenius_pow(c1, k) * T::gamma1[k],
            detail::frobenius_pow(c2, k) * T::gamma2[k]};
  }
};

}  // namespace cuzk::zk
