#include <catch2/catch.hpp>

#include <random>

#include "zk/bls12_381/fields.hpp"

using namespace cuzk::zk;
using namespace cuzk::zk::bls12_381;

namespace {

// Random canonical Montgomery representations, biased towards the edges (0, 1, P-1, values near
// 2^(64N) / 2^k, equal operands) where carry handling goes wrong.
template <class F>
typename F::repr edge_or_random(std::mt19937_64& rng) {
  typename F::repr r{};
  switch (rng() % 6) {
    case 0: r = F::P, r.limb[0] -= 1 + rng() % 3; return r;
    case 1: r.limb[0] = rng() % 3; return r;
    case 2: for (auto& l : r.limb) l = ~std::uint64_t{0}; break;
    default: for (auto& l : r.limb) l = rng(); break;
  }
  r.limb[F::N - 1] %= F::P.limb[F::N - 1];
  return r;
}

template <class F>
void cross_check(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 200000; ++i) {
    F a = F::from_mont(edge_or_random<F>(rng)), b = F::from_mont(edge_or_random<F>(rng));
    if (i % 7 == 0) b = a;
    F want = F::mul_generic(a, b);
    REQUIRE(a * b == want);
    REQUIRE(a.sqr() == F::mul_generic(a, a));
    REQUIRE((a * b).m < F::P);
    F c = a;
    c *= b;  // result aliasing an operand
    REQUIRE(c == want);
  }
}

}  // namespace

TEST_CASE("Montgomery multiplication (x86-64 assembly where available) matches the generic CIOS", "[ff]") {
  cross_check<fp>(1);
  cross_check<fr>(2);
  // and a known product: (2^64)^2 in Fr through the field versus modular arithmetic on integers
  fr x = fr::from_u64(0xffffffffffffffffull), y = x * x;
  bigint<4> want{};  // (2^64 - 1)^2 = 2^128 - 2^65 + 1
  want.limb[0] = 1, want.limb[1] = 0xfffffffffffffffeull;
  CHECK(y.to_canonical() == want);
}
