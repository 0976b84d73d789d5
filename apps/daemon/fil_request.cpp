#include "fil_request.hpp"

#include <grpcpp/support/status_code_enum.h>

#include <filesystem>

#include "core.hpp"
#include "fil/io/c1_json.hpp"
#include "fil/io/json_stream.hpp"
#include "fil/io/post_bincode.hpp"
#include "fil/parameter_cache.hpp"
#include "zk/error.hpp"

namespace cuzk::daemon {

namespace fs = std::filesystem;
using grpc::StatusCode;

namespace {

constexpr std::uint64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

std::string size_name(std::uint64_t s) {  // "2k", "32g": Curio's circuit-id suffix
  if (s % GiB == 0) return std::to_string(s / GiB) + "g";
  if (s % MiB == 0) return std::to_string(s / MiB) + "m";
  return std::to_string(s / KiB) + "k";
}

[[noreturn]] void refuse(const std::string& what) { throw request_error(StatusCode::INVALID_ARGUMENT, what); }

[[noreturn]] void snap_unimplemented(const std::string& field) {
  throw request_error(StatusCode::UNIMPLEMENTED,
                      field + ": SNAP_DEALS_UPDATE is not implemented by cuzk yet (no SnapDeals circuit); "
                              "prove SnapDeals updates with the Rust engine or filecoin-ffi");
}

struct param_files {
  std::string params, vk;
};

param_files param_paths(const std::string& cache_id, const std::string& param_cache) {
  fs::path dir(param_cache);
  return {(dir / (cache_id + ".params")).string(), (dir / (cache_id + ".vk")).string()};
}

void require_file(const std::string& path, const std::string& what) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    throw request_error(StatusCode::NOT_FOUND, "parameters: " + path + " not found (" + what +
                                                   "; [filecoin] param_cache / FIL_PROOFS_PARAMETER_CACHE)");
}

}  // namespace

const char* kind_name(::cuzk::v1::ProofKind k) {
  switch (k) {
    case v1::POREP_SEAL_COMMIT: return "porep";
    case v1::SNAP_DEALS_UPDATE: return "snap";
    case v1::WINDOW_POST_PARTITION: return "wpost";
    case v1::WINNING_POST: return "winning";
    default: return "circom";
  }
}

fil_request check_fil_request(const v1::SubmitProofRequest& req, const std::string& param_cache) {
  fil_request out;
  const int kind = req.proof_kind();
  if (!v1::ProofKind_IsValid(kind) || kind == v1::PROOF_KIND_UNSPECIFIED)
    refuse("proof_kind: " + std::to_string(kind) +
           " is not a proof kind (POREP_SEAL_COMMIT 1, SNAP_DEALS_UPDATE 2, WINDOW_POST_PARTITION 3, WINNING_POST 4)");
  out.kind = v1::ProofKind(kind);
  if (out.kind == v1::SNAP_DEALS_UPDATE) snap_unimplemented("proof_kind");
  if (!req.circuit().empty() || req.partitions_size() != 0)
    refuse("circuit/partitions: a Filecoin request (proof_kind " + v1::ProofKind_Name(out.kind) +
           ") carries vanilla proofs, not a circom circuit and witnesses");
  if (!v1::Priority_IsValid(req.priority()))
    refuse("priority: " + std::to_string(req.priority()) + " is not a priority (LOW, NORMAL, HIGH, CRITICAL)");

  const std::string kind_str = v1::ProofKind_Name(out.kind);
  const std::uint64_t rp = req.registered_proof();
  std::uint64_t proof_size = 0;
  std::string proof_name, cache_id;
  if (out.kind == v1::POREP_SEAL_COMMIT) {
    out.seal = fil::seal_proof_by_number(rp);
    if (!out.seal) refuse("registered_proof: " + std::to_string(rp) + " is not a RegisteredSealProof (PoRep: 0..19)");
    proof_size = out.seal->sector_size;
    proof_name = out.seal->name;
    cache_id = fil::parameter_cache_id(*out.seal);
    out.partitions = out.seal->partitions;
  } else {
    out.post = fil::post_proof_by_number(rp);
    const auto want = out.kind == v1::WINNING_POST ? fil::post_type::winning : fil::post_type::window;
    if (!out.post) refuse("registered_proof: " + std::to_string(rp) + " is not a RegisteredPoStProof (0..14)");
    if (out.post->type != want)
      refuse("registered_proof: " + std::to_string(rp) + " (" + std::string(out.post->name) + ") is not a " +
             (want == fil::post_type::winning ? "WinningPoSt proof (0..4)" : "WindowPoSt proof (5..14)") + " for " +
             kind_str);
    proof_size = out.post->sector_size;
    proof_name = out.post->name;
    cache_id = fil::parameter_cache_id(*out.post);
  }
  if (req.sector_size() != proof_size)
    refuse("sector_size: " + std::to_string(req.sector_size()) + " does not match registered_proof " +
           std::to_string(rp) + " (" + proof_name + ", " + std::to_string(proof_size) + "-byte sectors)");
  out.priority = req.priority() != v1::PRIORITY_UNSPECIFIED ? req.priority()
                 : out.kind == v1::WINNING_POST             ? v1::CRITICAL
                 : out.kind == v1::WINDOW_POST_PARTITION    ? v1::HIGH
                                                            : v1::NORMAL;
  // The parameter file before the payload: a cheap check first (a PoRep payload is ~50 MB at 32 GiB).
  auto files = param_paths(cache_id, param_cache);
  require_file(files.params, "registered_proof " + std::to_string(rp) + " " + proof_name);
  out.params_path = files.params;
  out.vk_path = files.vk;
  out.miner_id = req.miner_id();
  out.sector_number = req.sector_number();
  out.partition_index = req.partition_index();

  if (out.kind == v1::POREP_SEAL_COMMIT) {
    if (req.vanilla_proof().empty()) refuse("vanilla_proof: empty (PoRep needs Curio's C1 wrapper JSON)");
    if (req.vanilla_proofs_size() != 0) refuse("vanilla_proofs: PoRep sends one C1 output in vanilla_proof");
    fil::c1_output c1;
    try {
      fil::io::memory_source src(std::string_view(req.vanilla_proof()));
      c1 = fil::io::read_c1(src, "vanilla_proof");
    } catch (const zk::input_error& e) {
      refuse(e.what());
    }
    if (!c1.wrapped)
      refuse("vanilla_proof: a bare SealCommitPhase1Output; send Curio's wrapper {\"SectorNum\", \"Phase1Out\", \"SectorSize\"}");
    if (c1.phase1_out.registered_proof->sector_size != out.seal->sector_size)
      refuse("vanilla_proof: Phase1Out is " + std::string(c1.phase1_out.registered_proof->name) +
             ", registered_proof " + std::to_string(rp) + " is " + proof_name);
    if (req.sector_number() != 0 && c1.sector_num != req.sector_number())
      refuse("vanilla_proof: SectorNum " + std::to_string(c1.sector_num) + " but sector_number is " +
             std::to_string(req.sector_number()));
    out.sector_number = c1.sector_num;
    out.c1 = std::make_shared<const fil::c1_output>(std::move(c1));
  } else {
    if (!req.vanilla_proof().empty()) refuse("vanilla_proof: PoSt sends one vanilla proof per sector in vanilla_proofs");
    if (req.randomness().size() != 32)
      refuse("randomness: " + std::to_string(req.randomness().size()) + " bytes, a PoSt challenge seed is 32");
    std::copy(req.randomness().begin(), req.randomness().end(), out.randomness.begin());
    try {
      fil::domain_to_fr(out.randomness, "randomness");
    } catch (const zk::input_error& e) {
      refuse(e.what());
    }
    const int n = req.vanilla_proofs_size();
    const unsigned most = out.kind == v1::WINNING_POST ? 1 : out.post->sector_count;
    if (n == 0) refuse("vanilla_proofs: empty (one bincode FallbackPoStSectorProof per challenged sector)");
    if (unsigned(n) > most)
      refuse("vanilla_proofs: " + std::to_string(n) + " sectors, " + proof_name + " takes at most " +
             std::to_string(most) + (out.kind == v1::WINNING_POST ? "" : " per partition"));
    for (int i = 0; i < n; ++i) {
      const std::string origin = "vanilla_proofs[" + std::to_string(i) + "]";
      const auto& b = req.vanilla_proofs(i);
      try {
        auto p = fil::io::read_post_vanilla_proof({reinterpret_cast<const std::uint8_t*>(b.data()), b.size()}, origin);
        fil::io::check_post_shape(p, *out.post, {}, origin);
        out.sectors.push_back(std::move(p));
      } catch (const zk::input_error& e) {
        refuse(e.what());
      }
    }
  }
  return out;
}

std::optional<std::string> fil_params_for_circuit_id(const std::string& id, const std::string& param_cache) {
  if (id.rfind("v28-", 0) == 0) {
    std::string stem = id;
    if (stem.size() > 7 && stem.ends_with(".params")) stem.resize(stem.size() - 7);
    if (stem.find('/') != std::string::npos || stem.find("..") != std::string::npos)
      refuse("circuit_id: " + id + " is not a parameter file name");
    auto files = param_paths(stem, param_cache);
    require_file(files.params, "circuit_id " + id);
    return files.params;
  }
  const auto dash = id.find('-');
  if (dash == std::string::npos) return std::nullopt;
  const std::string kind = id.substr(0, dash), size = id.substr(dash + 1);
  if (kind != "porep" && kind != "wpost" && kind != "winning" && kind != "snap") return std::nullopt;
  if (kind == "snap") snap_unimplemented("circuit_id " + id);
  std::string cache_id;
  if (kind == "porep") {
    for (const auto& p : fil::seal_proofs())
      if (p.version == fil::api_version::v1_1_0 && size_name(p.sector_size) == size) cache_id = fil::parameter_cache_id(p);
  } else {
    const auto want = kind == "winning" ? fil::post_type::winning : fil::post_type::window;
    for (const auto& p : fil::post_proofs())
      if (p.type == want && size_name(p.sector_size) == size) cache_id = fil::parameter_cache_id(p);
  }
  if (cache_id.empty())
    refuse("circuit_id: " + id + ": no " + kind + " proof for sector size '" + size + "' (2k, 8m, 512m, 32g, 64g)");
  auto files = param_paths(cache_id, param_cache);
  require_file(files.params, "circuit_id " + id);
  return files.params;
}

}  // namespace cuzk::daemon
