// storage-proofs-core gadgets/por.rs (PoRCircuit) for Poseidon trees: a leaf's inclusion in a root,
// through the base tree levels, then the sub-tree level and the top-tree level when the shape has
// them. Per level (namespace "merkle tree hash i" under "base"/"sub"/"top"): the index bits (one
// AllocatedBit each, least significant first), then the arity - 1 sibling values, the insertion
// selectors, and the Poseidon hash of the arity's width. All index bits are then packed into public
// inputs ("path"), and the computed root must equal the given root (storage-proofs' constraint::equal).
#pragma once

#include <cstdint>
#include <vector>

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

// PoRCircuit::synthesize(value = Root::Val(leaf), path, root = Root::Var(root), private = true).
void por(zk::cs::constraint_system& cs, const tree_arities& shape, const fr& leaf, const std::vector<path_level>& path,
         const zk::cs::gadgets::allocated_num& root);

}  // namespace cuzk::fil::circuit
