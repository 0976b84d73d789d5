// bellperson's multipack: pack_into_inputs (bits in chunks of Fr's capacity (254), each chunk one new
// input equal to sum bit_i 2^i, one constraint `packed * ONE = input`) and pack_bits (the first 254
// bits into one new aux variable, the same constraint).
#pragma once

#include <span>

#include "zk/cs/gadgets/boolean.hpp"
#include "zk/cs/gadgets/num.hpp"

namespace cuzk::zk::cs::gadgets {

inline constexpr std::size_t fr_capacity = 254;

inline void pack_into_inputs(constraint_system& cs, std::span<const boolean> bits) {
  for (std::size_t start = 0; start < bits.size(); start += fr_capacity) {
    num n = num::zero();
    fr coeff = fr::one();
    for (std::size_t i = start; i < std::min(bits.size(), start + fr_capacity); ++i) {
      n.lc.add(bits[i].lc(coeff));
      if (bits[i].value) n.value += coeff;
      coeff += coeff;
    }
    const variable in = cs.alloc_input(n.value);
    cs.enforce(n.lc, linear_combination(one_var), linear_combination(in));
  }
}

inline allocated_num pack_bits(constraint_system& cs, std::span<const boolean> bits) {
  num n = num::zero();
  const bool rec = cs.recording();
  for (std::size_t i = 0; i < std::min(bits.size(), fr_capacity); ++i) {
    if (rec) n.lc.add(bits[i].lc(pow2(i)));
    if (bits[i].value) n.value += pow2(i);
  }
  const allocated_num out = allocated_num::alloc(cs, n.value);
  if (!rec) return cs.enforce_unrecorded(), out;
  cs.enforce(std::move(n.lc), linear_combination(one_var), linear_combination(out.var));
  return out;
}

}  // namespace cuzk::zk::cs::gadgets
