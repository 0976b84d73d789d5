// The two MSM instantiations, as plain functions (defined in msm_g1.cu / msm_g2.cu).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace cuzk::gpu {

struct msm_shape;
class arena;

// set_stride: 0 for plain bases; for a shifted shape, the distance in points between sets.
// idx (optional, sh.n entries): the MSM runs over entries idx[j] of `scalars` and points
// idx[j] - idx_base of `bases` (a compacted subset, msm_split_scalars); null: entry j, point j.
void msm_g1_device(const void* bases, const uint64_t* scalars, const msm_shape& sh, std::size_t set_stride, arena& ar,
                   void* out_dev, cudaStream_t s, const uint32_t* idx = nullptr, uint32_t idx_base = 0);
void msm_g2_device(const void* bases, const uint64_t* scalars, const msm_shape& sh, std::size_t set_stride, arena& ar,
                   void* out_dev, cudaStream_t s, const uint32_t* idx = nullptr, uint32_t idx_base = 0);
// sum of bases[idx[j] - idx_base] for j < n (the points whose scalar is 1): a tree of plain
// additions, no buckets; XYZZ into out_dev (the identity when n = 0).
// points: per thread of the first level (0: msm.cuh's rule, msm_sum_partials).
void msm_g1_sum(const void* bases, const uint32_t* idx, std::size_t n, uint32_t idx_base, arena& ar, void* out_dev,
                cudaStream_t s, unsigned points = 0);
void msm_g2_sum(const void* bases, const uint32_t* idx, std::size_t n, uint32_t idx_base, arena& ar, void* out_dev,
                cudaStream_t s, unsigned points = 0);

// Scalars that are bits (msm_common.cu). The indices i < n of canonical 256-bit scalars, split:
// ones[] those equal to 1, others[] those neither 0 nor 1 (zeros are dropped), each ascending.
// counts[0] = ones, counts[1] = others, counts[2] / counts[3] = how many of each are below `cut`
// (the start of a suffix another MSM reads). temp: msm_split_temp_bytes(n) device bytes.
std::size_t msm_split_temp_bytes(std::size_t n);
void msm_split_scalars(const uint64_t* scalars, std::size_t n, std::size_t cut, uint32_t* ones, uint32_t* others,
                       int* counts, void* temp, cudaStream_t s);
// For each of `ncuts` scalar indices cuts[j] (device), the entries of each split list below it:
// out[2 j] in ones, out[2 j + 1] in others (binary searches; counts as msm_split_scalars left them).
// A streamed key's MSM runs over one range of points at a time: its lists' range for each.
void msm_split_positions(const uint32_t* ones, const uint32_t* others, const int* counts, const uint32_t* cuts,
                         std::size_t ncuts, int* out, cudaStream_t s);
// out[j * n + i] = 2^(c j) bases[i] for j < sets (device arrays; out holds sets * n points).
void msm_g1_shift(const void* bases, std::size_t n, unsigned c, unsigned sets, void* out, cudaStream_t s);
void msm_g2_shift(const void* bases, std::size_t n, unsigned c, unsigned sets, void* out, cudaStream_t s);
// The device bytes an MSM of this shape takes beyond bases and scalars (msm.cuh, msm_scratch_bytes);
// cub_temp: the sort's temp bytes in place of CUB's own figure (SIZE_MAX: CUB's, which needs a device).
std::size_t msm_g1_scratch(const msm_shape& sh, std::size_t cub_temp = SIZE_MAX);
std::size_t msm_g2_scratch(const msm_shape& sh, std::size_t cub_temp = SIZE_MAX);

// Stage timing for benchmarks: while the hook points at one, msm_run records ev[0] at its start and
// ev[i] after stage i: 1 bucket clear and the first bucket array's digits, 2 its sort, 3 its points'
// accumulation, 4 its slots' and the other arrays' whole (digits to slots: msm_run goes array by
// array), 5 bucket segments, 6 window sums and combination. Null (the default): nothing is recorded.
struct msm_profile {
  static constexpr int stages = 6;
  cudaEvent_t ev[stages + 1] = {};
};
msm_profile*& msm_profile_hook();

}  // namespace cuzk::gpu
