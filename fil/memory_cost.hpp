// The host memory a Filecoin job's inputs hold while it is queued and running: its job_input (the
// C1 JSON or the PoSt vanilla proofs as bytes) and the C1 output parsed from it. The daemon charges
// this to the host budget for as long as the job holds them.
#pragma once

#include <cstdint>

#include "fil/partition.hpp"
#include "fil/seal_commit_phase1_output.hpp"

namespace cuzk::fil {

// Every allocation counted at its capacity plus an allocator's header (16 bytes).
std::uint64_t memory_bytes(const job_input& in);
std::uint64_t memory_bytes(const c1_output& c1);

}  // namespace cuzk::fil
