// storage-proofs-post fallback/circuit.rs (FallbackPoStCircuit, synthesize_default): per sector, comm_r
// as a public input equal to Poseidon2(comm_c, comm_r_last) (aux order: comm_r_last, comm_c, comm_r),
// then one Merkle inclusion per challenge in comm_r_last (fil/circuit/por). Public inputs per sector:
// comm_r, then the packed index bits of each challenge.
#pragma once

#include <vector>

#include "fil/circuit/por.hpp"
#include "fil/post/vanilla_proof.hpp"
#include "zk/cs/constraint_system.hpp"

namespace cuzk::fil::circuit {

struct post_sector {
  fr comm_r, comm_c, comm_r_last;
  std::vector<fr> leafs;                       // one per challenge
  std::vector<std::vector<path_level>> paths;  // one per challenge
};

// Sector::blank_circuit: `challenges` challenges of a tree of `leaves` leaves, no values.
post_sector blank_post_sector(const tree_arities& shape, std::uint64_t leaves, std::size_t challenges);

// Sector::circuit: the witness of one sector from its vanilla proof (comm_r from the proof, comm_c,
// comm_r_last, and per challenge the leaf and the path's index and siblings level by level).
// Throws zk::input_error naming the field when a value is not a field element or a path does not
// have the shape's arities.
post_sector post_sector_from(const post::fallback_post_sector_proof& p, const tree_arities& shape);

void fallback_post(zk::cs::constraint_system& cs, const tree_arities& shape, const std::vector<post_sector>& sectors);

}  // namespace cuzk::fil::circuit
