// storage-proofs-update gadgets.rs label_r_new: a node's SnapDeals encoding,
// label_r_new = label_r_old + label_d_new * rho (the product allocated by AllocatedNum::mul, then
// `(label_r_old + product) * ONE = label_r_new`).
#pragma once

#include "zk/cs/gadgets/num.hpp"

namespace cuzk::fil::circuit {

zk::cs::gadgets::allocated_num label_r_new(zk::cs::constraint_system& cs, const zk::cs::gadgets::allocated_num& label_r_old,
                                           const zk::cs::gadgets::allocated_num& label_d_new,
                                           const zk::cs::gadgets::allocated_num& rho);

}  // namespace cuzk::fil::circuit
