// storage-proofs-core gadgets/por.rs (PoRCircuit) for Poseidon trees and binary SHA-256 trees (comm_d;
// its node hash is fil/circuit/sha256's hash_multi_leaf): a leaf's inclusion in a root,
// through the base tree levels, then the sub-tree level and the top-tree level when the shape has
// them. Per level (namespace "merkle tree hash i" under "base"/"sub"/"top"): the index bits (one
// AllocatedBit each, least significant first), then the arity - 1 sibling values, the insertion
// selectors, and the Poseidon hash of the arity's width. All index bits are then packed into public
// inputs ("path"), and the computed root must equal the given root (storage-proofs' constraint::equal).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <string>

#include "fil/merkle/proof.hpp"
#include "fil/types.hpp"
#include "zk/cs/gadgets/num.hpp"

namespace cuzk::fil::circuit {

// A Merkle tree's arities (LCTree<Poseidon, base, sub, top>; 0 = no such level).
struct tree_arities {
  unsigned base = 8, sub = 0, top = 0;
};

struct path_level {
  unsigned arity = 0;
  std::uint64_t index = 0;     // the position of the current node among the arity inputs
  std::vector<fr> siblings;    // arity - 1 values
};

// The path of `leaves` leaves of a tree of these arities with no values (bellperson's blank circuit).
std::vector<path_level> blank_path(const tree_arities& shape, std::uint64_t leaves);

enum class tree_hash { poseidon, sha256 };

// PoRCircuit::synthesize(value = Root::Var(leaf), path, root = Root::Var(root), private = true): the
// leaf is a variable already (PoRep's enforce_inclusion), nothing is allocated for it.
// With `check` set, a computed root that differs from `root` throws zk::input_error("<check>: path
// does not reach the root") before anything is enforced (the witness would not satisfy the R1CS).
void por(zk::cs::constraint_system& cs, const tree_arities& shape, tree_hash hash,
         const zk::cs::gadgets::allocated_num& leaf, const std::vector<path_level>& path,
         const zk::cs::gadgets::allocated_num& root, const std::string* check = nullptr);

// A Merkle proof as path levels for a tree of `shape`; throws zk::input_error naming `what` when
// its kind (single/sub/top), a level's arity or index, or a sibling (not a field element) does not fit.
std::vector<path_level> path_levels(const merkle::merkle_proof& p, const tree_arities& shape, const std::string& what);

// The same for a tree of `shape` over `leaves` leaves, also checking the number of levels; throws zk::input_error
// naming `what` when its kind (single/sub/top), a level's arity or index, the number of levels or a
// sibling (not a field element) does not fit.
std::vector<path_level> path_levels_from(const merkle::merkle_proof& p, const tree_arities& shape,
                                         std::uint64_t leaves, const std::string& what);

// por_no_challenge_input: the leaf's path to `root` with the insertion bits taken from
// `challenge_bits` (least significant first: base levels, then sub, then top), nothing allocated for
// them and no public input; path[l] holds level l's arity - 1 siblings, allocated already. Namespaces
// "merkle proof insert (height=h)" and "merkle proof hash (height=h)", then
// `computed root * ONE = root`. Throws std::logic_error when the bits do not match the levels.
void por_no_challenge_input(zk::cs::constraint_system& cs, const tree_arities& shape, tree_hash hash,
                            std::span<const zk::cs::gadgets::allocated_bit> challenge_bits,
                            const zk::cs::gadgets::allocated_num& leaf,
                            const std::vector<std::vector<zk::cs::gadgets::allocated_num>>& path,
                            const zk::cs::gadgets::allocated_num& root);

// PoRCircuit::synthesize(value = Root::Val(leaf), path, root = Root::Var(root), private = true).
void por(zk::cs::constraint_system& cs, const tree_arities& shape, const fr& leaf, const std::vector<path_level>& path,
         const zk::cs::gadgets::allocated_num& root);

}  // namespace cuzk::fil::circuit
