// bellpepper's Boolean: a constant (allocates nothing, folds away in gadgets) or an AllocatedBit
// (one variable constrained by (1 - a) * a = 0), possibly negated.
#pragma once

#include "zk/cs/constraint_system.hpp"

namespace cuzk::zk::cs::gadgets {

struct allocated_bit {
  variable var;
  bool value = false;

  static allocated_bit alloc(constraint_system& cs, bool v) {
    const variable a = cs.alloc(v ? fr::one() : fr::zero());
    linear_combination l(one_var);
    l.sub(a);
    cs.enforce(std::move(l), linear_combination(a), linear_combination{});
    return {a, v};
  }
};

struct boolean {
  enum class kind { constant, is, not_ } k = kind::constant;
  bool value = false;  // the Boolean's value (negation applied)
  variable var{};      // for is / not_

  static boolean constant(bool v) { return {kind::constant, v, {}}; }
  static boolean from(const allocated_bit& b) { return {kind::is, b.value, b.var}; }
  boolean negated() const {
    switch (k) {
      case kind::constant: return constant(!value);
      case kind::is: return {kind::not_, !value, var};
      case kind::not_: return {kind::is, !value, var};
    }
    return *this;
  }
  // Boolean::lc(one, coeff): the linear combination worth coeff * value.
  linear_combination lc(const fr& coeff) const {
    linear_combination r;
    switch (k) {
      case kind::constant:
        if (value) r.add(one_var, coeff);
        break;
      case kind::is: r.add(var, coeff); break;
      case kind::not_: r.add(one_var, coeff).add(var, -coeff); break;
    }
    return r;
  }
};

}  // namespace cuzk::zk::cs::gadgets

namespace cuzk::zk::cs::gadgets {

// AllocatedBit::and: r = a b, one constraint a * b = r.
inline allocated_bit bit_and(constraint_system& cs, const allocated_bit& a, const allocated_bit& b) {
  const bool v = a.value && b.value;
  const variable r = cs.alloc(v ? fr::one() : fr::zero());
  cs.enforce(linear_combination(a.var), linear_combination(b.var), linear_combination(r));
  return {r, v};
}

// AllocatedBit::nor: r = (1 - a)(1 - b), one constraint.
inline allocated_bit bit_nor(constraint_system& cs, const allocated_bit& a, const allocated_bit& b) {
  const bool v = !a.value && !b.value;
  const variable r = cs.alloc(v ? fr::one() : fr::zero());
  linear_combination na(one_var), nb(one_var);
  na.sub(a.var), nb.sub(b.var);
  cs.enforce(std::move(na), std::move(nb), linear_combination(r));
  return {r, v};
}

}  // namespace cuzk::zk::cs::gadgets
