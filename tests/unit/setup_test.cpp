#include <catch2/catch.hpp>

#include <chrono>
#include <random>

#include "groth16_test_support.hpp"
#include "zk/groth16/setup.hpp"
#include "zk/groth16/setup_detail.hpp"
#include "zk/util/cpu_features.hpp"

using namespace cuzk::zk;
using namespace cuzk::zk::bls12_381;
using namespace cuzk::zk::groth16;

namespace {
g1_affine g1_times(const fr& x) { return g1_jacobian(g1_curve::generator()).mul(x.to_canonical()).to_affine(); }
g2_affine g2_times(const fr& x) { return g2_jacobian(g2_curve::generator()).mul(x.to_canonical()).to_affine(); }
}  // namespace

TEST_CASE("snarkjs domain size rule", "[setup]") {
  // zkey_new.js: 2^(log2(nConstraints + nPublic) + 1) with ffjavascript's floor log2.
  CHECK(snarkjs_domain_size(0, 0) == 2);
  CHECK(snarkjs_domain_size(1, 0) == 2);
  CHECK(snarkjs_domain_size(3, 0) == 4);
  CHECK(snarkjs_domain_size(3, 1) == 8);
  CHECK(snarkjs_domain_size(7, 1) == 16);
  CHECK(snarkjs_domain_size(65517, 1) == 65536);
  CHECK(snarkjs_domain_size(65535, 1) == 131072);
  CHECK(snarkjs_domain_size(1u << 20, 0) == (1u << 21));
  for (std::uint32_t nc = 0; nc < 300; ++nc)
    for (std::uint32_t np = 0; np < 5; ++np) CHECK(snarkjs_domain_size(nc, np) > nc + np);  // room for extra rows
}

TEST_CASE("snarkjs roots of unity have exact order", "[setup]") {
  for (unsigned k : {1u, 2u, 5u, 16u, 32u}) {
    fr w = snarkjs_root_of_unity(k);
    fr x = w;
    for (unsigned i = 1; i < k; ++i) x = x.sqr();
    CHECK(x == -fr::one());  // w^(2^(k-1)) = -1: order exactly 2^k
  }
}

TEST_CASE("toxic waste is deterministic in the seed and nonzero", "[setup]") {
  auto a = toxic_waste_from_seed(42), b = toxic_waste_from_seed(42), c = toxic_waste_from_seed(43);
  CHECK(a.tau == b.tau);
  CHECK(a.delta == b.delta);
  CHECK_FALSE(a.tau == c.tau);
  CHECK(a.gamma == fr::one());
  CHECK_FALSE(a.alpha.is_zero());
  CHECK_FALSE(a.alpha == a.beta);
}

TEST_CASE("setup points equal the QAP polynomials at tau (naive Lagrange reference)", "[setup]") {
  std::mt19937_64 rng(7);
  auto rc = test::make_random_circuit(rng, 3, 4, 11);
  auto tw = toxic_waste_from_seed(1234);
  io::zkey key = setup(rc.cs, tw);
  const auto& cs = rc.cs;
  REQUIRE(key.domain_size == 16);
  REQUIRE(key.n_vars == cs.n_wires);
  REQUIRE(key.n_public == 3);

  auto lag = test::naive_lagrange(tw.tau, key.domain_size);
  std::vector<fr> u(cs.n_wires), v(cs.n_wires), w(cs.n_wires);
  for (std::uint32_t c = 0; c < cs.n_constraints; ++c) {
    for (auto& t : cs.constraints[c].a) u[t.wire] += t.coeff * lag[c];
    for (auto& t : cs.constraints[c].b) v[t.wire] += t.coeff * lag[c];
    for (auto& t : cs.constraints[c].c) w[t.wire] += t.coeff * lag[c];
  }
  for (std::uint32_t s = 0; s <= key.n_public; ++s) u[s] += lag[cs.n_constraints + s];

  CHECK(key.vk.alpha1 == g1_times(tw.alpha));
  CHECK(key.vk.beta1 == g1_times(tw.beta));
  CHECK(key.vk.beta2 == g2_times(tw.beta));
  CHECK(key.vk.gamma2 == g2_curve::generator());
  CHECK(key.vk.delta1 == g1_times(tw.delta));
  CHECK(key.vk.delta2 == g2_times(tw.delta));
  for (std::uint32_t s = 0; s < cs.n_wires; ++s) {
    CHECK(key.a[s] == g1_times(u[s]));
    CHECK(key.b1[s] == g1_times(v[s]));
    CHECK(key.b2[s] == g2_times(v[s]));
    fr z = tw.beta * u[s] + tw.alpha * v[s] + w[s];
    if (s <= key.n_public) CHECK(key.vk.ic[s] == g1_times(z));
    else CHECK(key.c[s - key.n_public - 1] == g1_times(z * tw.delta.inverse()));
  }
  // H_i = L^{(2n)}_{2i+1}(tau) / delta, checked against the naive basis of the 2n-th roots.
  auto lag2 = test::naive_lagrange(tw.tau, 2 * key.domain_size);
  for (std::uint32_t i = 0; i < key.domain_size; ++i) CHECK(key.h[i] == g1_times(lag2[2 * i + 1] * tw.delta.inverse()));

  // Section 4: snarkjs's order (per constraint A then B, then the extra A rows), values coef * R^2.
  std::size_t at = 0;
  const fr R = fr::from_mont(fr::R2);
  for (std::uint32_t c = 0; c < cs.n_constraints; ++c)
    for (int m = 0; m < 2; ++m)
      for (auto& t : m == 0 ? cs.constraints[c].a : cs.constraints[c].b) {
        REQUIRE(at < key.coefficients.size());
        const auto& e = key.coefficients[at++];
        CHECK(e.matrix == std::uint32_t(m));
        CHECK(e.constraint == c);
        CHECK(e.signal == t.wire);
        CHECK(e.value.m == (t.coeff * R * R).to_canonical());
      }
  for (std::uint32_t s = 0; s <= key.n_public; ++s) {
    const auto& e = key.coefficients[at++];
    CHECK(e.matrix == 0);
    CHECK(e.constraint == cs.n_constraints + s);
    CHECK(e.signal == s);
    CHECK(e.value.m == (R * R).to_canonical());
  }
  CHECK(at == key.coefficients.size());
}

TEST_CASE("setup rejects wires outside nWires", "[setup]") {
  std::mt19937_64 rng(8);
  auto rc = test::make_random_circuit(rng, 1, 1, 3);
  rc.cs.constraints[1].b.push_back({rc.cs.n_wires + 5, fr::one()});
  CHECK_THROWS_AS(setup(rc.cs, toxic_waste_from_seed(1)), input_error);
}

TEST_CASE("fixed-base points on IFMA lanes equal the scalar path's and k G", "[setup][vector]") {
  if (!cpu_has_avx512_ifma()) {
    WARN("SKIPPED: this CPU has no AVX-512 IFMA; the vector fixed-base path is untested here");
    return;
  }
  std::mt19937_64 rng(43);
  // Edges (0, 1, -1, 2, -2, a top window only) and random scalars; 1003 is not a multiple of the
  // eight lanes.
  std::vector<fr> k = {fr::zero(), fr::one(), -fr::one(), fr::from_u64(2), -fr::from_u64(2)};
  k.push_back(fr::from_u64(std::uint64_t{1} << 62).pow(4));
  while (k.size() < 1003) k.push_back(fr::from_u64(rng()) * fr::from_u64(rng()) * fr::from_u64(rng()) * fr::from_u64(rng()));
  auto both = [&](const auto& base) {
    const auto vec = base.mul_all(k);
    set_ifma_allowed(false);
    const auto scal = base.mul_all(k);
    set_ifma_allowed(true);
    return std::pair(vec, scal);
  };
  for (unsigned w : {4u, 11u}) {
    groth16::detail::fixed_base<g1_curve> g1(g1_curve::generator(), w);
    const auto [vec, scal] = both(g1);
    INFO("G1 window " << w);
    CHECK(vec == scal);
    for (std::size_t i = 0; i < 40; ++i) CHECK(vec[i] == g1_times(k[i]));
  }
  groth16::detail::fixed_base<g2_curve> g2(g2_curve::generator(), 7);
  const auto [vec, scal] = both(g2);
  CHECK(vec == scal);
  for (std::size_t i = 0; i < 20; ++i) CHECK(vec[i] == g2_times(k[i]));
}
