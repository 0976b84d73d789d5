// Fp, Fr and Fp2 arithmetic against GMP (mpz) on random and edge-value inputs.
#include <catch2/catch.hpp>

#include <gmpxx.h>

#include "gmp_bigint.hpp"

#include <random>
#include <vector>

#include "zk/bls12_381/curves.hpp"

using namespace cuzk::zk;
using namespace cuzk::zk::bls12_381;

namespace {

using cuzk::test::from_mpz;
using cuzk::test::to_mpz;

template <class F>
mpz_class modulus() { return to_mpz(F::P); }

template <class F>
mpz_class val(const F& x) { return to_mpz(x.to_canonical()); }

template <class F>
F elem(const mpz_class& z) { return F::from_canonical(from_mpz<F::N>(z)); }

mpz_class mod(const mpz_class& a, const mpz_class& m) {
  mpz_class r = a % m;
  if (r < 0) r += m;
  return r;
}

// Random canonical values plus the edge values 0, 1, 2, p-1, p-2, (p-1)/2, (p+1)/2, 2^64 and R mod p.
template <class F>
std::vector<mpz_class> samples(std::mt19937_64& rng, std::size_t n) {
  mpz_class p = modulus<F>();
  std::vector<mpz_class> v = {0, 1, 2, p - 1, p - 2, (p - 1) / 2, (p + 1) / 2};
  mpz_class two64 = mpz_class(1) << 64;
  v.push_back(two64);
  v.push_back(to_mpz(F::R1));
  gmp_randclass gr(gmp_randinit_default);
  gr.seed(rng());
  while (v.size() < n) v.push_back(gr.get_z_range(p));
  return v;
}

template <class F>
void check_prime_field(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  mpz_class p = modulus<F>();
  auto xs = samples<F>(rng, n), ys = samples<F>(rng, n);
  std::shuffle(ys.begin(), ys.end(), rng);
  for (std::size_t i = 0; i < n; ++i) {
    const mpz_class &a = xs[i], &b = ys[i];
    F x = elem<F>(a), y = elem<F>(b);
    REQUIRE(val(x) == a);  // from_canonical / to_canonical round trip
    REQUIRE(val(x + y) == mod(a + b, p));
    REQUIRE(val(x - y) == mod(a - b, p));
    REQUIRE(val(-x) == mod(-a, p));
    REQUIRE(val(x * y) == mod(a * b, p));
    REQUIRE(val(x.sqr()) == mod(a * a, p));
    REQUIRE(val(x.dbl()) == mod(2 * a, p));
    int leg = mpz_legendre(a.get_mpz_t(), p.get_mpz_t());
    REQUIRE(x.legendre() == leg);
    REQUIRE(x.lexicographically_largest() == (a > (p - 1) / 2));
    if (a != 0) {
      mpz_class inv;
      mpz_invert(inv.get_mpz_t(), a.get_mpz_t(), p.get_mpz_t());
      REQUIRE(val(x.inverse_vartime()) == inv);         // safegcd: every sample
      if (i % 8 == 0) REQUIRE(val(x.inverse()) == inv);  // Fermat is the slow one
    } else {
      REQUIRE(x.inverse_vartime().is_zero());
    }
  }
}

}  // namespace

TEST_CASE("Fp arithmetic matches GMP", "[fp][gmp]") { check_prime_field<fp>(3000, 1); }
TEST_CASE("Fr arithmetic matches GMP", "[fr][gmp]") { check_prime_field<fr>(3000, 2); }

TEST_CASE("Fp square roots match GMP's quadratic residuosity", "[fp][gmp]") {
  std::mt19937_64 rng(3);
  mpz_class p = modulus<fp>();
  for (const auto& a : samples<fp>(rng, 200)) {
    auto s = elem<fp>(a).sqrt();
    bool residue = mpz_legendre(a.get_mpz_t(), p.get_mpz_t()) >= 0;
    REQUIRE(s.has_value() == residue);
    if (s) REQUIRE(mod(val(*s) * val(*s), p) == a);
  }
}

TEST_CASE("Fp2 arithmetic matches GMP", "[fp2][gmp]") {
  std::mt19937_64 rng(4);
  mpz_class p = modulus<fp>();
  auto v0 = samples<fp>(rng, 2000), v1 = samples<fp>(rng, 2000), v2 = samples<fp>(rng, 2000),
       v3 = samples<fp>(rng, 2000);
  std::shuffle(v1.begin(), v1.end(), rng);
  std::shuffle(v2.begin(), v2.end(), rng);
  std::shuffle(v3.begin(), v3.end(), rng);
  for (std::size_t i = 0; i < v0.size(); ++i) {
    const mpz_class &a0 = v0[i], &a1 = v1[i], &b0 = v2[i], &b1 = v3[i];
    fp2 x{elem<fp>(a0), elem<fp>(a1)}, y{elem<fp>(b0), elem<fp>(b1)};
    // (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + (a0 b1 + a1 b0) u, u^2 = -1
    fp2 m = x * y;
    REQUIRE(val(m.c0) == mod(a0 * b0 - a1 * b1, p));
    REQUIRE(val(m.c1) == mod(a0 * b1 + a1 * b0, p));
    fp2 s = x.sqr();
    REQUIRE(val(s.c0) == mod(a0 * a0 - a1 * a1, p));
    REQUIRE(val(s.c1) == mod(2 * a0 * a1, p));
    fp2 d = x - y, e = x + y;
    REQUIRE(val(d.c0) == mod(a0 - b0, p));
    REQUIRE(val(d.c1) == mod(a1 - b1, p));
    REQUIRE(val(e.c0) == mod(a0 + b0, p));
    REQUIRE(val(e.c1) == mod(a1 + b1, p));
    fp2 nr = x.mul_by_nonresidue();  // * (1 + u)
    REQUIRE(val(nr.c0) == mod(a0 - a1, p));
    REQUIRE(val(nr.c1) == mod(a0 + a1, p));
    if (i % 8 == 0 && (a0 != 0 || a1 != 0)) {
      // 1/(a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2)
      mpz_class n = mod(a0 * a0 + a1 * a1, p), ni;
      mpz_invert(ni.get_mpz_t(), n.get_mpz_t(), p.get_mpz_t());
      fp2 inv = x.inverse();
      REQUIRE(val(inv.c0) == mod(a0 * ni, p));
      REQUIRE(val(inv.c1) == mod(-a1 * ni, p));
      REQUIRE(x.inverse_vartime() == inv);
    }
    if (i % 32 == 0) {
      auto r = x.sqrt();
      // a0 + a1 u is a square in Fp2 iff its norm a0^2 + a1^2 is a square in Fp.
      mpz_class n = mod(a0 * a0 + a1 * a1, p);
      REQUIRE(r.has_value() == (mpz_legendre(n.get_mpz_t(), p.get_mpz_t()) >= 0));
      if (r) REQUIRE(r->sqr() == x);
    }
  }
}
