#include "fil/circuit/insertion.hpp"

#include <stdexcept>
#include <string>

namespace cuzk::fil::circuit {

using zk::cs::constraint_system;
using zk::cs::linear_combination;
using namespace zk::cs::gadgets;

allocated_num pick(constraint_system& cs, const boolean& cond, const allocated_num& a, const allocated_num& b) {
  const allocated_num c = allocated_num::alloc(cs, cond.value ? a.value : b.value);
  linear_combination l(b.var);
  l.sub(a.var);
  linear_combination r(b.var);
  r.sub(c.var);
  cs.enforce(std::move(l), cond.lc(zk::cs::fr::one()), std::move(r));
  return c;
}

namespace {

allocated_num named_pick(constraint_system& cs, const char* name, const boolean& cond, const allocated_num& a,
                         const allocated_num& b) {
  constraint_system::scope s(cs, name);
  return pick(cs, cond, a, b);
}

}  // namespace

// The generic case of insert: for each position, the candidates of every index, narrowed bit by bit
// from the most significant.
allocated_num select(constraint_system& cs, std::vector<allocated_num> state, std::span<const boolean> bits) {
  if ((std::size_t{1} << bits.size()) != state.size()) throw std::logic_error("select: bits do not match the values");
  std::size_t half = state.size() / 2;
  for (std::size_t i = 0; i < bits.size(); ++i) {
    const boolean& bit = bits[bits.size() - 1 - i];
    std::vector<allocated_num> next;
    for (std::size_t j = 0; j < half; ++j) {
      constraint_system::scope s(cs, "pick " + std::to_string(i) + ", " + std::to_string(j));
      next.push_back(pick(cs, bit, state[half + j], state[j]));
    }
    state = std::move(next);
    half /= 2;
  }
  return state[0];
}

std::vector<allocated_num> insert(constraint_system& cs, const allocated_num& element,
                                  std::span<const allocated_bit> bit_vars, std::span<const allocated_num> el) {
  const std::size_t size = el.size() + 1;
  if ((std::size_t{1} << bit_vars.size()) != size) throw std::logic_error("insert: bits do not match the arity");
  std::vector<boolean> bits;
  for (const auto& b : bit_vars) bits.push_back(boolean::from(b));
  const allocated_num& a = element;
  if (size == 2) {
    return {named_pick(cs, "binary insert 0", bits[0], el[0], a), named_pick(cs, "binary insert 1", bits[0], a, el[0])};
  }
  if (size == 4) {
    const boolean &b0 = bits[0], &b1 = bits[1];
    const auto &b = el[0], &c = el[1], &d = el[2];
    const auto p0_x0 = named_pick(cs, "p0_x0", b0, b, a);
    const auto p0 = named_pick(cs, "p0", b1, b, p0_x0);
    const auto p1_x0 = named_pick(cs, "p1_x0", b0, a, b);
    const auto p1 = named_pick(cs, "p1", b1, c, p1_x0);
    const auto p2_x1 = named_pick(cs, "p2_x1", b0, d, a);
    const auto p2 = named_pick(cs, "p2", b1, p2_x1, c);
    const auto p3_x1 = named_pick(cs, "p3_x1", b0, a, d);
    const auto p3 = named_pick(cs, "p3", b1, p3_x1, d);
    return {p0, p1, p2, p3};
  }
  if (size == 8) {
    const boolean &b0 = bits[0], &b1 = bits[1], &b2 = bits[2];
    const auto &b = el[0], &c = el[1], &d = el[2], &e = el[3], &f = el[4], &g = el[5], &h = el[6];
    boolean nor01, and01;
    {
      constraint_system::scope s(cs, "b0 nor b1");
      nor01 = boolean::from(bit_nor(cs, bit_vars[0], bit_vars[1]));
    }
    {
      constraint_system::scope s(cs, "b0 and b1");
      and01 = boolean::from(bit_and(cs, bit_vars[0], bit_vars[1]));
    }
    const auto p0_xx0 = named_pick(cs, "p0_xx0", nor01, a, b);
    const auto p0 = named_pick(cs, "p0", b2, b, p0_xx0);
    const auto p1_x00 = named_pick(cs, "p1_x00", b0, a, b);
    const auto p1_xx0 = named_pick(cs, "p1_xx0", b1, c, p1_x00);
    const auto p1 = named_pick(cs, "p1", b2, c, p1_xx0);
    const auto p2_x10 = named_pick(cs, "p2_x10", b0, d, a);
    const auto p2_xx0 = named_pick(cs, "p2_xx0", b1, p2_x10, c);
    const auto p2 = named_pick(cs, "p2", b2, d, p2_xx0);
    const auto p3_xx0 = named_pick(cs, "p3_xx0", and01, a, d);
    const auto p3 = named_pick(cs, "p3", b2, e, p3_xx0);
    const auto p4_xx1 = named_pick(cs, "p4_xx1", nor01, a, f);
    const auto p4 = named_pick(cs, "p4", b2, p4_xx1, e);
    const auto p5_x01 = named_pick(cs, "p5_x01", b0, a, f);
    const auto p5_xx1 = named_pick(cs, "p5_xx1", b1, g, p5_x01);
    const auto p5 = named_pick(cs, "p5", b2, p5_xx1, f);
    const auto p6_x11 = named_pick(cs, "p6_x11", b0, h, a);
    const auto p6_xx1 = named_pick(cs, "p6_xx1", b1, p6_x11, g);
    const auto p6 = named_pick(cs, "p6", b2, p6_xx1, g);
    const auto p7_xx1 = named_pick(cs, "p7_xx1", and01, a, h);
    const auto p7 = named_pick(cs, "p7", b2, p7_xx1, h);
    return {p0, p1, p2, p3, p4, p5, p6, p7};
  }
  std::vector<allocated_num> result;
  for (std::size_t pos = 0; pos < size; ++pos) {
    std::vector<allocated_num> choices;
    for (std::size_t index = 0; index < size; ++index)
      choices.push_back(pos < index ? el[pos] : pos == index ? a : el[pos - 1]);
    constraint_system::scope s(cs, "choice at " + std::to_string(pos));
    result.push_back(select(cs, std::move(choices), bits));
  }
  return result;
}

}  // namespace cuzk::fil::circuit
