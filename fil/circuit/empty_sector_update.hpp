// storage-proofs-update circuit.rs (EmptySectorUpdateCircuit): one SnapDeals partition, allocation
// for allocation. Public inputs: k_and_h_select (k | h_select << partition_bit_len, split into
// AllocatedBits and tied back by one constraint), comm_r_old, comm_d_new, comm_r_new. Then
// phi = Poseidon(comm_d_new, comm_r_old) (gen-randomness tag); comm_c, root_r_old, root_r_new, the
// apex leafs and the partition path; comm_r_old / comm_r_new = Poseidon(comm_c, root) (Merkle tag);
// apex_por; gen_challenge_bits; and per challenge: the h high bits and rho, leaf_r_old, leaf_d_new,
// label_r_new, TreeROld's path (por_no_challenge_input), TreeRNew's, the apex leaf the challenge's
// bits select (insertion select) and TreeDNew's path up to it (SHA-256).
#pragma once

#include <string>
#include <vector>

#include "fil/types.hpp"
#include "fil/update/public_params.hpp"
#include "fil/update/vanilla_proof.hpp"
#include "fil/update/vanilla_verify.hpp"
#include "zk/cs/constraint_system.hpp"

namespace cuzk::fil::circuit {

struct update_challenge {
  fr leaf_r_old, leaf_d_new, leaf_r_new;
  std::vector<std::vector<fr>> path_r_old, path_r_new;  // siblings per level (TreeR's arities)
  std::vector<fr> path_d_new;                          // one sibling per TreeD level, leaf upwards
};

struct update_partition {
  update::public_params pp;
  unsigned k = 0;
  fr comm_r_old, comm_d_new, comm_r_new, comm_c, root_r_old, root_r_new;
  std::vector<fr> apex_leafs;
  std::vector<update_challenge> challenges;
};

// The blank circuit (PrivateInputs::empty, no values): what parameter generation synthesizes.
update_partition blank_update_partition(const update::public_params& pp);

// Partition k's witness from its vanilla proof, checked first (update::check_partition_proof: one
// zk::input_error line naming `origin`, the challenge and the field).
update_partition update_partition_from(const update::public_params& pp, unsigned k, const update::commitments& comms,
                                       const update::partition_proof& p, const std::string& origin);

void empty_sector_update(zk::cs::constraint_system& cs, const update_partition& part);

}  // namespace cuzk::fil::circuit
