// fil/: PoRep and WindowPoSt public inputs judged by real proofs. polka-storage's pallet tests carry a
// 2 KiB PoRep proof and a 2 KiB WindowPoSt proof made by filecoin-proofs over the real circuits with
// their (random-setup) verifying keys (tests/fixtures/filecoin/polka-storage/). The pairing check
// passes only when every input we derive (replica_id from prover_id / sector / ticket / comm_d /
// porep_id, the interactive challenges from the seed, the 14 graph parents of each challenge, the PoSt
// leaf challenges) equals what the prover used; each perturbation below must make it fail.
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>

#include "fil/ids.hpp"
#include "fil/post/fallback.hpp"
#include "fil/stacked/challenges.hpp"
#include "fil/stacked/public_inputs.hpp"
#include "zk/io/bellperson.hpp"
#include "zk/groth16/compressed_proof.hpp"
#include "zk/groth16/verifier.hpp"

using namespace cuzk;
using namespace cuzk::fil;

namespace {

const std::string dir = CUZK_SOURCE_DIR "/tests/fixtures/filecoin/polka-storage/";

nlohmann::json fixture() {
  std::ifstream in(dir + "values.json");
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

std::vector<std::uint8_t> file(const std::string& name) {
  std::ifstream in(dir + name, std::ios::binary);
  REQUIRE(in);
  return {std::istreambuf_iterator<char>(in), {}};
}

zk::groth16::verifying_key vk_of(const nlohmann::json& f) {
  return zk::io::parse_compressed_vk(file(f["vk"]), f["vk"]);
}

bool verifies(const zk::groth16::verifying_key& vk, const std::vector<fr>& inputs, const nlohmann::json& f) {
  const auto proofs = zk::groth16::proofs_from_compressed(file(f["proof"]), f["proof"]);
  REQUIRE(proofs.size() == 1);
  std::vector<zk::bigint<4>> canon;
  for (const auto& x : inputs) canon.push_back(x.to_canonical());
  return zk::groth16::verify(vk, canon, proofs[0]);
}

domain dom(const std::string& hex) { return domain_from_hex(hex, "fixture"); }

}  // namespace

TEST_CASE("fil: 2 KiB PoRep public inputs verify polka-storage's proof", "[fil]") {
  const auto f = fixture()["porep"];
  const auto* proof = find_seal_proof(f["registered_proof"].get<std::string>());
  REQUIRE(proof);
  const auto vk = vk_of(f);
  REQUIRE(vk.n_public() == 3 + 18 * proof->challenges_per_partition);

  const domain pid = dom(f["prover_id"]), ticket = dom(f["ticket"]), seed = dom(f["seed"]);
  const domain comm_d = dom(f["comm_d"]), comm_r = dom(f["comm_r"]);
  const std::uint64_t sector = f["sector_number"];
  stacked::stacked_bucket_graph graph(proof->nodes(), porep_id(*proof), proof->version);
  auto inputs_for = [&](std::uint64_t sector_id, const domain& t, const domain& s, const seal_proof_info& p) {
    stacked::public_inputs in;
    in.replica_id = replica_id(pid, sector_id, t, comm_d, porep_id(p));
    in.seed = s, in.comm_d = comm_d, in.comm_r = comm_r;
    stacked::stacked_bucket_graph g(p.nodes(), porep_id(p), p.version);
    return stacked::generate_public_inputs(p, g, in, 0);
  };
  // polka-storage's pallet derives porep_id from proof id 0 for its "StackedDRG2KiBV1P1" (API 1.1
  // graph): its prover made the proof with that porep_id, so it is what verifies here.
  seal_proof_info as_polka = *proof;
  as_polka.id = 0;
  const auto good = inputs_for(sector, ticket, seed, as_polka);
  CHECK(good.size() == 39);
  CHECK(verifies(vk, good, f));

  SECTION("another sector, ticket, seed, prover or graph version fails") {
    domain other = seed;
    other[0] ^= 1;
    CHECK_FALSE(verifies(vk, inputs_for(sector + 1, ticket, seed, as_polka), f));
    CHECK_FALSE(verifies(vk, inputs_for(sector, other, seed, as_polka), f));
    CHECK_FALSE(verifies(vk, inputs_for(sector, ticket, other, as_polka), f));
    CHECK_FALSE(verifies(vk, inputs_for(sector, ticket, seed, *find_seal_proof("StackedDrg2KiBV1")), f));
    CHECK_FALSE(verifies(vk, inputs_for(sector, ticket, seed, *proof), f));
    auto swapped = good;  // parents in the wrong order
    std::swap(swapped[4], swapped[5]);
    CHECK_FALSE(verifies(vk, swapped, f));
  }
}

TEST_CASE("fil: 2 KiB WindowPoSt public inputs verify polka-storage's proof", "[fil]") {
  const auto f = fixture()["window_post"];
  // values.json names it after polka-storage's StackedDRGWindow2KiBV1P1; filecoin-proofs-api's
  // grindability-fixed WindowPoSt is StackedDrgWindow2KiBV1_2 (with one sector, 1.0 numbering agrees).
  const auto* proof = find_post_proof("StackedDrgWindow2KiBV1_2");
  REQUIRE(proof);
  const auto vk = vk_of(f);
  REQUIRE(vk.n_public() == proof->sector_count * (1 + proof->challenge_count));
  std::vector<post::public_sector> sectors;
  for (const auto& s : f["sectors"]) sectors.push_back({s["sector_number"].get<std::uint64_t>(), dom(s["comm_r"])});
  const domain randomness = dom(f["randomness"]);
  CHECK(post::partition_count(*proof, sectors.size()) == 1);
  CHECK(verifies(vk, post::generate_public_inputs(*proof, randomness, sectors, 0), f));

  SECTION("other randomness, sector id or API version fails") {
    domain r2 = randomness;
    r2[3] ^= 0x10;
    CHECK_FALSE(verifies(vk, post::generate_public_inputs(*proof, r2, sectors, 0), f));
    auto s2 = sectors;
    s2[0].id += 1;
    CHECK_FALSE(verifies(vk, post::generate_public_inputs(*proof, randomness, s2, 0), f));
    auto swapped = post::generate_public_inputs(*proof, randomness, sectors, 0);
    std::swap(swapped[1], swapped[2]);
    CHECK_FALSE(verifies(vk, swapped, f));
  }
}
