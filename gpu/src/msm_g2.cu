// G2 instantiation of the device MSM (its own translation unit: compiles beside msm_g1.cu).
//
// Code size, not just instruction count: the G2 kernels keep their field products out of line.
// The base field is a wrapper whose product is one out-of-line device function (same bytes as
// fp_d; Fp2 squarings, the rest of the formulas), and the Fp2 product is one more (fp2_mul_call:
// the lazy Karatsuba of mont.cuh, its double-width products and two REDCs inlined: 1,265 SASS
// instructions). Measured on the H200, G2 MSM 2^24 resident (docs/benchmarks.md, issue 19, G2):
// Karatsuba on three Fp calls 361.3 ms; the one Fp2 call 308.8 ms; the first accumulation level
// with every product inlined (22,800 SASS instructions against ~5,300, no spills) 356.1 ms. Fully
// inlined kernels also take nvcc's front end many minutes.
#include "msm.cuh"
#include "msm_entry.hpp"

namespace cuzk::gpu {

namespace {

__device__ __noinline__ fp_d fp_mul_call(const fp_d a, const fp_d b) { return a * b; }

struct fp_call {
  fp_d f;
  CUZK_HD static fp_call zero() { return {fp_d::zero()}; }
  CUZK_HD static fp_call one() { return {fp_d::one()}; }
  CUZK_HD bool is_zero() const { return f.is_zero(); }
  friend __device__ __forceinline__ fp_call operator+(const fp_call& a, const fp_call& b) { return {a.f + b.f}; }
  friend __device__ __forceinline__ fp_call operator-(const fp_call& a, const fp_call& b) { return {a.f - b.f}; }
  __device__ __forceinline__ fp_call operator-() const { return {-f}; }
  __device__ __forceinline__ fp_call dbl() const { return {f.dbl()}; }
  friend __device__ __forceinline__ fp_call operator*(const fp_call& a, const fp_call& b) { return {fp_mul_call(a.f, b.f)}; }
  __device__ __forceinline__ fp_call sqr() const { return {fp_mul_call(f, f)}; }
  __device__ __forceinline__ fp_call inverse() const { return {f.inverse()}; }
};
static_assert(sizeof(fp_call) == sizeof(fp_d));
using fp2_call = fp2_d<fp_call>;
static_assert(sizeof(fp2_call) == sizeof(fp2_dev));

// The Fp2 product as one out-of-line function: Karatsuba with lazy reduction (mont.cuh), its
// double-width products and reductions inlined.
__device__ __noinline__ fp2_dev fp2_mul_call(const fp2_dev a, const fp2_dev b) { return fp2_dev::mul_lazy(a, b); }

}  // namespace

template <>
struct fp2_product<fp_call> {
  static __device__ __forceinline__ fp2_call mul(const fp2_call& a, const fp2_call& b) {
    fp2_dev r = fp2_mul_call({a.c0.f, a.c1.f}, {b.c0.f, b.c1.f});
    return {{r.c0}, {r.c1}};
  }
};

void msm_g2_device(const void* bases, const uint64_t* scalars, const msm_shape& sh, std::size_t set_stride, arena& ar,
                   void* out_dev, cudaStream_t s, const uint32_t* idx, uint32_t idx_base) {
  msm_run<fp2_call>(static_cast<const affine_d<fp2_call>*>(bases), scalars, sh, set_stride, ar,
                    static_cast<xyzz_d<fp2_call>*>(out_dev), s, idx, idx_base);
}
void msm_g2_sum(const void* bases, const uint32_t* idx, std::size_t n, uint32_t idx_base, arena& ar, void* out_dev,
                cudaStream_t s) {
  msm_sum_run<fp2_call>(static_cast<const affine_d<fp2_call>*>(bases), idx, n, idx_base, ar, static_cast<xyzz_d<fp2_call>*>(out_dev), s);
}
void msm_g2_shift(const void* bases, std::size_t n, unsigned c, unsigned sets, void* out, cudaStream_t s) {
  msm_shift_run<fp2_call>(static_cast<const affine_d<fp2_call>*>(bases), n, c, sets,
                          static_cast<affine_d<fp2_call>*>(out), s);
}
std::size_t msm_g2_scratch(const msm_shape& sh) {
  return msm_scratch_bytes<fp2_call>(sh, msm_cub_temp_bytes(sh.M, msm_key_bits(sh)));
}

}  // namespace cuzk::gpu
