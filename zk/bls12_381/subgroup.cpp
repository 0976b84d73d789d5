#include "zk/bls12_381/subgroup.hpp"

#include "zk/bls12_381/pairing.hpp"

namespace cuzk::zk::bls12_381 {

namespace {

bigint<1> x_abs() { return bigint<1>{{bls_x_abs}}; }

// [x]P for the negative BLS parameter x.
template <class Curve>
jacobian_t<Curve> mul_by_x(const jacobian_t<Curve>& p) {
  return -p.mul(x_abs());
}

// beta: the primitive cube root of unity for which phi acts on G1 as [-x^2] (the other root gives
// [x^2 - 1]); chosen once by trying it on the generator.
struct g1_constants {
  fp beta;
  g1_constants() {
    auto e = fp::P;  // (p - 1) / 3
    e.limb[0] -= 1;
    e.div_small(3);
    // 2 is a cubic non-residue mod p iff 2^((p-1)/3) != 1; try small bases until one is.
    fp w = fp::one();
    for (std::uint64_t g = 2; w == fp::one(); ++g) w = fp::from_u64(g).pow(e);
    const g1_affine gen = g1_curve::generator();
    g1_jacobian target = mul_by_x(mul_by_x(g1_jacobian(gen)));  // [x^2] G
    target = -target;
    beta = w;
    if (!(g1_jacobian(g1_affine::of(gen.x * beta, gen.y)) == target)) beta = w.sqr();
  }
};
const g1_constants& g1c() {
  static const g1_constants c;
  return c;
}

// psi(x, y) = (conj(x) * cx, conj(y) * cy) with cx = 1/xi^((p-1)/3), cy = 1/xi^((p-1)/2), xi = 1 + u.
struct g2_constants {
  fp2 cx, cy;
  g2_constants() {
    fp2 xi = fp2::one().mul_by_nonresidue();
    auto e3 = fp::P;
    e3.limb[0] -= 1;
    auto e2 = e3;
    e3.div_small(3);
    e2.div_small(2);
    cx = xi.pow(e3).inverse();
    cy = xi.pow(e2).inverse();
  }
};
const g2_constants& g2c() {
  static const g2_constants c;
  return c;
}

}  // namespace

g1_affine g1_phi(const g1_affine& p) {
  if (p.is_identity()) return p;
  return g1_affine::of(p.x * g1c().beta, p.y);
}

g2_affine g2_psi(const g2_affine& p) {
  if (p.is_identity()) return p;
  return g2_affine::of(p.x.conjugate() * g2c().cx, p.y.conjugate() * g2c().cy);
}

bool g1_in_subgroup(const g1_affine& p) {
  if (p.is_identity()) return true;
  g1_jacobian x2p = mul_by_x(mul_by_x(g1_jacobian(p)));
  return g1_jacobian(g1_phi(p)) == -x2p;
}

bool g2_in_subgroup(const g2_affine& p) {
  if (p.is_identity()) return true;
  return g2_jacobian(g2_psi(p)) == mul_by_x(g2_jacobian(p));
}

}  // namespace cuzk::zk::bls12_381
