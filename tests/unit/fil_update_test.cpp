// SnapDeals (fil/update, fil/io/update_bincode, fil/circuit/empty_sector_update) without the oracle:
// synthetic PartitionProofs (fil/synthetic) pass the vanilla checks and their witness satisfies the
// circuit (check mode) with the verifier's public inputs; the bincode round-trips; a changed leaf, a
// wrong comm_r_old, comm_d_new or partition and truncated bytes are refused with a line naming the
// field. Against Filecoin's own code: tests/fil/snap_prove.sh and r1cs_compare.sh (fil-oracle).
#include <catch2/catch.hpp>

#include "fil/circuit/empty_sector_update.hpp"
#include "fil/io/update_bincode.hpp"
#include "fil/synthetic.hpp"
#include "fil/update/challenges.hpp"
#include "zk/error.hpp"

using namespace cuzk;

namespace {

std::uint64_t unsatisfied(const fil::update::public_params& pp, unsigned k, const fil::update::commitments& c,
                          const fil::update::partition_proof& p, std::vector<fil::fr>* inputs = nullptr) {
  zk::cs::constraint_system cs(zk::cs::mode::check);
  fil::circuit::empty_sector_update(cs, fil::circuit::update_partition_from(pp, k, c, p, "synthetic"));
  if (inputs) inputs->assign(cs.inputs().begin() + 1, cs.inputs().end());
  return cs.num_unsatisfied();
}

}  // namespace

TEST_CASE("fil update: shapes from the sector size", "[fil]") {
  const auto a = fil::update::from_sector_size(2048);
  CHECK(a.partition_count == 1);
  CHECK(a.challenge_count == 10);
  CHECK(a.apex_leaf_count == 8);
  CHECK(a.h == 1);
  CHECK(a.h_select() == 1);
  const auto b = fil::update::from_sector_size(32ull << 30);
  CHECK(b.partition_count == 16);
  CHECK(b.challenge_count == 86);
  CHECK(b.apex_leaf_count == 128);
  CHECK(b.h == 10);
  CHECK(b.h_select() == 8);
  CHECK(fil::update::from_sector_size(8ull << 20).partition_count == 4);
  CHECK(fil::update::from_sector_size(32ull << 10).partition_count == 2);
  REQUIRE_THROWS_WITH(fil::update::from_sector_size(4096 * 3), Catch::Contains("no SnapDeals proof"));
}

TEST_CASE("fil update: challenges stay in their partition", "[fil]") {
  const auto pp = fil::update::from_sector_size(8ull << 20);
  const fil::fr r = fil::fr::from_u64(12345);
  for (unsigned k = 0; k < pp.partition_count; ++k) {
    const auto cs = fil::update::challenges(pp, r, k);
    REQUIRE(cs.size() == pp.challenge_count);
    for (auto c : cs) CHECK((c >> (pp.challenge_bit_len - pp.partition_bit_len)) == k);
  }
}

TEST_CASE("fil update: synthetic proofs pass the checks and satisfy the circuit", "[fil]") {
  for (std::uint64_t size : {2048ull, 8ull << 20}) {
    const auto pp = fil::update::from_sector_size(size);
    const auto syn = fil::synthetic_update_proofs(size, 7);
    REQUIRE(syn.partitions.size() == pp.partition_count);
    for (unsigned k = 0; k < pp.partition_count; ++k) {
      const auto& p = syn.partitions[k];
      const auto bytes = fil::io::to_bincode(p);
      REQUIRE(fil::io::read_partition_proof(bytes, "p") == p);
      std::vector<fil::fr> inputs;
      CHECK(unsatisfied(pp, k, syn.comms, p, &inputs) == 0);
      CHECK(inputs == fil::update::public_inputs(pp, k, syn.comms));
    }
  }
}

TEST_CASE("fil update: refusals name the field", "[fil]") {
  const auto pp = fil::update::from_sector_size(2048);
  const auto syn = fil::synthetic_update_proofs(2048, 3);
  const auto& p = syn.partitions[0];
  auto check = [&](const fil::update::commitments& c, const fil::update::partition_proof& q, unsigned k = 0) {
    fil::update::check_partition_proof(pp, k, c, q, "v.bin");
  };
  auto c = syn.comms;
  c.comm_r_old[0] ^= 1;
  REQUIRE_THROWS_WITH(check(c, p), Catch::StartsWith("v.bin: comm_r_old ") && Catch::Contains("is not Poseidon(comm_c"));
  c = syn.comms;
  c.comm_d_new[0] ^= 1;
  REQUIRE_THROWS_WITH(check(c, p), Catch::StartsWith("v.bin: comm_d_new "));
  REQUIRE_THROWS_WITH(check(syn.comms, p, 1), Catch::StartsWith("v.bin: partition 1 of 1"));
  auto q = p;
  std::get<fil::merkle::single_proof>(q.challenge_proofs[3].proof_r_old.data).leaf[0] ^= 1;
  REQUIRE_THROWS_WITH(check(syn.comms, q),
                      Catch::StartsWith("v.bin: challenge 3 (node ") && Catch::Contains("proof_r_old: the path does not lead"));
  q = p;
  q.apex_leafs.pop_back();
  REQUIRE_THROWS_WITH(check(syn.comms, q), "v.bin: apex_leafs: 7, expected 8");
  q = p;
  const auto cs = fil::update::challenges(pp, fil::domain_to_fr(syn.comms.comm_r_new, "comm_r_new"), 0);
  std::size_t j = 1;
  while (cs[j] == cs[0]) ++j;
  std::swap(q.challenge_proofs[0], q.challenge_proofs[j]);
  REQUIRE_THROWS_WITH(check(syn.comms, q), Catch::Contains("the challenge is"));
  auto bytes = fil::io::to_bincode(p);
  bytes.resize(bytes.size() - 5);
  REQUIRE_THROWS_WITH(fil::io::read_partition_proof(bytes, "v.bin"), Catch::StartsWith("v.bin: challenge_proofs[9]"));
}
