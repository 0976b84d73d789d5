// Recomputing a Merkle proof's root from its leaf (storage-proofs-core MerkleProof::verify): at each
// level the running hash is inserted among the level's siblings at the path's index and the level
// is hashed: SHA-256 trees (comm_d) hash left || right and clear the top two bits (Sha256Function,
// "sha254"); Poseidon trees (comm_r_last, comm_c) hash the arity children with Poseidon of that
// arity. Sub and top proofs continue from the base path's root with their own arity.
#pragma once

#include <optional>

#include "fil/merkle/proof.hpp"

namespace cuzk::fil::merkle {

enum class tree_hasher { sha256, poseidon };

// The root the proof's leaf and path give, or nullopt when a level cannot be hashed (an index past
// the siblings, a SHA-256 level that is not binary, a Poseidon value that is not a field element,
// an arity Poseidon is not defined for).
std::optional<domain> compute_root(const merkle_proof& proof, tree_hasher h);
// compute_root == proof.root()
bool verify(const merkle_proof& proof, tree_hasher h);

}  // namespace cuzk::fil::merkle
