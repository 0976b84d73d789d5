// bincode (1.x, default options: little-endian fixed-width integers, u64 lengths, u32 enum variant
// tags, [u8; 32] as 32 raw bytes) of FallbackPoStSectorProof, as filecoin-proofs-api's
// generate_single_vanilla_proof returns it and Curio sends it (SubmitProofRequest.vanilla_proofs):
//   sector_id u64 | comm_r 32 | sectors: u64 n, n x { inclusion_proofs: u64 m, m x MerkleProof |
//   comm_c 32 | comm_r_last 32 }
//   MerkleProof = u32 variant (0 Single: root, leaf, path | 1 Sub: base, sub, root, leaf |
//                 2 Top: base, sub, top, root, leaf); path = u64 n, n x { u64 k, k x hash | index u64 }
// Lengths are checked against the bytes left before anything is allocated; every error is one line
// naming the field and the byte offset.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fil/post/vanilla_proof.hpp"
#include "fil/registered_proof.hpp"

namespace cuzk::fil::io {

post::fallback_post_sector_proof read_post_vanilla_proof(std::span<const std::uint8_t> bytes, const std::string& origin);
std::vector<std::uint8_t> to_bincode(const post::fallback_post_sector_proof& p);

// The proof against its registered PoSt proof: comm_r = Poseidon(comm_c, comm_r_last), one
// SectorProof, challenge_count inclusion proofs of the sector's tree shape rooted at comm_r_last,
// each proving `leaf_challenges[i]` when given. (The Merkle hashes themselves are not recomputed.)
void check_post_shape(const post::fallback_post_sector_proof& p, const post_proof_info& info,
                      std::span<const std::uint64_t> leaf_challenges, const std::string& origin);

}  // namespace cuzk::fil::io
