// Merkle inclusion proofs as storage-proofs-core `merkle/proof.rs` defines (and serializes) them.
// A proof is one of three shapes, by the tree it comes from:
//   Single(SingleProof)  base tree only (SHA-256 binary comm_d trees; Poseidon 8-ary trees <= 512 MiB)
//   Sub(SubProof)        base trees under one sub-tree node (arity 2 or 8: 4 KiB, 1 GiB, 32 GiB, ...)
//   Top(TopProof)        base, sub and a top node of arity 2 (64 GiB)
// Each level (PathElement) holds the arity - 1 sibling hashes and the index of the path's own node
// among the arity children; the leaf's position in the tree is the path indices read as digits
// (base arity first, from the leaf up: InclusionPath::path_index).
#pragma once

#include <cstdint>
#include <variant>
#include <vector>

#include "fil/types.hpp"

namespace cuzk::fil::merkle {

struct path_element {  // PathElement
  std::vector<domain> hashes;
  std::uint64_t index = 0;
  bool operator==(const path_element&) const = default;
};

struct inclusion_path {  // InclusionPath
  std::vector<path_element> path;
  bool operator==(const inclusion_path&) const = default;
  // The node index this path proves, given the arity of its levels.
  std::uint64_t path_index(unsigned arity) const {
    std::uint64_t acc = 0;
    for (auto it = path.rbegin(); it != path.rend(); ++it) acc = acc * arity + it->index;
    return acc;
  }
};

struct single_proof {  // SingleProof
  domain root{}, leaf{};
  inclusion_path path;
  bool operator==(const single_proof&) const = default;
};

struct sub_tree_proof {  // SubProof (its fields keep the Rust names)
  inclusion_path base_proof, sub_proof;
  domain root{}, leaf{};
  bool operator==(const sub_tree_proof&) const = default;
};

struct top_tree_proof {  // TopProof
  inclusion_path base_proof, sub_proof, top_proof;
  domain root{}, leaf{};
  bool operator==(const top_tree_proof&) const = default;
};

struct merkle_proof {  // MerkleProof { data: ProofData }
  std::variant<single_proof, sub_tree_proof, top_tree_proof> data;
  bool operator==(const merkle_proof&) const = default;

  const domain& root() const {
    return std::visit([](const auto& p) -> const domain& { return p.root; }, data);
  }
  const domain& leaf() const {
    return std::visit([](const auto& p) -> const domain& { return p.leaf; }, data);
  }
  // Which shape (ProofData's variant index as bincode writes it: 0 Single, 1 Sub, 2 Top).
  unsigned kind() const { return static_cast<unsigned>(data.index()); }
};

}  // namespace cuzk::fil::merkle
