// Synthetic C1 outputs (fil/synthetic: a sector never sealed, every path consistent with its root,
// labels computed from the opened parent columns): the native vanilla verifier accepts them and their
// witness satisfies our R1CS. 2 KiB: against the recorded blank circuit, constraint by constraint;
// 8 MiB: the whole partition in check mode; 32 GiB: two of a partition's 18 challenges in check mode
// (the whole partition is the benchmark `cuzk_r1cs_compare --check C1#K`, docs/benchmarks.md).
#include <catch2/catch.hpp>

#include "fil/circuit/stacked.hpp"
#include "fil/io/c1_json.hpp"
#include "fil/io/json_stream.hpp"
#include "fil/registered_proof.hpp"
#include "fil/stacked/vanilla_verify.hpp"
#include "fil/synthetic.hpp"
#include "zk/error.hpp"

using namespace cuzk;
using zk::cs::constraint_system;

namespace {

const fil::seal_proof_info& proof_of(const char* name) {
  const auto* p = fil::find_seal_proof(name);
  REQUIRE(p);
  return *p;
}

// Check mode over partition k (or its first `challenges` challenges); returns the unsatisfied count.
std::uint64_t check_partition(const fil::seal_commit_phase1_output& c1, unsigned k, std::size_t challenges = 0) {
  auto p = fil::circuit::porep_partition_from(c1, k);
  if (challenges) p.challenges.resize(challenges);
  constraint_system cs(zk::cs::mode::check);
  fil::circuit::stacked_circuit(cs, p);
  INFO(cs.first_unsatisfied());
  CHECK(cs.num_constraints() > 0);
  return cs.num_unsatisfied();
}

}  // namespace

TEST_CASE("synthetic C1 2 KiB: vanilla proofs verify, the witness satisfies the recorded R1CS", "[fil][synthetic]") {
  const auto& info = proof_of("StackedDrg2KiBV1_1");
  constraint_system rec(zk::cs::mode::record);
  fil::circuit::stacked_circuit(rec, fil::circuit::blank_porep_partition(fil::circuit::porep_shape_of(info)));
  for (const std::uint64_t seed : {1, 2, 3}) {
    INFO("seed " << seed);
    const auto c1 = fil::synthetic_c1(info, 5 + seed, 1000 + seed, seed);
    CHECK(fil::stacked::verify_vanilla_proofs(c1).empty());
    // Through the JSON the CLI writes.
    const std::string json = fil::io::to_json(c1);
    fil::io::memory_source src(json);
    const auto back = fil::io::read_c1(src, "c1.json");
    REQUIRE(back.phase1_out.vanilla_proofs == c1.vanilla_proofs);
    for (unsigned k = 0; k < c1.vanilla_proofs.size(); ++k) {
      constraint_system w(zk::cs::mode::witness);
      fil::circuit::stacked_circuit(w, fil::circuit::porep_partition_from(back.phase1_out, k), 2);
      REQUIRE(w.inputs().size() == rec.inputs().size());
      REQUIRE(w.aux().size() == rec.aux().size());
      REQUIRE(w.num_constraints() == rec.constraints().size());
      std::uint64_t bad = 0;
      for (const auto& c : rec.constraints())
        if (!(c.a.evaluate(w.inputs(), w.aux()) * c.b.evaluate(w.inputs(), w.aux()) == c.c.evaluate(w.inputs(), w.aux())))
          ++bad;
      CHECK(bad == 0);
      CHECK(check_partition(back.phase1_out, k) == 0);
    }
  }
  // The same seed gives the same C1; another seed another one.
  CHECK(fil::synthetic_c1(info, 1, 1000, 9).vanilla_proofs == fil::synthetic_c1(info, 1, 1000, 9).vanilla_proofs);
  CHECK(fil::synthetic_c1(info, 1, 1000, 9).comm_r != fil::synthetic_c1(info, 1, 1000, 10).comm_r);
}

TEST_CASE("check mode names the first unsatisfied constraint of a bad witness", "[fil][synthetic]") {
  const auto& info = proof_of("StackedDrg2KiBV1_1");
  const auto c1 = fil::synthetic_c1(info, 1, 1000, 4);
  auto p = fil::circuit::porep_partition_from(c1, 0);
  p.check = false;  // let the bad value through to the constraints
  p.challenges[1].drg_parents[2].rows[0] = p.challenges[1].drg_parents[2].rows[0] + fil::fr::one();
  constraint_system cs(zk::cs::mode::check);
  fil::circuit::stacked_circuit(cs, p);
  CHECK(cs.num_unsatisfied() > 0);
  CHECK_THAT(cs.first_unsatisfied(), Catch::Contains("challenge_1"));
}

TEST_CASE("synthetic C1 8 MiB: vanilla proofs verify, every constraint holds (check mode)", "[fil][synthetic]") {
  const auto& info = proof_of("StackedDrg8MiBV1_1");
  const auto c1 = fil::synthetic_c1(info, 3, 1234, 7);
  CHECK(fil::stacked::verify_vanilla_proofs(c1).empty());
  for (unsigned k = 0; k < c1.vanilla_proofs.size(); ++k) CHECK(check_partition(c1, k) == 0);
}

TEST_CASE("synthetic C1 32 GiB: vanilla proofs verify, a sample of challenges satisfies the R1CS", "[fil][synthetic]") {
  const auto& info = proof_of("StackedDrg32GiBV1_1");
  const auto c1 = fil::synthetic_c1(info, 5, 1000, 1);
  REQUIRE(c1.vanilla_proofs.size() == 10);
  CHECK(fil::stacked::verify_vanilla_proofs(c1).empty());
  // Partition 3, its first two challenges (each ~7.2M constraints).
  CHECK(check_partition(c1, 3, 2) == 0);
}
