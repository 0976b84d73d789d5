// SealCommitPhase1Output (rust-filecoin-proofs-api `seal.rs`): what C1 hands to C2, and Curio's
// wrapper around it. Readers: fil/io/c1_json.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fil/registered_proof.hpp"
#include "fil/stacked/vanilla_proof.hpp"

namespace cuzk::fil {

struct seal_commit_phase1_output {
  const seal_proof_info* registered_proof = nullptr;
  std::string vanilla_proofs_variant;                   // VanillaSealProof variant, e.g. "StackedDrg32GiBV1"
  std::vector<std::vector<stacked::proof>> vanilla_proofs;  // [partition][challenge]
  domain comm_r{}, comm_d{}, replica_id{}, seed{}, ticket{};
};

// Curio's C1OutputWrapper {"SectorNum", "Phase1Out" (base64 of the JSON above), "SectorSize"}.
struct c1_output {
  std::uint64_t sector_num = 0;
  std::uint64_t sector_size = 0;  // 0 when the file was a bare SealCommitPhase1Output
  bool wrapped = false;
  seal_commit_phase1_output phase1_out;
};

}  // namespace cuzk::fil
