#include "file_points.cuh"

#include <cstring>
#include <vector>

#include "common.cuh"
#include "cuzk/gpu/cuda_backend.hpp"
#include "cuzk/gpu/curve.cuh"

namespace cuzk::gpu {

namespace {

// One coordinate: 48 big-endian bytes (12 words as loaded, byte 0 the low byte of word 0) into
// little-endian limbs; false when it is not below p.
__device__ __forceinline__ bool load_coord(const uint32_t* w, fp_d& out) {
#pragma unroll
  for (int i = 0; i < 12; ++i) out.v[11 - i] = __byte_perm(w[i], 0, 0x0123);
  (void)ptx::sub_cc(out.v[0], fp_params::mod(0));
#pragma unroll
  for (int i = 1; i < 12; ++i) (void)ptx::subc_cc(out.v[i], fp_params::mod(i));
  return ptx::subc(0, 0) != 0;  // a borrow out: out < p
}

__device__ __forceinline__ fp_d r2() {
  fp_d r;
#pragma unroll
  for (int i = 0; i < 12; ++i) r.v[i] = fp_params::r2(i);
  return r;
}

__device__ __forceinline__ bool equal(const fp_d& a, const fp_d& b) { return a == b; }
__device__ __forceinline__ bool equal(const fp2_dev& a, const fp2_dev& b) { return a.c0 == b.c0 && a.c1 == b.c1; }

template <bool G2>
__global__ void convert_kernel(uint4* __restrict__ pts, std::uint64_t n, unsigned long long* __restrict__ bad,
                               typename std::conditional<G2, fp2_dev, fp_d>::type b) {
  using F = typename std::conditional<G2, fp2_dev, fp_d>::type;
  constexpr int Q = G2 ? 12 : 6;  // 16-byte words per point
  const std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint4* p = pts + i * Q;
  uint32_t w[4 * Q];
#pragma unroll
  for (int k = 0; k < Q; ++k) {
    const uint4 q = p[k];
    w[4 * k] = q.x, w[4 * k + 1] = q.y, w[4 * k + 2] = q.z, w[4 * k + 3] = q.w;
  }
  bool ok = (w[0] & 0xe0) == 0;  // the flags: byte 0's top three bits
  affine_d<F> out;
  const fp_d R2 = r2();
  if constexpr (G2) {
    fp_d c[4];  // file order: x.c1, x.c0, y.c1, y.c0
#pragma unroll
    for (int k = 0; k < 4; ++k) ok &= load_coord(w + 12 * k, c[k]), c[k] = c[k] * R2;
    out.x = fp2_dev{c[1], c[0]};
    out.y = fp2_dev{c[3], c[2]};
  } else {
    ok &= load_coord(w, out.x);
    ok &= load_coord(w + 12, out.y);
    out.x = out.x * R2;
    out.y = out.y * R2;
  }
  ok &= !out.is_identity();
  ok &= equal(out.y.sqr(), out.x.sqr() * out.x + b);
  if (!ok) atomicMin(bad, static_cast<unsigned long long>(i));
  static_assert(sizeof(out) == 16 * Q);
  uint4 o[Q];
  std::memcpy(o, &out, sizeof out);
#pragma unroll
  for (int k = 0; k < Q; ++k) p[k] = o[k];
}

template <class F, class Host>
F to_device(const Host& h) {
  static_assert(sizeof(F) == sizeof(Host));
  F d;
  std::memcpy(&d, &h, sizeof d);
  return d;
}

}  // namespace

void convert_file_points(void* dev, std::size_t n, bool g2, unsigned long long* bad, cudaStream_t stream) {
  if (!n) return;
  constexpr unsigned threads = 256;
  auto* pts = static_cast<uint4*>(dev);
  if (g2)
    convert_kernel<true><<<blocks_for(n, threads), threads, 0, stream>>>(
        pts, n, bad, to_device<fp2_dev>(zk::bls12_381::g2_curve::b()));
  else
    convert_kernel<false><<<blocks_for(n, threads), threads, 0, stream>>>(
        pts, n, bad, to_device<fp_d>(zk::bls12_381::g1_curve::b()));
  CUZK_LAUNCHED();
}

template <class Aff>
static file_points_result<Aff> file_points_to_host(int device, std::span<const std::uint8_t> bytes, bool g2) {
  CUZK_CUDA(cudaSetDevice(device));
  constexpr std::size_t size = sizeof(Aff);
  file_points_result<Aff> r;
  const std::size_t n = bytes.size() / size;
  if (!n) return r;
  dbuf<unsigned char> d(bytes.size());
  dbuf<unsigned char> flag(sizeof(unsigned long long));
  CUZK_CUDA(cudaMemcpy(d.get(), bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
  CUZK_CUDA(cudaMemset(flag.get(), 0xff, sizeof(unsigned long long)));
  convert_file_points(d.get(), n, g2, reinterpret_cast<unsigned long long*>(flag.get()), nullptr);
  r.points.resize(n);
  unsigned long long bad = 0;
  CUZK_CUDA(cudaMemcpy(r.points.data(), d.get(), bytes.size(), cudaMemcpyDeviceToHost));
  CUZK_CUDA(cudaMemcpy(&bad, flag.get(), sizeof bad, cudaMemcpyDeviceToHost));
  r.first_bad = bad == ~0ull ? SIZE_MAX : std::size_t(bad);
  return r;
}

file_points_result<zk::bls12_381::g1_affine> file_g1_on_device(int device, std::span<const std::uint8_t> bytes) {
  return file_points_to_host<zk::bls12_381::g1_affine>(device, bytes, false);
}
file_points_result<zk::bls12_381::g2_affine> file_g2_on_device(int device, std::span<const std::uint8_t> bytes) {
  return file_points_to_host<zk::bls12_381::g2_affine>(device, bytes, true);
}

}  // namespace cuzk::gpu
