// Structurally valid vanilla proofs with random hashes, for tests, fuzz seeds and benchmarks at sizes
// the oracle cannot seal here (32 GiB): the challenges, parents, tree shapes and counts are the real
// ones for the given ids, the hashes are random (so nothing verifies cryptographically).
#pragma once

#include <cstdint>

#include "fil/post/vanilla_proof.hpp"
#include "fil/seal_commit_phase1_output.hpp"

namespace cuzk::fil {

seal_commit_phase1_output synthetic_c1(const seal_proof_info& proof, std::uint64_t sector_id, std::uint64_t miner_id,
                                       std::uint64_t rng_seed);
post::fallback_post_sector_proof synthetic_post_proof(const post_proof_info& proof, std::uint64_t sector_id,
                                                      const domain& randomness, std::uint64_t sector_index,
                                                      std::uint64_t rng_seed);
// A Merkle proof of node `index` in a tree of `nodes` leaves and this shape (tree_shape{2,0,0}: the
// binary comm_d tree), with random siblings.
merkle::merkle_proof synthetic_merkle_proof(std::uint64_t nodes, tree_shape t, std::uint64_t index, std::uint64_t& rng);

}  // namespace cuzk::fil
