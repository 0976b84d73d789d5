// storage-proofs-core gadgets/insertion.rs: place `element` among `siblings` at the position the index
// bits (least significant first) name, by selectors (`pick`: c = cond ? a : b in one constraint
// (b - a) * cond = b - c). Arity 2, 4 and 8 have hand-built selector networks (arity 8 shares
// b0 NOR b1 and b0 AND b1); other arities go through the generic `select`.
#pragma once

#include <span>
#include <vector>

#include "zk/cs/gadgets/boolean.hpp"
#include "zk/cs/gadgets/num.hpp"

namespace cuzk::fil::circuit {

zk::cs::gadgets::allocated_num pick(zk::cs::constraint_system& cs, const zk::cs::gadgets::boolean& cond,
                                    const zk::cs::gadgets::allocated_num& a, const zk::cs::gadgets::allocated_num& b);

// select: from.size() = 2^bits.size() values narrowed bit by bit from the most significant
// ("pick i, j"); the value at the index the bits (least significant first) name.
zk::cs::gadgets::allocated_num select(zk::cs::constraint_system& cs, std::vector<zk::cs::gadgets::allocated_num> from,
                                      std::span<const zk::cs::gadgets::boolean> bits);

// The arity = siblings.size() + 1 values with `element` at the index of `bits`.
std::vector<zk::cs::gadgets::allocated_num> insert(zk::cs::constraint_system& cs,
                                                   const zk::cs::gadgets::allocated_num& element,
                                                   std::span<const zk::cs::gadgets::allocated_bit> bits,
                                                   std::span<const zk::cs::gadgets::allocated_num> siblings);

}  // namespace cuzk::fil::circuit
