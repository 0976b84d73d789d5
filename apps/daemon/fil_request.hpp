// Curio's Filecoin requests (SubmitProofRequest with proof_kind set), checked before anything is
// queued. Each refusal is a request_error carrying the gRPC code and one line naming the field:
//   proof_kind        not one of the four kinds: INVALID_ARGUMENT; SNAP_DEALS_UPDATE: UNIMPLEMENTED
//   registered_proof  no such abi number, a seal number for a PoSt kind (or the reverse), or a
//                     proof for another sector_size: INVALID_ARGUMENT
//   parameters        the .params file named by parameters.json's convention is in the cache
//                     directory (checked before the payload is parsed): NOT_FOUND names the path
//   vanilla_proof     PoRep: Curio's C1 wrapper JSON ({"SectorNum","Phase1Out","SectorSize"}) whose
//                     output is shaped for the registered proof; a bare C1 output is refused (Curio
//                     always wraps it, and SectorSize is checked against the proof)
//   vanilla_proofs    PoSt: one bincode FallbackPoStSectorProof per challenged sector, each shaped for
//                     the proof (WinningPoSt: exactly one; WindowPoSt: 1..sector_count)
//   randomness        PoSt: exactly 32 bytes, a field element
// The checked request keeps what it parsed, so that the engine does not parse the payload twice.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cuzk/v1/proving.pb.h"
#include "fil/post/vanilla_proof.hpp"
#include "fil/registered_proof.hpp"
#include "fil/seal_commit_phase1_output.hpp"
#include "fil/types.hpp"

namespace cuzk::daemon {

struct fil_request {
  ::cuzk::v1::ProofKind kind = ::cuzk::v1::PROOF_KIND_UNSPECIFIED;
  const fil::seal_proof_info* seal = nullptr;  // POREP_SEAL_COMMIT
  const fil::post_proof_info* post = nullptr;  // WINDOW_POST_PARTITION, WINNING_POST
  ::cuzk::v1::Priority priority = ::cuzk::v1::NORMAL;  // the request's, or the kind's default
  std::uint32_t partitions = 1;
  std::string params_path;  // PARAM_CACHE/v28-....params
  std::string vk_path;      // PARAM_CACHE/v28-....vk
  std::uint64_t miner_id = 0, sector_number = 0;
  std::uint32_t partition_index = 0;
  fil::domain randomness{};
  std::shared_ptr<const fil::c1_output> c1;                     // PoRep
  std::vector<fil::post::fallback_post_sector_proof> sectors;   // PoSt, in request order
};

// The short names that Curio's PreloadSRS circuit ids and the queue status use.
const char* kind_name(::cuzk::v1::ProofKind k);  // "porep", "snap", "wpost", "winning", "circom"

// Checks `req` (proof_kind != UNSPECIFIED) against the parameter cache directory; throws request_error.
fil_request check_fil_request(const ::cuzk::v1::SubmitProofRequest& req, const std::string& param_cache);

// Curio's circuit ids ("porep-32g", "wpost-2k", "winning-32g", ...: kind, '-', size as
// 2k|8m|512m|32g|64g) and parameter file names ("v28-...", with or without .params) to the
// .params path in the cache; nullopt when `id` is neither (then it is a circom circuit name).
// SnapDeals ids are refused with UNIMPLEMENTED; a known id whose file is missing with NOT_FOUND.
std::optional<std::string> fil_params_for_circuit_id(const std::string& id, const std::string& param_cache);

}  // namespace cuzk::daemon
