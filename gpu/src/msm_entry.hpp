// The two MSM instantiations, as plain functions (defined in msm_g1.cu / msm_g2.cu).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace cuzk::gpu {

struct msm_shape;
class arena;

// set_stride: 0 for plain bases; for a shifted shape, the distance in points between sets.
void msm_g1_device(const void* bases, const uint64_t* scalars, const msm_shape& sh, std::size_t set_stride, arena& ar,
                   void* out_dev, cudaStream_t s);
void msm_g2_device(const void* bases, const uint64_t* scalars, const msm_shape& sh, std::size_t set_stride, arena& ar,
                   void* out_dev, cudaStream_t s);
// out[j * n + i] = 2^(c j) bases[i] for j < sets (device arrays; out holds sets * n points).
void msm_g1_shift(const void* bases, std::size_t n, unsigned c, unsigned sets, void* out, cudaStream_t s);
void msm_g2_shift(const void* bases, std::size_t n, unsigned c, unsigned sets, void* out, cudaStream_t s);
std::size_t msm_g1_scratch(const msm_shape& sh);
std::size_t msm_g2_scratch(const msm_shape& sh);

// Stage timing for benchmarks: while the hook points at one, msm_run records ev[0] at its start and
// ev[i] after stage i: 1 digits, 2 sort (+ bucket clear), 3 accumulate points, 4 accumulate slots,
// 5 bucket segments, 6 window sums and combination. Null (the default): nothing is recorded.
struct msm_profile {
  static constexpr int stages = 6;
  cudaEvent_t ev[stages + 1] = {};
};
msm_profile*& msm_profile_hook();

}  // namespace cuzk::gpu
