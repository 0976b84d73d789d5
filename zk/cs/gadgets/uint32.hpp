// bellpepper's UInt32: 32 Booleans, least significant first, and the value. Rotations and shifts
// only move Booleans (shr fills with constant false); xor, Ch and Maj go bit by bit through the
// Boolean gates (constants fold there). addmany sums up to 10 operands: the sum of every operand's
// bits (weights 2^i) must equal the sum of fresh result bits, as many as the largest possible sum
// needs (33 bits for 2 operands, 35 for 5..8), an equality handed to MultiEq rather than enforced on
// its own; the result keeps the low 32 bits. All-constant operands fold to a constant, no variable.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <span>

#include "zk/cs/gadgets/boolean.hpp"
#include "zk/cs/gadgets/multieq.hpp"

namespace cuzk::zk::cs::gadgets {

struct uint32 {
  std::array<boolean, 32> bits{};
  std::uint32_t value = 0;

  static uint32 constant(std::uint32_t v) {
    uint32 r;
    r.value = v;
    for (unsigned i = 0; i < 32; ++i) r.bits[i] = boolean::constant(((v >> i) & 1) != 0);
    return r;
  }
  static uint32 alloc(constraint_system& cs, std::uint32_t v) {
    uint32 r;
    r.value = v;
    for (unsigned i = 0; i < 32; ++i) r.bits[i] = boolean::from(allocated_bit::alloc(cs, ((v >> i) & 1) != 0));
    return r;
  }
  // UInt32::from_bits_be: 32 Booleans, most significant first.
  static uint32 from_bits_be(std::span<const boolean> be) {
    uint32 r;
    for (unsigned i = 0; i < 32; ++i) {
      r.bits[i] = be[31 - i];
      if (be[31 - i].value) r.value |= std::uint32_t{1} << i;
    }
    return r;
  }
  // into_bits_be, appended to `out`.
  void append_bits_be(std::vector<boolean>& out) const {
    for (unsigned i = 0; i < 32; ++i) out.push_back(bits[31 - i]);
  }

  uint32 rotr(unsigned by) const {
    by %= 32;
    uint32 r;
    for (unsigned i = 0; i < 32; ++i) r.bits[i] = bits[(i + by) % 32];
    r.value = std::rotr(value, int(by));
    return r;
  }
  uint32 shr(unsigned by) const {
    by %= 32;
    uint32 r;
    for (unsigned i = 0; i < 32; ++i) r.bits[i] = i + by < 32 ? bits[i + by] : boolean::constant(false);
    r.value = value >> by;
    return r;
  }
  uint32 xor_(constraint_system& cs, const uint32& o) const {
    uint32 r;
    for (unsigned i = 0; i < 32; ++i) r.bits[i] = boolean_xor(cs, bits[i], o.bits[i]);
    r.value = value ^ o.value;
    return r;
  }
  static uint32 sha256_ch(constraint_system& cs, const uint32& a, const uint32& b, const uint32& c) {
    uint32 r;
    for (unsigned i = 0; i < 32; ++i) r.bits[i] = gadgets::sha256_ch(cs, a.bits[i], b.bits[i], c.bits[i]);
    r.value = (a.value & b.value) ^ (~a.value & c.value);
    return r;
  }
  static uint32 sha256_maj(constraint_system& cs, const uint32& a, const uint32& b, const uint32& c) {
    uint32 r;
    for (unsigned i = 0; i < 32; ++i) r.bits[i] = gadgets::sha256_maj(cs, a.bits[i], b.bits[i], c.bits[i]);
    r.value = (a.value & b.value) ^ (a.value & c.value) ^ (b.value & c.value);
    return r;
  }

  static uint32 addmany(multi_eq& meq, std::span<const uint32> operands) {
    std::uint64_t max_value = operands.size() * std::uint64_t{0xffffffff};
    std::uint64_t sum = 0;
    bool all_constants = true;
    for (const auto& op : operands) {
      sum += op.value;
      for (unsigned i = 0; i < 32; ++i) all_constants &= op.bits[i].k == boolean::kind::constant;
    }
    if (all_constants) return constant(std::uint32_t(sum));
    constraint_system& cs = meq.cs();
    const bool rec = cs.recording();
    linear_combination lc, result_lc;
    if (rec)
      for (const auto& op : operands)
        for (unsigned i = 0; i < 32; ++i) lc.add(op.bits[i].lc(pow2(i)));
    uint32 r;
    r.value = std::uint32_t(sum);
    std::size_t i = 0;
    for (; max_value != 0; max_value >>= 1, ++i) {
      const allocated_bit b = allocated_bit::alloc(cs, ((sum >> i) & 1) != 0);
      if (rec) result_lc.add(b.var, pow2(i));
      if (i < 32) r.bits[i] = boolean::from(b);
    }
    if (rec) meq.enforce_equal(i, lc, result_lc);
    else meq.count_equal(i);
    return r;
  }
};

}  // namespace cuzk::zk::cs::gadgets
