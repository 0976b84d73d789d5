// EmptySectorUpdate::verify (storage-proofs-update vanilla.rs) as input checks: everything the
// circuit of partition k assumes of a vanilla PartitionProof, each failure one zk::input_error line
// naming `origin`, the challenge and the field:
//  - counts: apex_leafs, challenge_proofs; each Merkle proof's shape (TreeR's arities, TreeD binary,
//    the sector's height) and values (field elements);
//  - comm_r_old = Poseidon(comm_c, root of TreeROld) and comm_r_new = Poseidon(comm_c, root of
//    TreeRNew), every challenge's roots the first one's;
//  - each proof proves challenge c (Challenges::new(k)) and its path reaches its root;
//  - the encoding: leaf_r_new = leaf_r_old + leaf_d_new * rho(phi, c >> (log2(nodes) - h));
//  - TreeDNew: the apex tree over apex_leafs and the partition path of challenge 0 reach comm_d_new,
//    every challenge's partition path is challenge 0's, and each leaf_d_new climbs to the apex leaf
//    its bits select (what the circuit enforces, stricter than the vanilla verifier's `contains`).
#pragma once

#include <string>

#include "fil/types.hpp"
#include "fil/update/public_params.hpp"
#include "fil/update/vanilla_proof.hpp"

namespace cuzk::fil::update {

struct commitments {
  domain comm_r_old{}, comm_d_new{}, comm_r_new{};
};

void check_partition_proof(const public_params& pp, unsigned k, const commitments& comms, const partition_proof& p,
                           const std::string& origin);

// The circuit's public inputs of partition k (CompoundProof::generate_public_inputs): k_and_h_select
// = k | h_select << partition_bit_len, comm_r_old, comm_d_new, comm_r_new. Throws zk::input_error
// when a commitment is not a field element.
std::vector<fr> public_inputs(const public_params& pp, unsigned k, const commitments& comms);

}  // namespace cuzk::fil::update
