// bincode (fil/io/bincode.hpp) of storage-proofs-update's PartitionProof, one per partition, as
// filecoin-proofs-api's generate_partition_proofs returns them and Curio sends them
// (SubmitProofRequest.vanilla_proofs of a SNAP_DEALS_UPDATE):
//   comm_c 32 | apex_leafs: u64 n, n x 32 | challenge_proofs: u64 m, m x { proof_r_old MerkleProof |
//   proof_d_new MerkleProof | proof_r_new MerkleProof }
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fil/update/vanilla_proof.hpp"

namespace cuzk::fil::io {

// Throws zk::input_error naming `origin`, the field and the byte offset (trailing bytes too).
update::partition_proof read_partition_proof(std::span<const std::uint8_t> bytes, const std::string& origin);
std::vector<std::uint8_t> to_bincode(const update::partition_proof& p);

}  // namespace cuzk::fil::io
