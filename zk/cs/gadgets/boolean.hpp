// bellpepper's Boolean: a constant (allocates nothing, folds away in gadgets) or an AllocatedBit
// (one variable constrained by (1 - a) * a = 0), possibly negated. The gates (xor, and, SHA-256's
// Ch and Maj) fold constants case by case exactly as boolean.rs matches them: which case fires
// decides whether a variable and a constraint exist, and the operand order inside a constraint
// follows the Rust arms (Is before Not), so the R1CS is bellperson's.
#pragma once

#include "zk/cs/constraint_system.hpp"

namespace cuzk::zk::cs::gadgets {

struct allocated_bit {
  variable var;
  bool value = false;

  static allocated_bit alloc(constraint_system& cs, bool v) {
    const variable a = cs.alloc(v ? fr::one() : fr::zero());
    if (!cs.recording()) {
      cs.enforce_unrecorded();
      return {a, v};
    }
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
  if (!cs.recording()) return cs.enforce_unrecorded(), allocated_bit{r, v};
  cs.enforce(linear_combination(a.var), linear_combination(b.var), linear_combination(r));
  return {r, v};
}

// AllocatedBit::xor: r = a ^ b, one constraint (2a) * b = a + b - r.
inline allocated_bit bit_xor(constraint_system& cs, const allocated_bit& a, const allocated_bit& b) {
  const bool v = a.value != b.value;
  const variable r = cs.alloc(v ? fr::one() : fr::zero());
  if (!cs.recording()) return cs.enforce_unrecorded(), allocated_bit{r, v};
  linear_combination la(a.var), lc(a.var);
  la.add(a.var);
  lc.add(b.var).sub(r);
  cs.enforce(std::move(la), linear_combination(b.var), std::move(lc));
  return {r, v};
}

// AllocatedBit::and_not: r = a (1 - b), one constraint a * (1 - b) = r.
inline allocated_bit bit_and_not(constraint_system& cs, const allocated_bit& a, const allocated_bit& b) {
  const bool v = a.value && !b.value;
  const variable r = cs.alloc(v ? fr::one() : fr::zero());
  if (!cs.recording()) return cs.enforce_unrecorded(), allocated_bit{r, v};
  linear_combination nb(one_var);
  nb.sub(b.var);
  cs.enforce(linear_combination(a.var), std::move(nb), linear_combination(r));
  return {r, v};
}

// AllocatedBit::nor: r = (1 - a)(1 - b), one constraint.
inline allocated_bit bit_nor(constraint_system& cs, const allocated_bit& a, const allocated_bit& b) {
  const bool v = !a.value && !b.value;
  const variable r = cs.alloc(v ? fr::one() : fr::zero());
  if (!cs.recording()) return cs.enforce_unrecorded(), allocated_bit{r, v};
  linear_combination na(one_var), nb(one_var);
  na.sub(a.var), nb.sub(b.var);
  cs.enforce(std::move(na), std::move(nb), linear_combination(r));
  return {r, v};
}

}  // namespace cuzk::zk::cs::gadgets

namespace cuzk::zk::cs::gadgets {

inline allocated_bit bit_of(const boolean& b) { return {b.var, b.k == boolean::kind::is ? b.value : !b.value}; }

// Boolean::xor.
inline boolean boolean_xor(constraint_system& cs, const boolean& a, const boolean& b) {
  using K = boolean::kind;
  if (a.k == K::constant && !a.value) return b;
  if (b.k == K::constant && !b.value) return a;
  if (a.k == K::constant) return b.negated();
  if (b.k == K::constant) return a.negated();
  if (a.k != b.k) {  // (Is, Not) or (Not, Is): xor(is, not.not()).not()
    const boolean& is = a.k == K::is ? a : b;
    const boolean& nt = a.k == K::is ? b : a;
    return boolean::from(bit_xor(cs, bit_of(is), bit_of(nt.negated()))).negated();
  }
  return boolean::from(bit_xor(cs, bit_of(a.k == K::is ? a : a.negated()), bit_of(b.k == K::is ? b : b.negated())));
}

// Boolean::and.
inline boolean boolean_and(constraint_system& cs, const boolean& a, const boolean& b) {
  using K = boolean::kind;
  if ((a.k == K::constant && !a.value) || (b.k == K::constant && !b.value)) return boolean::constant(false);
  if (a.k == K::constant) return b;
  if (b.k == K::constant) return a;
  if (a.k != b.k) {
    const boolean& is = a.k == K::is ? a : b;
    const boolean& nt = a.k == K::is ? b : a;
    return boolean::from(bit_and_not(cs, bit_of(is), bit_of(nt.negated())));
  }
  if (a.k == K::not_) return boolean::from(bit_nor(cs, bit_of(a.negated()), bit_of(b.negated())));
  return boolean::from(bit_and(cs, bit_of(a), bit_of(b)));
}

// Boolean::sha256_ch: (a and b) xor ((not a) and c), one variable and one constraint
// (b - c) * a = ch - c unless a constant folds it into an `and`.
inline boolean sha256_ch(constraint_system& cs, const boolean& a, const boolean& b, const boolean& c) {
  using K = boolean::kind;
  const bool v = (a.value && b.value) != (!a.value && c.value);
  const bool ca = a.k == K::constant, cb = b.k == K::constant, cc = c.k == K::constant;
  if (ca && cb && cc) return boolean::constant(v);
  if (ca && !a.value) return c;
  if (cb && !b.value) return boolean_and(cs, a.negated(), c);
  if (cc && !c.value) return boolean_and(cs, a, b);
  if (cc && c.value) return boolean_and(cs, a, b.negated()).negated();
  if (cb && b.value) return boolean_and(cs, a.negated(), c.negated()).negated();
  const variable ch = cs.alloc(v ? fr::one() : fr::zero());
  if (!cs.recording()) return cs.enforce_unrecorded(), boolean::from(allocated_bit{ch, v});
  linear_combination l = b.lc(fr::one());
  l.add(c.lc(fr::one()), -fr::one());
  linear_combination r(ch);
  r.add(c.lc(fr::one()), -fr::one());
  cs.enforce(std::move(l), a.lc(fr::one()), std::move(r));
  return boolean::from(allocated_bit{ch, v});
}

// Boolean::sha256_maj: majority of a, b, c: the variable maj, then bc = b and c, and one constraint
// (2 bc - b - c) * a = bc - maj, unless a constant folds it into an `and`.
inline boolean sha256_maj(constraint_system& cs, const boolean& a, const boolean& b, const boolean& c) {
  using K = boolean::kind;
  const bool v = ((a.value && b.value) != (a.value && c.value)) != (b.value && c.value);
  const bool ca = a.k == K::constant, cb = b.k == K::constant, cc = c.k == K::constant;
  if (ca && cb && cc) return boolean::constant(v);
  if (ca && !a.value) return boolean_and(cs, b, c);
  if (cb && !b.value) return boolean_and(cs, a, c);
  if (cc && !c.value) return boolean_and(cs, a, b);
  if (cc && c.value) return boolean_and(cs, a.negated(), b.negated()).negated();
  if (cb && b.value) return boolean_and(cs, a.negated(), c.negated()).negated();
  if (ca && a.value) return boolean_and(cs, b.negated(), c.negated()).negated();
  const variable maj = cs.alloc(v ? fr::one() : fr::zero());
  const boolean bc = boolean_and(cs, b, c);
  if (!cs.recording()) return cs.enforce_unrecorded(), boolean::from(allocated_bit{maj, v});
  linear_combination l = bc.lc(fr::one());
  l.add(bc.lc(fr::one()));
  l.add(b.lc(fr::one()), -fr::one());
  l.add(c.lc(fr::one()), -fr::one());
  linear_combination r = bc.lc(fr::one());
  r.sub(maj);
  cs.enforce(std::move(l), a.lc(fr::one()), std::move(r));
  return boolean::from(allocated_bit{maj, v});
}

}  // namespace cuzk::zk::cs::gadgets
