// `cuzk fil ...`: what a Filecoin node checks before it submits, from the files it has.
//   verify-seal    a PoRep C2 proof (N partitions) against a C1 output and the miner id
//   verify-post    a WindowPoSt / WinningPoSt proof against the challenged sectors and randomness
//   inspect-c1     read and check a C1 output (shape, replica_id, challenges; with --vanilla every
//                  vanilla proof); print a summary
//   public-inputs  the PoRep public-input vectors of a C1 output, as decimal strings (JSON)
//   synth-c1       a C1 output for a sector never sealed whose vanilla proofs verify and whose witness
//                  satisfies the R1CS (fil/synthetic; benchmarks at 32 GiB)
//   synth-post     structurally valid PoSt vanilla proofs with random hashes (test data)
//   setup          TEST-ONLY .params / .vk of a circuit (cmd_fil_setup.cpp)
//   submit         a job sent to a daemon as Curio sends it (client/client.cpp)
//   post / c2      a WindowPoSt / WinningPoSt SNARK from vanilla proofs, a PoRep from a C1 output
//                  (fil/prove/prove.hpp): every partition synthesized and proved, all verified
//                  before the file is written
//   snap / verify-update   SnapDeals (cmd_fil_snap.cpp)
// Exit 0 valid, 1 invalid (the proof, the replica id or the vanilla challenges do not match),
// 2 unusable input (one line naming the file and field). The public inputs are fil/'s; the
// verifying key is found in --params-dir by its parameters.json name (fil/parameter_cache.hpp) or
// given with --vk; the partitions are verified in one batched pairing check.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "client/client.hpp"
#include "cmd_fil.hpp"
#include "commands.hpp"
#include "fil/crypto/poseidon.hpp"
#include "fil/ids.hpp"
#include "fil/key.hpp"
#include "fil/io/c1_json.hpp"
#include "fil/io/post_bincode.hpp"
#include "fil/synthetic.hpp"
#include "fil/parameter_cache.hpp"
#include "fil/post/fallback.hpp"
#include "fil/partition.hpp"
#include "fil/prove/prove.hpp"
#include "fil/stacked/challenges.hpp"
#include "fil/stacked/public_inputs.hpp"
#include "fil/stacked/vanilla_verify.hpp"
#include "zk/error.hpp"
#include "zk/groth16/backend_registry.hpp"
#include "zk/groth16/compressed_proof.hpp"
#include "zk/groth16/verifier.hpp"
#include "zk/io/bellperson.hpp"
#include "zk/io/json_bounded.hpp"

namespace cuzk::cli {

namespace {

struct fil_options {
  bool timings = false;       // fil c2: the stage split on stderr
  double c1_seconds = 0;      // fil c2: reading and checking the C1 output (for --timings)
  std::string evaluator_dir;  // fil c2: where the PoRep compact evaluator is cached (default: --params-dir)
  std::string c1, proof, params_dir, vk, vk_format = "bellperson", sectors, randomness, proof_type;
  std::uint64_t miner_id = 0;
  std::int64_t sector_id = -1;
  int partition = -1;
  std::string out, out_positional;  // synth-c1 / synth-post: --out FILE or OUT
  std::uint64_t seed = 1;
  bool bare = false;
  bool vanilla = false;
  std::vector<std::string> vanilla_files;
  std::string kind, backend = "auto";
  std::string sector_size;  // synth-c1: "32GiB" instead of --proof-type (the V1_1 proof of that size)
};

// The most each input format can hold (read_input_file refuses more, and anything not a regular file).
// A compressed verifying key: its fixed part and 48 bytes per public input (a PoRep partition has a
// few hundred). A bincode PoSt vanilla proof of one sector: at most 66 challenges of a few KiB.
// The challenged sectors as JSON: ~100 bytes each.
constexpr std::uint64_t kMaxCompressedVkBytes = std::uint64_t{16} << 20;
constexpr std::uint64_t kMaxVanillaPostBytes = std::uint64_t{16} << 20;
constexpr std::uint64_t kMaxSectorsJsonBytes = std::uint64_t{64} << 20;

zk::groth16::verifying_key load_vk(const fil_options& o, const std::string& cache_id) {
  std::string path = o.vk;
  if (path.empty()) {
    if (o.params_dir.empty()) throw zk::input_error("give --params-dir DIR or --vk FILE");
    path = o.params_dir + "/" + cache_id + ".vk";
  }
  if (o.vk_format == "compressed")
    return zk::io::parse_compressed_vk(read_input_file(path, kMaxCompressedVkBytes, "compressed verifying key"), path);
  return zk::io::read_bellperson_vk(path);
}

// Partitions' inputs verified in one batch; prints the verdict line.
int verify_partitions(const zk::groth16::verifying_key& vk, const std::vector<std::vector<fil::fr>>& inputs,
                      const std::vector<zk::groth16::proof>& proofs, const std::string& what) {
  for (std::size_t k = 0; k < inputs.size(); ++k)
    if (inputs[k].size() != vk.n_public())
      throw zk::input_error("verifying key has " + std::to_string(vk.n_public()) + " public inputs, partition " +
                            std::to_string(k) + " has " + std::to_string(inputs[k].size()) +
                            ": the key is for another circuit");
  std::vector<std::vector<zk::bigint<4>>> canon(inputs.size());
  for (std::size_t k = 0; k < inputs.size(); ++k)
    for (const auto& x : inputs[k]) canon[k].push_back(x.to_canonical());
  const auto verdict = zk::groth16::verify_batch(zk::groth16::prepare(vk), canon, proofs);
  if (verdict.all_valid) {
    std::cout << "OK: " << what << " is valid (" << proofs.size() << " partition" << (proofs.size() == 1 ? "" : "s")
              << ")\n";
    return exit_ok;
  }
  std::cout << "INVALID: " << what << ": partition";
  for (std::size_t i = 0; i < verdict.invalid.size(); ++i) std::cout << (i ? ", " : " ") << verdict.invalid[i];
  std::cout << " does not verify\n";
  return exit_invalid;
}

struct seal_context {
  fil::c1_output c1;
  const fil::seal_proof_info* proof = nullptr;
  std::uint64_t sector_id = 0;
};

// A progress bar on stderr when it is a terminal (a 32 GiB C1 output is ~50 MB of JSON).
class read_progress {
 public:
  explicit read_progress(std::string what) : what_(std::move(what)), tty_(::isatty(2) != 0) {}
  ~read_progress() {
    if (shown_) std::cerr << "\r" << std::string(what_.size() + 40, ' ') << "\r" << std::flush;
  }
  std::function<void(std::uint64_t, std::uint64_t)> callback() {
    if (!tty_) return {};
    return [this](std::uint64_t done, std::uint64_t total) {
      const int pct = total ? int(100 * done / total) : 0;
      if (pct == last_) return;
      last_ = pct, shown_ = true;
      std::cerr << "\r" << what_ << " [" << std::string(std::size_t(pct / 5), '#') << std::string(std::size_t(20 - pct / 5), ' ')
                << "] " << pct << "%" << std::flush;
    };
  }

 private:
  std::string what_;
  bool tty_;
  bool shown_ = false;
  int last_ = -1;
};

seal_context load_c1(const fil_options& o) {
  seal_context s;
  {
    read_progress bar("reading " + o.c1);
    s.c1 = fil::io::read_c1_file(o.c1, bar.callback());
  }
  s.proof = s.c1.phase1_out.registered_proof;
  if (s.c1.wrapped) {
    if (o.sector_id >= 0 && std::uint64_t(o.sector_id) != s.c1.sector_num)
      throw zk::input_error(o.c1 + ": SectorNum is " + std::to_string(s.c1.sector_num) + ", --sector-id says " +
                            std::to_string(o.sector_id));
    s.sector_id = s.c1.sector_num;
  } else {
    if (o.sector_id < 0) throw zk::input_error(o.c1 + ": a bare SealCommitPhase1Output: give --sector-id");
    s.sector_id = std::uint64_t(o.sector_id);
  }
  if (s.proof->challenges == fil::porep_challenges::synthetic)
    throw zk::input_error(o.c1 + ": " + std::string(s.proof->name) + ": synthetic PoRep is not supported yet");
  return s;
}

// The replica id and the vanilla proofs' challenges against what the ids and seed give. Returns an
// explanation when they do not match (the claim is invalid), empty when they do.
std::string check_c1_claims(const seal_context& s, std::uint64_t miner_id) {
  const auto& p1 = s.c1.phase1_out;
  const auto rid = fil::replica_id(fil::prover_id(miner_id), s.sector_id, p1.ticket, p1.comm_d, fil::porep_id(*s.proof));
  if (rid != p1.replica_id)
    return "replica_id of the C1 output is not that of miner " + std::to_string(miner_id) + ", sector " +
           std::to_string(s.sector_id) + " (another miner, sector, ticket or comm_d)";
  const auto& first = p1.vanilla_proofs[0][0];
  for (const auto& part : p1.vanilla_proofs)
    for (const auto& v : part)
      if (v.comm_c() != first.comm_c() || v.comm_r_last() != first.comm_r_last())
        return "the vanilla proofs disagree on comm_c / comm_r_last";
  if (fil::crypto::poseidon2(first.comm_c(), first.comm_r_last()) != p1.comm_r)
    return "comm_r is not Poseidon(comm_c, comm_r_last) of the vanilla proofs";
  for (unsigned k = 0; k < s.proof->partitions; ++k) {
    const auto want = fil::stacked::porep_challenges_for(*s.proof, rid, p1.seed, p1.comm_r, k);
    for (std::size_t j = 0; j < want.size(); ++j)
      if (p1.vanilla_proofs[k][j].challenge() != want[j])
        return "vanilla proof [" + std::to_string(k) + "][" + std::to_string(j) + "] is for node " +
               std::to_string(p1.vanilla_proofs[k][j].challenge()) + ", the seed challenges node " +
               std::to_string(want[j]) + " (seed or replica changed)";
  }
  return {};
}

std::vector<std::vector<fil::fr>> seal_inputs(const seal_context& s) {
  const auto& p1 = s.c1.phase1_out;
  fil::stacked::stacked_bucket_graph graph(s.proof->nodes(), fil::porep_id(*s.proof), s.proof->version);
  fil::stacked::public_inputs in;
  in.replica_id = p1.replica_id, in.seed = p1.seed, in.comm_d = p1.comm_d, in.comm_r = p1.comm_r;
  std::vector<std::vector<fil::fr>> out;
  for (unsigned k = 0; k < s.proof->partitions; ++k)
    out.push_back(fil::stacked::generate_public_inputs(*s.proof, graph, in, k));
  return out;
}

std::vector<zk::groth16::proof> load_proofs(const std::string& path, std::size_t partitions, std::string_view what) {
  // 192 bytes a partition: nothing past the partitions expected is read.
  auto proofs = zk::groth16::proofs_from_compressed(
      read_input_file(path, 192 * std::uint64_t(partitions), "proof of " + std::to_string(partitions) + " partitions"),
      path);
  if (proofs.size() != partitions)
    throw zk::input_error(path + ": " + std::to_string(proofs.size()) + " partition proofs, " + std::string(what) +
                          " has " + std::to_string(partitions));
  return proofs;
}

int verify_seal(const fil_options& o) {
  const auto s = load_c1(o);
  const auto proofs = load_proofs(o.proof, s.proof->partitions, s.proof->name);
  if (const auto why = check_c1_claims(s, o.miner_id); !why.empty()) {
    std::cout << "INVALID: " << why << "\n";
    return exit_invalid;
  }
  const auto vk = load_vk(o, fil::parameter_cache_id(*s.proof));
  return verify_partitions(vk, seal_inputs(s), proofs,
                           "seal proof of sector " + std::to_string(s.sector_id) + " (" + std::string(s.proof->name) + ")");
}

std::vector<fil::post::public_sector> load_sectors(const std::string& path) {
  nlohmann::json j = zk::io::read_json_file(path, kMaxSectorsJsonBytes, "sectors JSON file");
  if (j.is_object() && j.contains("sectors")) j = j["sectors"];
  if (!j.is_array() || j.empty()) throw zk::input_error(path + ": expected a non-empty array of {sector_number, comm_r}");
  std::vector<fil::post::public_sector> out;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string f = path + ": [" + std::to_string(i) + "]";
    const auto& e = j[i];
    const char* id_key = e.is_object() && e.contains("sector_id") ? "sector_id" : "sector_number";  // both spellings
    if (!e.is_object() || !e.contains(id_key) || !e[id_key].is_number_unsigned())
      throw zk::input_error(f + ".sector_number: expected a non-negative integer");
    if (!e.contains("comm_r") || !e["comm_r"].is_string()) throw zk::input_error(f + ".comm_r: expected 64 hex digits");
    out.push_back({e[id_key].get<std::uint64_t>(), fil::domain_from_hex(e["comm_r"].get<std::string>(), f + ".comm_r")});
    fil::domain_to_fr(out.back().comm_r, f + ".comm_r");
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  for (std::size_t i = 1; i < out.size(); ++i)
    if (out[i].id == out[i - 1].id) throw zk::input_error(path + ": sector " + std::to_string(out[i].id) + " listed twice");
  return out;
}

int verify_post(const fil_options& o) {
  const auto* info = fil::find_post_proof(o.proof_type);
  if (!info) throw zk::input_error("--proof-type " + o.proof_type + ": not a registered PoSt proof (e.g. StackedDrgWindow32GiBV1_2)");
  const auto randomness = fil::domain_from_hex(o.randomness, "--randomness");
  fil::domain_to_fr(randomness, "--randomness");
  const auto sectors = load_sectors(o.sectors);
  const std::size_t partitions = fil::post::partition_count(*info, sectors.size());
  const auto proofs = load_proofs(o.proof, partitions, std::string(info->name) + " over " + std::to_string(sectors.size()) + " sectors");
  const auto vk = load_vk(o, fil::parameter_cache_id(*info));
  std::vector<std::vector<fil::fr>> inputs;
  for (std::size_t k = 0; k < partitions; ++k) inputs.push_back(fil::post::generate_public_inputs(*info, randomness, sectors, k));
  return verify_partitions(vk, inputs, proofs, std::string(info->name) + " proof of " + std::to_string(sectors.size()) + " sectors");
}

int inspect_c1(const fil_options& o) {
  const auto s = load_c1(o);
  const auto& p1 = s.c1.phase1_out;
  std::cout << "registered_proof " << s.proof->name << " (porep id " << s.proof->id << ", API "
            << fil::to_string(s.proof->version) << ")\n"
            << "sector " << s.sector_id << ", " << s.proof->sector_size << " bytes, " << p1.vanilla_proofs.size()
            << " partitions x " << s.proof->challenges_per_partition << " challenges, " << s.proof->layers << " layers\n"
            << "replica_id " << fil::to_hex(p1.replica_id) << "\ncomm_d " << fil::to_hex(p1.comm_d) << "\ncomm_r "
            << fil::to_hex(p1.comm_r) << "\nseed " << fil::to_hex(p1.seed) << "\nticket " << fil::to_hex(p1.ticket)
            << "\nparams " << fil::parameter_cache_id(*s.proof) << ".params\n";
  if (const auto why = check_c1_claims(s, o.miner_id); !why.empty()) {
    std::cout << "INVALID: " << why << "\n";
    return exit_invalid;
  }
  if (o.vanilla) {
    std::string why;
    {
      read_progress bar("verifying vanilla proofs");
      auto cb = bar.callback();
      why = fil::stacked::verify_vanilla_proofs(p1, cb ? [&](std::size_t d, std::size_t t) { cb(d, t); }
                                                       : std::function<void(std::size_t, std::size_t)>{});
    }
    if (!why.empty()) {
      std::cout << "INVALID: " << why << "\n";
      return exit_invalid;
    }
    std::cout << "OK: shape, replica_id, challenges and every vanilla proof (Merkle paths, labels, encoding) hold for miner "
              << o.miner_id << "\n";
    return exit_ok;
  }
  std::cout << "OK: shape, replica_id and challenges match miner " << o.miner_id << "\n";
  return exit_ok;
}

int public_inputs(const fil_options& o) {
  const auto s = load_c1(o);
  if (const auto why = check_c1_claims(s, o.miner_id); !why.empty()) {
    std::cerr << "INVALID: " << why << "\n";
    return exit_invalid;
  }
  const auto all = seal_inputs(s);
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t k = 0; k < all.size(); ++k) {
    if (o.partition >= 0 && std::size_t(o.partition) != k) continue;
    auto& arr = out.emplace_back(nlohmann::json::array());
    for (const auto& x : all[k]) arr.push_back(x.to_canonical().to_decimal());
  }
  if (o.partition >= 0 && out.empty()) throw zk::input_error("--partition " + std::to_string(o.partition) + ": out of range");
  std::cout << out.dump() << "\n";
  return exit_ok;
}

// The SDR graph's parents (6 DRG, then 8 expander) of nodes [first, first + count), as JSON in
// fil-oracle's `graph` layout, for comparisons.
int graph(const fil_options& o, std::uint64_t first, std::uint64_t count) {
  const auto* proof = fil::find_seal_proof(o.proof_type);
  if (!proof) throw zk::input_error("--proof-type " + o.proof_type + ": not a registered seal proof");
  if (first >= proof->nodes()) throw zk::input_error("--first " + std::to_string(first) + ": past the last node");
  count = std::min(count, proof->nodes() - first);
  fil::stacked::stacked_bucket_graph g(proof->nodes(), fil::porep_id(*proof), proof->version);
  nlohmann::json parents = nlohmann::json::array();
  std::array<std::uint32_t, fil::stacked::degree> p{};
  for (std::uint64_t v = first; v < first + count; ++v) {
    g.parents(static_cast<std::uint32_t>(v), p);
    parents.push_back(p);
  }
  nlohmann::ordered_json out{{"api_version", std::string(fil::to_string(proof->version))},
                             {"base_degree", fil::base_degree},
                             {"exp_degree", fil::stacked::exp_degree},
                             {"first", first},
                             {"nodes", proof->nodes()},
                             {"parents", parents},
                             {"porep_id", fil::to_hex(fil::porep_id(*proof))},
                             {"sector_size", proof->sector_size}};
  std::cout << out.dump() << "\n";
  return exit_ok;
}

int synth_c1(const fil_options& o) {
  if (o.proof_type.empty() == o.sector_size.empty())
    throw zk::input_error("synth-c1: give one of --proof-type and --sector-size");
  const fil::seal_proof_info* proof = nullptr;
  if (!o.sector_size.empty()) {
    proof = fil::find_seal_proof("StackedDrg" + o.sector_size + "V1_1");
    if (!proof) throw zk::input_error("--sector-size " + o.sector_size + ": not a PoRep sector size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB)");
  } else {
    proof = fil::find_seal_proof(o.proof_type);
  }
  if (!proof) throw zk::input_error("--proof-type " + o.proof_type + ": not a registered seal proof (e.g. StackedDrg32GiBV1_1)");
  if (proof->challenges == fil::porep_challenges::synthetic)
    throw zk::input_error("--proof-type " + o.proof_type + ": synthetic PoRep is not supported yet");
  const std::uint64_t sector = o.sector_id < 0 ? 1 : std::uint64_t(o.sector_id);
  const std::string json = fil::io::to_json(fil::synthetic_c1(*proof, sector, o.miner_id, o.seed));
  write_file_atomically(o.out, o.bare ? json : fil::io::wrap_c1(json, sector, proof->sector_size));
  std::cout << "wrote " << o.out << "\n";
  return exit_ok;
}

int synth_post(const fil_options& o) {
  const auto* info = fil::find_post_proof(o.proof_type);
  if (!info) throw zk::input_error("--proof-type " + o.proof_type + ": not a registered PoSt proof");
  const auto randomness = fil::domain_from_hex(o.randomness, "--randomness");
  const std::uint64_t sector = o.sector_id < 0 ? 1 : std::uint64_t(o.sector_id);
  write_file_atomically(o.out, fil::io::to_bincode(fil::synthetic_post_proof(*info, sector, randomness, 0, o.seed)));
  std::cout << "wrote " << o.out << "\n";
  return exit_ok;
}

// The backend by name (auto | cpu | cuda[:N]); an unknown or absent one is unusable input.
std::unique_ptr<zk::groth16::backend> make_backend(const std::string& name) {
  try {
    return zk::groth16::make_backend(zk::groth16::resolve_backend_name(name));
  } catch (const std::exception& e) {
    throw zk::input_error("--backend " + name + ": " + e.what());
  }
}

// Loads the key (stage lines), proves every partition with a progress bar, writes the proof.
int prove_and_write(const fil_options& o, const fil::circuit_ref& c, std::size_t partitions,
                    const std::function<zk::io::witness(std::size_t)>& synthesize, const std::string& what) {
  const auto params = fil::prove::find_params(o.params_dir, c);
  auto be = make_backend(o.backend);
  const auto t0 = now_ns();
  auto bar = std::make_unique<progress_bar>("record the " + c.describe() + " circuit, load its params", false);
  bar->update(0, 1);
  std::string stage;
  // A PoRep key's first use records its circuit's evaluator (once per sector size): its own bar.
  fil::key_options load;
  load.evaluator_dir = o.evaluator_dir;
  load.with_evaluator = true;
  load.progress = [&](std::string_view s, std::size_t done, std::size_t total) {
    if (s != stage) {
      stage = s;
      bar = std::make_unique<progress_bar>(std::string(s) + " (once per sector size: " + c.describe() + ")", false);
    }
    bar->update(done, total);
  };
  const auto key = fil::load_circuit_key(params, load);
  const double key_seconds = seconds_since(t0);
  fil::prove::stage_seconds times;
  stage.clear();
  const auto proof = fil::prove::prove_partitions(key, partitions, synthesize, *be,
                                                  [&](std::string_view s, std::size_t done, std::size_t total) {
                                                    if (s != stage) {
                                                      stage = s;
                                                      bar = std::make_unique<progress_bar>(
                                                          std::string(s) + (s == "verifying" ? "" : " partitions"), false);
                                                    }
                                                    bar->update(done, total);
                                                  },
                                                  &times);
  bar.reset();
  if (o.timings)
    std::fprintf(stderr, "stages (s): key %.3f, C1 %.3f, witness %.3f, a/b/c %.3f, prove %.3f (h %.3f, MSMs %.3f), verify %.3f\n",
                 key_seconds, o.c1_seconds, times.witness, times.abc, times.prove, times.h, times.msm, times.verify);
  if (!proof.invalid.empty()) {
    std::cerr << "error: the computed proof of partition " << proof.invalid[0] << " does not verify; nothing written\n";
    return exit_proof_failed;
  }
  write_file_atomically(o.out, std::span<const std::uint8_t>(proof.bytes));
  std::cout << "wrote " << o.out << ": " << c.describe() << ", " << what << ", " << partitions << " partition"
            << (partitions == 1 ? "" : "s") << " (" << proof.bytes.size() << " bytes, backend " << be->name() << ", "
            << seconds_since(t0) << " s)\n";
  return exit_ok;
}

int prove_post(const fil_options& o) {
  const auto type = o.kind == "window" ? fil::post_type::window : fil::post_type::winning;
  const auto randomness = fil::domain_from_hex(o.randomness, "--randomness");
  std::vector<fil::prove::named_bytes> vanilla;
  for (const auto& f : o.vanilla_files) vanilla.push_back({f, read_input_file(f, kMaxVanillaPostBytes, "PoSt vanilla proof")});
  std::string name = o.proof_type;
  if (name.empty()) {
    // The current registered proofs: WindowPoSt V1_2 (API 1.2), WinningPoSt V1.
    const auto version = type == fil::post_type::window ? fil::api_version::v1_2_0 : fil::api_version::v1_0_0;
    const auto* info = fil::prove::post_proof_for(type, version, vanilla.at(0).bytes, vanilla[0].name);
    if (!info)
      throw zk::input_error(vanilla[0].name + ": its Merkle proofs fit no registered " + o.kind +
                            " PoSt sector size (give --proof-type)");
    name = info->name;
  }
  const auto c = fil::resolve_circuit(
      type == fil::post_type::window ? fil::proof_kind::window_post_partition : fil::proof_kind::winning_post, name);
  fil::domain_to_fr(randomness, "--randomness");
  const std::size_t sectors = vanilla.size();
  const auto job = fil::prove::post_partitions(c, randomness, o.miner_id, std::move(vanilla));
  // Every partition's vanilla proofs are checked before anything else is done.
  fil::prove::check_post_job(c, job);
  return prove_and_write(o, c, job.partitions.size(),
                         [&](std::size_t k) { return fil::prove::synthesize_post_partition(c, job, k); },
                         std::to_string(sectors) + " sector" + (sectors == 1 ? "" : "s"));
}

int prove_c2(fil_options& o) {
  const auto t0 = now_ns();
  const auto s = load_c1(o);
  if (const auto why = check_c1_claims(s, o.miner_id); !why.empty()) throw zk::input_error(o.c1 + ": " + why);
  o.c1_seconds = seconds_since(t0);
  const auto c = fil::resolve_circuit(fil::proof_kind::porep_seal_commit, s.proof->name);
  return prove_and_write(o, c, s.proof->partitions,
                         [&](std::size_t k) { return fil::prove::synthesize_porep_partition(s.c1.phase1_out, unsigned(k)); },
                         "sector " + std::to_string(s.sector_id));
}

// The output file of synth-c1 / synth-post, as OUT or --out (one option with both names made
// CLI11 count a file given both ways twice: "--out: At Most 1 required but received 2").
void add_out_options(CLI::App* sub, fil_options& o) {
  sub->add_option("out", o.out_positional, "output file (or --out)");
  sub->add_option("--out", o.out, "output file (or OUT)");
}
void resolve_out(fil_options& o) {
  if (!o.out.empty() && !o.out_positional.empty())
    throw zk::input_error("give the output file once: OUT or --out, not both");
  if (o.out.empty()) o.out = o.out_positional;
  if (o.out.empty()) throw zk::input_error("no output file: give OUT or --out FILE");
}

void add_vk_options(CLI::App* sub, fil_options& o) {
  sub->add_option("--params-dir", o.params_dir, "parameter cache (FIL_PROOFS_PARAMETER_CACHE): the .vk is found by name");
  sub->add_option("--vk", o.vk, "the verifying key file itself (instead of --params-dir)");
  sub->add_option("--vk-format", o.vk_format, "bellperson (.vk, uncompressed points) or compressed")
      ->check(CLI::IsMember({"bellperson", "compressed"}));
}

}  // namespace

int fil_prove_and_write(const fil_prove_target& t, const fil::circuit_ref& c, std::size_t partitions,
                        const std::function<zk::io::witness(std::size_t)>& synthesize, const std::string& what) {
  fil_options o;
  o.params_dir = t.params_dir, o.backend = t.backend, o.out = t.out, o.timings = t.timings;
  o.evaluator_dir = t.evaluator_dir;
  return prove_and_write(o, c, partitions, synthesize, what);
}

zk::groth16::verifying_key fil_load_vk(const fil_vk_source& s, const std::string& cache_id) {
  fil_options o;
  o.params_dir = s.params_dir, o.vk = s.vk, o.vk_format = s.vk_format;
  return load_vk(o, cache_id);
}

std::vector<zk::groth16::proof> fil_load_proofs(const std::string& path, std::size_t partitions, std::string_view what) {
  return load_proofs(path, partitions, what);
}

int fil_verify_partitions(const zk::groth16::verifying_key& vk, const std::vector<std::vector<fil::fr>>& inputs,
                          const std::vector<zk::groth16::proof>& proofs, const std::string& what) {
  return verify_partitions(vk, inputs, proofs, what);
}

void register_fil(CLI::App& app) {
  auto* fil = app.add_subcommand("fil", "Filecoin: prove and verify PoSt, verify seal proofs, inspect C1 outputs");
  fil->require_subcommand(1);
  auto o = std::make_shared<fil_options>();

  auto* seal = fil->add_subcommand("verify-seal", "Verify a PoRep proof against its C1 output (exit 0 valid, 1 invalid, 2 bad input)");
  seal->add_option("--c1", o->c1, "C1 output: Curio's wrapper JSON or a bare SealCommitPhase1Output")->required();
  seal->add_option("--miner-id", o->miner_id, "miner actor id (f0... without the prefix)")->required();
  seal->add_option("--proof", o->proof, "proof: 192 bytes per partition, concatenated")->required();
  seal->add_option("--sector-id", o->sector_id, "sector number (required for a bare SealCommitPhase1Output)");
  add_vk_options(seal, *o);
  seal->callback([o] { run_command([&] { return verify_seal(*o); }); });

  auto* post = fil->add_subcommand("verify-post", "Verify a WindowPoSt or WinningPoSt proof (exit 0 valid, 1 invalid, 2 bad input)");
  post->add_option("--proof-type", o->proof_type, "registered PoSt proof, e.g. StackedDrgWindow32GiBV1_2")->required();
  post->add_option("--randomness", o->randomness, "challenge randomness, 64 hex digits")->required();
  post->add_option("--sectors", o->sectors, "JSON: [{\"sector_number\": N, \"comm_r\": HEX}, ...] or {\"sectors\": [...]} (the challenged sectors)")->required();
  post->add_option("--proof", o->proof, "proof: 192 bytes per partition, concatenated")->required();
  add_vk_options(post, *o);
  post->callback([o] { run_command([&] { return verify_post(*o); }); });

  auto* pp = fil->add_subcommand("post", "Prove a WindowPoSt or WinningPoSt from vanilla proofs (verified before it is written)");
  pp->add_option("--kind", o->kind, "window | winning")->required()->check(CLI::IsMember({"window", "winning"}));
  pp->add_option("--vanilla", o->vanilla_files, "bincode FallbackPoStSectorProof, one per challenged sector (repeat or list)")
      ->required()
      ->expected(1, -1);
  pp->add_option("--randomness", o->randomness, "challenge randomness, 64 hex digits (a field element)")->required();
  pp->add_option("--miner-id", o->miner_id, "miner actor id (f0... without the prefix)")->required();
  pp->add_option("--params-dir", o->params_dir, "parameter cache (FIL_PROOFS_PARAMETER_CACHE): the .params is found by name")
      ->required();
  pp->add_option("--out", o->out, "proof: 192 bytes per partition, concatenated")->required();
  pp->add_option("--proof-type", o->proof_type, "registered PoSt proof (default: from the vanilla proofs' tree, WindowPoSt V1_2)");
  pp->add_option("--backend", o->backend, "auto | cpu | cuda (auto: cuda when built and a device is present)");
  pp->callback([o] { run_command([&] { return prove_post(*o); }); });

  auto* c2 = fil->add_subcommand("c2", "Prove a PoRep (seal commit phase 2) from a C1 output (verified before it is written)");
  c2->add_option("--c1", o->c1, "C1 output: Curio's wrapper JSON or a bare SealCommitPhase1Output")->required();
  c2->add_option("--miner-id", o->miner_id, "miner actor id (f0... without the prefix)")->required();
  c2->add_option("--sector-id", o->sector_id, "sector number (required for a bare SealCommitPhase1Output)");
  c2->add_option("--params-dir", o->params_dir, "parameter cache (FIL_PROOFS_PARAMETER_CACHE): the .params is found by name")
      ->required();
  c2->add_option("--out", o->out, "proof: 192 bytes per partition, concatenated")->required();
  c2->add_flag("--timings", o->timings,
               "print the stage split on stderr: key (record or map the evaluator, load the params), C1 (read, check), "
               "witness, a/b/c, prove (h, MSMs), verify (seconds, all partitions)");
  c2->add_option("--evaluator-dir", o->evaluator_dir,
                 "where the circuit's compact evaluator is cached (<params stem>.cuzk-pce, recorded on first use; "
                 "default: --params-dir)");
  c2->add_option("--backend", o->backend, "auto | cpu | cuda (auto: cuda when built and a device is present)");
  c2->callback([o] { run_command([&] { return prove_c2(*o); }); });

  auto* inspect = fil->add_subcommand("inspect-c1", "Read and check a C1 output; print its ids (exit 0 ok, 1 mismatch, 2 bad input)");
  inspect->add_option("c1", o->c1, "C1 output JSON")->required();
  inspect->add_option("--miner-id", o->miner_id, "miner actor id")->required();
  inspect->add_option("--sector-id", o->sector_id, "sector number (for a bare SealCommitPhase1Output)");
  inspect->add_flag("--vanilla", o->vanilla, "also verify every vanilla proof: Merkle paths, column hashes, labels, encoding");
  inspect->callback([o] { run_command([&] { return inspect_c1(*o); }); });

  auto* pub = fil->add_subcommand("public-inputs", "Print the PoRep public inputs of a C1 output per partition (JSON, decimal)");
  pub->add_option("--c1", o->c1, "C1 output JSON")->required();
  pub->add_option("--miner-id", o->miner_id, "miner actor id")->required();
  pub->add_option("--sector-id", o->sector_id, "sector number (for a bare SealCommitPhase1Output)");
  pub->add_option("--partition", o->partition, "only this partition");
  pub->callback([o] { run_command([&] { return public_inputs(*o); }); });

  auto first = std::make_shared<std::uint64_t>(0), count = std::make_shared<std::uint64_t>(64);
  auto* gr = fil->add_subcommand("graph", "Print the SDR graph's parents of a range of nodes (JSON)");
  gr->add_option("--proof-type", o->proof_type, "registered seal proof, e.g. StackedDrg2KiBV1_1")->required();
  gr->add_option("--first", *first, "first node (default 0)");
  gr->add_option("--count", *count, "number of nodes (default 64)");
  gr->callback([o, first, count] { run_command([&] { return graph(*o, *first, *count); }); });

  auto* sc1 = fil->add_subcommand(
      "synth-c1", "Write a consistent C1 output for a sector never sealed (every path reaches its root; test data)");
  add_out_options(sc1, *o);
  sc1->add_option("--proof-type", o->proof_type, "registered seal proof, e.g. StackedDrg2KiBV1_1");
  sc1->add_option("--sector-size", o->sector_size, "instead of --proof-type: 2KiB, 8MiB, 512MiB, 32GiB or 64GiB (V1_1)");
  sc1->add_option("--miner-id", o->miner_id, "miner actor id (default 0)");
  sc1->add_option("--sector-id", o->sector_id, "sector number (default 1)");
  sc1->add_option("--seed", o->seed, "seed of the random data, labels and placeholder hashes");
  sc1->add_flag("--bare", o->bare, "write the SealCommitPhase1Output JSON without Curio's wrapper");
  sc1->callback([o] { run_command([&] {
    resolve_out(*o);
    return synth_c1(*o);
  }); });

  auto* sp = fil->add_subcommand("synth-post", "Write a structurally valid bincode PoSt vanilla proof (test data)");
  add_out_options(sp, *o);
  sp->add_option("--proof-type", o->proof_type, "registered PoSt proof")->required();
  sp->add_option("--randomness", o->randomness, "challenge randomness, 64 hex digits")->required();
  sp->add_option("--sector-id", o->sector_id, "sector number (default 1)");
  sp->add_option("--seed", o->seed, "seed of the random hashes");
  sp->callback([o] { run_command([&] {
    resolve_out(*o);
    return synth_post(*o);
  }); });

  register_fil_setup(fil);
  register_fil_submit(fil);
  register_fil_snap(*fil);
}

}  // namespace cuzk::cli
