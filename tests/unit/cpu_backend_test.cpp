#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "zk/groth16/cpu_backend.hpp"

using namespace cuzk::zk;
using namespace cuzk::zk::groth16;

namespace {

fr random_fr(std::mt19937_64& rng) {
  bigint<4> s;
  for (auto& l : s.limb) l = rng();
  s.limb[3] &= (std::uint64_t{1} << 62) - 1;
  return fr::from_canonical(s);
}

// Lagrange interpolation through (omega^j, v_j) evaluated at x, O(n) per point given the
// barycentric form for roots of unity: p(x) = (x^n - 1)/n * sum_j v_j omega^j / (x - omega^j).
fr interpolate_at(const std::vector<fr>& v, const fr& omega, const fr& x) {
  const std::size_t n = v.size();
  fr sum = fr::zero(), wj = fr::one();
  for (std::size_t j = 0; j < n; ++j) {
    sum += v[j] * wj * (x - wj).inverse();
    wj *= omega;
  }
  return (x.pow(std::uint64_t(n)) - fr::one()) * fr::from_u64(n).inverse() * sum;
}

}  // namespace

TEST_CASE("cpu backend compute_h matches direct evaluation at g*omega^i", "[cpu_backend]") {
  auto be = make_cpu_backend();
  CHECK(be->name() == "cpu");
  std::mt19937_64 rng(5);
  for (unsigned k : {0u, 1u, 3u, 6u}) {
    const std::size_t n = std::size_t{1} << k;
    std::vector<fr> a(n), b(n), c(n);
    for (std::size_t i = 0; i < n; ++i) a[i] = random_fr(rng), b[i] = random_fr(rng), c[i] = random_fr(rng);
    // independent reference: the polynomials through a, b, c on omega^i, evaluated off the domain
    fr omega = ntt::root_of_unity(k), g = ntt::root_of_unity(k + 1);
    std::vector<bigint<4>> want(n);
    for (std::size_t i = 0; i < n; ++i) {
      fr x = g * omega.pow(std::uint64_t(i));
      want[i] = (interpolate_at(a, omega, x) * interpolate_at(b, omega, x) - interpolate_at(c, omega, x)).to_canonical();
    }
    std::vector<bigint<4>> h(n);
    be->compute_h(a, b, c, h);
    CHECK(h == want);
  }
}

TEST_CASE("cpu backend compute_h: c = a*b on the domain gives h = A*B - C off it", "[cpu_backend]") {
  // The prover's real shape: c_i = a_i * b_i, so h is nonzero only because the coset is off the
  // domain; check against O(n^2) coefficient evaluation (naive inverse DFT then Horner).
  auto be = make_cpu_backend();
  std::mt19937_64 rng(6);
  const unsigned k = 5;
  const std::size_t n = 32;
  fr omega = ntt::root_of_unity(k), g = ntt::root_of_unity(k + 1), n_inv = fr::from_u64(n).inverse();
  std::vector<fr> a(n), b(n), c(n);
  for (std::size_t i = 0; i < n; ++i) a[i] = random_fr(rng), b[i] = random_fr(rng), c[i] = a[i] * b[i];
  auto coeffs = [&](const std::vector<fr>& v) {
    std::vector<fr> out(n);
    fr wi = omega.inverse();
    for (std::size_t j = 0; j < n; ++j) {
      fr acc = fr::zero();
      for (std::size_t i = 0; i < n; ++i) acc += v[i] * wi.pow(std::uint64_t(i * j));
      out[j] = acc * n_inv;
    }
    return out;
  };
  auto horner = [](const std::vector<fr>& p, const fr& x) {
    fr acc = fr::zero();
    for (std::size_t j = p.size(); j-- > 0;) acc = acc * x + p[j];
    return acc;
  };
  auto pa = coeffs(a), pb = coeffs(b), pc = coeffs(c);
  std::vector<bigint<4>> h(n);
  be->compute_h(a, b, c, h);
  bool any_nonzero = false;
  for (std::size_t i = 0; i < n; ++i) {
    fr x = g * omega.pow(std::uint64_t(i));
    CHECK(h[i] == (horner(pa, x) * horner(pb, x) - horner(pc, x)).to_canonical());
    any_nonzero |= !h[i].is_zero();
  }
  CHECK(any_nonzero);
}

TEST_CASE("cpu backend MSMs and argument checks", "[cpu_backend]") {
  auto be = make_cpu_backend();
  std::mt19937_64 rng(8);
  std::vector<g1_affine> p1;
  std::vector<g2_affine> p2;
  std::vector<bigint<4>> s;
  g1_jacobian want1 = g1_jacobian::identity();
  g2_jacobian want2 = g2_jacobian::identity();
  g1_jacobian q1 = g1_jacobian(g1_curve::generator());
  g2_jacobian q2 = g2_jacobian(g2_curve::generator());
  for (int i = 0; i < 20; ++i) {
    bigint<4> k = random_fr(rng).to_canonical();
    p1.push_back(q1.to_affine()), p2.push_back(q2.to_affine()), s.push_back(k);
    want1 += q1.mul(k), want2 += q2.mul(k);
    q1 = q1.dbl() + g1_jacobian(g1_curve::generator());
    q2 = q2.dbl() + g2_jacobian(g2_curve::generator());
  }
  CHECK(be->msm_g1(p1, s) == want1);
  CHECK(be->msm_g2(p2, s) == want2);

  std::vector<fr> a(8), b(8), c(4);
  std::vector<bigint<4>> h(8);
  CHECK_THROWS(be->compute_h(a, b, c, h));
  std::vector<fr> a6(6), b6(6), c6(6);
  std::vector<bigint<4>> h6(6);
  CHECK_THROWS(be->compute_h(a6, b6, c6, h6));
}
