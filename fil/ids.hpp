// The identifiers a sector's proofs hang on:
//  - prover_id: the miner's ID-address payload (uvarint of the actor id) at the start of 32 zero bytes
//    (filecoin-ffi's to_prover_id);
//  - porep_id: the registered proof's id (u64 LE) || its nonce (u64 LE, 0 for all) || 16 zero bytes;
//  - replica_id: SHA-256(prover_id || sector_id u64 BE || ticket || comm_d || porep_id) with the top
//    two bits cleared (storage-proofs-porep generate_replica_id).
#pragma once

#include <cstdint>

#include "fil/registered_proof.hpp"
#include "fil/types.hpp"

namespace cuzk::fil {

domain prover_id(std::uint64_t miner_actor_id);
domain porep_id(const seal_proof_info& proof);
domain replica_id(const domain& prover_id, std::uint64_t sector_id, const domain& ticket, const domain& comm_d,
                  const domain& porep_id);

}  // namespace cuzk::fil
