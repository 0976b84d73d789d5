// The PoRep circuit's public inputs for one partition, in the order StackedCompound's
// generate_public_inputs pushes them (storage-proofs-porep `stacked/circuit/proof.rs`); the Groth16
// ONE input is not included. Every inclusion proof is "private" (its root is not an input) and packs
// its path as the challenged leaf's index, one Fr per proof:
//   replica_id, comm_d, comm_r, then per challenge c:
//     c (comm_d path), the 6 DRG parents, the 8 expander parents (comm_c paths), c (the challenge as
//     a number), c (comm_r_last path), c (comm_c path of c's own column)
// i.e. 3 + 18 per challenge: 39 at 2 KiB (2 challenges), 327 at 32 GiB (18).
#pragma once

#include <cstdint>
#include <vector>

#include "fil/registered_proof.hpp"
#include "fil/stacked/graph.hpp"
#include "fil/types.hpp"

namespace cuzk::fil::stacked {

struct public_inputs {  // PublicInputs with its Tau
  domain replica_id{};
  domain seed{};   // interactive challenge randomness
  domain comm_d{};
  domain comm_r{};
};

std::vector<fr> generate_public_inputs(const seal_proof_info& proof, const stacked_bucket_graph& graph,
                                       const public_inputs& in, unsigned k);
// The same with the challenges given (they are what the C1 vanilla proofs were made for).
std::vector<fr> generate_public_inputs(const stacked_bucket_graph& graph, const public_inputs& in,
                                       const std::vector<std::uint64_t>& challenges);

}  // namespace cuzk::fil::stacked
