// Vanilla proofs for sectors never sealed, for tests and benchmarks at sizes the oracle cannot seal
// here (32 GiB).
//
// synthetic_c1: a C1 output that verifies (fil/stacked/vanilla_verify) and whose witness satisfies the
// PoRep R1CS, built without the 32 GiB of layers. The trick is to compute only what is opened:
//   - data: a random block of 1024 leaves repeated over the sector, so an aligned subtree's SHA-256
//     root is the same everywhere and comm_d is a true root, known before the challenges (which
//     follow from replica_id, which follows from comm_d); interactive challenges only;
//   - labels: a challenged node's label on layer l is create_label over its DRG parents' labels on
//     l and (l > 1) its expander parents' on l - 1, computed recursively when a parent is itself
//     challenged; every other node's labels are random (they are the opened parent columns);
//   - comm_c and comm_r_last: sparse Poseidon trees (base, sub and top arities) over the opened
//     leaves (column hashes; replica leaf = last label + data leaf): nodes on the opened paths are
//     hashed once each, shared upper nodes included; every untouched subtree is a random
//     placeholder drawn from (seed, level, index); comm_r = Poseidon(comm_c, comm_r_last).
// synthetic_post_proof: the real challenges and shapes with random hashes (nothing verifies).
#pragma once

#include <cstdint>
#include <vector>

#include "fil/post/vanilla_proof.hpp"
#include "fil/seal_commit_phase1_output.hpp"
#include "fil/update/vanilla_verify.hpp"

namespace cuzk::fil {

seal_commit_phase1_output synthetic_c1(const seal_proof_info& proof, std::uint64_t sector_id, std::uint64_t miner_id,
                                       std::uint64_t rng_seed);
post::fallback_post_sector_proof synthetic_post_proof(const post_proof_info& proof, std::uint64_t sector_id,
                                                      const domain& randomness, std::uint64_t sector_index,
                                                      std::uint64_t rng_seed);
// PoSt sector proofs that verify: `count` sectors (ids first_sector_id, +1, ...) of partition
// `partition_index`, each proving the challenges `randomness` gives it, through one periodic TreeR
// (synthetic_update's trick; every sector has the same comm_c and comm_r). Benchmarks
// (`cuzk bench fil --shape wpost-32GiB`) and tests.
std::vector<post::fallback_post_sector_proof> synthetic_valid_post_proofs(const post_proof_info& proof,
                                                                          const domain& randomness,
                                                                          std::uint32_t partition_index, std::size_t count,
                                                                          std::uint64_t first_sector_id,
                                                                          std::uint64_t seed);
// A Merkle proof of node `index` in a tree of `nodes` leaves and this shape (tree_shape{2,0,0}: the
// binary comm_d tree), with random siblings.
merkle::merkle_proof synthetic_merkle_proof(std::uint64_t nodes, tree_shape t, std::uint64_t index, std::uint64_t& rng);

}  // namespace cuzk::fil

namespace cuzk::fil {

// synthetic_update: SnapDeals vanilla proofs (one PartitionProof per partition) that pass
// update::check_partition_proof and whose witnesses satisfy the update circuit, at any size. Every
// opened path must share one root although the challenges follow from comm_r_new (the root), so
// the trees are periodic: TreeR's leaves are a random block repeated over the sector (each aligned
// subtree of a level above the block has one value, the level computed once), and the deal data is
// zero, so that TreeRNew = TreeROld (label_r_new = label_r_old + 0 * rho) and comm_r_new = comm_r_old;
// TreeD is the zero data's SHA-256 tree. Benchmarks and the 32 GiB witness check use it.
struct synthetic_update {
  update::commitments comms;
  std::vector<update::partition_proof> partitions;
};
synthetic_update synthetic_update_proofs(std::uint64_t sector_size, std::uint64_t rng_seed);

}  // namespace cuzk::fil
