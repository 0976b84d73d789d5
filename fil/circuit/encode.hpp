// storage-proofs-core gadgets/encode.rs: encode(key, value) = key + value as a new variable
// (constraint::add: (key + value) * ONE = sum). PoRep encodes the data node with the last layer's label.
#pragma once

#include "zk/cs/gadgets/num.hpp"

namespace cuzk::fil::circuit {

inline zk::cs::gadgets::allocated_num encode(zk::cs::constraint_system& cs, const zk::cs::gadgets::allocated_num& key,
                                             const zk::cs::gadgets::allocated_num& value) {
  const auto sum = zk::cs::gadgets::allocated_num::alloc(cs, key.value + value.value);
  zk::cs::linear_combination l(key.var);
  l.add(value.var);
  cs.enforce(std::move(l), zk::cs::linear_combination(zk::cs::one_var), zk::cs::linear_combination(sum.var));
  return sum;
}

}  // namespace cuzk::fil::circuit
