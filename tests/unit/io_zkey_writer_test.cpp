// zkey writer: a key written from memory reloads to the same key, and a rewritten snarkjs key has
// snarkjs's bytes in sections 1..9 (section 10 differs: no contributions are recorded).
#include <catch2/catch.hpp>

#include "io_test_util.hpp"
#include "zk/io/zkey.hpp"
#include "zk/io/zkey_writer.hpp"

using namespace cuzk::zk;
using namespace cuzk::zk::bls12_381;
using namespace cuzk::zk::io;
using namespace io_test;

TEST_CASE("zkey writer: rewriting the snarkjs fixture reproduces sections 1..9", "[parsers][zkey_writer]") {
  const auto orig = slurp(fixture("sample.zkey"));
  auto k = zkey::load(fixture("sample.zkey"));
  auto parts = parts_of(k);
  const auto osecs = sections_of(orig);
  std::copy_n(orig.begin() + std::ptrdiff_t(osecs.at(10).data), 64, parts.cs_hash.begin());
  auto out = serialize_zkey(parts);
  const auto nsecs = sections_of(out);
  CHECK(get32(out, 8) == 10);
  for (std::uint32_t id = 1; id <= 9; ++id) {
    INFO("section " << id);
    auto a = osecs.at(id), b = nsecs.at(id);
    REQUIRE(a.size == b.size);
    CHECK(std::equal(orig.begin() + std::ptrdiff_t(a.data), orig.begin() + std::ptrdiff_t(a.data + a.size),
                     out.begin() + std::ptrdiff_t(b.data)));
  }
  auto s10 = nsecs.at(10);
  CHECK(s10.size == 68);
  CHECK(std::equal(parts.cs_hash.begin(), parts.cs_hash.end(), out.begin() + std::ptrdiff_t(s10.data)));
  CHECK(get32(out, s10.data + 64) == 0);  // no contributions
}

TEST_CASE("zkey writer: random key -> file -> load gives the same key", "[parsers][zkey_writer]") {
  auto& g = rng();
  auto rnd_fr = [&] { return fr::from_canonical(bigint<4>{{g(), g(), g(), g() >> 2}}); };
  auto g1 = [&] { return g1_jacobian(g1_curve::generator()).mul(rnd_fr().to_canonical()).to_affine(); };
  auto g2 = [&] { return g2_jacobian(g2_curve::generator()).mul(rnd_fr().to_canonical()).to_affine(); };
  const std::uint32_t n_vars = 7, n_public = 2, domain = 16;
  std::vector<g1_affine> a, b1, c, h;
  std::vector<g2_affine> b2;
  for (std::uint32_t i = 0; i < n_vars; ++i) {
    a.push_back(i % 3 == 0 ? g1_affine::identity() : g1());  // infinity is common in real keys
    b1.push_back(g1());
    b2.push_back(i % 2 ? g2_affine::identity() : g2());
  }
  for (std::uint32_t i = 0; i < n_vars - n_public - 1; ++i) c.push_back(g1());
  for (std::uint32_t i = 0; i < domain; ++i) h.push_back(g1());
  std::vector<zkey_coefficient> coefs;
  for (std::uint32_t i = 0; i < 20; ++i)
    coefs.push_back({std::uint32_t(g() % 2), std::uint32_t(g() % (domain - n_public - 1)),
                     std::uint32_t(g() % n_vars), rnd_fr()});
  for (std::uint32_t s = 0; s <= n_public; ++s) coefs.push_back({0, domain - n_public - 1 + s, s, fr::one()});

  zkey_parts p;
  p.n_vars = n_vars;
  p.n_public = n_public;
  p.domain_size = domain;
  p.vk = {g1(), g1(), g1(), g2(), g2_curve::generator(), g2(), {g1(), g1(), g1()}};
  p.a = a;
  p.b1 = b1;
  p.b2 = b2;
  p.c = c;
  p.h = h;
  p.coefficients = coefs;
  temp_file f(std::vector<std::uint8_t>{}, ".zkey");
  write_zkey(f.path(), p);
  auto k = zkey::load(f.path());
  CHECK(k.n_vars == n_vars);
  CHECK(k.n_public == n_public);
  CHECK(k.domain_size == domain);
  CHECK(k.vk.alpha1 == p.vk.alpha1);
  CHECK(k.vk.beta1 == p.vk.beta1);
  CHECK(k.vk.delta1 == p.vk.delta1);
  CHECK(k.vk.beta2 == p.vk.beta2);
  CHECK(k.vk.gamma2 == p.vk.gamma2);
  CHECK(k.vk.delta2 == p.vk.delta2);
  CHECK(k.vk.ic == p.vk.ic);
  CHECK(std::equal(k.a.begin(), k.a.end(), a.begin(), a.end()));
  CHECK(std::equal(k.b1.begin(), k.b1.end(), b1.begin(), b1.end()));
  CHECK(std::equal(k.b2.begin(), k.b2.end(), b2.begin(), b2.end()));
  CHECK(std::equal(k.c.begin(), k.c.end(), c.begin(), c.end()));
  CHECK(std::equal(k.h.begin(), k.h.end(), h.begin(), h.end()));
  REQUIRE(k.coefficients.size() == coefs.size());
  for (std::size_t i = 0; i < coefs.size(); ++i) {
    CHECK(k.coefficients[i].matrix == coefs[i].matrix);
    CHECK(k.coefficients[i].constraint == coefs[i].constraint);
    CHECK(k.coefficients[i].signal == coefs[i].signal);
    CHECK(k.coefficients[i].value == coefs[i].value);
  }

  // Inconsistent parts are a programming error, not an input error.
  p.h = std::span<const g1_affine>(h).first(domain - 1);
  CHECK_THROWS_AS(serialize_zkey(p), std::invalid_argument);
}
