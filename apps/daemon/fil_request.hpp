// Curio's Filecoin requests (SubmitProofRequest with proof_kind set), checked before anything is
// queued or journaled. Each refusal is a request_error carrying the gRPC code and one line naming
// the field:
//   proof_kind        not one of the four kinds: INVALID_ARGUMENT
//   registered_proof  no such abi number for the kind, or a proof for another sector_size:
//                     INVALID_ARGUMENT (fil/partition.hpp resolves it, as the engine does)
//   parameters        the .params file parameters.json names for the proof is not in the cache
//                     directory (checked before the payload is parsed): NOT_FOUND names the path
//   vanilla_proof     PoRep: Curio's C1 wrapper JSON ({"SectorNum","Phase1Out","SectorSize"}) whose
//                     output is shaped for the registered proof; a bare C1 output is refused
//   vanilla_proofs    PoSt: one bincode FallbackPoStSectorProof per challenged sector, shaped for
//                     the proof, proving the challenges the randomness gives (fil::check_job_input)
//                     SnapDeals: one bincode PartitionProof per partition of the sector size,
//                     each parsed and checked whole (paths to comm_r_old / comm_r_new, encoding,
//                     comm_d_new: update::check_partition_proof)
//   comm_r_old, comm_r_new, comm_d_new  SnapDeals: exactly 32 bytes each, field elements
//   randomness        PoSt: exactly 32 bytes, a field element
// The result is what the engine's filecoin_request needs; the raw request is what the journal keeps.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cuzk/v1/proving.pb.h"
#include "fil/partition.hpp"

namespace cuzk::daemon {

struct fil_request {
  ::cuzk::v1::ProofKind kind = ::cuzk::v1::PROOF_KIND_UNSPECIFIED;
  fil::circuit_ref circuit;
  fil::job_input input;
  std::uint64_t sector_size = 0;
  ::cuzk::v1::Priority priority = ::cuzk::v1::PRIORITY_UNSPECIFIED;  // unset: the kind's own (engine)
  std::string params_path;  // absolute: PARAM_CACHE/v28-....params
  // PoRep: input.c1 as the check read it, passed to the engine (filecoin_request::c1): a request's
  // C1 is parsed once (0.97 s at 32 GiB). Null for PoSt.
  std::shared_ptr<const fil::c1_output> c1;
};

// The short names that the queue status and the journal use: "porep", "snap", "wpost", "winning",
// "circom".
const char* kind_name(::cuzk::v1::ProofKind k);

// Checks `req` (proof_kind != UNSPECIFIED) against the parameter cache directory; throws request_error.
fil_request check_fil_request(const ::cuzk::v1::SubmitProofRequest& req, const std::string& param_cache);

// Curio's circuit ids ("porep-32g", "wpost-2k", "winning-32g", ...: kind, '-', size as
// 2k|8m|512m|32g|64g) and parameter file names ("v28-...", with or without .params) to the absolute
// .params path in the cache; nullopt when `id` is neither (then it is a circom circuit name).
// ("snap-32g": the update circuit's); a known id whose file is missing with NOT_FOUND.
std::optional<std::string> fil_params_for_circuit_id(const std::string& id, const std::string& param_cache);

}  // namespace cuzk::daemon
