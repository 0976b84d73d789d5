// fil/prove: PoSt proving from vanilla proofs, without the oracle. The vanilla proofs are made
// here from real Poseidon trees over random leaves (so every path hashes to its root), the key by
// our test setup over the recorded circuit, written to and read back from a .params file under its
// Filecoin name. The proofs must verify against the public inputs a verifier computes from the
// randomness and the sectors alone; each partition's witness must satisfy the recorded R1CS; bad
// vanilla proofs are refused with a line that names them. (Against Filecoin's own verifier:
// tests/fil/post_prove.sh.)
#include <catch2/catch.hpp>

#include <filesystem>
#include <random>

#include "fil/crypto/poseidon.hpp"
#include "fil/parameter_cache.hpp"
#include "fil/post/fallback.hpp"
#include "fil/io/post_bincode.hpp"
#include "fil/key.hpp"
#include "fil/prove/prove.hpp"
#include "zk/error.hpp"
#include "zk/groth16/compressed_proof.hpp"
#include "zk/groth16/cpu_backend.hpp"
#include "zk/groth16/setup.hpp"
#include "zk/groth16/verifier.hpp"
#include "zk/io/bellperson.hpp"
#include "groth16_test_support.hpp"

using namespace cuzk;
using fil::fr;

namespace {

// The loader's options as `cuzk fil post/c2/snap` pass them: the evaluator built where the load gives none.
fil::key_options with_evaluator() {
  fil::key_options o;
  o.with_evaluator = true;
  return o;
}

// A 2 KiB sector's comm_r_last tree (64 leaves, base arity 8, two levels) over random leaves and
// its vanilla proof for the leaves the randomness challenges.
fil::post::fallback_post_sector_proof sector_proof(const fil::post_proof_info& info, const fil::domain& randomness,
                                                   std::uint64_t sector_id, std::uint64_t sector_index,
                                                   std::mt19937_64& rng) {
  std::vector<fr> leaves(64), mid(8);
  for (auto& l : leaves) l = fr::from_u64(rng());
  for (std::size_t g = 0; g < 8; ++g) mid[g] = fil::crypto::poseidon(std::span<const fr>(leaves).subspan(8 * g, 8));
  const fr root = fil::crypto::poseidon(mid);
  const fr comm_c = fr::from_u64(rng());

  fil::post::sector_proof sp;
  sp.comm_c = fil::fr_to_domain(comm_c);
  sp.comm_r_last = fil::fr_to_domain(root);
  auto level = [](const std::vector<fr>& row, std::size_t group, std::size_t index) {
    fil::merkle::path_element e;
    e.index = index;
    for (std::size_t i = 0; i < 8; ++i)
      if (i != index) e.hashes.push_back(fil::fr_to_domain(row[8 * group + i]));
    return e;
  };
  for (std::uint64_t c : fil::post::leaf_challenges(info, randomness, sector_id, sector_index)) {
    fil::merkle::single_proof p;
    p.root = sp.comm_r_last;
    p.leaf = fil::fr_to_domain(leaves[c]);
    p.path.path = {level(leaves, c / 8, c % 8), level(mid, 0, c / 8)};
    sp.inclusion_proofs.push_back({p});
  }
  fil::post::fallback_post_sector_proof out;
  out.sector_id = sector_id;
  out.comm_r = fil::crypto::poseidon2(sp.comm_c, sp.comm_r_last);
  out.vanilla_proof.sectors.push_back(std::move(sp));
  return out;
}

fr lc_value(const zk::io::r1cs::linear_combination& lc, const std::vector<fr>& w) {
  fr acc = fr::zero();
  for (const auto& t : lc) acc += t.coeff * w[t.wire];
  return acc;
}

std::size_t unsatisfied(const zk::io::r1cs& cs, const zk::io::witness& wit) {
  std::vector<fr> w;
  for (const auto& v : wit.values) w.push_back(fr::from_canonical(v));
  std::size_t bad = 0;
  for (const auto& c : cs.constraints)
    if (lc_value(c.a, w) * lc_value(c.b, w) != lc_value(c.c, w)) ++bad;
  return bad;
}

}  // namespace

namespace {
std::vector<fil::prove::named_bytes> as_files(const std::vector<fil::post::fallback_post_sector_proof>& v) {
  std::vector<fil::prove::named_bytes> out;
  for (std::size_t i = 0; i < v.size(); ++i) out.push_back({"v" + std::to_string(i) + ".bin", fil::io::to_bincode(v[i])});
  return out;
}
}  // namespace

TEST_CASE("fil post: WindowPoSt partitions proved from vanilla proofs verify", "[fil][prove]") {
  const auto c = fil::resolve_circuit(fil::proof_kind::window_post_partition, "StackedDrgWindow2KiBV1_2");
  const auto* info = c.post;
  REQUIRE(info->sector_count == 2);
  std::mt19937_64 rng(7);
  fil::domain randomness{};
  for (auto& b : randomness) b = std::uint8_t(rng());
  randomness[31] &= 0x3f;
  // Three sectors, given out of order: two partitions, the second padded with a copy of sector 9.
  std::vector<fil::post::fallback_post_sector_proof> vanilla;
  const std::uint64_t ids[] = {9, 3, 5};
  const std::uint64_t index_of[] = {2, 0, 1};  // position once sorted by id
  for (int i = 0; i < 3; ++i) vanilla.push_back(sector_proof(*info, randomness, ids[i], index_of[i], rng));

  const auto job = fil::prove::post_partitions(c, randomness, 1000, as_files(vanilla));
  REQUIRE(job.partitions.size() == 2);
  CHECK(job.names[0] == std::vector<std::string>{"v1.bin", "v2.bin"});
  CHECK(job.names[1] == std::vector<std::string>{"v0.bin"});
  CHECK(job.partitions[1].partition_index == 1);
  fil::prove::check_post_job(c, job);

  const auto cs = fil::record_circuit(c);
  CHECK(cs.n_public() == 2 * (1 + 10));
  std::vector<fil::post::public_sector> pub;
  for (int i : {1, 2, 0}) pub.push_back({vanilla[i].sector_id, vanilla[i].comm_r});
  std::vector<std::vector<zk::bigint<4>>> inputs;
  for (std::size_t k = 0; k < 2; ++k) {
    const auto w = fil::prove::synthesize_post_partition(c, job, k);
    CHECK(unsatisfied(cs, w) == 0);
    std::vector<zk::bigint<4>> want;
    for (const auto& x : fil::post::generate_public_inputs(*info, randomness, pub, k)) want.push_back(x.to_canonical());
    CHECK(std::vector<zk::bigint<4>>(w.values.begin() + 1, w.values.begin() + 1 + std::ptrdiff_t(want.size())) == want);
    inputs.push_back(want);
  }

  // The key: our test setup in bellperson's layout, through a .params file of Filecoin's name.
  const auto dir = std::filesystem::temp_directory_path() / ("cuzk-fil-prove-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto made = zk::groth16::setup(cs, zk::groth16::toxic_waste_from_seed(3), zk::io::key_convention::bellperson);
  zk::io::write_bellperson_params((dir / c.params_file()).string(), made);
  const auto key = fil::load_circuit_key(fil::prove::find_params(dir.string(), c), with_evaluator());
  auto be = zk::groth16::make_cpu_backend();
  const auto proof = fil::prove::prove_partitions(
      key, 2, [&](std::size_t k) { return fil::prove::synthesize_post_partition(c, job, k); }, *be);
  std::filesystem::remove_all(dir);
  REQUIRE(proof.invalid.empty());
  REQUIRE(proof.bytes.size() == 2 * 192);
  const auto proofs = zk::groth16::proofs_from_compressed(proof.bytes, "proof");
  for (std::size_t k = 0; k < 2; ++k) CHECK(zk::groth16::verify(made.vk, inputs[k], proofs[k]));
  // Partition 1's proof is not partition 0's.
  CHECK_FALSE(zk::groth16::verify(made.vk, inputs[0], proofs[1]));
}

TEST_CASE("fil post: unusable vanilla proofs are refused naming the file, partition and challenge", "[fil][prove]") {
  const auto c = fil::resolve_circuit(fil::proof_kind::window_post_partition, "StackedDrgWindow2KiBV1_2");
  std::mt19937_64 rng(11);
  fil::domain randomness{};
  randomness[0] = 1;
  std::vector<fil::post::fallback_post_sector_proof> good{sector_proof(*c.post, randomness, 4, 0, rng),
                                                          sector_proof(*c.post, randomness, 8, 1, rng)};
  auto refused = [&](const std::vector<fil::post::fallback_post_sector_proof>& v, const fil::domain& rnd) -> std::string {
    try {
      const auto job = fil::prove::post_partitions(c, rnd, 1000, as_files(v));
      fil::prove::check_post_job(c, job);
      fil::prove::synthesize_post_partition(c, job, 0);
    } catch (const zk::input_error& e) {
      return e.what();
    }
    return "accepted";
  };
  CHECK(refused(good, randomness) == "accepted");

  auto leaf = good;
  auto& p = std::get<fil::merkle::single_proof>(leaf[1].vanilla_proof.sectors[0].inclusion_proofs[3].data);
  p.leaf[0] ^= 1;
  CHECK(refused(leaf, randomness).starts_with("partition 0: v1.bin (sector 8): challenge 3 "));
  CHECK(refused(leaf, randomness).find("comm_r_last") != std::string::npos);

  auto twice = good;
  twice[1] = twice[0];
  CHECK(refused(twice, randomness) == "v1.bin: sector 4 is given twice");

  fil::domain other = randomness;
  other[0] = 2;
  CHECK(refused(good, other).find("the challenge is") != std::string::npos);

  fil::domain too_big;
  too_big.fill(0xff);
  CHECK(refused(good, too_big).find("randomness") != std::string::npos);

  auto comm_r = good;
  comm_r[0].comm_r[0] ^= 1;
  CHECK(refused(comm_r, randomness).starts_with("partition 0: v0.bin (sector 4): comm_r"));

  CHECK_THROWS_AS(fil::prove::find_params("/nonexistent-dir", c), zk::input_error);
}

TEST_CASE("fil keys: a params file of another circuit is refused naming the file (the CLI's and the engine's loader)",
          "[fil][prove]") {
  // fil::load_circuit_key is what `cuzk fil c2/post/snap` and the engine's key store both call: a
  // params file under a circuit's Filecoin name holding another circuit's key is one line naming the
  // file, for the R1CS path (PoSt) and the compact evaluator path (PoRep, SnapDeals) alike.
  const auto dir = std::filesystem::temp_directory_path() / ("cuzk-fil-key-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all);  // an evaluator directory: closed to others
  std::mt19937_64 rng(7);
  const auto other = zk::test::make_random_circuit(rng, 3, 6, 40);
  const auto made = zk::groth16::setup(other.cs, zk::groth16::toxic_waste_from_seed(4), zk::io::key_convention::bellperson);
  for (const auto& c : {fil::resolve_circuit(fil::proof_kind::window_post_partition, "StackedDrgWindow2KiBV1_2"),
                        fil::resolve_circuit(fil::proof_kind::porep_seal_commit, "StackedDrg2KiBV1_1"),
                        fil::resolve_update_circuit("StackedDrg2KiBV1")}) {
    INFO(c.describe());
    const std::string path = (dir / c.params_file()).string();
    zk::io::write_bellperson_params(path, made);
    CHECK_THROWS_AS(fil::load_circuit_key(path, with_evaluator()), zk::input_error);
    CHECK_THROWS_WITH(fil::load_circuit_key(path, with_evaluator()),
                      Catch::StartsWith(path + ": vk.ic has 4, the circuit needs ") &&
                          Catch::EndsWith(" (a key for another circuit?)"));
  }
  // Checked against parameters.json's digest first when the options list digests: a file not listed
  // is refused before it is read, one whose digest differs names both digests.
  const std::string path = (dir / fil::resolve_circuit(fil::proof_kind::window_post_partition, "StackedDrgWindow2KiBV1_2").params_file()).string();
  fil::key_options verify;
  verify.param_digests = std::make_shared<const std::map<std::string, std::string>>(
      std::map<std::string, std::string>{{"v28-other.params", "00"}});
  CHECK_THROWS_WITH(fil::load_circuit_key(path, verify), path + ": not listed in parameters.json (verify_params is on)");
  verify.param_digests = std::make_shared<const std::map<std::string, std::string>>(
      std::map<std::string, std::string>{{std::filesystem::path(path).filename().string(), "00"}});
  CHECK_THROWS_WITH(fil::load_circuit_key(path, verify),
                    Catch::StartsWith(path + ": digest ") && Catch::EndsWith(" differs from parameters.json's 00"));
  CHECK_THROWS_WITH(fil::load_circuit_key((dir / "absent" / fil::resolve_circuit(fil::proof_kind::window_post_partition,
                                                                                 "StackedDrgWindow2KiBV1_2").params_file()).string()),
                    Catch::EndsWith(".params: params file not found"));
  std::filesystem::remove_all(dir);
}
