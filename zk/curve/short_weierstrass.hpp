// Points on y^2 = x^3 + b (a = 0) over any field F: affine, Jacobian and XYZZ forms as value types.
//
// Curve supplies `using field = F;`, `static constexpr F b()` and `static constexpr affine generator()`
// (see zk/bls12_381/curves.hpp). Formulas are the a = 0 ones from the Explicit-Formulas Database
// (dbl-2009-l, add-2007-bl, madd-2007-bl, and the XYZZ set of Bernstein-Lange's 2008 list).
#pragma once

#include <cstddef>
#include <vector>

#include "zk/curve/xyzz_formulas.hpp"

namespace cuzk::zk {

// Affine point with the snarkjs/zkey memory layout: x then y, each a Montgomery-form field element,
// and the point at infinity as all-zero bytes ((0, 0) is never on a curve with b != 0). So a key
// file's point section can be used in place, without conversion.
template <class Curve>
struct affine_t {
  using F = typename Curve::field;
  F x{}, y{};

  static constexpr affine_t identity() { return {}; }
  static constexpr affine_t of(const F& x, const F& y) { return {x, y}; }

  constexpr bool is_identity() const { return x.is_zero() && y.is_zero(); }
  constexpr bool is_on_curve() const { return is_identity() || y.sqr() == x.sqr() * x + Curve::b(); }
  constexpr affine_t operator-() const { return is_identity() ? *this : affine_t{x, -y}; }
  constexpr bool operator==(const affine_t& o) const = default;
};

template <class Curve>
struct jacobian_t {
  using F = typename Curve::field;
  using affine = affine_t<Curve>;
  F X{}, Y{}, Z{};  // (X/Z^2, Y/Z^3); Z = 0 is the point at infinity

  static constexpr jacobian_t identity() { return {F::one(), F::one(), F::zero()}; }
  constexpr jacobian_t() : X(F::one()), Y(F::one()), Z(F::zero()) {}
  constexpr jacobian_t(const F& x, const F& y, const F& z) : X(x), Y(y), Z(z) {}
  constexpr jacobian_t(const affine& a)
      : X(a.is_identity() ? F::one() : a.x), Y(a.is_identity() ? F::one() : a.y),
        Z(a.is_identity() ? F::zero() : F::one()) {}

  constexpr bool is_identity() const { return Z.is_zero(); }

  constexpr bool operator==(const jacobian_t& o) const {
    if (is_identity() || o.is_identity()) return is_identity() == o.is_identity();
    F z1 = Z.sqr(), z2 = o.Z.sqr();
    return X * z2 == o.X * z1 && Y * z2 * o.Z == o.Y * z1 * Z;
  }

  constexpr jacobian_t operator-() const { return {X, -Y, Z}; }

  constexpr jacobian_t dbl() const {
    if (is_identity()) return *this;
    F A = X.sqr(), B = Y.sqr(), C = B.sqr();
    F D = ((X + B).sqr() - A - C).dbl();
    F E = A.dbl() + A, Fq = E.sqr();
    F X3 = Fq - D.dbl();
    F Y3 = E * (D - X3) - C.dbl().dbl().dbl();
    F Z3 = (Y * Z).dbl();
    return {X3, Y3, Z3};
  }

  friend constexpr jacobian_t operator+(const jacobian_t& p, const jacobian_t& q) {
    if (p.is_identity()) return q;
    if (q.is_identity()) return p;
    F Z1Z1 = p.Z.sqr(), Z2Z2 = q.Z.sqr();
    F U1 = p.X * Z2Z2, U2 = q.X * Z1Z1;
    F S1 = p.Y * q.Z * Z2Z2, S2 = q.Y * p.Z * Z1Z1;
    F H = U2 - U1, r = (S2 - S1).dbl();
    if (H.is_zero()) return r.is_zero() ? p.dbl() : identity();
    F I = H.dbl().sqr(), J = H * I, V = U1 * I;
    F X3 = r.sqr() - J - V.dbl();
    F Y3 = r * (V - X3) - (S1 * J).dbl();
    F Z3 = ((p.Z + q.Z).sqr() - Z1Z1 - Z2Z2) * H;
    return {X3, Y3, Z3};
  }

  // Mixed addition with an affine point (Z2 = 1).
  friend constexpr jacobian_t operator+(const jacobian_t& p, const affine& q) {
    if (q.is_identity()) return p;
    if (p.is_identity()) return jacobian_t(q);
    F Z1Z1 = p.Z.sqr();
    F U2 = q.x * Z1Z1, S2 = q.y * p.Z * Z1Z1;
    F H = U2 - p.X, r = (S2 - p.Y).dbl();
    if (H.is_zero()) return r.is_zero() ? p.dbl() : identity();
    F HH = H.sqr(), I = HH.dbl().dbl(), J = H * I, V = p.X * I;
    F X3 = r.sqr() - J - V.dbl();
    F Y3 = r * (V - X3) - (p.Y * J).dbl();
    F Z3 = (p.Z + H).sqr() - Z1Z1 - HH;
    return {X3, Y3, Z3};
  }

  constexpr jacobian_t& operator+=(const jacobian_t& q) { return *this = *this + q; }
  constexpr jacobian_t& operator+=(const affine& q) { return *this = *this + q; }
  friend constexpr jacobian_t operator-(const jacobian_t& p, const jacobian_t& q) { return p + (-q); }

  affine to_affine() const {
    if (is_identity()) return affine::identity();
    F zi = Z.inverse(), zi2 = zi.sqr();
    return affine::of(X * zi2, Y * zi2 * zi);
  }

  // Double-and-add by any little-endian integer (bigint); not constant time: public data only.
  template <class Int>
  constexpr jacobian_t mul(const Int& k) const {
    jacobian_t r = identity();
    for (std::size_t i = k.bit_length(); i-- > 0;) {
      r = r.dbl();
      if (k.bit(i)) r += *this;
    }
    return r;
  }

  constexpr bool is_on_curve() const {
    if (is_identity()) return true;
    F z2 = Z.sqr(), z6 = z2.sqr() * z2;
    return Y.sqr() == X.sqr() * X + Curve::b() * z6;
  }
};

// Extended Jacobian "XYZZ" coordinates: (X/ZZ, Y/ZZZ) with ZZ^3 = ZZZ^2. Cheaper mixed additions
// (8M + 2S) than Jacobian; used for MSM buckets. ZZ = 0 is the point at infinity.
template <class Curve>
struct xyzz_t {
  using F = typename Curve::field;
  using affine = affine_t<Curve>;
  using jacobian = jacobian_t<Curve>;
  F X{}, Y{}, ZZ{}, ZZZ{};

  static constexpr xyzz_t identity() { return {}; }
  constexpr bool is_identity() const { return ZZ.is_zero(); }

  // The formulas: zk/curve/xyzz_formulas.hpp (shared with the device's xyzz_d).
  using coords = xyzz::coords<F>;
  constexpr coords c() const { return {X, Y, ZZ, ZZZ}; }
  static constexpr xyzz_t of(const coords& p) { return {p.X, p.Y, p.ZZ, p.ZZZ}; }

  constexpr xyzz_t dbl() const { return of(xyzz::dbl(c())); }
  // Doubling of an affine point (madd's degenerate case).
  static constexpr xyzz_t dbl_affine(const affine& q) { return of(xyzz::dbl_affine(q.x, q.y)); }

  constexpr xyzz_t& operator+=(const affine& q) {
    if (!q.is_identity()) *this = of(xyzz::add_affine(c(), q.x, q.y));
    return *this;
  }
  constexpr xyzz_t& operator-=(const affine& q) { return *this += -q; }
  constexpr xyzz_t& operator+=(const xyzz_t& q) { return *this = of(xyzz::add(c(), q.c())); }

  // Take Z = ZZZ; since ZZ^3 = ZZZ^2 = Z^2: x = X/ZZ = X*ZZ^2/Z^2 and y = Y/ZZZ = Y*ZZZ^2/Z^3.
  constexpr jacobian to_jacobian() const {
    if (is_identity()) return jacobian::identity();
    return {X * ZZ.sqr(), Y * ZZZ.sqr(), ZZZ};
  }
};

// Montgomery's trick: one inversion for a whole batch of Jacobian points.
template <class Curve>
std::vector<affine_t<Curve>> batch_normalize(const std::vector<jacobian_t<Curve>>& pts) {
  using F = typename Curve::field;
  std::vector<affine_t<Curve>> out(pts.size());
  std::vector<F> prefix(pts.size());
  F acc = F::one();
  for (std::size_t i = 0; i < pts.size(); ++i) {
    prefix[i] = acc;
    if (!pts[i].is_identity()) acc *= pts[i].Z;
  }
  F inv = acc.inverse();
  for (std::size_t i = pts.size(); i-- > 0;) {
    if (pts[i].is_identity()) continue;
    F zi = inv * prefix[i];
    inv *= pts[i].Z;
    F zi2 = zi.sqr();
    out[i] = affine_t<Curve>::of(pts[i].X * zi2, pts[i].Y * zi2 * zi);
  }
  return out;
}

}  // namespace cuzk::zk
