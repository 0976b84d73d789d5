// 32-bit carry-chain primitives: PTX on the device (add.cc, madc.hi.cc, ...), an exact emulation
// with an explicit carry flag on the host. The field code is written once against these, so the
// host build (CI, no GPU) checks the very limb algorithm the device runs against zk/ff.
//
// Device: the carry flag lives between separate asm statements, as in sppark; ptxas keeps CC
// dependencies in order, and the statements are volatile so they are not reordered among
// themselves.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define CUZK_HD __host__ __device__ __forceinline__
// Loop unrolling hints for nvcc only: a host compiler that includes these headers (the emulated
// field tests) would warn about an unknown pragma at every loop.
#define CUZK_UNROLL _Pragma("unroll")
#define CUZK_NO_UNROLL _Pragma("unroll 1")
#else
#define CUZK_HD inline
#define CUZK_UNROLL
#define CUZK_NO_UNROLL
#endif

namespace cuzk::gpu::ptx {

// 0xffffffff read from the constant bank, where the compiler cannot see its value: a Montgomery
// step's m = x0 * m0 with m0 = -1 (Fr) written as -x0 lets ptxas rewrite the products m * p_j
// and lose the fused IMAD.WIDE.U32.X carry chains of mont.cuh's product (Fr 190 SASS instructions
// with it, 238 without). One uniform load per kernel.
#if defined(__CUDACC__)
static __constant__ uint32_t all_ones_c = 0xffffffffu;
#endif

#if defined(__CUDA_ARCH__)

__device__ __forceinline__ uint32_t add_cc(uint32_t a, uint32_t b) {
  uint32_t r;
  asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
__device__ __forceinline__ uint32_t addc_cc(uint32_t a, uint32_t b) {
  uint32_t r;
  asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
__device__ __forceinline__ uint32_t addc(uint32_t a, uint32_t b) {
  uint32_t r;
  asm volatile("addc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
__device__ __forceinline__ uint32_t sub_cc(uint32_t a, uint32_t b) {
  uint32_t r;
  asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
__device__ __forceinline__ uint32_t subc_cc(uint32_t a, uint32_t b) {
  uint32_t r;
  asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
__device__ __forceinline__ uint32_t subc(uint32_t a, uint32_t b) {
  uint32_t r;
  asm volatile("subc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
// lo(a*b) + c, carry out
__device__ __forceinline__ uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r;
  asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
__device__ __forceinline__ uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r;
  asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
__device__ __forceinline__ uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r;
  asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}
__device__ __forceinline__ uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r;
  asm volatile("madc.hi.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}

__device__ __forceinline__ uint32_t all_ones() { return all_ones_c; }

#else  // host emulation: one carry flag per thread, exactly the PTX semantics

inline uint32_t all_ones() { return 0xffffffffu; }

inline thread_local uint32_t carry_flag = 0;

inline uint32_t add_cc(uint32_t a, uint32_t b) {
  uint64_t s = uint64_t(a) + b;
  carry_flag = uint32_t(s >> 32);
  return uint32_t(s);
}
inline uint32_t addc_cc(uint32_t a, uint32_t b) {
  uint64_t s = uint64_t(a) + b + carry_flag;
  carry_flag = uint32_t(s >> 32);
  return uint32_t(s);
}
inline uint32_t addc(uint32_t a, uint32_t b) { return uint32_t(uint64_t(a) + b + carry_flag); }
inline uint32_t sub_cc(uint32_t a, uint32_t b) {
  uint64_t d = uint64_t(a) - b;
  carry_flag = uint32_t(d >> 63);  // borrow
  return uint32_t(d);
}
inline uint32_t subc_cc(uint32_t a, uint32_t b) {
  uint64_t d = uint64_t(a) - b - carry_flag;
  carry_flag = uint32_t(d >> 63);
  return uint32_t(d);
}
inline uint32_t subc(uint32_t a, uint32_t b) { return uint32_t(uint64_t(a) - b - carry_flag); }
inline uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
  uint64_t s = uint64_t(uint32_t(uint64_t(a) * b)) + c;
  carry_flag = uint32_t(s >> 32);
  return uint32_t(s);
}
inline uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
  uint64_t s = uint64_t(uint32_t(uint64_t(a) * b)) + c + carry_flag;
  carry_flag = uint32_t(s >> 32);
  return uint32_t(s);
}
inline uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
  uint64_t s = ((uint64_t(a) * b) >> 32) + c + carry_flag;
  carry_flag = uint32_t(s >> 32);
  return uint32_t(s);
}
inline uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) { return uint32_t(((uint64_t(a) * b) >> 32) + c + carry_flag); }

#endif

}  // namespace cuzk::gpu::ptx
