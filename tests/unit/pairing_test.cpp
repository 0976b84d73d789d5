// Fp6/Fp12 field laws and Frobenius maps, and the pairing's defining properties: bilinearity,
// non-degeneracy, order r, and the exact final exponent 3 (p^12 - 1)/r (computed with GMP).
#include <catch2/catch.hpp>

#include <gmpxx.h>

#include "gmp_bigint.hpp"

#include <random>
#include <vector>

#include "zk/bls12_381/pairing.hpp"

using namespace cuzk::zk;
using namespace cuzk::zk::bls12_381;

namespace {

using cuzk::test::from_mpz;
using cuzk::test::to_mpz;

struct rng_t {
  std::mt19937_64 g;
  explicit rng_t(std::uint64_t seed) : g(seed) {}
  fp f() {
    bigint<6> b{};
    do {
      for (auto& l : b.limb) l = g();
      b.limb[5] &= (std::uint64_t{1} << 61) - 1;
    } while (!fp::is_canonical(b));
    return fp::from_canonical(b);
  }
  fp2 f2() { return {f(), f()}; }
  fp6 f6() { return {f2(), f2(), f2()}; }
  fp12 f12() { return {f6(), f6()}; }
  bigint<4> scalar() {
    bigint<4> b{};
    do {
      for (auto& l : b.limb) l = g();
      b.limb[3] &= (std::uint64_t{1} << 63) - 1;
    } while (!fr::is_canonical(b) || b.is_zero());
    return b;
  }
};

g1_affine g1_mul(const bigint<4>& k) { return g1_jacobian(g1_curve::generator()).mul(k).to_affine(); }
g2_affine g2_mul(const bigint<4>& k) { return g2_jacobian(g2_curve::generator()).mul(k).to_affine(); }

// A random element of the cyclotomic subgroup: the easy part of the final exponentiation.
fp12 cyclotomic(const fp12& f) {
  fp12 t = f.conjugate() * f.inverse();
  return t.frobenius_map(2) * t;
}

}  // namespace

TEST_CASE("Fp6 field laws and sparse products", "[fp6]") {
  rng_t rng(11);
  for (int i = 0; i < 50; ++i) {
    fp6 a = rng.f6(), b = rng.f6(), c = rng.f6();
    REQUIRE(a * b == b * a);
    REQUIRE((a * b) * c == a * (b * c));
    REQUIRE(a * (b + c) == a * b + a * c);
    REQUIRE(a.sqr() == a * a);
    REQUIRE(a * a.inverse() == fp6::one());
    REQUIRE(a - a == fp6::zero());
    REQUIRE(a + (-a) == fp6::zero());
    fp2 b0 = rng.f2(), b1 = rng.f2();
    REQUIRE(a.mul_by_01(b0, b1) == a * fp6{b0, b1, fp2::zero()});
    REQUIRE(a.mul_by_1(b1) == a * fp6{fp2::zero(), b1, fp2::zero()});
    REQUIRE(a.mul_by_nonresidue() == a * fp6{fp2::zero(), fp2::one(), fp2::zero()});
    // v^3 = 1 + u
    fp6 v{fp2::zero(), fp2::one(), fp2::zero()};
    REQUIRE(v * v * v == fp6{fp2::one().mul_by_nonresidue(), fp2::zero(), fp2::zero()});
  }
}

TEST_CASE("Fp12 field laws, sparse line product, cyclotomic squaring", "[fp12]") {
  rng_t rng(12);
  for (int i = 0; i < 30; ++i) {
    fp12 a = rng.f12(), b = rng.f12(), c = rng.f12();
    REQUIRE(a * b == b * a);
    REQUIRE((a * b) * c == a * (b * c));
    REQUIRE(a * (b + c) == a * b + a * c);
    REQUIRE(a.sqr() == a * a);
    REQUIRE(a * a.inverse() == fp12::one());
    // w^2 = v
    fp12 w{fp6::zero(), fp6::one()};
    REQUIRE(w.sqr() == fp12{fp6{fp2::zero(), fp2::one(), fp2::zero()}, fp6::zero()});
    fp2 o0 = rng.f2(), o1 = rng.f2(), o4 = rng.f2();
    fp12 l{{o0, o1, fp2::zero()}, {fp2::zero(), o4, fp2::zero()}};
    REQUIRE(a.mul_by_014(o0, o1, o4) == a * l);
    fp12 g = cyclotomic(a);
    REQUIRE(g.cyclotomic_sqr() == g.sqr());
    REQUIRE(g.conjugate() == g.inverse());
    REQUIRE(g.cyclotomic_pow(bls_x_abs) == g.pow(bigint<1>{{bls_x_abs}}));
  }
}

TEST_CASE("Frobenius maps equal powers of p", "[fp6][fp12]") {
  rng_t rng(13);
  const auto p = fp::P;
  for (int i = 0; i < 3; ++i) {
    fp6 a = rng.f6();
    fp12 b = rng.f12();
    REQUIRE(a.frobenius_map(1) == a.pow(p));
    fp12 bp = b.pow(p);
    REQUIRE(b.frobenius_map(1) == bp);
    REQUIRE(b.frobenius_map(2) == bp.pow(p));
    REQUIRE(b.frobenius_map(6) == b.conjugate());
    fp6 a_k = a;
    fp12 b_k = b;
    for (unsigned k = 1; k <= 12; ++k) {
      a_k = a_k.frobenius_map(1);
      b_k = b_k.frobenius_map(1);
      REQUIRE(a.frobenius_map(k) == a_k);
      REQUIRE(b.frobenius_map(k) == b_k);
    }
    REQUIRE(b_k == b);  // x^(p^12) = x
  }
}

TEST_CASE("final exponentiation is f^(3 (p^12 - 1)/r)", "[pairing]") {
  mpz_class p = to_mpz(fp::P), r = to_mpz(fr::P);
  mpz_class p12 = p * p * p * p * p * p * p * p * p * p * p * p;
  REQUIRE((p12 - 1) % r == 0);
  // The x-chain of the hard part (zkcrypto, noble) raises to 3 (p^4 - p^2 + 1)/r, a fixed multiple
  // coprime to r: still a non-degenerate bilinear pairing, and the value everybody else computes.
  rng_t rng(14);
  fp12 f = rng.f12();
  fp12 fe = final_exponentiation(f);
  CHECK(fe == f.pow(from_mpz<72>(3 * ((p12 - 1) / r))));
  CHECK_FALSE(fe == f.pow(from_mpz<72>((p12 - 1) / r)));
}

TEST_CASE("pairing: bilinear, non-degenerate, of order r", "[pairing]") {
  rng_t rng(15);
  const g1_affine g1 = g1_curve::generator();
  const g2_affine g2 = g2_curve::generator();
  const fp12 e = pairing(g1, g2);
  CHECK_FALSE(e.is_one());
  CHECK(e.pow(fr::P).is_one());
  for (int i = 0; i < 3; ++i) {
    bigint<4> a = rng.scalar(), b = rng.scalar();
    fr ab = fr::from_canonical(a) * fr::from_canonical(b);
    fp12 eab = pairing(g1_mul(a), g2_mul(b));
    CHECK(eab == e.pow(ab.to_canonical()));
    CHECK(eab == pairing(g1_mul(ab.to_canonical()), g2));
    CHECK(eab == pairing(g1, g2_mul(ab.to_canonical())));
  }
  // Identity on either side gives one.
  CHECK(pairing(g1_affine::identity(), g2).is_one());
  CHECK(pairing(g1, g2_affine::identity()).is_one());
  // e(-P, Q) = e(P, Q)^-1
  CHECK(pairing(-g1, g2) == e.conjugate());
}

TEST_CASE("multi-Miller loop equals the product of single ones", "[pairing]") {
  rng_t rng(16);
  std::vector<std::pair<g1_affine, g2_affine>> pairs;
  fp12 prod = fp12::one();
  for (int i = 0; i < 3; ++i) {
    pairs.push_back({g1_mul(rng.scalar()), g2_mul(rng.scalar())});
    prod *= miller_loop(pairs.back().first, pairs.back().second);
  }
  pairs.push_back({g1_affine::identity(), g2_mul(rng.scalar())});
  CHECK(multi_miller_loop(pairs) == prod);

  // e(aP, bQ) e(-abP, Q) = 1; and not with any other exponent.
  bigint<4> a = rng.scalar(), b = rng.scalar();
  fr ab = fr::from_canonical(a) * fr::from_canonical(b);
  std::vector<std::pair<g1_affine, g2_affine>> good{{g1_mul(a), g2_mul(b)},
                                                    {-g1_mul(ab.to_canonical()), g2_curve::generator()}};
  CHECK(pairing_product_is_one(good));
  auto bad = good;
  bad[1].first = -g1_mul((ab + fr::one()).to_canonical());
  CHECK_FALSE(pairing_product_is_one(bad));
  CHECK(pairing_product_is_one(std::span<const std::pair<g1_affine, g2_affine>>{}));
}
