// Bucket accumulation in affine coordinates with one field inversion per batch of additions.
//
// An affine addition P + Q costs one division; Montgomery's trick shares one inversion among a
// batch, so each addition costs about 5M + 1S (against 8M + 2S for an XYZZ mixed addition). A
// bucket may take part in at most one addition per batch; a point whose bucket is already busy in
// the current batch waits in a short queue and joins the next batch (with random digits about one
// point in eight collides, so this keeps them on the cheap affine path). Only if that queue fills
// (inputs where many points share a bucket, such as repeated scalars r - 1) do points go to XYZZ
// overflow buckets, allocated on first use, so such inputs cost no more than plain XYZZ buckets.
//
// Memory: the bucket array is the hot, randomly accessed data, so per bucket it holds only the
// affine point and one 32-bit state word (empty / idle / busy in batch e); the pending batch
// keeps only what the completion needs (bucket index, the added point's x, numerator and
// denominator of the slope). prefetch(b) lets the caller start a bucket's cache miss a few points
// ahead.
#pragma once

#include <cstdint>
#include <vector>

#include "zk/curve/short_weierstrass.hpp"

namespace cuzk::zk::msm_detail {

template <class Curve>
class batch_affine_buckets {
 public:
  using F = typename Curve::field;
  using affine = affine_t<Curve>;
  using xyzz = xyzz_t<Curve>;

  batch_affine_buckets(std::size_t n_buckets, std::size_t batch)
      : bucket_(n_buckets), state_(n_buckets, empty), idx_(batch), px_(batch), num_(batch), den_(batch),
        prefix_(batch), batch_(batch) {
    waiting_.reserve(batch);
    requeue_.reserve(batch);
  }

  void prefetch(std::size_t b) const {
    __builtin_prefetch(&bucket_[b]);
    if constexpr (sizeof(affine) > 64) __builtin_prefetch(reinterpret_cast<const char*>(&bucket_[b]) + 64);
    if constexpr (sizeof(affine) > 128) __builtin_prefetch(reinterpret_cast<const char*>(&bucket_[b]) + 128);
    __builtin_prefetch(&state_[b]);
  }

  // bucket[b] += p (p is not the point at infinity).
  void add(std::size_t b, const affine& p) {
    if (!place(b, p)) {
      if (waiting_.size() < batch_) waiting_.push_back({std::uint32_t(b), p});
      else overflow(b) += p;
    }
    if (count_ == batch_) flush_and_requeue();
  }

  // sum_b (b + 1) * bucket[b], by a running sum from the top bucket down.
  xyzz weighted_sum() {
    drain();
    xyzz running = xyzz::identity(), total = xyzz::identity();
    for (std::size_t b = bucket_.size(); b-- > 0;) {
      if (state_[b] != empty) running += bucket_[b];
      if (!overflow_.empty()) running += overflow_[b];
      total += running;
    }
    return total;
  }

  // sum_b bucket[b] (used to sum points without weights).
  xyzz plain_sum() {
    drain();
    xyzz total = xyzz::identity();
    for (std::size_t b = 0; b < bucket_.size(); ++b) {
      if (state_[b] != empty) total += bucket_[b];
      if (!overflow_.empty()) total += overflow_[b];
    }
    return total;
  }

 private:
  // state_[b]: empty, idle (holds a point, no pending addition), or the epoch (>= 2) of the batch
  // in which it has a pending addition; a past epoch reads as idle.
  static constexpr std::uint32_t empty = 0, idle = 1;

  struct waiting_point {
    std::uint32_t bucket;
    affine p;
  };

  // Starts bucket[b] += p in the current batch; false when the bucket is already busy in it.
  bool place(std::size_t b, const affine& p) {
    std::uint32_t& st = state_[b];
    if (st == empty) {
      bucket_[b] = p;
      st = idle;
      return true;
    }
    if (st == epoch_) return false;
    const affine& q = bucket_[b];
    F num, den;
    if (q.x == p.x) {
      if (!(q.y == p.y) || p.y.is_zero()) {  // P + (-P), or a 2-torsion doubling: infinity
        st = empty;
        return true;
      }
      F xx = p.x.sqr();
      num = xx.dbl() + xx;  // tangent slope 3x^2 / 2y
      den = p.y.dbl();
    } else {
      num = p.y - q.y;
      den = p.x - q.x;
    }
    st = epoch_;
    idx_[count_] = std::uint32_t(b);
    px_[count_] = p.x;
    num_[count_] = num;
    den_[count_] = den;
    ++count_;
    return true;
  }

  xyzz& overflow(std::size_t b) {
    if (overflow_.empty()) overflow_.resize(bucket_.size());
    return overflow_[b];
  }

  // Completes the pending additions: one inversion for the whole batch.
  void flush() {
    if (count_ == 0) return;
    const std::size_t k = count_;
    prefix_[0] = den_[0];
    for (std::size_t i = 1; i < k; ++i) prefix_[i] = prefix_[i - 1] * den_[i];
    F inv = prefix_[k - 1].inverse();
    for (std::size_t i = k; i-- > 0;) {
      if (i >= 4) prefetch(idx_[i - 4]);
      F di = i ? inv * prefix_[i - 1] : inv;  // 1 / den_i
      if (i) inv *= den_[i];
      affine& q = bucket_[idx_[i]];
      F lambda = num_[i] * di;
      F x3 = lambda.sqr() - q.x - px_[i];
      q.y = lambda * (q.x - x3) - q.y;
      q.x = x3;
    }
    count_ = 0;
    if (++epoch_ < 2) epoch_ = 2;  // (wrap-around after 2^32 batches; never 'empty' or 'idle')
  }

  // Completes the batch, then starts the waiting points in the next one (each bucket once; the
  // rest keep waiting). Repeats while that fills a batch.
  void flush_and_requeue() {
    do {
      flush();
      requeue_.swap(waiting_);
      waiting_.clear();
      for (const auto& w : requeue_) {
        if (count_ == batch_ || !place(w.bucket, w.p)) waiting_.push_back(w);
      }
      requeue_.clear();
    } while (count_ == batch_);
  }

  // Everything pending into the buckets: a few more batches for the waiting points, then any
  // stragglers (many points of one bucket) into the XYZZ overflow.
  void drain() {
    for (int round = 0; round < 4 && (count_ || !waiting_.empty()); ++round) flush_and_requeue();
    flush();
    for (const auto& w : waiting_) overflow(w.bucket) += w.p;
    waiting_.clear();
  }

  std::vector<affine> bucket_;
  std::vector<std::uint32_t> state_;
  std::vector<xyzz> overflow_;  // empty until a point needs it
  std::vector<std::uint32_t> idx_;
  std::vector<F> px_, num_, den_, prefix_;
  std::vector<waiting_point> waiting_, requeue_;
  std::size_t batch_, count_ = 0;
  std::uint32_t epoch_ = 2;
};

}  // namespace cuzk::zk::msm_detail
