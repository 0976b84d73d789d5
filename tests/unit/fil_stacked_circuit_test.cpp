// The StackedDrg PoRep circuit (fil/circuit/stacked) on the real 2 KiB C1 output of
// tests/fixtures/filecoin/oracle-2k, without the oracle binary: the witness satisfies every recorded
// constraint, the public inputs it allocates are the oracle's (public-inputs.json), the counts are
// those fil-oracle reports for this partition (40 inputs, 2,685,673 aux, 2,687,921 constraints) and
// the blank circuit's, and bad witnesses are refused with one line naming partition, challenge and
// field. (Term-by-term equality with bellperson's R1CS and witness: fil.r1cs.)
#include <catch2/catch.hpp>

#include <fstream>

#include <nlohmann/json.hpp>

#include "fil/circuit/stacked.hpp"
#include "fil/io/c1_json.hpp"
#include "zk/error.hpp"

using namespace cuzk;
using zk::cs::constraint_system;

namespace {

const std::string dir = CUZK_SOURCE_DIR "/tests/fixtures/filecoin/oracle-2k/";

const fil::seal_commit_phase1_output& real_c1() {
  static const auto c1 = fil::io::read_c1_file(dir + "c1.json").phase1_out;
  return c1;
}

std::string synthesis_error(const fil::seal_commit_phase1_output& c1) {
  try {
    constraint_system cs(zk::cs::mode::witness);
    fil::circuit::stacked_circuit(cs, fil::circuit::porep_partition_from(c1, 0));
  } catch (const zk::input_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("PoRep circuit: the real 2 KiB partition satisfies its R1CS with the oracle's public inputs", "[fil][circuit][porep]") {
  const auto& c1 = real_c1();
  constraint_system cs(zk::cs::mode::record);
  fil::circuit::stacked_circuit(cs, fil::circuit::porep_partition_from(c1, 0));
  CHECK(cs.inputs().size() == 40);
  CHECK(cs.aux().size() == 2685673);
  CHECK(cs.num_constraints() == 2687921);
  std::uint64_t bad = 0;
  for (const auto& c : cs.constraints())
    if (!(cs.eval(c.a) * cs.eval(c.b) == cs.eval(c.c))) ++bad;
  CHECK(bad == 0);

  std::ifstream pj(dir + "public-inputs.json");
  const auto theirs = nlohmann::json::parse(pj)["public_inputs"][0]["inputs"];
  REQUIRE(theirs.size() + 1 == cs.inputs().size());
  for (std::size_t i = 0; i < theirs.size(); ++i) {
    auto d = fil::domain_from_hex(theirs[i].get<std::string>(), "public-inputs.json");
    std::reverse(d.begin(), d.end());
    INFO("input " << i + 1);
    CHECK(fil::fr_to_domain(cs.inputs()[i + 1]) == d);
  }

  constraint_system w(zk::cs::mode::witness);
  fil::circuit::stacked_circuit(w, fil::circuit::porep_partition_from(c1, 0));
  CHECK(w.aux() == cs.aux());
  CHECK(w.inputs() == cs.inputs());
  // Challenges in parallel, appended in order: the same witness and counts.
  constraint_system wp(zk::cs::mode::witness);
  fil::circuit::stacked_circuit(wp, fil::circuit::porep_partition_from(c1, 0), 4);
  CHECK(wp.aux() == cs.aux());
  CHECK(wp.inputs() == cs.inputs());
  CHECK(wp.num_constraints() == cs.num_constraints());
  CHECK(wp.num_aux() == cs.aux().size());

  // The blank circuit (parameter generation's) has the same counts; count mode stores nothing.
  constraint_system n(zk::cs::mode::count);
  fil::circuit::stacked_circuit(n, fil::circuit::blank_porep_partition(fil::circuit::porep_shape_of(*c1.registered_proof)));
  CHECK(n.num_inputs() == 40);
  CHECK(n.num_aux() == 2685673);
  CHECK(n.num_constraints() == 2687921);
  CHECK(n.aux().empty());
  constraint_system np(zk::cs::mode::count);
  fil::circuit::stacked_circuit(np, fil::circuit::blank_porep_partition(fil::circuit::porep_shape_of(*c1.registered_proof)), 2);
  CHECK(np.num_inputs() == 40);
  CHECK(np.num_aux() == 2685673);
  CHECK(np.num_constraints() == 2687921);
}

TEST_CASE("PoRep circuit: bad witnesses are named by partition, challenge and field", "[fil][circuit][porep]") {
  const auto& c1 = real_c1();
  auto bad = c1;
  std::get<fil::merkle::single_proof>(bad.vanilla_proofs[0][1].comm_d_proofs.data).path.path.pop_back();
  CHECK(synthesis_error(bad) == "partition 0 challenge 1 comm_d_proofs: a path of 5 levels, the tree has 6");

  bad = c1;
  std::get<fil::merkle::single_proof>(bad.vanilla_proofs[0][0].comm_d_proofs.data).leaf[3] ^= 1;
  const auto node0 = std::to_string(c1.vanilla_proofs[0][0].challenge());
  CHECK(synthesis_error(bad) == "partition 0 challenge 0 (node " + node0 + "): comm_d_proofs: path does not reach the root");

  bad = c1;
  bad.vanilla_proofs[0][1].replica_column_proofs.drg_parents[2].column.rows[0][4] ^= 1;
  const auto node1 = std::to_string(c1.vanilla_proofs[0][1].challenge());
  CHECK(synthesis_error(bad) ==
        "partition 0 challenge 1 (node " + node1 + "): replica_column_proofs.drg_parents[2]: path does not reach the root");

  bad = c1;
  std::get<fil::merkle::single_proof>(bad.vanilla_proofs[0][0].comm_r_last_proof.data).path.path[0].hashes[2][1] ^= 1;
  CHECK(synthesis_error(bad) ==
        "partition 0 challenge 0 (node " + node0 + "): comm_r_last_proof (the encoded node): path does not reach the root");

  bad = c1;
  bad.comm_r[0] ^= 1;
  CHECK(synthesis_error(bad) == "partition 0: comm_r is not Poseidon(comm_c, comm_r_last)");

  bad = c1;
  bad.vanilla_proofs[0][1].replica_column_proofs.exp_parents.pop_back();
  CHECK(synthesis_error(bad) == "partition 0 challenge 1: replica_column_proofs.exp_parents has 7 columns, expected 8");

  // A C1 of another sector size than the proof it is used for: its paths are too short.
  bad = c1;
  bad.registered_proof = fil::find_seal_proof("StackedDrg8MiBV1_1");
  REQUIRE(bad.registered_proof);
  CHECK_THAT(synthesis_error(bad), Catch::StartsWith("partition 0") && Catch::Contains("comm_d_proofs: a path of 6 levels"));

  CHECK_THAT(synthesis_error(c1), Catch::Equals(""));

  // On threads the first failing challenge (in challenge order) is the one named.
  bad = c1;
  bad.vanilla_proofs[0][1].replica_column_proofs.drg_parents[0].column.rows[1][2] ^= 1;
  std::get<fil::merkle::single_proof>(bad.vanilla_proofs[0][0].comm_r_last_proof.data).path.path[1].hashes[0][1] ^= 1;
  try {
    constraint_system cs(zk::cs::mode::witness);
    fil::circuit::stacked_circuit(cs, fil::circuit::porep_partition_from(bad, 0), 2);
    FAIL("no error");
  } catch (const zk::input_error& e) {
    CHECK(std::string(e.what()) ==
          "partition 0 challenge 0 (node " + node0 + "): comm_r_last_proof (the encoded node): path does not reach the root");
  }
}

TEST_CASE("PoRep circuit: the layout a key's load prepares is the one the first witness uses",
          "[fil][circuit][porep]") {
  // The real partition's witness on threads (which needs the per-part counts), then the blank
  // shape's preparation: it finds what the witness counted (the same key), so a load that prepares
  // it leaves nothing to count to the first partition. Either order counts once.
  const auto& c1 = real_c1();
  const auto shape = fil::circuit::porep_shape_of(*c1.registered_proof);
  zk::thread_pool pool(2);
  constraint_system first(zk::cs::mode::witness);
  fil::circuit::stacked_circuit(first, fil::circuit::porep_partition_from(c1, 0), pool);
  const std::size_t counted = fil::circuit::porep_layouts_counted();
  CHECK_FALSE(fil::circuit::prepare_porep_layout(shape, pool));
  CHECK(fil::circuit::porep_layouts_counted() == counted);
  // Another shape (8 MiB: other paths): prepared (once in this process), then its blank partition's
  // witness on threads counts nothing more.
  const auto* other = fil::find_seal_proof("StackedDrg8MiBV1_1");
  const auto other_shape = fil::circuit::porep_shape_of(*other);
  const bool prepared = fil::circuit::prepare_porep_layout(other_shape, pool);
  const std::size_t after = fil::circuit::porep_layouts_counted();
  CHECK(after == counted + (prepared ? 1 : 0));
  CHECK_FALSE(fil::circuit::prepare_porep_layout(other_shape, pool));
  const auto blank = fil::circuit::blank_porep_partition(other_shape);
  REQUIRE(blank.challenges.size() >= 2);
  constraint_system cs(zk::cs::mode::witness);
  fil::circuit::stacked_circuit(cs, blank, pool);
  CHECK(fil::circuit::porep_layouts_counted() == after);
  // The witness made after the preparation is the one made on one thread (no layout).
  constraint_system serial(zk::cs::mode::witness);
  fil::circuit::stacked_circuit(serial, fil::circuit::porep_partition_from(c1, 0), 1u);
  CHECK(serial.inputs() == first.inputs());
  CHECK(serial.aux() == first.aux());
}
