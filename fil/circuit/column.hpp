// storage-proofs-porep stacked/circuit/hash.rs hash_single_column: a column (one label per layer) hashed
// with neptune's Poseidon of the column's arity (2 or 11 layers, the Merkle-tree domain tag, as the
// comm_c tree's leaves are made).
#pragma once

#include <span>
#include <stdexcept>

#include "fil/circuit/poseidon.hpp"

namespace cuzk::fil::circuit {

inline zk::cs::gadgets::allocated_num hash_single_column(zk::cs::constraint_system& cs,
                                                         std::span<const zk::cs::gadgets::allocated_num> column) {
  if (column.size() != 2 && column.size() != 11)
    throw std::invalid_argument("hash_single_column: unsupported column size " + std::to_string(column.size()));
  return poseidon_hash(cs, column);
}

}  // namespace cuzk::fil::circuit
