// The two MSM instantiations, as plain functions (defined in msm_g1.cu / msm_g2.cu).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace cuzk::gpu {

struct msm_shape;
class arena;

void msm_g1_device(const void* bases, const uint64_t* scalars, const msm_shape& sh, arena& ar, void* out_dev,
                   cudaStream_t s);
void msm_g2_device(const void* bases, const uint64_t* scalars, const msm_shape& sh, arena& ar, void* out_dev,
                   cudaStream_t s);
std::size_t msm_g1_scratch(const msm_shape& sh);
std::size_t msm_g2_scratch(const msm_shape& sh);

}  // namespace cuzk::gpu
