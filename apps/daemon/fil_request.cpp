#include "fil_request.hpp"

#include <grpcpp/support/status_code_enum.h>

#include <filesystem>

#include "request_error.hpp"
#include "fil/io/c1_json.hpp"
#include "fil/io/json_stream.hpp"
#include "fil/parameter_cache.hpp"
#include "fil/registered_proof.hpp"
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

std::string params_path(const std::string& file, const std::string& param_cache) {
  return fs::absolute(fs::path(param_cache) / file).lexically_normal().string();
}

void require_file(const std::string& path, const std::string& what) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    throw request_error(StatusCode::NOT_FOUND, "parameters: " + path + " not found (" + what +
                                                   "; [filecoin] param_cache / FIL_PROOFS_PARAMETER_CACHE)");
}

// fil/'s checks, as gRPC statuses.
template <class F>
auto fil_checked(F&& f) {
  try {
    return f();
  } catch (const fil::not_implemented& e) {
    throw request_error(StatusCode::UNIMPLEMENTED, e.what());
  } catch (const zk::input_error& e) {
    throw request_error(StatusCode::INVALID_ARGUMENT, e.what());
  }
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
  if (!req.circuit().empty() || req.partitions_size() != 0)
    refuse("circuit/partitions: a Filecoin request (proof_kind " + v1::ProofKind_Name(out.kind) +
           ") carries vanilla proofs, not a circom circuit and witnesses");
  if (!v1::Priority_IsValid(req.priority()))
    refuse("priority: " + std::to_string(req.priority()) + " is not a priority (LOW, NORMAL, HIGH, CRITICAL)");
  out.priority = req.priority();
  if (req.sector_size() == 0) refuse("sector_size: 0; give the sector's size in bytes (2048 ... 68719476736)");
  out.sector_size = req.sector_size();

  auto& in = out.input;
  in.kind = static_cast<fil::proof_kind>(kind);  // fil::proof_kind has Curio's numbers
  in.registered_proof = std::string(fil_checked([&] { return fil::registered_proof_name(in.kind, req.registered_proof()); }));
  out.circuit = fil_checked([&] { return fil::resolve_circuit(in.kind, in.registered_proof, req.sector_size()); });
  in.miner_id = req.miner_id();
  in.sector_number = req.sector_number();
  in.partition_index = req.partition_index();

  // The parameter file before the payload: a cheap check first (a PoRep payload is ~50 MB at 32 GiB).
  out.params_path = params_path(out.circuit.params_file(), param_cache);
  require_file(out.params_path, "registered_proof " + std::to_string(req.registered_proof()) + " " + in.registered_proof);

  if (out.kind == v1::POREP_SEAL_COMMIT) {
    if (req.vanilla_proof().empty()) refuse("vanilla_proof: empty (PoRep needs Curio's C1 wrapper JSON)");
    if (req.vanilla_proofs_size() != 0) refuse("vanilla_proofs: PoRep sends one C1 output in vanilla_proof");
    std::shared_ptr<const fil::c1_output> parsed;
    try {
      const auto& text = req.vanilla_proof();
      const std::span bytes(reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
      parsed = std::make_shared<const fil::c1_output>(fil::io::read_c1(bytes, "vanilla_proof", zk::default_pool()));
    } catch (const zk::input_error& e) {
      refuse(e.what());
    }
    const auto& c1 = *parsed;
    out.c1 = parsed;
    if (!c1.wrapped)
      refuse("vanilla_proof: a bare SealCommitPhase1Output; send Curio's wrapper {\"SectorNum\", \"Phase1Out\", \"SectorSize\"}");
    // The request's registered proof is the one proved and reported: the C1's must be that very one
    // (V1 and V1_1 share their parameters, not their porep id nor their proof).
    if (c1.phase1_out.registered_proof != out.circuit.seal)
      refuse("vanilla_proof: Phase1Out.registered_proof is " + std::string(c1.phase1_out.registered_proof->name) +
             ", the request's registered_proof " + std::to_string(req.registered_proof()) + " is " + in.registered_proof);
    if (req.sector_number() != 0 && c1.sector_num != req.sector_number())
      refuse("vanilla_proof: SectorNum " + std::to_string(c1.sector_num) + " but sector_number is " +
             std::to_string(req.sector_number()));
    in.sector_number = c1.sector_num;
    in.c1.assign(req.vanilla_proof().begin(), req.vanilla_proof().end());
  } else if (out.kind == v1::SNAP_DEALS_UPDATE) {
    if (!req.vanilla_proof().empty())
      refuse("vanilla_proof: SnapDeals sends one bincode PartitionProof per partition in vanilla_proofs");
    const std::pair<const std::string*, fil::domain*> comms[] = {{&req.comm_r_old(), &in.comm_r_old},
                                                                  {&req.comm_r_new(), &in.comm_r_new},
                                                                  {&req.comm_d_new(), &in.comm_d_new}};
    const char* names[] = {"comm_r_old", "comm_r_new", "comm_d_new"};
    for (int i = 0; i < 3; ++i) {
      const auto& [bytes, d] = comms[i];
      if (bytes->size() != d->size())
        refuse(std::string(names[i]) + ": " + std::to_string(bytes->size()) + " bytes, a commitment is 32");
      std::copy(bytes->begin(), bytes->end(), d->begin());
    }
    if (req.vanilla_proofs_size() == 0)
      refuse("vanilla_proofs: empty (one bincode PartitionProof per partition of the update)");
    for (const auto& b : req.vanilla_proofs()) in.vanilla_proofs.emplace_back(b.begin(), b.end());
  } else {
    if (!req.vanilla_proof().empty()) refuse("vanilla_proof: PoSt sends one vanilla proof per sector in vanilla_proofs");
    if (req.randomness().size() != 32)
      refuse("randomness: " + std::to_string(req.randomness().size()) + " bytes, a PoSt challenge seed is 32");
    std::copy(req.randomness().begin(), req.randomness().end(), in.randomness.begin());
    fil_checked([&] { return fil::domain_to_fr(in.randomness, "randomness"); });
    if (req.vanilla_proofs_size() == 0)
      refuse("vanilla_proofs: empty (one bincode FallbackPoStSectorProof per challenged sector)");
    for (const auto& b : req.vanilla_proofs()) in.vanilla_proofs.emplace_back(b.begin(), b.end());
  }
  // Counts, shapes, comm_r and the challenged leaves, as the engine checks them (PoSt and PoRep: no
  // hashing; SnapDeals: each PartitionProof's paths too).
  fil_checked([&] {
    fil::check_job_input(out.circuit, in, out.c1);  // PoRep: the C1 read above, not read again
    return 0;
  });
  return out;
}

std::optional<std::string> fil_params_for_circuit_id(const std::string& id, const std::string& param_cache) {
  if (id.rfind("v28-", 0) == 0) {
    std::string file = id.ends_with(".params") ? id : id + ".params";
    if (file.find('/') != std::string::npos || !fil::circuit_for_params(file))
      refuse("circuit_id: " + id + " is not the parameter file of a registered proof");
    auto path = params_path(file, param_cache);
    require_file(path, "circuit_id " + id);
    return path;
  }
  const auto dash = id.find('-');
  if (dash == std::string::npos) return std::nullopt;
  const std::string kind = id.substr(0, dash), size = id.substr(dash + 1);
  if (kind != "porep" && kind != "wpost" && kind != "winning" && kind != "snap") return std::nullopt;
  std::string file;
  if (kind == "snap") {
    for (const auto& p : fil::update::update_proofs())
      if (size_name(p.sector_size) == size) file = fil::resolve_update_circuit(p.name).params_file();
  } else if (kind == "porep") {
    for (const auto& p : fil::seal_proofs())
      if (p.version == fil::api_version::v1_1_0 && size_name(p.sector_size) == size)
        file = fil::resolve_circuit(fil::proof_kind::porep_seal_commit, p.name).params_file();
  } else {
    const auto want = kind == "winning" ? fil::post_type::winning : fil::post_type::window;
    const auto pk = kind == "winning" ? fil::proof_kind::winning_post : fil::proof_kind::window_post_partition;
    for (const auto& p : fil::post_proofs())
      if (p.type == want && size_name(p.sector_size) == size) file = fil::resolve_circuit(pk, p.name).params_file();
  }
  if (file.empty())
    refuse("circuit_id: " + id + ": no " + kind + " proof for sector size '" + size + "' (2k, 8m, 512m, 32g, 64g)");
  auto path = params_path(file, param_cache);
  require_file(path, "circuit_id " + id);
  return path;
}

}  // namespace cuzk::daemon
