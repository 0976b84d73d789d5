// fil/circuit and zk/cs without the oracle: the Poseidon gadget computes the native hash
// (fil/crypto/poseidon) with neptune's constraint counts, every recorded constraint holds for the
// recorded witness, witness mode yields the same values without constraints, and linear
// combinations merge as bellpepper's do. (The R1CS itself is judged against fil-oracle: fil.r1cs.)
#include <catch2/catch.hpp>

#include "fil/circuit/fallback_post.hpp"
#include "fil/circuit/poseidon.hpp"
#include "fil/crypto/poseidon.hpp"
#include "zk/cs/gadgets/boolean.hpp"

using namespace cuzk;
using zk::cs::constraint_system;
using zk::cs::fr;
using zk::cs::gadgets::allocated_num;

namespace {

std::uint64_t unsatisfied(const constraint_system& cs) {
  std::uint64_t bad = 0;
  for (const auto& c : cs.constraints())
    if (!(cs.eval(c.a) * cs.eval(c.b) == cs.eval(c.c))) ++bad;
  return bad;
}

}  // namespace

TEST_CASE("linear combinations merge duplicates and keep zero coefficients, inputs first", "[fil][circuit]") {
  zk::cs::linear_combination lc;
  lc.add(zk::cs::variable::aux(3)).add(zk::cs::variable::input(2), fr::from_u64(5)).add(zk::cs::variable::aux(1));
  lc.sub(zk::cs::variable::aux(3));
  REQUIRE(lc.terms().size() == 3);
  CHECK(lc.terms()[0].first == zk::cs::variable::input(2));
  CHECK(lc.terms()[1].first == zk::cs::variable::aux(1));
  CHECK(lc.terms()[2].first == zk::cs::variable::aux(3));
  CHECK(lc.terms()[2].second == fr::zero());
}

TEST_CASE("the Poseidon gadget equals the native hash with neptune's constraint counts", "[fil][circuit][poseidon]") {
  const std::pair<unsigned, std::uint64_t> cases[] = {{2, 311}, {4, 377}, {8, 505}, {11, 598}};
  for (const auto& [arity, count] : cases) {
    constraint_system cs(zk::cs::mode::record);
    std::vector<fr> in;
    std::vector<allocated_num> vars;
    for (unsigned i = 0; i < arity; ++i) {
      in.push_back(fr::from_u64(1000 + 7 * i) * fr::from_u64(0xdeadbeefcafeULL + i));
      vars.push_back(allocated_num::alloc(cs, in.back()));
    }
    const auto out = fil::circuit::poseidon_hash(cs, vars);
    INFO("arity " << arity);
    CHECK(out.value == fil::crypto::poseidon(in));
    CHECK(cs.num_constraints() == count);
    CHECK(unsatisfied(cs) == 0);
    constraint_system w(zk::cs::mode::witness);
    std::vector<allocated_num> wv;
    for (const auto& x : in) wv.push_back(allocated_num::alloc(w, x));
    CHECK(fil::circuit::poseidon_hash(w, wv).value == out.value);
    CHECK(w.constraints().empty());
    CHECK(w.aux() == cs.aux());
  }
}

TEST_CASE("witness mode gives the values of record mode without constraints", "[fil][circuit]") {
  fil::circuit::tree_arities t{8, 4, 0};
  auto sector = fil::circuit::blank_post_sector(t, 256, 2);
  sector.comm_c = fr::from_u64(11), sector.comm_r_last = fr::from_u64(12);
  sector.comm_r = fil::crypto::poseidon(std::vector<fr>{sector.comm_c, sector.comm_r_last});
  for (std::size_t i = 0; i < sector.leafs.size(); ++i) {
    sector.leafs[i] = fr::from_u64(100 + i);
    for (auto& lv : sector.paths[i]) {
      lv.index = (i + 1) % lv.arity;
      for (std::size_t j = 0; j < lv.siblings.size(); ++j) lv.siblings[j] = fr::from_u64(7 * j + i);
    }
  }
  constraint_system rec(zk::cs::mode::record), wit(zk::cs::mode::witness);
  const std::vector<fil::circuit::post_sector> sectors{sector};
  fil::circuit::fallback_post(rec, t, sectors);
  fil::circuit::fallback_post(wit, t, sectors);
  CHECK(wit.constraints().empty());
  CHECK(wit.num_constraints() == rec.num_constraints());
  CHECK(wit.aux() == rec.aux());
  CHECK(wit.inputs() == rec.inputs());
  // The leaves hash to some root other than comm_r_last, so exactly the root equalities fail.
  CHECK(unsatisfied(rec) == sector.leafs.size());
}
