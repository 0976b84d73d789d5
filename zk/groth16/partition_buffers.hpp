// Buffers of one circuit shape's partitions, kept for the next partition instead of freed: a 32 GiB
// PoRep partition writes ~21 GB (its values twice, a, b, c) that the allocator would otherwise map
// and fault in anew for every partition. The vectors come back as their last user lets go of them
// (the engine's handles carry deleters that give them back), and a take() hands one out with its
// memory; contents are garbage, the caller writes every element. At most `keep` of each kind are
// kept (beyond that a given-back vector is freed), so what is kept is bounded: the engine reserves
// that much from the host budget with the key that owns these buffers. Thread-safe.
//
// Kept witness vectors can be page-locked (pin_witnesses: a GPU stager's host_pinner): each one is
// pinned once, when it is first kept, and unpinned before it is freed, so a GPU uploads the witness
// (4.2 GB at 32 GiB) by DMA straight from it, with no copy through staging buffers. A pinned vector
// must keep its memory while it is out: take_witness(n) hands out one whose capacity holds n values
// (a smaller kept one is dropped), so the caller's resize(n) does not reallocate. A witness handed
// out can be pinned before its first upload (pin_witness: a stager, for a fresh vector), so even a
// partition that found no kept set uploads by DMA.
//
// Counting a kept set once: beyond the `keep` sets reserved with the key, the buffers keep one more
// set for each partition grant they hold. A partition's host grant goes through adopt() (or comes
// from take_grant()): the handle it gets back, when its last holder lets go (the partition's
// witness, which goes last: values at the end of synthesis, a, b, c once a device has them), hands
// the grant to these buffers instead of releasing it, and the set that partition used is kept under
// it. The next partition takes that grant (take_grant) instead of asking the host budget, and its
// set with it. So the key keeps as many sets as it has had partitions in flight, each counted once
// (by the held grant: idle kept sets stay visible in the host budget), and no partition allocates
// once the first ones' sets are back. Held grants go with the buffers (the key's eviction),
// which returns them to the budget. Sets kept: at most keep + grants held + grants out.
//
// A grant coming home calls the on_grant_home callback (the scheduler's: it wakes that key's
// partitions waiting for a grant, which take this one instead of waiting for the budget).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include "zk/bls12_381/fields.hpp"
#include "zk/cs/constraint_system.hpp"
#include "zk/groth16/host_pinner.hpp"
#include "zk/util/parallel.hpp"

namespace cuzk::zk::groth16 {

class partition_buffers : public std::enable_shared_from_this<partition_buffers> {
 public:
  // A host-budget grant as these buffers hold it (a keepalive: releases when the last copy goes).
  using grant = std::shared_ptr<const void>;

  explicit partition_buffers(std::size_t keep = 1) : keep_(keep) {}
  ~partition_buffers() {
    for (auto& [p, bytes] : pinned_) pinner_->unpin(p);
  }
  partition_buffers(const partition_buffers&) = delete;
  partition_buffers& operator=(const partition_buffers&) = delete;

  // The `keep` sets reserved with the key, made now (the key's load), their pages written on `pool`,
  // so that the first partitions find memory that is there: otherwise the first partition of an
  // idle engine pays a fresh set's first touch, and its witness's zeroing on one thread
  // (to_witness_values resizes it), inside its synthesis (8.4 GB at 32 GiB witness-only, 21 GB with
  // a, b, c). `inputs`, `aux`: the circuit's values (the witness holds both); `domain`: a, b and
  // c's length (0: a witness-only key's partitions take none). Kinds already kept count; vectors
  // taken from here count as reused.
  void prefill(std::size_t inputs, std::size_t aux, std::size_t domain, thread_pool& pool) {
    std::size_t values = 0, witness = 0, vectors = 0;
    {
      std::lock_guard lock(mu_);
      values = 2 * keep_ > values_.size() ? 2 * keep_ - values_.size() : 0;
      witness = keep_ > witness_.size() ? keep_ - witness_.size() : 0;
      vectors = domain && 3 * keep_ > vectors_.size() ? 3 * keep_ - vectors_.size() : 0;
    }
    for (std::size_t i = 0; i < values; ++i) {
      auto v = written<cs::values>(i % 2 ? inputs : aux, pool);
      std::lock_guard lock(mu_);
      values_.push_back(std::move(v));
    }
    for (std::size_t i = 0; i < witness; ++i) {
      auto v = written<std::vector<zk::bigint<4>>>(inputs + aux, pool);
      std::lock_guard lock(mu_);
      pin_locked(v);
      witness_.push_back(std::move(v));
    }
    for (std::size_t i = 0; i < vectors; ++i) {
      auto v = written<std::vector<bls12_381::fr>>(domain, pool);
      std::lock_guard lock(mu_);
      vectors_.push_back(std::move(v));
    }
  }

  // A constraint system's value vectors (two per partition: inputs, aux).
  cs::values take_values() { return take(values_); }
  void give_values(cs::values&& v) { give(values_, std::move(v), 2); }
  // A witness's canonical values; with n > 0, memory for n values (resize(n) keeps its place). A
  // fresh one made with a pool given has its n values there, its pages written on the pool (else
  // to_witness_values' resize zeroes 4.2 GB at 32 GiB on one thread, faulting every page in).
  std::vector<zk::bigint<4>> take_witness(std::size_t n = 0, thread_pool* pool = nullptr) {
    auto v = take(witness_);
    if (n && v.capacity() < n) {
      {
        std::lock_guard lock(mu_);
        if (v.capacity()) --reused_, ++fresh_;  // a kept one too small for n: freed, a fresh one made
        unpin_locked(v);
      }
      v = {};
      if (pool) v = written<std::vector<zk::bigint<4>>>(n, *pool);
      else v.reserve(n);
    }
    if (v.capacity()) {
      std::lock_guard lock(mu_);
      lent_witness_.insert(v.data());
    }
    return v;
  }
  void give_witness(std::vector<zk::bigint<4>>&& v) {
    if (v.capacity() == 0) return;
    std::lock_guard lock(mu_);
    lent_witness_.erase(v.data());
    if (witness_.size() >= sets_locked()) {
      unpin_locked(v);
      return;  // freed
    }
    pin_locked(v);
    witness_.push_back(std::move(v));
  }
  // Pins a witness vector these buffers handed out (take_witness) and that is still out, with the
  // pinner given (pin_witnesses); nothing for any other vector or without a pinner. Pinned once: it
  // stays pinned while kept, and is unpinned before it is freed.
  void pin_witness(const std::vector<zk::bigint<4>>& v) {
    std::lock_guard lock(mu_);
    if (v.capacity() && lent_witness_.count(v.data())) pin_locked(const_cast<std::vector<zk::bigint<4>>&>(v));
  }

  // A partition's grant of `bytes` from the host budget, adopted: the handle returned holds it, and
  // when the handle's last copy goes the grant comes to these buffers (held) instead of going back
  // to the budget; if the buffers are gone by then, it goes back. Null in, null out.
  grant adopt(grant g, std::uint64_t bytes) {
    if (!g) return g;
    {
      std::lock_guard lock(mu_);
      ++grants_out_;
    }
    auto held = std::make_shared<lent>();
    held->home = weak_from_this();
    held->inner = std::move(g);
    held->bytes = bytes;
    return held;
  }
  // A held grant of at least `bytes`, adopted again for the next partition (the smallest that fits);
  // null when none is held.
  grant take_grant(std::uint64_t bytes) {
    grant g;
    std::uint64_t got = 0;
    {
      std::lock_guard lock(mu_);
      auto best = held_.end();
      for (auto it = held_.begin(); it != held_.end(); ++it)
        if (it->second >= bytes && (best == held_.end() || it->second < best->second)) best = it;
      if (best == held_.end()) return {};
      g = std::move(best->first);
      got = best->second;
      held_.erase(best);
    }
    return adopt(std::move(g), got);
  }
  // Gives every held grant back to the budget, and frees the sets kept under them (down to keep +
  // grants out): another key's partitions need the host memory. Returns the grants given back.
  std::size_t release_held() {
    std::vector<std::pair<grant, std::uint64_t>> back;
    std::vector<cs::values> values;
    std::vector<std::vector<zk::bigint<4>>> witness;
    std::vector<std::vector<bls12_381::fr>> vectors;
    {
      std::lock_guard lock(mu_);
      back.swap(held_);
      const std::size_t sets = sets_locked();
      while (witness_.size() > sets) {
        unpin_locked(witness_.back());
        witness.push_back(std::move(witness_.back()));
        witness_.pop_back();
      }
      while (values_.size() > 2 * sets) {
        values.push_back(std::move(values_.back()));
        values_.pop_back();
      }
      while (vectors_.size() > 3 * sets) {
        vectors.push_back(std::move(vectors_.back()));
        vectors_.pop_back();
      }
    }
    return back.size();  // the sets and then the grants go here, outside the lock
  }
  // Called each time a partition's grant comes home (held now), outside the buffers' lock, on the
  // thread that let go of the grant's last copy; replaces the one set before (one scheduler serves
  // a key). It may use these buffers, but runs in a deleter, on any thread: the scheduler's only
  // sends itself a message.
  void on_grant_home(std::function<void()> f) {
    std::lock_guard lock(mu_);
    on_home_ = std::make_shared<const std::function<void()>>(std::move(f));
  }
  // Grants held now (idle: their sets are kept here), their bytes, and grants out with partitions.
  std::size_t grants_held() const {
    std::lock_guard lock(mu_);
    return held_.size();
  }
  std::uint64_t held_bytes() const {
    std::lock_guard lock(mu_);
    std::uint64_t n = 0;
    for (auto& [g, b] : held_) n += b;
    return n;
  }
  std::size_t grants_out() const {
    std::lock_guard lock(mu_);
    return grants_out_;
  }
  // From now on kept witness vectors are pinned with `p` (those kept now at once). The first
  // pinner given stays (one device kind pins a key's buffers).
  void pin_witnesses(std::shared_ptr<host_pinner> p) {
    if (!p) return;
    std::lock_guard lock(mu_);
    if (pinner_) return;
    pinner_ = std::move(p);
    for (auto& v : witness_) pin_locked(v);
  }
  // Kept witness vectors that are pinned now.
  std::size_t pinned() const {
    std::lock_guard lock(mu_);
    return pinned_.size();
  }
  // a, b or c (three per partition).
  std::vector<bls12_381::fr> take_vector() { return take(vectors_); }
  void give_vector(std::vector<bls12_381::fr>&& v) { give(vectors_, std::move(v), 3); }

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
  // n elements whose pages were written on the pool (zeros, in parallel), then resized over them.
  template <class V>
  static V written(std::size_t n, thread_pool& pool) {
    V v;
    v.reserve(n);
    auto* bytes = reinterpret_cast<unsigned char*>(v.data());
    parallel_for(pool, n * sizeof(typename V::value_type),
                 [bytes](std::size_t b, std::size_t e) { std::memset(bytes + b, 0, e - b); }, std::size_t{1} << 22);
    v.resize(n);  // cs::values: no write; the others' zeroing finds the pages there
    return v;
  }

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
  void give(std::vector<V>& kept, V&& v, std::size_t per_set) {
    if (v.capacity() == 0) return;
    std::lock_guard lock(mu_);
    if (kept.size() < per_set * sets_locked()) kept.push_back(std::move(v));
  }
  // Sets these buffers may keep: the key's reserved ones and one per partition grant they hold or
  // have lent out.
  std::size_t sets_locked() const { return keep_ + held_.size() + grants_out_; }

  // An adopted grant: its end hands the grant home.
  struct lent {
    std::weak_ptr<partition_buffers> home;
    grant inner;
    std::uint64_t bytes = 0;
    ~lent() {
      if (auto b = home.lock()) {
        std::shared_ptr<const std::function<void()>> wake;
        {
          std::lock_guard lock(b->mu_);
          --b->grants_out_;
          b->held_.emplace_back(std::move(inner), bytes);
          wake = b->on_home_;
        }
        if (wake && *wake) (*wake)();
      }
    }
  };

  void pin_locked(std::vector<zk::bigint<4>>& v) {
    if (!pinner_ || pinned_.count(v.data())) return;
    const std::size_t bytes = v.capacity() * sizeof(zk::bigint<4>);
    if (pinner_->pin(v.data(), bytes)) pinned_.emplace(v.data(), bytes);
  }
  void unpin_locked(std::vector<zk::bigint<4>>& v) {
    if (auto it = pinned_.find(v.data()); it != pinned_.end()) {
      pinner_->unpin(v.data());
      pinned_.erase(it);
    }
  }

  std::size_t keep_;
  mutable std::mutex mu_;
  std::shared_ptr<host_pinner> pinner_;
  std::map<void*, std::size_t> pinned_;  // pinned vectors' memory (kept or out), by address
  std::vector<cs::values> values_;
  std::vector<std::vector<zk::bigint<4>>> witness_;
  std::vector<std::vector<bls12_381::fr>> vectors_;
  std::set<const void*> lent_witness_;                  // witness vectors out (take_witness), by address
  std::vector<std::pair<grant, std::uint64_t>> held_;  // partition grants held, with their bytes
  std::size_t grants_out_ = 0;                          // adopted grants not back yet
  std::shared_ptr<const std::function<void()>> on_home_;  // on_grant_home's callback
  std::uint64_t reused_ = 0, fresh_ = 0;
};

}  // namespace cuzk::zk::groth16
