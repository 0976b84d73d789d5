// PoRep challenges (storage-proofs-porep `stacked/vanilla/challenges.rs`). Challenge j of the sector
// (j = partition k * challenges_per_partition + i, as u32 LE) is H mod (nodes - 1) + 1, where H is a
// SHA-256 digest read as a 256-bit little-endian integer (node 0 is never challenged):
//  - interactive: H = SHA-256(replica_id || seed || j)
//  - non-interactive: H = SHA-256("filecoin.io|PoRep|1|NonInteractive|1" || replica_id || comm_r || j)
// Synthetic PoRep draws from a Poseidon-based generator over (replica_id, comm_r): not implemented
// here (derive throws input_error naming it).
#pragma once

#include <cstdint>
#include <vector>

#include "fil/registered_proof.hpp"
#include "fil/types.hpp"

namespace cuzk::fil::stacked {

std::vector<std::uint64_t> interactive_challenges(std::uint64_t sector_nodes, unsigned challenges_per_partition,
                                                  const domain& replica_id, const domain& seed, unsigned k);
std::vector<std::uint64_t> ni_challenges(std::uint64_t sector_nodes, unsigned challenges_per_partition,
                                         const domain& replica_id, const domain& comm_r, unsigned k);
// The challenges of partition k for this registered proof (seed for interactive, comm_r for NI).
std::vector<std::uint64_t> porep_challenges_for(const seal_proof_info& proof, const domain& replica_id,
                                                const domain& seed, const domain& comm_r, unsigned k);

}  // namespace cuzk::fil::stacked
