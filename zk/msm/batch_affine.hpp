// Bucket accumulation in affine coordinates with one field inversion per batch of additions.
//
// An affine addition P + Q costs one division; Montgomery's trick shares one inversion among a
// batch, so each addition costs about 5M + 1S (against 8M + 2S for an XYZZ mixed addition). A
// bucket may take part in at most one addition per batch; a point whose bucket is already busy in
// the current batch goes to that bucket's XYZZ overflow instead of waiting, so inputs where many
// points share a bucket (repeated scalars such as r - 1) cost no more than plain XYZZ buckets.
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
      : bucket_(n_buckets), has_(n_buckets, 0), busy_(n_buckets, 0), overflow_(n_buckets),
        idx_(batch), pt_(batch), num_(batch), den_(batch), prefix_(batch), batch_(batch) {}

  // bucket[b] += p (p is not the point at infinity).
  void add(std::size_t b, const affine& p) {
    if (!has_[b]) {
      bucket_[b] = p;
      has_[b] = 1;
      return;
    }
    if (busy_[b] == epoch_) {
      overflow_[b] += p;
      return;
    }
    const affine& q = bucket_[b];
    F num, den;
    if (q.x == p.x) {
      if (!(q.y == p.y) || p.y.is_zero()) {  // P + (-P), or a 2-torsion doubling: infinity
        has_[b] = 0;
        return;
      }
      F xx = p.x.sqr();
      num = xx.dbl() + xx;  // tangent slope 3x^2 / 2y
      den = p.y.dbl();
    } else {
      num = p.y - q.y;
      den = p.x - q.x;
    }
    busy_[b] = epoch_;
    idx_[count_] = std::uint32_t(b);
    pt_[count_] = p;
    num_[count_] = num;
    den_[count_] = den;
    if (++count_ == batch_) flush();
  }

  // Completes the pending additions: one inversion for the whole batch.
  void flush() {
    if (count_ == 0) return;
    const std::size_t k = count_;
    prefix_[0] = den_[0];
    for (std::size_t i = 1; i < k; ++i) prefix_[i] = prefix_[i - 1] * den_[i];
    F inv = prefix_[k - 1].inverse();
    for (std::size_t i = k; i-- > 0;) {
      F di = i ? inv * prefix_[i - 1] : inv;  // 1 / den_i
      if (i) inv *= den_[i];
      affine& q = bucket_[idx_[i]];
      const affine& p = pt_[i];
      F lambda = num_[i] * di;
      F x3 = lambda.sqr() - q.x - p.x;
      q.y = lambda * (q.x - x3) - q.y;
      q.x = x3;
    }
    count_ = 0;
    ++epoch_;
  }

  // sum_b (b + 1) * bucket[b], by a running sum from the top bucket down.
  xyzz weighted_sum() {
    flush();
    xyzz running = xyzz::identity(), total = xyzz::identity();
    for (std::size_t b = bucket_.size(); b-- > 0;) {
      if (has_[b]) running += bucket_[b];
      running += overflow_[b];
      total += running;
    }
    return total;
  }

  // sum_b bucket[b] (used to sum points without weights).
  xyzz plain_sum() {
    flush();
    xyzz total = xyzz::identity();
    for (std::size_t b = 0; b < bucket_.size(); ++b) {
      if (has_[b]) total += bucket_[b];
      total += overflow_[b];
    }
    return total;
  }

 private:
  std::vector<affine> bucket_;
  std::vector<std::uint8_t> has_;
  std::vector<std::uint32_t> busy_;  // epoch of the batch the bucket is pending in
  std::vector<xyzz> overflow_;
  std::vector<std::uint32_t> idx_;
  std::vector<affine> pt_;
  std::vector<F> num_, den_, prefix_;
  std::size_t batch_, count_ = 0;
  std::uint32_t epoch_ = 1;
};

}  // namespace cuzk::zk::msm_detail
