#include "fil/circuit/label_r_new.hpp"

namespace cuzk::fil::circuit {

using zk::cs::constraint_system;
using zk::cs::linear_combination;
using zk::cs::one_var;
using namespace zk::cs::gadgets;

allocated_num label_r_new(constraint_system& cs, const allocated_num& label_r_old, const allocated_num& label_d_new,
                          const allocated_num& rho) {
  allocated_num prod;
  {
    constraint_system::scope s(cs, "label_d_new * rho");
    prod = label_d_new.mul(cs, rho);
  }
  allocated_num out;
  {
    constraint_system::scope s(cs, "label_r_new");
    out = allocated_num::alloc(cs, label_r_old.value + prod.value);
  }
  linear_combination a(label_r_old.var);
  a.add(prod.var);
  constraint_system::scope s(cs, "label_r_new == label_r_old + label_d_new * rho");
  cs.enforce(std::move(a), linear_combination(one_var), linear_combination(out.var));
  return out;
}

}  // namespace cuzk::fil::circuit
