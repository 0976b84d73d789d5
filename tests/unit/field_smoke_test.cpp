#include <catch2/catch.hpp>

#include "zk/bls12_381/curves.hpp"

using namespace cuzk::zk;
using namespace cuzk::zk::bls12_381;

TEST_CASE("snarkjs root of unity w_32 = 5^((r-1)/2^32)", "[fr]") {
  bigint<4> e = fr::P;
  e.sub_in_place(bigint<4>{{1, 0, 0, 0}});
  for (unsigned i = 0; i < fr_two_adicity; ++i) e.shr1();
  fr w = fr::from_u64(fr_snarkjs_generator).pow(e);
  CHECK(w.to_canonical().to_hex() ==
        "0x212d79e5b416b6f0fd56dc8d168d6c0c4024ff270b3e0941b788f500b912f1f");
}

TEST_CASE("generators are on their curves and in the r-torsion", "[curve]") {
  CHECK(g1_curve::generator().is_on_curve());
  CHECK(g2_curve::generator().is_on_curve());
  CHECK(in_prime_subgroup(g1_curve::generator()));
  CHECK(in_prime_subgroup(g2_curve::generator()));
}
