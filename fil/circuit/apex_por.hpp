// storage-proofs-update gadgets.rs apex_por: a partition's apex tree (TreeD's SHA-256 binary tree
// over the partition's apex leafs, "apex_tree generation hash (tree_row=r, siblings=i)") and the path
// from its root up to comm_d ("partition-tree por": por_no_challenge_input over the partition bits).
// Every challenge's TreeD path ends in this partition path, so it is verified once per partition.
#pragma once

#include <vector>

#include "zk/cs/gadgets/num.hpp"

namespace cuzk::fil::circuit {

void apex_por(zk::cs::constraint_system& cs, const std::vector<zk::cs::gadgets::allocated_num>& apex_leafs,
              const std::vector<zk::cs::gadgets::allocated_bit>& partition_bits,
              const std::vector<std::vector<zk::cs::gadgets::allocated_num>>& partition_path,
              const zk::cs::gadgets::allocated_num& comm_d);

}  // namespace cuzk::fil::circuit
