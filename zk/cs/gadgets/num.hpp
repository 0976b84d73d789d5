// bellpepper's num gadgets: AllocatedNum (one variable and its value) and Num (a linear combination
// and its value, no variable: adding and scaling cost no constraint).
#pragma once

#include <vector>

#include "zk/cs/gadgets/boolean.hpp"

namespace cuzk::zk::cs::gadgets {

struct allocated_num {
  variable var;
  fr value;

  static allocated_num alloc(constraint_system& cs, const fr& v) { return {cs.alloc(v), v}; }
  // AllocatedNum::inputize: a new input equal to this variable (input * ONE = var).
  variable inputize(constraint_system& cs) const {
    const variable in = cs.alloc_input(value);
    cs.enforce(linear_combination(in), linear_combination(one_var), linear_combination(var));
    return in;
  }
  // AllocatedNum::square: res = a * a.
  allocated_num square(constraint_system& cs) const {
    const allocated_num r = alloc(cs, value * value);
    cs.enforce(linear_combination(var), linear_combination(var), linear_combination(r.var));
    return r;
  }
  // AllocatedNum::mul: res = a * b.
  allocated_num mul(constraint_system& cs, const allocated_num& b) const {
    const allocated_num r = alloc(cs, value * b.value);
    cs.enforce(linear_combination(var), linear_combination(b.var), linear_combination(r.var));
    return r;
  }
};

struct num {
  fr value = fr::zero();
  linear_combination lc;

  static num zero() { return {}; }
  static num from(const allocated_num& a) { return {a.value, linear_combination(a.var)}; }
  // Num::add_bool_with_coeff(ONE, Boolean::Constant(true), c): the constant c.
  static num constant(const fr& c) { return {c, linear_combination(one_var, c)}; }
  num add(const num& o) const {
    num r = *this;
    r.value += o.value;
    r.lc.add(o.lc);
    return r;
  }
  num scale(const fr& s) const { return {value * s, lc.scaled(s)}; }
};

// Fr's NUM_BITS: the bits field_into_allocated_bits_le allocates.
inline constexpr std::size_t fr_num_bits = 255;

// 2^i in Fr for i < 256 (the packing coefficients), computed once.
inline const fr& pow2(std::size_t i) {
  static const std::vector<fr> table = [] {
    std::vector<fr> t(256);
    t[0] = fr::one();
    for (std::size_t k = 1; k < t.size(); ++k) t[k] = t[k - 1] + t[k - 1];
    return t;
  }();
  return table[i];
}

// AllocatedNum::to_bits_le (not the strict form): 255 AllocatedBits, least significant first, then
// one "unpacking constraint" 0 * 0 = sum 2^i bit_i - num.
inline std::vector<boolean> to_bits_le(constraint_system& cs, const allocated_num& n) {
  const auto c = n.value.to_canonical();
  std::vector<boolean> bits;
  bits.reserve(fr_num_bits);
  linear_combination lc;
  const bool rec = cs.recording();
  for (std::size_t i = 0; i < fr_num_bits; ++i) {
    const allocated_bit b = allocated_bit::alloc(cs, c.bit(i));
    if (rec) lc.add(b.var, pow2(i));
    bits.push_back(boolean::from(b));
  }
  if (!rec) return cs.enforce_unrecorded(), bits;
  lc.sub(n.var);
  cs.enforce(linear_combination{}, linear_combination{}, std::move(lc));
  return bits;
}

// storage-proofs-core constraint::equal: a * ONE = b.
inline void enforce_equal(constraint_system& cs, const allocated_num& a, const allocated_num& b) {
  cs.enforce(linear_combination(a.var), linear_combination(one_var), linear_combination(b.var));
}

}  // namespace cuzk::zk::cs::gadgets
