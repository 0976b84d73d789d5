#include "fil/circuit/get_challenge_high_bits.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "zk/cs/gadgets/multipack.hpp"

namespace cuzk::fil::circuit {

using zk::cs::constraint_system;
using zk::cs::linear_combination;
using zk::cs::one_var;
using zk::cs::fr;
using namespace zk::cs::gadgets;

allocated_num get_challenge_high_bits(constraint_system& cs, std::span<const allocated_bit> c_bits,
                                      std::span<const allocated_bit> h_select_bits, std::span<const unsigned> hs) {
  if (h_select_bits.size() != hs.size()) throw std::logic_error("get_challenge_high_bits: h_select bits do not match hs");
  std::vector<allocated_num> parts;
  fr sum = fr::zero();
  for (std::size_t k = 0; k < hs.size(); ++k) {
    const unsigned h = hs[k];
    const std::string tag = "(h=" + std::to_string(h) + ", k=" + std::to_string(k) + ")";
    std::vector<boolean> high;
    for (std::size_t i = c_bits.size() - h; i < c_bits.size(); ++i) high.push_back(boolean::from(c_bits[i]));
    allocated_num c_high;
    {
      constraint_system::scope s(cs, "c_high " + tag);
      c_high = pack_bits(cs, high);
    }
    allocated_num c_high_or_zero;
    {
      constraint_system::scope s(cs, "c_high_or_zero " + tag);
      c_high_or_zero = allocated_num::alloc(cs, h_select_bits[k].value ? c_high.value : fr::zero());
    }
    {
      constraint_system::scope s(cs, "c_high_or_zero == c_high * h_select_bit " + tag);
      cs.enforce(linear_combination(c_high.var), linear_combination(h_select_bits[k].var),
                 linear_combination(c_high_or_zero.var));
    }
    sum += c_high_or_zero.value;
    parts.push_back(c_high_or_zero);
  }
  allocated_num selected;
  {
    constraint_system::scope s(cs, "c_high_selected");
    selected = allocated_num::alloc(cs, sum);
  }
  linear_combination lc;
  for (const auto& p : parts) lc.add(p.var);
  constraint_system::scope s(cs, "c_high_selected == dot(c_highs, h_select_bits)");
  cs.enforce(std::move(lc), linear_combination(one_var), linear_combination(selected.var));
  return selected;
}

}  // namespace cuzk::fil::circuit
