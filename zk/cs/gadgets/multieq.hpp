// bellpepper's MultiEq: many small equalities "lhs = rhs" (each known to fit in num_bits bits) packed
// into one constraint (sum 2^s lhs_k) * ONE = (sum 2^s rhs_k), each equality shifted past the bits of
// the ones before it. The pack is flushed (one constraint "multieq N") when the next equality would
// reach Fr's capacity (254 bits), and once more when the MultiEq ends (its Drop in Rust: here the
// destructor, or flush()). UInt32::addmany feeds it; SHA-256 keeps one per compression function, so
// the flush points, and with them the constraint order, are bellperson's.
#pragma once

#include <cstddef>

#include "zk/cs/gadgets/num.hpp"

namespace cuzk::zk::cs::gadgets {

class multi_eq {
 public:
  explicit multi_eq(constraint_system& cs) : cs_(cs) {}
  ~multi_eq() { flush(); }
  multi_eq(const multi_eq&) = delete;
  multi_eq& operator=(const multi_eq&) = delete;

  constraint_system& cs() { return cs_; }

  void enforce_equal(std::size_t num_bits, const linear_combination& lhs, const linear_combination& rhs) {
    if (capacity <= bits_used_ + num_bits) accumulate();
    lhs_.add(lhs, pow2(bits_used_));
    rhs_.add(rhs, pow2(bits_used_));
    bits_used_ += num_bits;
  }
  // The same without the linear combinations (witness and count modes).
  void count_equal(std::size_t num_bits) {
    if (capacity <= bits_used_ + num_bits) accumulate();
    bits_used_ += num_bits;
  }
  // The Drop: the last pack, if any equality is pending.
  void flush() {
    if (bits_used_ > 0) accumulate();
  }

 private:
  static constexpr std::size_t capacity = 254;
  void accumulate() {
    if (!cs_.recording()) {
      cs_.enforce_unrecorded();
      bits_used_ = 0;
      return;
    }
    cs_.enforce(std::move(lhs_), linear_combination(one_var), std::move(rhs_));
    lhs_ = {};
    rhs_ = {};
    bits_used_ = 0;
  }
  constraint_system& cs_;
  std::size_t bits_used_ = 0;
  linear_combination lhs_, rhs_;
};

}  // namespace cuzk::zk::cs::gadgets
