#include "fil/circuit/apex_por.hpp"

#include <bit>
#include <string>

#include "fil/circuit/por.hpp"
#include "fil/circuit/sha256.hpp"

namespace cuzk::fil::circuit {

using zk::cs::constraint_system;
using namespace zk::cs::gadgets;

void apex_por(constraint_system& cs, const std::vector<allocated_num>& apex_leafs,
              const std::vector<allocated_bit>& partition_bits, const std::vector<std::vector<allocated_num>>& partition_path,
              const allocated_num& comm_d) {
  const unsigned height = unsigned(std::countr_zero(apex_leafs.size()));
  std::vector<allocated_num> row = apex_leafs;
  for (unsigned r = 0; r < height; ++r) {
    std::vector<allocated_num> next;
    for (std::size_t i = 0; i + 1 < row.size(); i += 2) {
      constraint_system::scope s(cs, "apex_tree generation hash (tree_row=" + std::to_string(r) +
                                         ", siblings=" + std::to_string(i / 2) + ")");
      const allocated_num pair[2] = {row[i], row[i + 1]};
      next.push_back(sha256_hash_multi_leaf(cs, pair));
    }
    row = std::move(next);
  }
  constraint_system::scope s(cs, "partition-tree por");
  por_no_challenge_input(cs, tree_arities{2, 0, 0}, tree_hash::sha256, partition_bits, row[0], partition_path, comm_d);
}

}  // namespace cuzk::fil::circuit
