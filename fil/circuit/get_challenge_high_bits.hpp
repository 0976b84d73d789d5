// storage-proofs-update gadgets.rs get_challenge_high_bits: the h high bits of a challenge, h chosen
// among the circuit's six hard-coded values by the one set bit of h_select. Per candidate h:
// c_high = pack_bits(the h high bits), c_high_or_zero = c_high * h_select_bit (one constraint); then
// c_high_selected = the sum of the six (`sum * ONE = selected`).
#pragma once

#include <span>

#include "zk/cs/gadgets/num.hpp"

namespace cuzk::fil::circuit {

zk::cs::gadgets::allocated_num get_challenge_high_bits(zk::cs::constraint_system& cs,
                                                       std::span<const zk::cs::gadgets::allocated_bit> c_bits,
                                                       std::span<const zk::cs::gadgets::allocated_bit> h_select_bits,
                                                       std::span<const unsigned> hs);

}  // namespace cuzk::fil::circuit
