// Buffers of one circuit shape's partitions, kept for the next partition instead of freed: a 32 GiB
// PoRep partition writes ~21 GB (its values twice, a, b, c) that the allocator would otherwise map
// and fault in anew for every partition. The vectors come back as their last user lets go of them
// (the engine's handles carry deleters that give them back), and a take() hands one out with its
// memory; contents are garbage, the caller writes every element. At most `keep` of each kind are
// kept (beyond that a given-back vector is freed), so what is kept is bounded: the engine reserves
// that much from the host budget with the key that owns these buffers. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "zk/bls12_381/fields.hpp"
#include "zk/cs/constraint_system.hpp"

namespace cuzk::zk::groth16 {

class partition_buffers {
 public:
  explicit partition_buffers(std::size_t keep = 1) : keep_(keep) {}
  partition_buffers(const partition_buffers&) = delete;
  partition_buffers& operator=(const partition_buffers&) = delete;

  // A constraint system's value vectors (two per partition: inputs, aux).
  cs::values take_values() { return take(values_); }
  void give_values(cs::values&& v) { give(values_, std::move(v), 2 * keep_); }
  // A witness's canonical values.
  std::vector<zk::bigint<4>> take_witness() { return take(witness_); }
  void give_witness(std::vector<zk::bigint<4>>&& v) { give(witness_, std::move(v), keep_); }
  // a, b or c (three per partition).
  std::vector<bls12_381::fr> take_vector() { return take(vectors_); }
  void give_vector(std::vector<bls12_381::fr>&& v) { give(vectors_, std::move(v), 3 * keep_); }

  // Takes that found a kept vector (with memory), and those that did not.
  std::uint64_t reused() const {
    std::lock_guard lock(mu_);
    return reused_;
  }
  std::uint64_t fresh() const {
    std::lock_guard lock(mu_);
    return fresh_;
  }

 private:
  template <class V>
  V take(std::vector<V>& kept) {
    std::lock_guard lock(mu_);
    if (kept.empty()) {
      ++fresh_;
      return V();
    }
    V v = std::move(kept.back());
    kept.pop_back();
    ++reused_;
    return v;
  }
  template <class V>
  void give(std::vector<V>& kept, V&& v, std::size_t limit) {
    if (v.capacity() == 0) return;
    std::lock_guard lock(mu_);
    if (kept.size() < limit) kept.push_back(std::move(v));
  }

  std::size_t keep_;
  mutable std::mutex mu_;
  std::vector<cs::values> values_;
  std::vector<std::vector<zk::bigint<4>>> witness_;
  std::vector<std::vector<bls12_381::fr>> vectors_;
  std::uint64_t reused_ = 0, fresh_ = 0;
};

}  // namespace cuzk::zk::groth16
