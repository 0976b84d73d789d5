// fil/partition: registered proofs by Curio's numbers, circuits by parameter file name, the job
// encoding a daemon journals, and refusals (one line naming the field). The proofs themselves are
// judged by fil-oracle in tests/engine/filecoin_engine.sh.
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>

#include "fil/evaluator.hpp"
#include "fil/io/post_bincode.hpp"
#include "fil/io/update_bincode.hpp"
#include "fil/parameter_cache.hpp"
#include "fil/partition.hpp"
#include "fil/synthetic.hpp"
#include "zk/cs/export.hpp"
#include "zk/error.hpp"
#include "zk/groth16/partition_buffers.hpp"

using namespace cuzk;

TEST_CASE("fil partition: a params file name gives back its circuit", "[fil]") {
  for (const auto& p : fil::post_proofs()) {
    const auto kind = p.type == fil::post_type::winning ? fil::proof_kind::winning_post : fil::proof_kind::window_post_partition;
    auto c = fil::resolve_circuit(kind, p.name, p.sector_size);
    REQUIRE(c.partitions() == 1);
    REQUIRE(c.implemented());
    auto back = fil::circuit_for_params("/some/dir/" + c.params_file());
    REQUIRE(back);
    REQUIRE(back->post);
    // V1 and V1_2 share their file: the same circuit (type, size, counts), maybe another name.
    REQUIRE(back->post->type == p.type);
    REQUIRE(back->post->sector_size == p.sector_size);
    REQUIRE(back->post->sector_count == p.sector_count);
    REQUIRE(back->post->challenge_count == p.challenge_count);
    REQUIRE(fil::circuit_for_params(c.vk_file()));
  }
  for (const auto& s : fil::seal_proofs()) {
    auto c = fil::resolve_circuit(fil::proof_kind::porep_seal_commit, s.name);
    REQUIRE(c.partitions() == s.partitions);
    auto back = fil::circuit_for_params(c.params_file());
    REQUIRE(back);
    REQUIRE(back->seal);
    REQUIRE(fil::parameter_cache_id(*back->seal) == fil::parameter_cache_id(s));
  }
  REQUIRE_FALSE(fil::circuit_for_params("v28-not-a-filecoin-file.params"));
  REQUIRE_FALSE(fil::circuit_for_params("sample.zkey"));
}

TEST_CASE("fil partition: the proofs of one params file share one recorded evaluator", "[fil]") {
  const auto key = [](const char* name) { return fil::porep_evaluator_key(*fil::find_seal_proof(name)); };
  CHECK(key("StackedDrg2KiBV1_1") == key("StackedDrg2KiBV1"));
  CHECK(key("StackedDrg2KiBV1_2_Feat_NonInteractivePoRep") == key("StackedDrg2KiBV1"));
  CHECK(key("StackedDrg32GiBV1_1") == key("StackedDrg32GiBV1"));
  CHECK(key("StackedDrg32GiBV1_1") != key("StackedDrg2KiBV1_1"));
  CHECK(fil::porep_of_evaluator_key(key("StackedDrg8MiBV1_1"))->sector_size == 8ull << 20);
}

TEST_CASE("fil partition: SnapDeals circuits and their parameter files", "[fil]") {
  // parameters.json's names (filecoin-proofs 19): cache prefix and SHA-256 of the identifier.
  const std::pair<const char*, const char*> want[] = {
      {"StackedDrg2KiBV1", "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194"},
      {"StackedDrg8MiBV1", "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63"},
      {"StackedDrg512MiBV1", "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c"},
      {"StackedDrg32GiBV1", "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18"},
      {"StackedDrg64GiBV1", "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7"}};
  const unsigned partitions[] = {1, 4, 16, 16, 16};
  for (std::size_t i = 0; i < std::size(want); ++i) {
    const auto c = fil::resolve_update_circuit(want[i].first);
    REQUIRE(c.params_file() == std::string(want[i].second) + ".params");
    REQUIRE(c.partitions() == partitions[i]);
    const auto back = fil::circuit_for_params("/dir/" + c.vk_file());
    REQUIRE(back);
    REQUIRE(back->update == c.update);
    REQUIRE(back->kind == fil::proof_kind::snap_deals_update);
  }
  REQUIRE_THROWS_WITH(fil::resolve_update_circuit("StackedDrg2KiBV1_1"),
                      Catch::StartsWith("registered_proof: 'StackedDrg2KiBV1_1' is not a registered update proof"));
  // A SnapDeals job without its PartitionProofs: bad input naming the field.
  fil::job_input in;
  in.kind = fil::proof_kind::snap_deals_update;
  REQUIRE_THROWS_WITH(fil::check_job_input(fil::resolve_update_circuit("StackedDrg2KiBV1"), in),
                      "vanilla_proofs: 0 PartitionProofs, a StackedDrg2KiBV1 update has 1 partitions");
}

TEST_CASE("fil partition: registered proofs by Curio's abi numbers", "[fil]") {
  REQUIRE(fil::registered_proof_name(fil::proof_kind::porep_seal_commit, 8) == "StackedDrg32GiBV1_1");
  REQUIRE(fil::registered_proof_name(fil::proof_kind::winning_post, 0) == "StackedDrgWinning2KiBV1");
  REQUIRE(fil::registered_proof_name(fil::proof_kind::window_post_partition, 13) == "StackedDrgWindow32GiBV1_2");
  REQUIRE_THROWS_WITH(fil::registered_proof_name(fil::proof_kind::winning_post, 15),
                      Catch::StartsWith("registered_proof: 15 is not"));
  // SnapDeals: abi.RegisteredUpdateProof, 2 KiB .. 64 GiB = 0 .. 4.
  REQUIRE(fil::registered_proof_name(fil::proof_kind::snap_deals_update, 0) == "StackedDrg2KiBV1");
  REQUIRE(fil::registered_proof_name(fil::proof_kind::snap_deals_update, 3) == "StackedDrg32GiBV1");
  REQUIRE_THROWS_WITH(fil::registered_proof_name(fil::proof_kind::snap_deals_update, 5),
                      "registered_proof: 5 is not a registered SnapDeals proof number");
}

TEST_CASE("fil partition: refusals name the field", "[fil]") {
  using fil::proof_kind;
  REQUIRE_THROWS_WITH(fil::resolve_circuit(proof_kind::winning_post, "StackedDrgWindow2KiBV1_2"),
                      Catch::StartsWith("registered_proof: 'StackedDrgWindow2KiBV1_2' is not a registered WinningPoSt"));
  REQUIRE_THROWS_WITH(fil::resolve_circuit(proof_kind::window_post_partition, "StackedDrgWindow2KiBV1_2", 2 << 20),
                      Catch::StartsWith("sector_size: 2097152 does not match"));
  REQUIRE_THROWS_WITH(fil::resolve_circuit(proof_kind::snap_deals_update, "StackedDrg2KiBV1_1"),
                      Catch::StartsWith("registered_proof: 'StackedDrg2KiBV1_1' is not a registered update proof"));
  REQUIRE_THROWS_WITH(fil::resolve_circuit(proof_kind::snap_deals_update, "StackedDrg32GiBV1", 2048),
                      Catch::StartsWith("sector_size: 2048 does not match"));
  auto porep = fil::resolve_circuit(proof_kind::porep_seal_commit, "StackedDrg2KiBV1_1", 2048);
  fil::job_input in;
  in.kind = proof_kind::porep_seal_commit;
  REQUIRE_THROWS_WITH(fil::check_job_input(porep, in), Catch::StartsWith("vanilla_proof: empty"));
  auto window = fil::resolve_circuit(proof_kind::window_post_partition, "StackedDrgWindow2KiBV1_2");
  in.kind = proof_kind::window_post_partition;
  REQUIRE_THROWS_WITH(fil::check_job_input(window, in), "vanilla_proofs: no sector proofs");
  in.vanilla_proofs.assign(3, std::vector<std::uint8_t>(10));
  REQUIRE_THROWS_WITH(fil::check_job_input(window, in), Catch::StartsWith("vanilla_proofs: 3 sector proofs"));
  in.vanilla_proofs.resize(1);
  REQUIRE_THROWS_WITH(fil::check_job_input(window, in), Catch::StartsWith("vanilla_proofs[0]: "));
}

TEST_CASE("fil partition: the journaled job encoding round-trips and refuses truncation", "[fil]") {
  fil::job_input in;
  in.kind = fil::proof_kind::window_post_partition;
  in.registered_proof = "StackedDrgWindow2KiBV1_2";
  in.miner_id = 1000;
  in.sector_number = 7;
  for (std::size_t i = 0; i < 32; ++i) in.randomness[i] = std::uint8_t(i * 7);
  in.partition_index = 3;
  in.vanilla_proofs = {{1, 2, 3}, {}, std::vector<std::uint8_t>(300, 9)};
  in.c1 = {'{', '}'};
  for (std::size_t i = 0; i < 32; ++i)
    in.comm_r_old[i] = std::uint8_t(i + 1), in.comm_r_new[i] = std::uint8_t(i + 2), in.comm_d_new[i] = std::uint8_t(i + 3);
  const auto bytes = fil::encode(in);
  REQUIRE(fil::decode_job_input(bytes, "job.bin") == in);
  // A version 1 job (journaled before SnapDeals) has no commitments: they read as zero.
  auto v1 = bytes;
  v1[8] = 1;
  v1.resize(v1.size() - 96);
  auto old = in;
  old.comm_r_old = old.comm_r_new = old.comm_d_new = fil::domain{};
  REQUIRE(fil::decode_job_input(v1, "job.bin") == old);
  for (std::size_t n = 0; n < bytes.size(); n += 7)
    REQUIRE_THROWS_AS(fil::decode_job_input(std::span(bytes).first(n), "job.bin"), zk::input_error);
  auto longer = bytes;
  longer.push_back(0);
  REQUIRE_THROWS_WITH(fil::decode_job_input(longer, "job.bin"), "job.bin: 1 bytes after the job");
  auto bad = bytes;
  bad[0] = 'X';
  REQUIRE_THROWS_WITH(fil::decode_job_input(bad, "job.bin"), "job.bin: not a cuzk Filecoin job (magic)");
}

TEST_CASE("fil partition: a real 2 KiB C1 (oracle-2k) checks and synthesizes partition 0", "[fil]") {
  std::ifstream f(CUZK_SOURCE_DIR "/tests/fixtures/filecoin/oracle-2k/c1.json", std::ios::binary);
  REQUIRE(f);
  fil::job_input in;
  in.kind = fil::proof_kind::porep_seal_commit;
  in.registered_proof = "StackedDrg2KiBV1_1";
  in.miner_id = 1000;
  in.sector_number = 1;
  in.c1.assign(std::istreambuf_iterator<char>(f), {});
  auto c = fil::resolve_circuit(in.kind, in.registered_proof, 2048);
  fil::check_job_input(c, in);
  // The witness's public inputs are compared with the verifier's inside; the counts are fil-oracle's
  // R1CS dump of this partition (40 inputs with ONE, 2,685,673 aux).
  auto w = fil::synthesize_partition(c, in, 0);
  REQUIRE(w.values.size() == 40 + 2685673);
  // What a cluster coordinator checks a node's proof against: the circuit's own public wires.
  const auto pub = fil::verifier_public_inputs(c, in, 0);
  REQUIRE(pub.size() == 39);
  for (std::size_t i = 0; i < pub.size(); ++i) REQUIRE(w.values[i + 1] == pub[i].to_canonical());
  REQUIRE_THROWS_WITH(fil::verifier_public_inputs(c, in, 1), Catch::StartsWith("partition 1: "));
  REQUIRE_THROWS_WITH(fil::synthesize_partition(c, in, 1), Catch::StartsWith("partition 1: "));
  auto other = in;
  other.sector_number = 2;
  REQUIRE_THROWS_WITH(fil::check_job_input(c, other), Catch::StartsWith("vanilla_proof: SectorNum is 1"));
  other = in;
  other.miner_id = 1001;
  REQUIRE_THROWS_WITH(fil::check_job_input(c, other),
                      Catch::StartsWith("vanilla_proof: Phase1Out.replica_id is not that of miner 1001"));
  other = in;
  other.registered_proof = "StackedDrg8MiBV1_1";
  REQUIRE_THROWS_WITH(fil::check_job_input(fil::resolve_circuit(other.kind, other.registered_proof), other),
                      Catch::StartsWith("vanilla_proof: Phase1Out.registered_proof is StackedDrg2KiBV1_1"));
}

TEST_CASE("fil partition: a partition synthesized into kept buffers, the C1 read once, equals a fresh synthesis",
          "[fil]") {
  std::ifstream f(CUZK_SOURCE_DIR "/tests/fixtures/filecoin/oracle-2k/c1.json", std::ios::binary);
  REQUIRE(f);
  fil::job_input in;
  in.kind = fil::proof_kind::porep_seal_commit;
  in.registered_proof = "StackedDrg2KiBV1_1";
  in.miner_id = 1000;
  in.sector_number = 1;
  in.c1.assign(std::istreambuf_iterator<char>(f), {});
  const auto c = fil::resolve_circuit(in.kind, in.registered_proof, 2048);
  const auto fresh = fil::synthesize_partition(c, in, 0, 1);
  const auto c1 = fil::read_porep_c1(c, in);
  zk::groth16::partition_buffers bufs(1);
  zk::thread_pool pool(2);
  std::vector<zk::bigint<4>> witness;
  for (int round = 0; round < 2; ++round) {
    auto cs = zk::cs::constraint_system::witness_reusing(bufs.take_values(), bufs.take_values());
    fil::synthesize_partition_into(cs, c, in, 0, pool, &c1);
    witness = bufs.take_witness();
    if (round == 1) {
      REQUIRE(witness.size() == fresh.values.size());  // kept: the previous round's vector, its contents
      std::fill(witness.begin(), witness.end(), zk::bigint<4>{});  // overwritten below
    }
    zk::cs::to_witness_values(cs, witness, pool);
    REQUIRE(witness == fresh.values);
    zk::cs::values vin, vaux;
    cs.release_values(vin, vaux);
    REQUIRE(vaux.capacity() >= 2685673);
    bufs.give_values(std::move(vin));
    bufs.give_values(std::move(vaux));
    bufs.give_witness(std::move(witness));
  }
  // Round 1 found round 0's three vectors; round 0 found none.
  REQUIRE(bufs.fresh() == 3);
  REQUIRE(bufs.reused() == 3);
  // Beyond `keep`, a vector given back is freed, not kept.
  REQUIRE(bufs.take_witness().size() == fresh.values.size());
  bufs.give_witness(std::vector<zk::bigint<4>>(8));
  bufs.give_witness(std::vector<zk::bigint<4>>(8));
  REQUIRE(bufs.take_witness().size() == 8);
  REQUIRE(bufs.take_witness().empty());
}

TEST_CASE("fil partition: a SnapDeals job checks its PartitionProofs and synthesizes each partition", "[fil]") {
  const auto syn = fil::synthetic_update_proofs(2048, 5);
  fil::job_input in;
  in.kind = fil::proof_kind::snap_deals_update;
  in.registered_proof = "StackedDrg2KiBV1";
  in.comm_r_old = syn.comms.comm_r_old, in.comm_r_new = syn.comms.comm_r_new, in.comm_d_new = syn.comms.comm_d_new;
  for (const auto& p : syn.partitions) in.vanilla_proofs.push_back(fil::io::to_bincode(p));
  const auto c = fil::resolve_circuit(in.kind, in.registered_proof, 2048);
  REQUIRE(c.partitions() == 1);
  REQUIRE(fil::check_job_input(c, in) == nullptr);
  const auto w = fil::synthesize_partition(c, in, 0, 1);
  const auto want = fil::update::public_inputs(fil::update::from_sector_size(2048), 0, in.commitments());
  REQUIRE(w.values.size() > want.size());
  for (std::size_t i = 0; i < want.size(); ++i) REQUIRE(w.values[i + 1] == want[i].to_canonical());
  REQUIRE(fil::verifier_public_inputs(c, in, 0) == want);
  auto moved = in;
  moved.comm_r_new[0] ^= 1;  // another statement: other public inputs
  REQUIRE(fil::verifier_public_inputs(c, moved, 0) != want);
  REQUIRE(fil::partition_name(c, in, 0) == "SnapDeals StackedDrg2KiBV1 partition 0");

  auto bad = in;
  bad.vanilla_proofs.push_back(bad.vanilla_proofs[0]);
  REQUIRE_THROWS_WITH(fil::check_job_input(c, bad), Catch::StartsWith("vanilla_proofs: 2 PartitionProofs, a StackedDrg2KiBV1 update has 1"));
  bad = in;
  bad.vanilla_proofs[0].resize(bad.vanilla_proofs[0].size() / 2);
  REQUIRE_THROWS_WITH(fil::check_job_input(c, bad), Catch::StartsWith("vanilla_proofs[0] (partition 0)"));
  bad = in;
  bad.comm_r_old[0] ^= 1;  // paths that do not open to it
  REQUIRE_THROWS_WITH(fil::check_job_input(c, bad), Catch::StartsWith("vanilla_proofs[0] (partition 0)") &&
                                                        Catch::Contains("comm_r_old"));
  REQUIRE_THROWS_WITH(fil::synthesize_partition(c, bad, 0, 1), Catch::StartsWith("vanilla_proofs[0] (partition 0)"));
  bad = in;
  bad.comm_d_new[31] = 0xff;
  REQUIRE_THROWS_WITH(fil::check_job_input(c, bad), Catch::StartsWith("comm_d_new"));
  bad = in;
  bad.c1 = {'{', '}'};
  REQUIRE_THROWS_WITH(fil::check_job_input(c, bad), Catch::StartsWith("vanilla_proof: SnapDeals sends"));
}

TEST_CASE("fil partition: synthetic PoSt sector proofs that verify (bench fil --shape wpost-SIZE)", "[fil]") {
  const auto* info = fil::find_post_proof("StackedDrgWindow2KiBV1_2");
  REQUIRE(info);
  fil::job_input in;
  in.kind = fil::proof_kind::window_post_partition;
  in.registered_proof = std::string(info->name);
  in.miner_id = 1000;
  in.partition_index = 1;
  for (std::size_t i = 0; i < 32; ++i) in.randomness[i] = std::uint8_t(3 * i);
  in.randomness[31] &= 0x3f;
  for (const auto& p : fil::synthetic_valid_post_proofs(*info, in.randomness, 1, info->sector_count, 40, 9))
    in.vanilla_proofs.push_back(fil::io::to_bincode(p));
  const auto c = fil::resolve_circuit(in.kind, in.registered_proof);
  REQUIRE(fil::check_job_input(c, in) == nullptr);
  // Synthesis recomputes every path to comm_r_last and compares the circuit's public inputs with the verifier's.
  const auto w = fil::synthesize_partition(c, in, 0, 1);
  REQUIRE(w.values.size() > 1);
  // What a cluster coordinator checks a node's proof against: the circuit's own public wires, and
  // for the partition without its last sector other ones.
  const auto pub = fil::verifier_public_inputs(c, in, 0);
  REQUIRE(w.values.size() > pub.size());
  for (std::size_t i = 0; i < pub.size(); ++i) REQUIRE(w.values[i + 1] == pub[i].to_canonical());
  auto fewer = in;
  fewer.vanilla_proofs.pop_back();
  REQUIRE(fil::verifier_public_inputs(c, fewer, 0) != pub);
  // Another randomness's challenges are not these proofs' leaves.
  in.randomness[0] ^= 1;
  REQUIRE_THROWS_AS(fil::check_job_input(c, in), zk::input_error);
}
