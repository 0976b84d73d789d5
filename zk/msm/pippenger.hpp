// Multi-scalar multiplication sum_i scalars[i] * bases[i] by Pippenger's bucket method.
//
// - Signed window digits (digits.hpp): 2^(c-1) buckets per window, independent windows.
// - Buckets are affine points updated in batches sharing one inversion (batch_affine.hpp); a point
//   whose bucket is busy in the current batch waits for the next one (XYZZ overflow buckets only
//   when many points share a bucket); small inputs use plain XYZZ buckets (cheap mixed addition
//   with a doubling fallback for P + P).
// - Work is split into (window, point-range) tasks on the thread pool, each with its own buckets;
//   each task reduces its buckets by a running sum.
// - Zero scalars and points at infinity are dropped up front; scalars equal to 1 (most of a PoRep
//   witness) are summed directly, without windows.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <vector>

#include "zk/curve/short_weierstrass.hpp"
#include "zk/ff/bigint.hpp"
#include "zk/msm/batch_affine.hpp"
#include "zk/msm/digits.hpp"
#include "zk/msm/vector_buckets.hpp"
#include "zk/util/parallel.hpp"

namespace cuzk::zk {

struct msm_options {
  unsigned threads = 0;      // 0: the pool's size; otherwise a private pool of that many threads
  unsigned window_bits = 0;  // 0: chosen from the number of points
  thread_pool* pool = nullptr;  // nullptr: default_pool()
  bool batch_affine = true;     // false: XYZZ buckets only (for tests and comparisons)
  bool vectorized = true;       // BLS12-381 G1/G2 batch-affine additions on AVX-512 IFMA lanes where
                                // the CPU has them (vector_buckets.hpp); false: scalar only
  std::size_t vector_batch = 0;  // vectorized: additions per shared inversion (0: the rule in
                                 // vector_buckets.cpp; comparison runs pass others)
};

namespace msm_detail {

// The c in [c_min, c_max] that minimises windows(c) x (n + bucket_weight * 2^(c-1)): additions of
// points plus the buckets' reduction, a bucket weighing `bucket_weight` additions.
template <class Windows>
unsigned cheapest_window(std::size_t n, double bucket_weight, unsigned c_min, unsigned c_max, Windows windows) {
  unsigned best = c_min;
  double best_cost = 1e300;
  for (unsigned c = c_min; c <= c_max; ++c) {
    double cost = windows(c) * (double(n) + bucket_weight * double(std::size_t{1} << (c - 1)));
    if (cost < best_cost) best_cost = cost, best = c;
  }
  return best;
}

// Scalar path: a bucket's reduction (one mixed and one XYZZ addition) is about four batch-affine
// additions.
inline unsigned choose_window(std::size_t n) {
  return n < 4 ? 1 : cheapest_window(n, 4.0, 1, 16, [](unsigned c) { return double(num_windows(c)); });
}

// The vector path (vector_buckets.hpp) reduces buckets with batch-affine additions too, and its
// narrow top window costs about its share of the scalar's bits, so windows count as 256 / c.
// A bucket weighs `vector_bucket_weight` additions of a point; fitted on zk_bench at 2^16 and
// 2^18 (Zen 4): c = 14 for G1 and 15 for G2 at 2^16, 16 for both at 2^18. (c >= 11: batches
// need 1024 buckets.)
template <class Curve>
inline constexpr double vector_bucket_weight = std::is_same_v<Curve, bls12_381::g2_curve> ? 0.45 : 0.8;
inline unsigned choose_vector_window(std::size_t n, double bucket_weight) {
  return cheapest_window(n, bucket_weight, 11, 16, [](unsigned c) { return 256.0 / c; });
}

inline bool is_one(const bigint<4>& s) { return s.limb[0] == 1 && (s.limb[1] | s.limb[2] | s.limb[3]) == 0; }

}  // namespace msm_detail

template <class Curve>
jacobian_t<Curve> msm(std::span<const affine_t<Curve>> bases, std::span<const bigint<4>> scalars,
                      const msm_options& opt = {}) {
  using xyzz = xyzz_t<Curve>;
  using jacobian = jacobian_t<Curve>;
  if (bases.size() != scalars.size()) throw std::invalid_argument("msm: bases and scalars differ in length");
  const std::size_t n = bases.size();
  if (n == 0) return jacobian::identity();

  std::unique_ptr<thread_pool> own_pool;
  thread_pool* pool = opt.pool ? opt.pool : &default_pool();
  if (opt.threads && opt.threads != pool->size()) {
    own_pool = std::make_unique<thread_pool>(opt.threads);
    pool = own_pool.get();
  }
  const unsigned T = pool->size();

  // 1. Drop zeros and infinities, sum the scalar-1 points, collect the rest.
  const std::size_t n_chunks = std::min<std::size_t>(std::max<std::size_t>(1, n / 4096), std::size_t(T) * 4);
  std::vector<std::vector<std::uint32_t>> active_parts(n_chunks);
  std::vector<xyzz> ones_parts(n_chunks);
  pool->run(n_chunks, [&](std::size_t k) {
    std::size_t begin = n * k / n_chunks, end = n * (k + 1) / n_chunks;
    auto& act = active_parts[k];
    xyzz acc = xyzz::identity();
    for (std::size_t i = begin; i < end; ++i) {
      const auto& s = scalars[i];
      if (s.is_zero() || bases[i].is_identity()) continue;
      if (msm_detail::is_one(s)) acc += bases[i];
      else act.push_back(std::uint32_t(i));
    }
    ones_parts[k] = acc;
  });
  xyzz ones = xyzz::identity();
  for (auto& p : ones_parts) ones += p;
  std::vector<std::uint32_t> active;
  {
    std::size_t total = 0;
    for (auto& p : active_parts) total += p.size();
    active.reserve(total);
    for (auto& p : active_parts) active.insert(active.end(), p.begin(), p.end()), std::vector<std::uint32_t>().swap(p);
  }
  const std::size_t m = active.size();
  if (m == 0) return ones.to_jacobian();

  // 2. Windows: tasks = windows x point ranges.
  bool vectorized = false;
  if constexpr (msm_detail::has_vector_msm<Curve>)
    vectorized = opt.vectorized && opt.batch_affine && m >= 4096 && msm_detail::vector_msm_available();
  unsigned c = opt.window_bits                 ? opt.window_bits
               : vectorized                     ? msm_detail::choose_vector_window(m, msm_detail::vector_bucket_weight<Curve>)
                                                : msm_detail::choose_window(m);
  if (vectorized && c < 11) vectorized = false;  // (batches need >= 1024 buckets)
  const unsigned nw = msm_detail::num_windows(c);
  const std::size_t n_buckets = std::size_t{1} << (c - 1);
  std::size_t ranges = 1;
  if (T > 1) ranges = std::max<std::size_t>(1, (4 * std::size_t(T) + nw - 1) / nw / 2);
  ranges = std::min<std::size_t>(ranges, std::max<std::size_t>(1, m / 64));
  // Tasks: each window in `ranges` point ranges. With one task per window and a window count
  // that is not a multiple of the threads, the last windows would run alone while the other
  // threads wait; those are split among all threads instead (one more bucket reduction each).
  struct task_range {
    unsigned w;
    std::size_t begin, end;
  };
  std::vector<task_range> tasks;
  const unsigned leftover = (ranges == 1 && T > 1 && nw > T && m >= 64 * std::size_t(T)) ? nw % T : 0;
  for (unsigned w = 0; w < nw; ++w) {
    const std::size_t parts = w < nw - leftover ? ranges : T;
    for (std::size_t r = 0; r < parts; ++r) tasks.push_back({w, m * r / parts, m * (r + 1) / parts});
  }
  std::vector<xyzz> window_parts(tasks.size());
  // Batches of about a quarter of the buckets: few collisions, and the inversion is shared by
  // hundreds of additions. Below that, plain XYZZ buckets are cheaper.
  const std::size_t batch = std::min<std::size_t>(1024, n_buckets / 4);

  std::unique_ptr<msm_detail::vector_msm<Curve>> vec;
  if constexpr (msm_detail::has_vector_msm<Curve>)
    if (vectorized) vec = std::make_unique<msm_detail::vector_msm<Curve>>(bases, scalars, active, *pool, opt.vector_batch);

  pool->run(tasks.size(), [&](std::size_t task) {
    const unsigned w = tasks[task].w;
    const std::size_t begin = tasks[task].begin, end = tasks[task].end;
    const bool use_batch_affine = opt.batch_affine && batch >= 64 && end - begin >= 4 * batch;
    if constexpr (msm_detail::has_vector_msm<Curve>) {
      if (vec) {
        window_parts[task] = vec->window_sum(w, c, begin, end);
        return;
      }
    }
    if (use_batch_affine) {
      msm_detail::batch_affine_buckets<Curve> buckets(n_buckets, batch);
      // The bucket of the point `ahead` places on is prefetched: bucket reads are random and,
      // at 2^15 buckets of 96/192 bytes, mostly miss the caches.
      constexpr std::size_t ahead = 8;
      for (std::size_t k = begin; k < end; ++k) {
        if (k + ahead < end) {
          int da = msm_detail::signed_digit(scalars[active[k + ahead]], w, c);
          if (da) buckets.prefetch(std::size_t(da > 0 ? da - 1 : -da - 1));
        }
        std::uint32_t i = active[k];
        int d = msm_detail::signed_digit(scalars[i], w, c);
        if (d > 0) buckets.add(std::size_t(d - 1), bases[i]);
        else if (d < 0) buckets.add(std::size_t(-d - 1), -bases[i]);
      }
      window_parts[task] = buckets.weighted_sum();
      return;
    }
    std::vector<xyzz> buckets(n_buckets);
    for (std::size_t k = begin; k < end; ++k) {
      std::uint32_t i = active[k];
      int d = msm_detail::signed_digit(scalars[i], w, c);
      if (d > 0) buckets[std::size_t(d - 1)] += bases[i];
      else if (d < 0) buckets[std::size_t(-d - 1)] -= bases[i];
    }
    // sum_b (b+1) * bucket[b] by a running sum from the top bucket down.
    xyzz running = xyzz::identity(), total = xyzz::identity();
    for (std::size_t b = n_buckets; b-- > 0;) {
      running += buckets[b];
      total += running;
    }
    window_parts[task] = total;
  });

  // 3. Horner over windows, most significant first.
  std::vector<xyzz> window_sums(nw, xyzz::identity());
  for (std::size_t t = 0; t < tasks.size(); ++t) window_sums[tasks[t].w] += window_parts[t];
  jacobian acc = jacobian::identity();
  for (unsigned w = nw; w-- > 0;) {
    for (unsigned k = 0; k < c; ++k) acc = acc.dbl();
    acc += window_sums[w].to_jacobian();
  }
  return acc + ones.to_jacobian();
}

}  // namespace cuzk::zk
