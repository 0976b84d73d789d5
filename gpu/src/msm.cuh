// Pippenger MSM on the device, for G1 (Fp) and G2 (Fp2) alike (instantiated in msm_g1.cu and
// msm_g2.cu so that the two compile in parallel).
//
// Steps 1-3 run once per group of bucket arrays (an array: one window of plain bases, S windows
// with S shifted sets, below), so that the sort's scratch is one group's pairs, not all windows'
// (16 B x points per window: 2.1 GB a window at 2^27), at the cost of one more read of the scalars
// per group (~1 ms at 2^27). A group holds msm_group_pairs pairs (4 windows of 2^27 points, one
// array of 4 sets; an MSM of fewer than 2^29 / windows points: one group): one window at a time
// pays launches and the accumulation's tail per window (docs/gpu.md, "MSM"). The keys, local to
// the group, take fewer radix bits.
// 1. digits: every scalar gives nwin signed c-bit digits in (-2^(c-1), 2^(c-1)]; those of the
//    group's windows give pairs (key = array in the group * nb + |digit|, value = point index |
//    sign << 31).
// 2. one CUB radix sort of the group's pairs by key: each (array, bucket) becomes a contiguous run.
// 3. accumulation, balanced whatever the digit distribution: thread t adds up a fixed slice of K
//    sorted pairs; a run wholly inside its slice is stored into its bucket; a run that continues
//    into a neighbouring slice becomes a partial sum in one of two slots of the thread. The slots
//    (sorted by key by construction) are reduced by the same scheme, level after level, until
//    one slice holds them all. Equal digits everywhere (the worst case) cost log levels, not a
//    serial bucket.
// 4. bucket reduction per window, sum_b b * B_b: segments of L buckets in parallel (running sum
//    and sum of running sums, then + (start-1) * running by double-and-add), then tree sums of
//    the segment results, then one thread combines the windows (Horner, c doublings each).
// Zero digits are skipped; points at infinity (all-zero bytes) are skipped; P + P and P - P take
// the doubling/identity branches of the formulas.
//
// With S precomputed shifted sets (shifted.cuh: set s = 2^(c s) P, 1 <= S <= nwin), window j's
// digit points at set (j mod S)'s copy of the point and goes to bucket array (j div S): the S
// windows of a group share one array (d 2^(c j) P = d 2^(c S a) (2^(c s) P) for j = a S + s), so
// ceil(nwin / S) arrays are reduced instead of nwin, and the Horner combination takes c S
// doublings between arrays. S = 1 is the plain method; S = nwin one array and no combination.
#pragma once

#include <cub/device/device_radix_sort.cuh>
#include <type_traits>

#include "common.cuh"
#include "cuzk/gpu/curve.cuh"
#include "cuzk/gpu/msm_waves.hpp"
#include "cuzk/gpu/msm_groups.hpp"
#include "cuzk/gpu/shifted.cuh"
#include "msm_entry.hpp"

namespace cuzk::gpu {

struct msm_shape {
  std::size_t n;
  unsigned c, nwin, nb;  // window bits, windows, buckets per window (2^(c-1) + 1, bucket 0 unused)
  unsigned sets;         // shifted sets the windows cycle through (1: plain bases)
  unsigned bucket_windows;  // bucket arrays: ceil(nwin / sets)
  unsigned group_arrays;  // bucket arrays sorted together (msm_group_pairs pairs, or all arrays)
  std::size_t M;         // digit pairs of one group: n x its windows (the last group may have fewer)
  unsigned K1, K2;       // slice sizes: first level (points), later levels (slots)
  std::size_t T1;        // first-level threads
  unsigned sms;          // the device's SMs (make_msm_shape's num_sms)
  // The first level in whole waves of the accumulation kernel's resident blocks (msm_waves.hpp).
  bool whole_waves = false;
  unsigned seg_len, nseg;
  unsigned affine_lanes;  // 0: XYZZ accumulation; else batch-affine first level, this many lanes per thread
  // Blocks of msm_acc_threads per SM G1's XYZZ accumulation is compiled for (0: as many as its
  // registers allow, 3 at 164 registers; 4: capped at 128 registers, 16 warps per SM). G2's
  // accumulation ignores it (its Fp2 state would spill at 128 registers).
  unsigned acc_blocks;
  bool seg_split;  // bucket reduction in two kernels (msm_bucket_segment_sums / _starts)
  // G2's first level and bucket segments on shared-memory slots (msm_g2.cu, xyzz_slots.cuh; G1
  // ignores it): cuda_options::msm_g2_smem.
  bool g2_smem = false;
  // G2's first level with each mixed addition shared by a lane pair (msm_g2.cu, g2_pair_add_acc;
  // G1 ignores it), its kernel compiled for this many blocks an SM (4, 6 or 8; 0: off):
  // cuda_options::msm_g2_pair_add.
  unsigned g2_pair_add = 0;
  // G2's bucket segments (segment_split) with each full addition shared by a lane pair (msm_g2.cu,
  // g2_pair_seg): cuda_options::msm_g2_pair_seg.
  bool g2_pair_seg = false;
  // Recorded on the MSM's stream once the points are accumulated (null: none): work on another
  // stream that waits for it fills the SMs the reduction's latency-bound stages leave idle.
  cudaEvent_t accumulated = nullptr;
  // The same, recorded once the last group's pairs are sorted (as its accumulation starts).
  cudaEvent_t sorted = nullptr;
};
// Threads per block of the accumulation kernels.
constexpr unsigned msm_acc_threads = 128;

// seg_len: buckets per reduction segment (0: the measured rule in msm_common.cu; benchmarks pass
// cuda_options::msm_segment_length to try others).
// affine_lanes: batch-affine accumulation with that many lanes (slices) per thread (0: XYZZ).
// sets: shifted sets of the bases (1: plain; at most the windows of c, which sets > 1 must give).
msm_shape make_msm_shape(std::size_t n, int num_sms, unsigned force_c = 0, unsigned sets = 1, unsigned seg_len = 0,
                         unsigned affine_lanes = 0);
// Window bits of `sets` shifted sets for n points (>= 12, so at most max_shifted_sets sets; sets =
// 0: one set per window, whatever the window).
unsigned shifted_window_bits(std::size_t n, unsigned sets = 0);
// The cost model (in additions, constants fitted by measurement): plain bases with the best window, against S
// shifted sets of window bits c (S = 0: one per window). A split MSM's others run on the plain copy
// (set 0) when cheaper.
double msm_plain_cost(std::size_t n);
double msm_shifted_cost(std::size_t n, unsigned c, unsigned sets = 0);
// Signed c-bit windows of a 255-bit scalar (the top one takes the last borrow): also the number of
// shifted sets for window bits c.
constexpr unsigned msm_windows(unsigned c) { return (255 + c) / c; }

template <class T>
__device__ __forceinline__ T load16(const T* p) {
  static_assert(sizeof(T) % 16 == 0);
  T r;
  const uint4* s = reinterpret_cast<const uint4*>(p);
  uint4* d = reinterpret_cast<uint4*>(&r);
#pragma unroll
  for (unsigned i = 0; i < sizeof(T) / 16; ++i) d[i] = s[i];
  return r;
}
template <class T>
__device__ __forceinline__ void store16(T* p, const T& v) {
  static_assert(sizeof(T) % 16 == 0);
  const uint4* s = reinterpret_cast<const uint4*>(&v);
  uint4* d = reinterpret_cast<uint4*>(p);
#pragma unroll
  for (unsigned i = 0; i < sizeof(T) / 16; ++i) d[i] = s[i];
}

// Windows w0 <= w < w1 (a group of bucket arrays: w0 a multiple of sets) of entry i (scalar s =
// idx[i], point p = idx[i] - idx_base; without idx both are i): pair (w - w0) * n + i gets key =
// ((w - w0) div sets) * nb + |digit|, value = ((w mod sets) * set_stride + p) | sign << 31. Plain
// bases: sets = 1, set_stride = 0. The windows below w0 are recoded too (registers only) for
// their carry.
__global__ void msm_digits_kernel(const uint64_t* __restrict__ scalars, const uint32_t* __restrict__ idx,
                                  uint32_t idx_base, std::size_t n, unsigned c, unsigned w0, unsigned w1,
                                  unsigned sets, unsigned nb, std::size_t set_stride, uint32_t* keys,
                                  uint32_t* vals);

// Sets j < sets of each base (shifted.cuh): sets[j * n + i] = 2^(c j) bases[i].
template <class F>
__global__ void msm_shift_bases_kernel(const affine_d<F>* __restrict__ bases, std::size_t n, unsigned c,
                                       unsigned sets, affine_d<F>* out) {
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  shifted_copies<F>(load16(bases + i), c, sets, out + i, n);
}

constexpr uint32_t no_key = 0xffffffffu;

// Each thread's pairs are added in order; a point is loaded when its turn comes (software
// pipelining the loads gained nothing: docs/gpu.md, "Measured dead ends").
//
// msm_accumulate_points_4 caps the registers so that 4 blocks of msm_acc_threads fit an SM (more
// warps per scheduler to hide the products' latency, at the cost of ~80 bytes of spills): G1's
// default (msm_shape::acc_blocks = 4), slightly faster than the uncapped kernel.
// The first level's accumulator of one thread: an XYZZ point in registers. A curve whose point
// state does not fit the registers beside its products may name another type in msm_point_acc_of
// (msm_g2.cu: G2's on shared-memory slots, msm_shape::g2_smem), which takes smem_bytes of the
// block's dynamic shared memory (msm_smem) per thread, threads a block and max_regs registers.
// An accumulator also says how many adjacent lanes hold one point together (lanes: msm_g2.cu's
// g2_pair_add_acc takes 2) and stores its point (store, store_identity) as those lanes together.
template <class F>
struct msm_reg_acc {
  static constexpr unsigned smem_bytes = 0, lanes = 1;
  xyzz_d<F> a;
  __device__ __forceinline__ explicit msm_reg_acc(uint4*) : a(xyzz_d<F>::identity()) {}
  __device__ __forceinline__ void reset() { a = xyzz_d<F>::identity(); }
  // a += (neg ? -p : p); points at infinity are skipped.
  __device__ __forceinline__ void add(const affine_d<F>* __restrict__ p, bool neg) {
    affine_d<F> q = load16(p);
    if (q.is_identity()) return;
    if (neg) q.y = -q.y;
    a.add_affine(q.x, q.y);
  }
  __device__ __forceinline__ void store(xyzz_d<F>* dst) const { store16(dst, a); }
  static __device__ __forceinline__ void store_identity(xyzz_d<F>* dst) { store16(dst, xyzz_d<F>::identity()); }
};
template <class F>
struct msm_point_acc_of {
  using type = msm_reg_acc<F>;
};
// A curve's accumulator whose mixed additions a lane pair shares (msm_shape::g2_pair_add), or void.
template <class F>
struct msm_pair_add_acc_of {
  using type = void;
};
extern __shared__ uint4 msm_smem[];

template <class F, class Acc>
__device__ __forceinline__ void msm_accumulate_points_body(const uint32_t* __restrict__ keys,
                                                           const uint32_t* __restrict__ vals, std::size_t M, unsigned K,
                                                           unsigned nb, const affine_d<F>* __restrict__ bases,
                                                           xyzz_d<F>* buckets, uint32_t* slot_keys, xyzz_d<F>* slot_pts) {
  // Slice t: Acc::lanes adjacent threads take it together (they branch alike: the same keys).
  std::size_t t = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) / Acc::lanes;
  std::size_t begin = t * K;
  if (begin >= M) return;
  std::size_t end = begin + K < M ? begin + K : M;
  uint32_t prev = begin ? keys[begin - 1] : no_key, next = end < M ? keys[end] : no_key;
  uint32_t first_key = keys[begin], cur = first_key;
  bool first = true, slot0_used = false, slot1_used = false;
  Acc acc(msm_smem);
  auto flush = [&](bool last) {
    bool cont = (first && cur == prev) || (last && cur == next);
    if (cont) {
      std::size_t s = first ? 2 * t : 2 * t + 1;
      (first ? slot0_used : slot1_used) = true;
      slot_keys[s] = cur;
      acc.store(slot_pts + s);
    } else if (cur % nb) {
      acc.store(buckets + cur);
    }
  };
  for (std::size_t i = begin; i < end; ++i) {
    uint32_t k = keys[i];
    if (k != cur) {
      flush(false);
      acc.reset();
      cur = k;
      first = false;
    }
    if (k % nb == 0) continue;
    uint32_t v = vals[i];
    acc.add(bases + (v & 0x7fffffffu), v >> 31);
  }
  flush(true);
  // Unused slots carry a neighbouring key and the identity, keeping the slot keys sorted.
  if (!slot0_used) slot_keys[2 * t] = first_key, Acc::store_identity(slot_pts + 2 * t);
  if (!slot1_used) slot_keys[2 * t + 1] = cur, Acc::store_identity(slot_pts + 2 * t + 1);
}
template <class F, class Acc = msm_reg_acc<F>>
__global__ void msm_accumulate_points(const uint32_t* __restrict__ keys, const uint32_t* __restrict__ vals,
                                      std::size_t M, unsigned K, unsigned nb, const affine_d<F>* __restrict__ bases,
                                      xyzz_d<F>* buckets, uint32_t* slot_keys, xyzz_d<F>* slot_pts) {
  msm_accumulate_points_body<F, Acc>(keys, vals, M, K, nb, bases, buckets, slot_keys, slot_pts);
}
// The accumulation with a curve's own accumulator in shared memory (msm_shape::g2_smem):
// Acc::threads a block, registers capped at Acc::max_regs (so that Acc's slots, not registers,
// bound the blocks per SM).
template <class F, class Acc>
__global__ void __maxnreg__(Acc::max_regs)
    msm_accumulate_points_smem(const uint32_t* __restrict__ keys, const uint32_t* __restrict__ vals, std::size_t M,
                               unsigned K, unsigned nb, const affine_d<F>* __restrict__ bases, xyzz_d<F>* buckets,
                               uint32_t* slot_keys, xyzz_d<F>* slot_pts) {
  msm_accumulate_points_body<F, Acc>(keys, vals, M, K, nb, bases, buckets, slot_keys, slot_pts);
}
// The accumulation on a lane pair's accumulator (msm_shape::g2_pair_add): Acc::threads a block,
// Blocks blocks an SM (the registers follow).
template <class F, class Acc, unsigned Blocks>
__global__ void __launch_bounds__(Acc::threads, Blocks)
    msm_accumulate_points_pairs(const uint32_t* __restrict__ keys, const uint32_t* __restrict__ vals, std::size_t M,
                                unsigned K, unsigned nb, const affine_d<F>* __restrict__ bases, xyzz_d<F>* buckets,
                                uint32_t* slot_keys, xyzz_d<F>* slot_pts) {
  msm_accumulate_points_body<F, Acc>(keys, vals, M, K, nb, bases, buckets, slot_keys, slot_pts);
}
template <class F>
__global__ void __launch_bounds__(msm_acc_threads, 4)
    msm_accumulate_points_4(const uint32_t* __restrict__ keys, const uint32_t* __restrict__ vals, std::size_t M,
                            unsigned K, unsigned nb, const affine_d<F>* __restrict__ bases, xyzz_d<F>* buckets,
                            uint32_t* slot_keys, xyzz_d<F>* slot_pts) {
  msm_accumulate_points_body<F, msm_reg_acc<F>>(keys, vals, M, K, nb, bases, buckets, slot_keys, slot_pts);
}

// The first level again, with affine accumulators whose additions share one inversion per batch
// (zk/curve/affine_batch_formulas.hpp). Lane j of thread u is the slice msm_accumulate_points'
// thread j * nthreads + u would take (same buckets and slots); a thread steps its B lanes together,
// one sorted pair each per step, and the step's additions (at most one per accumulator: no bucket
// twice in a batch) share one Fermat inversion by Montgomery's trick. The lanes' state lives in
// global memory at the lane's index (coalesced across the threads of a warp): accumulator, prefix
// product, run key and flags, case; a point is loaded again on the way back rather than kept.
template <class F>
__global__ void msm_accumulate_points_affine(const uint32_t* __restrict__ keys, const uint32_t* __restrict__ vals,
                                             std::size_t M, unsigned K, unsigned nb,
                                             const affine_d<F>* __restrict__ bases, xyzz_d<F>* buckets,
                                             uint32_t* slot_keys, xyzz_d<F>* slot_pts, std::size_t lanes, unsigned B,
                                             affine_d<F>* acc_st, F* pre_st, uint32_t* key_st, uint32_t* flag_st) {
  namespace ab = zk::affine_batch;
  using A = affine_d<F>;
  using X = xyzz_d<F>;
  constexpr uint32_t first_run = 1, slot0 = 2, slot1 = 4;  // flags; the case is in bits 8..
  const std::size_t u = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t nthr = std::size_t(gridDim.x) * blockDim.x;
  auto to_xyzz = [](const A& a) { return a.is_identity() ? X::identity() : X{a.x, a.y, F::one(), F::one()}; };
  auto point = [&](uint32_t v) {
    A p = load16(bases + (v & 0x7fffffffu));
    if (v >> 31) p.y = -p.y;
    return p;
  };
  // msm_accumulate_points' flush for lane l (slice [begin, end)).
  auto flush = [&](std::size_t l, std::size_t begin, std::size_t end, uint32_t cur, uint32_t& fl, const A& acc,
                   bool last) {
    bool first = fl & first_run;
    uint32_t prev = begin ? keys[begin - 1] : no_key, next = end < M ? keys[end] : no_key;
    bool cont = (first && cur == prev) || (last && cur == next);
    if (cont) {
      std::size_t s = first ? 2 * l : 2 * l + 1;
      fl |= first ? slot0 : slot1;
      slot_keys[s] = cur;
      store16(slot_pts + s, to_xyzz(acc));
    } else if (cur % nb) {
      store16(buckets + cur, to_xyzz(acc));
    }
  };
  for (unsigned j = 0; j < B; ++j) {
    std::size_t l = std::size_t(j) * nthr + u;
    if (l >= lanes) break;
    key_st[l] = keys[l * K];
    flag_st[l] = first_run;
    store16(acc_st + l, A::identity());
  }
  for (unsigned i = 0; i < K; ++i) {
    F prefix = F::one();
    bool any = false;
    unsigned last_j = 0;
    for (unsigned j = 0; j < B; ++j) {
      std::size_t l = std::size_t(j) * nthr + u;
      if (l >= lanes) break;
      last_j = j;
      std::size_t begin = l * K, end = begin + K < M ? begin + K : M, e = begin + i;
      uint32_t fl = flag_st[l] & 0xffu;
      if (e >= end) {
        flag_st[l] = fl;
        continue;
      }
      uint32_t k = keys[e], cur = key_st[l];
      A acc = load16(acc_st + l);
      bool acc_changed = false;
      if (k != cur) {
        flush(l, begin, end, cur, fl, acc, false);
        acc = A::identity();
        acc_changed = true;
        key_st[l] = k;
        fl &= ~first_run;
      }
      unsigned o = ab::none;
      if (k % nb) {
        A p = point(vals[e]);
        if (!p.is_identity()) {
          F d;
          o = ab::plan(acc.x, acc.y, p.x, p.y, d);
          if (o == ab::add || o == ab::dbl) {
            pre_st[l] = prefix;  // the product of the batch's denominators before this one
            prefix = prefix * d;
            any = true;
          } else {
            ab::finish(o, acc.x, acc.y, p.x, p.y, F::one());
            acc_changed = true;
            o = ab::none;
          }
        }
      }
      if (acc_changed) store16(acc_st + l, acc);
      flag_st[l] = fl | (o << 8);
    }
    if (!any) continue;
    F inv = prefix.inverse();
    for (unsigned j = last_j + 1; j-- > 0;) {
      std::size_t l = std::size_t(j) * nthr + u;
      unsigned o = flag_st[l] >> 8;
      if (o != ab::add && o != ab::dbl) continue;
      A acc = load16(acc_st + l);
      A p = point(vals[l * K + i]);
      F inv_d = inv * pre_st[l];
      inv = inv * ab::denominator(o, acc.x, acc.y, p.x);
      ab::finish(o, acc.x, acc.y, p.x, p.y, inv_d);
      store16(acc_st + l, acc);
    }
  }
  for (unsigned j = 0; j < B; ++j) {
    std::size_t l = std::size_t(j) * nthr + u;
    if (l >= lanes) break;
    std::size_t begin = l * K, end = begin + K < M ? begin + K : M;
    uint32_t fl = flag_st[l] & 0xffu, cur = key_st[l];
    flush(l, begin, end, cur, fl, load16(acc_st + l), true);
    if (!(fl & slot0)) slot_keys[2 * l] = keys[begin], store16(slot_pts + 2 * l, X::identity());
    if (!(fl & slot1)) slot_keys[2 * l + 1] = cur, store16(slot_pts + 2 * l + 1, X::identity());
  }
}

template <class F>
__global__ void msm_accumulate_slots(const uint32_t* __restrict__ keys, const xyzz_d<F>* __restrict__ pts,
                                     std::size_t M, unsigned K, unsigned nb, xyzz_d<F>* buckets,
                                     uint32_t* slot_keys, xyzz_d<F>* slot_pts) {
  using X = xyzz_d<F>;
  std::size_t t = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  std::size_t begin = t * K;
  if (begin >= M) return;
  std::size_t end = begin + K < M ? begin + K : M;
  uint32_t prev = begin ? keys[begin - 1] : no_key, next = end < M ? keys[end] : no_key;
  uint32_t first_key = keys[begin], cur = first_key;
  bool first = true, slot0_used = false, slot1_used = false;
  X acc = X::identity();
  auto flush = [&](bool last) {
    bool cont = (first && cur == prev) || (last && cur == next);
    if (cont) {
      std::size_t s = first ? 2 * t : 2 * t + 1;
      (first ? slot0_used : slot1_used) = true;
      slot_keys[s] = cur;
      store16(slot_pts + s, acc);
    } else if (cur % nb && !acc.is_identity()) {
      X b = load16(buckets + cur);
      b.add(acc);
      store16(buckets + cur, b);
    }
  };
  for (std::size_t i = begin; i < end; ++i) {
    uint32_t k = keys[i];
    if (k != cur) {
      flush(false);
      acc = X::identity();
      cur = k;
      first = false;
    }
    acc.add(load16(pts + i));
  }
  flush(true);
  if (!slot0_used) slot_keys[2 * t] = first_key, store16(slot_pts + 2 * t, X::identity());
  if (!slot1_used) slot_keys[2 * t + 1] = cur, store16(slot_pts + 2 * t + 1, X::identity());
}

// A bucket segment's running sum and sum of running sums: XYZZ points in registers (G1); a curve
// may name another type in msm_seg_acc_of (msm_g2.cu: G2's live in shared memory), as
// msm_point_acc_of, and one whose additions a lane pair shares in msm_seg_pair_acc_of (lanes 2).
// store writes both sums (as those lanes together).
template <class F>
struct msm_reg_seg {
  static constexpr unsigned smem_bytes = 0, lanes = 1;
  xyzz_d<F> running, total;
  __device__ __forceinline__ explicit msm_reg_seg(uint4*)
      : running(xyzz_d<F>::identity()), total(xyzz_d<F>::identity()) {}
  // running += *b; total += running.
  __device__ __forceinline__ void step(const xyzz_d<F>* __restrict__ b) {
    running.add(load16(b));
    total.add(running);
  }
  __device__ __forceinline__ void store(xyzz_d<F>* tot_dst, xyzz_d<F>* run_dst) const {
    store16(tot_dst, total);
    store16(run_dst, running);
  }
};
template <class F>
struct msm_seg_acc_of {
  using type = msm_reg_seg<F>;
};
template <class F>
struct msm_seg_pair_acc_of {
  using type = void;
};

// Segment s of window w: buckets [1 + s L, 1 + (s+1) L) -> sum_b b * B_b.
template <class F>
__global__ void msm_bucket_segments(const xyzz_d<F>* __restrict__ buckets, unsigned nwin, unsigned nb, unsigned L,
                                    unsigned nseg, xyzz_d<F>* out) {
  using X = xyzz_d<F>;
  std::size_t id = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (id >= std::size_t(nwin) * nseg) return;
  unsigned w = unsigned(id / nseg), s = unsigned(id % nseg);
  unsigned lo = 1 + s * L, hi = lo + L < nb ? lo + L : nb;
  const X* B = buckets + std::size_t(w) * nb;
  X running = X::identity(), total = X::identity();
  for (unsigned b = hi; b-- > lo;) {
    running.add(load16(B + b));
    total.add(running);
  }
  // total = sum (b - lo + 1) B_b; add (lo - 1) * running.
  unsigned m = lo - 1;
  if (m && !running.is_identity()) {
    X r = X::identity();
    for (int bit = 31 - __clz(m); bit >= 0; --bit) {
      r = r.dbl();
      if ((m >> bit) & 1) r.add(running);
    }
    total.add(r);
  }
  store16(out + id, total);
}

// The same in two kernels, for fewer registers each (the one above holds three XYZZ points and
// spills at 255): segment sums only (total without the start's share, and running), then the
// start's share (lo - 1) * running added by double-and-add in place. msm_shape::seg_split, the
// default (fewer registers, no spills: docs/gpu.md "MSM").
template <class F, class Seg>
__device__ __forceinline__ void msm_bucket_segment_sums_body(const xyzz_d<F>* __restrict__ buckets, unsigned nwin,
                                                             unsigned nb, unsigned L, unsigned nseg,
                                                             xyzz_d<F>* total_out, xyzz_d<F>* running_out) {
  using X = xyzz_d<F>;
  // Segment id: Seg::lanes adjacent threads take it together.
  std::size_t id = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) / Seg::lanes;
  if (id >= std::size_t(nwin) * nseg) return;
  unsigned w = unsigned(id / nseg), s = unsigned(id % nseg);
  unsigned lo = 1 + s * L, hi = lo + L < nb ? lo + L : nb;
  const X* B = buckets + std::size_t(w) * nb;
  Seg sg(msm_smem);
  for (unsigned b = hi; b-- > lo;) sg.step(B + b);
  sg.store(total_out + id, running_out + id);
}
template <class F, class Seg = msm_reg_seg<F>>
__global__ void msm_bucket_segment_sums(const xyzz_d<F>* __restrict__ buckets, unsigned nwin, unsigned nb, unsigned L,
                                        unsigned nseg, xyzz_d<F>* total_out, xyzz_d<F>* running_out) {
  msm_bucket_segment_sums_body<F, Seg>(buckets, nwin, nb, L, nseg, total_out, running_out);
}
// The same on a lane pair's sums (msm_shape::g2_pair_seg): Seg::threads a block, Seg::blocks an SM.
template <class F, class Seg>
__global__ void __launch_bounds__(Seg::threads, Seg::blocks)
    msm_bucket_segment_sums_pairs(const xyzz_d<F>* __restrict__ buckets, unsigned nwin, unsigned nb, unsigned L,
                                  unsigned nseg, xyzz_d<F>* total_out, xyzz_d<F>* running_out) {
  msm_bucket_segment_sums_body<F, Seg>(buckets, nwin, nb, L, nseg, total_out, running_out);
}
template <class F>
__global__ void msm_bucket_segment_starts(xyzz_d<F>* total, const xyzz_d<F>* __restrict__ running, unsigned nwin,
                                          unsigned L, unsigned nseg) {
  using X = xyzz_d<F>;
  std::size_t id = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (id >= std::size_t(nwin) * nseg) return;
  unsigned m = unsigned(id % nseg) * L;  // lo - 1
  X run = load16(running + id);
  if (!m || run.is_identity()) return;
  X r = X::identity();
  for (int bit = 31 - __clz(m); bit >= 0; --bit) {
    r = r.dbl();
    if ((m >> bit) & 1) r.add(run);
  }
  X t = load16(total + id);
  t.add(r);
  store16(total + id, t);
}

// out[w * ng + g] = sum of in[w * cnt + g * G .. + G) (clipped to cnt).
template <class F>
__global__ void msm_group_sums(const xyzz_d<F>* __restrict__ in, unsigned nwin, unsigned cnt, unsigned G,
                               unsigned ng, xyzz_d<F>* out) {
  using X = xyzz_d<F>;
  std::size_t id = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (id >= std::size_t(nwin) * ng) return;
  unsigned w = unsigned(id / ng), g = unsigned(id % ng);
  unsigned lo = g * G, hi = lo + G < cnt ? lo + G : cnt;
  X acc = X::identity();
  for (unsigned i = lo; i < hi; ++i) acc.add(load16(in + std::size_t(w) * cnt + i));
  store16(out + id, acc);
}

// Horner over the bucket arrays' sums: `shift` doublings (c x sets) between consecutive arrays.
template <class F>
__global__ void msm_combine_windows(const xyzz_d<F>* __restrict__ win, unsigned nwin, unsigned shift, xyzz_d<F>* out) {
  using X = xyzz_d<F>;
  if (blockIdx.x || threadIdx.x) return;
  X acc = load16(win + nwin - 1);
  for (int w = int(nwin) - 2; w >= 0; --w) {
    for (unsigned i = 0; i < shift; ++i) acc = acc.dbl();
    acc.add(load16(win + w));
  }
  store16(out, acc);
}

// The sum of the points whose scalar is 1 (no buckets): thread t adds entries [t K, (t + 1) K) of
// the index list (mixed additions); msm_group_sums then adds the partial sums 32 at a time, level
// after level (msm_sum_run).
template <class F>
__global__ void msm_sum_points(const uint32_t* __restrict__ idx, std::size_t n, uint32_t idx_base, unsigned K,
                               const affine_d<F>* __restrict__ bases, xyzz_d<F>* out) {
  using X = xyzz_d<F>;
  std::size_t t = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  std::size_t begin = t * K;
  if (begin >= n) return;
  X acc = X::identity();
  for (std::size_t i = begin; i < begin + K && i < n; ++i) {
    affine_d<F> p = load16(bases + (idx[i] - idx_base));
    if (!p.is_identity()) acc.add_affine(p.x, p.y);
  }
  store16(out + t, acc);
}

// Partial sums of msm_sum_points: at most this many threads (and points of scratch, twice).
constexpr std::size_t msm_sum_threads = 131072;
// The first level's partial sums for n points (at least 16 points per thread, at most
// msm_sum_threads threads; `points` > 0: that many points per thread, however many threads), and
// the arena bytes msm_sum_run takes for them (xyzz_bytes: one XYZZ point of the curve).
constexpr std::size_t msm_sum_partials(std::size_t n, unsigned points = 0) {
  if (n == 0) return 0;
  if (points) return (n + points - 1) / points;
  std::size_t T = std::min<std::size_t>(msm_sum_threads, (n + 15) / 16), K = (n + T - 1) / T;
  return (n + K - 1) / K;
}
constexpr std::size_t msm_sum_scratch_bytes(std::size_t n, std::size_t xyzz_bytes, unsigned points = 0) {
  return 2 * msm_sum_partials(n, points) * xyzz_bytes + 1024;
}
// Partial sums per thread of a tree level (msm_group_sums): a level is one thread's chain of G
// dependent additions (latency, not throughput, at the top of the tree), so small groups and more
// levels: 8 (halved the window sums at 2^24 shifted).
constexpr unsigned msm_group = 8;

// Device bytes one MSM of this shape needs beyond bases and scalars (its bucket method, or the sum
// of the points whose scalar is 1 in the same arena, whichever is more): one array's pairs sorted
// (cub_temp: for sh.M pairs), every array's buckets and segment sums.
template <class F>
std::size_t msm_scratch_bytes(const msm_shape& sh, std::size_t cub_temp) {
  using X = xyzz_d<F>;
  std::size_t slots1 = 2 * sh.T1, slots2 = 2 * ((slots1 + sh.K2 - 1) / sh.K2);
  std::size_t buckets = 4 * sh.M * sizeof(uint32_t) + cub_temp + std::size_t(sh.bucket_windows) * sh.nb * sizeof(X) +
                        (slots1 + slots2) * (sizeof(X) + 4) + 2 * std::size_t(sh.bucket_windows) * sh.nseg * sizeof(X) +
                        sizeof(X) + 4096;
  if (sh.affine_lanes)  // the lanes' state: accumulator, prefix product, key, flags
    buckets += sh.T1 * (sizeof(affine_d<F>) + sizeof(F) + 8) + 1024;
  return std::max(buckets, 2 * msm_sum_threads * sizeof(X) + 4096);
}

// Bump allocator over one device arena, kept across calls (no cudaMalloc per MSM).
class arena {
 public:
  void reserve(std::size_t bytes) {
    if (buf_.size() < bytes) {
      buf_.reset();
      buf_ = dbuf<unsigned char>(bytes);
    }
    off_ = 0;
  }
  template <class T>
  T* take(std::size_t n) {
    std::size_t b = (n * sizeof(T) + 255) & ~std::size_t(255);
    if (off_ + b > buf_.size()) throw std::logic_error("cuda msm: arena overflow");
    T* p = reinterpret_cast<T*>(buf_.get() + off_);
    off_ += b;
    return p;
  }
  void release() { buf_.reset(); }
  std::size_t capacity() const { return buf_.size(); }

 private:
  dbuf<unsigned char> buf_;
  std::size_t off_ = 0;
};

std::size_t msm_cub_temp_bytes(std::size_t M, unsigned end_bit);
unsigned msm_key_bits(const msm_shape& sh);

// sum scalars[i] * bases[i] over device arrays; the result (XYZZ) is written to out_dev. With a
// shape of S > 1 sets, bases[s * set_stride + i] must hold 2^(c s) P_i for every s < S.
// idx (optional): entry j is scalar idx[j] and point idx[j] - idx_base (msm_digits_kernel).
// A kernel that takes `bytes` of dynamic shared memory (beyond the default 48 KB), with the
// carveout at its most shared memory.
template <class K>
void msm_smem_attributes(K* kernel, std::size_t bytes) {
  CUZK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  CUZK_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
}

template <class F>
void msm_run(const affine_d<F>* bases, const uint64_t* scalars, const msm_shape& sh, std::size_t set_stride,
             arena& ar, xyzz_d<F>* out_dev, cudaStream_t s, const uint32_t* idx = nullptr, uint32_t idx_base = 0) {
  using X = xyzz_d<F>;
  if ((sh.sets > 1) != (set_stride != 0)) throw std::logic_error("cuda msm: shifted shape without shifted bases");
  const unsigned BW = sh.bucket_windows;
  unsigned end_bit = msm_key_bits(sh);
  std::size_t cub_temp = msm_cub_temp_bytes(sh.M, end_bit);
  ar.reserve(msm_scratch_bytes<F>(sh, cub_temp));
  uint32_t* k0 = ar.take<uint32_t>(sh.M);
  uint32_t* k1 = ar.take<uint32_t>(sh.M);
  uint32_t* v0 = ar.take<uint32_t>(sh.M);
  uint32_t* v1 = ar.take<uint32_t>(sh.M);
  void* temp = ar.take<unsigned char>(cub_temp);
  X* buckets = ar.take<X>(std::size_t(BW) * sh.nb);
  std::size_t slots1 = 2 * sh.T1, slots2 = 2 * ((slots1 + sh.K2 - 1) / sh.K2);
  uint32_t* sk1 = ar.take<uint32_t>(slots1);
  X* sp1 = ar.take<X>(slots1);
  uint32_t* sk2 = ar.take<uint32_t>(slots2);
  X* sp2 = ar.take<X>(slots2);
  X* seg_a = ar.take<X>(std::size_t(BW) * sh.nseg);
  X* seg_b = ar.take<X>(std::size_t(BW) * sh.nseg);
  msm_profile* prof = msm_profile_hook();
  auto mark = [&](int i) {
    if (prof) CUZK_CUDA(cudaEventRecord(prof->ev[i], s));
  };

  affine_d<F>* acc_st = nullptr;
  F* pre_st = nullptr;
  uint32_t *key_st = nullptr, *flag_st = nullptr;
  if (sh.affine_lanes) {
    acc_st = ar.take<affine_d<F>>(sh.T1);
    pre_st = ar.take<F>(sh.T1);
    key_st = ar.take<uint32_t>(sh.T1);
    flag_st = ar.take<uint32_t>(sh.T1);
  }
  if (sh.affine_lanes == 0 && sh.acc_blocks != 0 && sh.acc_blocks != 4)
    throw std::invalid_argument("cuda msm: accumulation blocks must be 0 or 4");
  constexpr unsigned acc_threads = msm_acc_threads;
  // The first level's slice for M pairs (msm_shape::whole_waves: the kernel's resident blocks).
  unsigned K1 = sh.K1;
  auto whole_waves_k1 = [&](auto kernel, std::size_t M, unsigned threads, std::size_t smem, unsigned lanes) -> unsigned {
    int per_sm = 0;
    if (!sh.whole_waves) return sh.K1;
    CUZK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, int(threads), smem));
    return msm_whole_waves_slice(M, sh.K1, std::size_t(std::max(per_sm, 0)) * sh.sms * threads / lanes);
  };

  mark(0);
  CUZK_CUDA(cudaMemsetAsync(buckets, 0, std::size_t(BW) * sh.nb * sizeof(X), s));
  // One group of bucket arrays at a time: its windows' digits, their sort, their accumulation
  // into its arrays' buckets (the scratch of the pairs and slots is the next group's).
  for (unsigned a = 0; a < BW; a += sh.group_arrays) {
    const unsigned w0 = a * sh.sets, w1 = std::min(w0 + sh.group_arrays * sh.sets, sh.nwin);
    const std::size_t M = sh.n * (w1 - w0);
    X* arr = buckets + std::size_t(a) * sh.nb;
    msm_digits_kernel<<<blocks_for(sh.n, 256), 256, 0, s>>>(scalars, idx, idx_base, sh.n, sh.c, w0, w1, sh.sets,
                                                            sh.nb, set_stride, k0, v0);
    CUZK_LAUNCHED();
    if (a == 0) mark(1);
    cub::DoubleBuffer<uint32_t> keys(k0, k1), vals(v0, v1);
    std::size_t tb = cub_temp;
    CUZK_CUDA(cub::DeviceRadixSort::SortPairs(temp, tb, keys, vals, M, 0, int(end_bit), s));
    if (a == 0) mark(2);
    if (sh.sorted && a + sh.group_arrays >= BW) CUZK_CUDA(cudaEventRecord(sh.sorted, s));
    if (sh.affine_lanes) {
      const std::size_t T1 = (M + sh.K1 - 1) / sh.K1;
      std::size_t threads = (T1 + sh.affine_lanes - 1) / sh.affine_lanes;
      msm_accumulate_points_affine<F><<<blocks_for(threads, acc_threads), acc_threads, 0, s>>>(
          keys.Current(), vals.Current(), M, sh.K1, sh.nb, bases, arr, sk1, sp1, T1, sh.affine_lanes, acc_st, pre_st,
          key_st, flag_st);
    } else {
      using Acc = typename msm_point_acc_of<F>::type;
      using PairAcc = typename msm_pair_add_acc_of<F>::type;
      auto kernel = msm_accumulate_points<F>;
      unsigned thr = acc_threads, lanes = 1;
      std::size_t smem = 0;
      if constexpr (Acc::smem_bytes != 0) {
        if (sh.g2_smem) {
          kernel = msm_accumulate_points_smem<F, Acc>;
          thr = Acc::threads;
          smem = std::size_t(Acc::smem_bytes) * thr;
          msm_smem_attributes(kernel, smem);
        }
      }
      if constexpr (!std::is_void_v<PairAcc>) {
        if (sh.g2_pair_add) {
          if (sh.g2_pair_add == 4) kernel = msm_accumulate_points_pairs<F, PairAcc, 4>;
          else if (sh.g2_pair_add == 6) kernel = msm_accumulate_points_pairs<F, PairAcc, 6>;
          else if (sh.g2_pair_add == 8) kernel = msm_accumulate_points_pairs<F, PairAcc, 8>;
          else throw std::invalid_argument("cuda msm: G2 pair additions take 4, 6 or 8 blocks an SM (0: off)");
          thr = PairAcc::threads;
          lanes = PairAcc::lanes;
          smem = std::size_t(PairAcc::smem_bytes) * thr;
          msm_smem_attributes(kernel, smem);
        }
      }
      if constexpr (std::is_same_v<F, fp_d>)
        if (sh.acc_blocks == 4) kernel = msm_accumulate_points_4<F>;
      K1 = whole_waves_k1(kernel, M, thr, smem, lanes);
      kernel<<<blocks_for((M + K1 - 1) / K1 * lanes, thr), thr, smem, s>>>(keys.Current(), vals.Current(), M, K1,
                                                                          sh.nb, bases, arr, sk1, sp1);
    }
    CUZK_LAUNCHED();
    if (a == 0) mark(3);
    std::size_t count = 2 * ((M + K1 - 1) / K1);
    uint32_t *ik = sk1, *ok = sk2;
    X *ip = sp1, *op = sp2;
    for (;;) {
      std::size_t T = (count + sh.K2 - 1) / sh.K2;
      msm_accumulate_slots<F><<<blocks_for(T, acc_threads), acc_threads, 0, s>>>(ik, ip, count, sh.K2, sh.nb, arr, ok,
                                                                                 op);
      CUZK_LAUNCHED();
      if (T == 1) break;
      count = 2 * T;
      std::swap(ik, ok);
      std::swap(ip, op);
    }
  }
  if (sh.accumulated) CUZK_CUDA(cudaEventRecord(sh.accumulated, s));
  mark(4);

  // The segments' length and count: the shape's, or (pair segments in whole waves) longer.
  unsigned seg_len = sh.seg_len, nseg = sh.nseg;
  if (sh.seg_split) {
    using Seg = typename msm_seg_acc_of<F>::type;
    using SegPair = typename msm_seg_pair_acc_of<F>::type;
    auto seg_kernel = msm_bucket_segment_sums<F>;
    std::size_t seg_smem = 0, lanes = 1;
    if constexpr (Seg::smem_bytes != 0) {
      if (sh.g2_smem) {
        seg_kernel = msm_bucket_segment_sums<F, Seg>;
        seg_smem = std::size_t(Seg::smem_bytes) * 64;
        msm_smem_attributes(seg_kernel, seg_smem);
      }
    }
    if constexpr (!std::is_void_v<SegPair>) {
      if (sh.g2_pair_seg) {
        static_assert(SegPair::threads == 64);
        seg_kernel = msm_bucket_segment_sums_pairs<F, SegPair>;
        seg_smem = std::size_t(SegPair::smem_bytes) * SegPair::threads;
        lanes = SegPair::lanes;
        msm_smem_attributes(seg_kernel, seg_smem);
        if (sh.whole_waves) {
          int per_sm = 0;
          CUZK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, seg_kernel, 64, seg_smem));
          seg_len = msm_whole_waves_segment(sh.nb - 1, BW, seg_len, std::size_t(std::max(per_sm, 0)) * sh.sms * 64 / lanes);
          nseg = (sh.nb - 1 + seg_len - 1) / seg_len;
        }
      }
    }
    const std::size_t segs = std::size_t(BW) * nseg;
    seg_kernel<<<blocks_for(segs * lanes, 64), 64, seg_smem, s>>>(buckets, BW, sh.nb, seg_len, nseg, seg_a, seg_b);
    CUZK_LAUNCHED();
    msm_bucket_segment_starts<F><<<blocks_for(segs, 64), 64, 0, s>>>(seg_a, seg_b, BW, seg_len, nseg);
  } else {
    msm_bucket_segments<F><<<blocks_for(std::size_t(BW) * sh.nseg, 64), 64, 0, s>>>(buckets, BW, sh.nb, sh.seg_len,
                                                                                   sh.nseg, seg_a);
  }
  CUZK_LAUNCHED();
  mark(5);
  unsigned cnt = nseg;
  X *in = seg_a, *out = seg_b;
  while (cnt > 1) {
    constexpr unsigned G = msm_group;
    unsigned ng = (cnt + G - 1) / G;
    msm_group_sums<F><<<blocks_for(std::size_t(BW) * ng, 64), 64, 0, s>>>(in, BW, cnt, G, ng, out);
    CUZK_LAUNCHED();
    cnt = ng;
    std::swap(in, out);
  }
  msm_combine_windows<F><<<1, 32, 0, s>>>(in, BW, sh.c * sh.sets, out_dev);
  CUZK_LAUNCHED();
  mark(6);
}

// sum bases[idx[j] - idx_base] for j < n into out_dev: partial sums of K points per thread
// (msm_sum_partials' rule, or `points`), then group sums of msm_group until one is left (the last
// level writes out_dev).
template <class F>
void msm_sum_run(const affine_d<F>* bases, const uint32_t* idx, std::size_t n, uint32_t idx_base, arena& ar,
                 xyzz_d<F>* out_dev, cudaStream_t s, unsigned points = 0) {
  using X = xyzz_d<F>;
  if (n == 0) {
    CUZK_CUDA(cudaMemsetAsync(out_dev, 0, sizeof(X), s));  // all-zero: the identity
    return;
  }
  std::size_t T = msm_sum_partials(n, points);
  unsigned K = unsigned((n + T - 1) / T);
  ar.reserve(msm_sum_scratch_bytes(n, sizeof(X), points));
  X* a = ar.take<X>(T);
  X* b = ar.take<X>(T);
  constexpr unsigned threads = 128;
  msm_sum_points<F><<<blocks_for(T, threads), threads, 0, s>>>(idx, n, idx_base, K, bases, T == 1 ? out_dev : a);
  CUZK_LAUNCHED();
  std::size_t cnt = T;
  X *in = a, *out = b;
  while (cnt > 1) {
    constexpr unsigned G = msm_group;
    unsigned ng = unsigned((cnt + G - 1) / G);
    msm_group_sums<F><<<blocks_for(ng, 64), 64, 0, s>>>(in, 1, unsigned(cnt), G, ng, ng == 1 ? out_dev : out);
    CUZK_LAUNCHED();
    cnt = ng;
    std::swap(in, out);
  }
}

// The shifted sets of n device bases into `out` (sets * n points).
template <class F>
void msm_shift_run(const affine_d<F>* bases, std::size_t n, unsigned c, unsigned sets, affine_d<F>* out,
                   cudaStream_t s) {
  if (sets > max_shifted_sets) throw std::logic_error("cuda msm: too many shifted sets");
  if (n) msm_shift_bases_kernel<F><<<blocks_for(n, 64), 64, 0, s>>>(bases, n, c, sets, out);
  CUZK_LAUNCHED();
}

}  // namespace cuzk::gpu
