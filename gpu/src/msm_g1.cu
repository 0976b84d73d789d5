// G1 instantiation of the device MSM (its own translation unit: compiles beside msm_g2.cu).
#include "msm.cuh"
#include "msm_entry.hpp"

namespace cuzk::gpu {

void msm_g1_device(const void* bases, const uint64_t* scalars, const msm_shape& sh, std::size_t set_stride, arena& ar,
                   void* out_dev, cudaStream_t s, const uint32_t* idx, uint32_t idx_base) {
  msm_run<fp_d>(static_cast<const g1_affine_d*>(bases), scalars, sh, set_stride, ar, static_cast<g1_xyzz_d*>(out_dev),
                s, idx, idx_base);
}
void msm_g1_sum(const void* bases, const uint32_t* idx, std::size_t n, uint32_t idx_base, arena& ar, void* out_dev,
                cudaStream_t s, unsigned points) {
  msm_sum_run<fp_d>(static_cast<const g1_affine_d*>(bases), idx, n, idx_base, ar, static_cast<g1_xyzz_d*>(out_dev), s, points);
}
void msm_g1_shift(const void* bases, std::size_t n, unsigned c, unsigned sets, void* out, cudaStream_t s) {
  msm_shift_run<fp_d>(static_cast<const g1_affine_d*>(bases), n, c, sets, static_cast<g1_affine_d*>(out), s);
}
std::size_t msm_g1_scratch(const msm_shape& sh, std::size_t cub_temp) {
  return msm_scratch_bytes<fp_d>(sh, cub_temp != SIZE_MAX ? cub_temp : msm_cub_temp_bytes(sh.M, msm_key_bits(sh)));
}

}  // namespace cuzk::gpu
