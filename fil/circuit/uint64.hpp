// storage-proofs-core gadgets/uint64.rs: 64 Booleans, least significant first (the PoRep challenge
// as the labeling hash reads it, big-endian, and as a packed public input).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "zk/cs/gadgets/multipack.hpp"

namespace cuzk::fil::circuit {

struct uint64_bits {
  std::array<zk::cs::gadgets::boolean, 64> bits{};
  std::uint64_t value = 0;

  // UInt64::alloc: 64 AllocatedBits ("allocated bit i"), least significant first.
  static uint64_bits alloc(zk::cs::constraint_system& cs, std::uint64_t v) {
    uint64_bits r;
    r.value = v;
    for (unsigned i = 0; i < 64; ++i)
      r.bits[i] = zk::cs::gadgets::boolean::from(zk::cs::gadgets::allocated_bit::alloc(cs, ((v >> i) & 1) != 0));
    return r;
  }
  // to_bits_be, appended.
  void append_bits_be(std::vector<zk::cs::gadgets::boolean>& out) const {
    for (unsigned i = 0; i < 64; ++i) out.push_back(bits[63 - i]);
  }
  // pack_into_input: one public input equal to the value.
  void pack_into_input(zk::cs::constraint_system& cs) const { zk::cs::gadgets::pack_into_inputs(cs, bits); }
};

}  // namespace cuzk::fil::circuit
