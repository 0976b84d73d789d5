// The branch-free modular addition/subtraction/negation (x86-64 assembly where available) and the
// lazily reduced multiplication operands (sum_unreduced, operands in [0, 2P)) against GMP, on the
// Montgomery representations directly: addition is plain modular addition of representations, and
// a * b is A * B * 2^(-64N) mod P for representations A, B.
#include <catch2/catch.hpp>

#include <gmpxx.h>

#include "gmp_bigint.hpp"

#include <random>

#include "zk/bls12_381/curves.hpp"

using namespace cuzk::zk;
using namespace cuzk::zk::bls12_381;

namespace {

using cuzk::test::to_mpz;

// Canonical representations (< P), biased to the edges: 0, 1, 2, P-1, P-2, values whose limbs are
// all ones below the top limb, 2^64 - 1, and values just under 2^(bits of P).
template <class F>
typename F::repr edge_or_random(std::mt19937_64& rng) {
  using R = typename F::repr;
  R r{};
  switch (rng() % 8) {
    case 0: r.limb[0] = rng() % 3; return r;
    case 1: r = F::P, r.limb[0] -= 1 + rng() % 2; return r;
    case 2: r.limb[0] = ~std::uint64_t{0}; return r;
    case 3:
      for (auto& l : r.limb) l = ~std::uint64_t{0};
      r.limb[F::N - 1] = F::P.limb[F::N - 1] - 1;  // just below P's top limb, all ones below
      return r;
    default:
      for (auto& l : r.limb) l = rng();
      r.limb[F::N - 1] %= F::P.limb[F::N - 1] + 1;
      if (r >= F::P) r.sub_in_place(F::P);
      return r;
  }
}

template <class F>
void check_add_sub(std::uint64_t seed, int iters) {
  std::mt19937_64 rng(seed);
  const mpz_class p = to_mpz(F::P);
  for (int i = 0; i < iters; ++i) {
    F a = F::from_mont(edge_or_random<F>(rng)), b = F::from_mont(edge_or_random<F>(rng));
    if (i % 9 == 0) b = a;
    const mpz_class A = to_mpz(a.m), B = to_mpz(b.m);
    F s = a + b, d = a - b, n = -a, t = a.dbl();
    REQUIRE(to_mpz(s.m) == (A + B) % p);
    REQUIRE(to_mpz(d.m) == ((A - B) % p + p) % p);
    REQUIRE(to_mpz(n.m) == (p - A) % p);
    REQUIRE(to_mpz(t.m) == (2 * A) % p);
    REQUIRE(s == F::add_generic(a, b));
    REQUIRE(d == F::sub_generic(a, b));
    F c = a;  // results aliasing an operand
    c += b;
    REQUIRE(c == s);
    c = a;
    c -= b;
    REQUIRE(c == d);
  }
}

}  // namespace

TEST_CASE("branch-free Fp and Fr addition, subtraction, negation and doubling match GMP", "[ff][gmp]") {
  check_add_sub<fp>(11, 60000);
  check_add_sub<fr>(12, 60000);
  CHECK((-fp::zero()).is_zero());
  CHECK((-fr::zero()).is_zero());
  CHECK((fp::zero() - fp::one()) == -fp::one());
}

TEST_CASE("Fp multiplication accepts unreduced operands below 2P (lazy reduction)", "[ff][gmp]") {
  STATIC_REQUIRE(fp::lazy_ok);
  STATIC_REQUIRE(!fr::lazy_ok);  // 4r > 2^256: Fr never takes unreduced operands
  std::mt19937_64 rng(13);
  const mpz_class p = to_mpz(fp::P);
  mpz_class r_inv, R = mpz_class(1) << 384;
  mpz_invert(r_inv.get_mpz_t(), R.get_mpz_t(), p.get_mpz_t());
  for (int i = 0; i < 60000; ++i) {
    fp a0 = fp::from_mont(edge_or_random<fp>(rng)), a1 = fp::from_mont(edge_or_random<fp>(rng));
    fp b0 = fp::from_mont(edge_or_random<fp>(rng)), b1 = fp::from_mont(edge_or_random<fp>(rng));
    if (i % 5 == 0) a1 = a0, b1 = b0;  // P-1 + P-1: the largest sum, 2P - 2
    fp sa = fp::sum_unreduced(a0, a1), sb = fp::sum_unreduced(b0, b1);
    const mpz_class SA = to_mpz(sa.m), SB = to_mpz(sb.m);
    REQUIRE(SA == to_mpz(a0.m) + to_mpz(a1.m));  // really unreduced
    REQUIRE(SA < 2 * p);
    // both operands unreduced, one unreduced, and the generic CIOS on the same inputs
    fp x = sa * sb, y = sa * b0, z = fp::mul_generic(sa, sb);
    REQUIRE(to_mpz(x.m) == SA * SB * r_inv % p);
    REQUIRE(to_mpz(y.m) == SA * to_mpz(b0.m) * r_inv % p);
    REQUIRE(z == x);
    REQUIRE(x == (a0 + a1) * (b0 + b1));
  }
}

TEST_CASE("Fp2 lazy multiplication and squaring agree with the reduced formulas", "[fp2]") {
  std::mt19937_64 rng(14);
  for (int i = 0; i < 30000; ++i) {
    fp2 x{fp::from_mont(edge_or_random<fp>(rng)), fp::from_mont(edge_or_random<fp>(rng))};
    fp2 y{fp::from_mont(edge_or_random<fp>(rng)), fp::from_mont(edge_or_random<fp>(rng))};
    fp v0 = x.c0 * y.c0, v1 = x.c1 * y.c1;
    fp2 want{v0 - v1, (x.c0 + x.c1) * (y.c0 + y.c1) - v0 - v1};
    REQUIRE(x * y == want);
    REQUIRE(x.sqr() == fp2{(x.c0 + x.c1) * (x.c0 - x.c1), (x.c0 * x.c1).dbl()});
    REQUIRE(x.sqr() == x * x);
    REQUIRE((x * y).c0.m < fp::P);
    REQUIRE((x * y).c1.m < fp::P);
  }
}
