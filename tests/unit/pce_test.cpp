#include <catch2/catch.hpp>

#include <random>

#include "groth16_test_support.hpp"
#include "zk/error.hpp"
#include "zk/groth16/pce.hpp"
#include "zk/groth16/setup.hpp"
#include "zk/io/r1cs.hpp"
#include "zk/io/wtns.hpp"
#include "zk/io/zkey.hpp"

using namespace cuzk::zk;
using namespace cuzk::zk::bls12_381;
using namespace cuzk::zk::groth16;

namespace {

fr lc_value(const io::r1cs::linear_combination& lc, const std::vector<fr>& values) {
  fr acc = fr::zero();
  for (const auto& t : lc) acc += t.coeff * values[t.wire];
  return acc;
}

// The evaluator against the r1cs evaluated directly (the independent reference): a = A w, b = B w,
// c = C w for a satisfied system, the extra A rows hold w_s, the padding is zero.
void check_against_r1cs(const io::r1cs& cs, const std::vector<fr>& values, std::uint32_t n_public, const synthesis& s) {
  for (std::uint32_t j = 0; j < cs.n_constraints; ++j) {
    INFO("constraint " << j);
    CHECK(s.a[j] == lc_value(cs.constraints[j].a, values));
    CHECK(s.b[j] == lc_value(cs.constraints[j].b, values));
    CHECK(s.c[j] == lc_value(cs.constraints[j].c, values));
  }
  for (std::uint32_t p = 0; p <= n_public; ++p) {
    CHECK(s.a[cs.n_constraints + p] == values[p]);
    CHECK(s.b[cs.n_constraints + p].is_zero());
  }
  for (std::size_t j = cs.n_constraints + n_public + 1; j < s.a.size(); ++j) {
    CHECK(s.a[j].is_zero());
    CHECK(s.b[j].is_zero());
    CHECK(s.c[j].is_zero());
  }
}

}  // namespace

TEST_CASE("PCE evaluates A w, B w and their product (random circuit)", "[pce]") {
  std::mt19937_64 rng(99);
  auto rc = test::make_random_circuit(rng, 4, 6, 3000);  // enough rows to spread over threads
  io::zkey key = setup(rc.cs, toxic_waste_from_seed(5));
  auto pce = constraint_evaluator::build(key);
  REQUIRE(pce.domain_size() == key.domain_size);
  CHECK(pce.a().entries() + pce.b().entries() == key.coefficients.size());
  auto s = pce.evaluate(rc.witness());
  REQUIRE(s.a.size() == key.domain_size);
  REQUIRE(s.c.size() == key.domain_size);
  check_against_r1cs(rc.cs, rc.values, key.n_public, s);
  for (std::size_t j = 0; j < s.a.size(); ++j) REQUIRE(s.c[j] == s.a[j] * s.b[j]);

  CHECK(pce.memory_bytes() > 0);
  CHECK(constraint_evaluator::estimate_bytes(key) >= pce.memory_bytes());
}

TEST_CASE("PCE on the snarkjs fixture matches the fixture's r1cs", "[pce][fixture]") {
  const std::string dir = CUZK_SOURCE_DIR "/tests/fixtures/sample/";
  auto key = io::zkey::load(dir + "sample.zkey");
  auto w = io::witness::load(dir + "sample.wtns");
  auto cs = io::r1cs::load(dir + "sample.r1cs");
  std::vector<fr> values;
  for (const auto& v : w.values) values.push_back(fr::from_canonical(v));
  auto s = constraint_evaluator::build(key).evaluate(w);
  check_against_r1cs(cs, values, key.n_public, s);
}

TEST_CASE("PCE rejects a witness of the wrong length and bad section-4 entries", "[pce]") {
  std::mt19937_64 rng(3);
  auto rc = test::make_random_circuit(rng, 1, 2, 5);
  io::zkey key = setup(rc.cs, toxic_waste_from_seed(5));
  auto pce = constraint_evaluator::build(key);
  auto w = rc.witness();
  w.values.pop_back();
  CHECK_THROWS_AS(pce.evaluate(w), input_error);

  auto bad = key;
  bad.coefficients[0].signal = key.n_vars;
  CHECK_THROWS_AS(constraint_evaluator::build(bad), input_error);
  bad = key;
  bad.coefficients[0].constraint = key.domain_size;
  CHECK_THROWS_AS(constraint_evaluator::build(bad), input_error);
  bad = key;
  bad.coefficients[0].matrix = 2;
  CHECK_THROWS_AS(constraint_evaluator::build(bad), input_error);
}
