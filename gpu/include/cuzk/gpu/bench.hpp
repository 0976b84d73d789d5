// GPU primitive benchmarks behind `cuzk bench` and `cuzk_gpu_bench`: MSM (G1/G2), NTT, compute_h.
// Each figure is the median of `reps` timed runs after `warmup` runs, timed by CUDA events on the
// backend's stream; each result is checked (MSM against a discrete-log reference, NTT by the
// inverse transform), and the table says so.
#pragma once

#include <string>
#include <vector>

#include "cuzk/gpu/cuda_backend.hpp"

namespace cuzk::gpu {

struct bench_options {
  std::string what;              // "msm", "ntt" or "h"
  std::string curve = "g1";      // msm: "g1" or "g2"
  std::vector<unsigned> log_sizes;
  bool resident = false;         // msm: bases and scalars already on the device
  bool shifted = false;          // msm --resident: also on precomputed shifted bases (one set per window)
  std::vector<unsigned> sets;    // msm --resident: also on S shifted sets shared by groups of windows, per S
  bool profile = false;          // msm --resident / ntt / h: more runs with an event after each stage or launch
  unsigned segment_length = 0;   // msm: buckets per reduction segment (0: the rule)
  // msm: "random", "bits90" / "bits99" (that share of 0 and 1), "ones"; comma-separated: one row
  // each, on the same bases (and shifted sets)
  std::string scalars = "random";
  bool split_bits = true;        // msm: scalars that are bits split off (cuda_options::msm_split_bits)
  unsigned affine_lanes = 0;     // msm: batch-affine accumulation, lanes per thread (cuda_options::msm_affine_lanes)
  unsigned acc_blocks = 4;       // msm: cuda_options::msm_acc_blocks (same default)
  bool segment_split = true;     // msm: cuda_options::msm_segment_split (same default)
  unsigned window_bits = 0;      // msm: plain bases' window (cuda_options::force_window_bits; 0: by size)
  // msm: variants timed one after the other on the same bases and sets, one row each: "xyzz" (the
  // first kernels: acc_blocks 0, one segment kernel) or tokens joined by '+': "acc4" (acc_blocks
  // 4), "split" (segment_split), "cNN" (window_bits NN), "g2smem" (msm_g2_smem), "g2paddN" (msm_g2_pair_add N),
  // "g2pseg" / "nog2pseg" (msm_g2_pair_seg); the defaults are "acc4+split" and cuda_options'. Empty: one
  // run with acc_blocks, segment_split and window_bits as given.
  std::vector<std::string> variants;
  unsigned ntt_threads = 256;    // ntt / h: cuda_options::ntt_threads
  bool ntt_uniform_roots = true; // ntt / h: cuda_options::ntt_uniform_roots
  bool ntt_compiled_shapes = cuda_options{}.ntt_compiled_shapes;  // ntt / h (its default)
  bool ntt_fused_reversal = cuda_options{}.ntt_fused_reversal;    // ntt / h (its default)
  int warmup = 1;
  int reps = 5;
};

// Prints one line per size and a summary table; returns 0, or 1 when a check failed.
int run_bench(const bench_options& opt);

}  // namespace cuzk::gpu
