#include "synthetic_srs.cuh"

#include <cstring>
#include <stdexcept>
#include <vector>

#include "common.cuh"
#include "cuzk/gpu/cuda_backend.hpp"
#include "cuzk/gpu/curve.cuh"
#include "zk/groth16/synthetic_srs.hpp"
#include "zk/groth16/synthetic_srs_rng.hpp"

namespace cuzk::gpu {

namespace {

namespace syn = zk::groth16::synthetic;

// Points [first, last) of the section's n; out[i - first] = point i. Lanes from first's run on.
template <class F>
__global__ void synthetic_points_kernel(affine_d<F>* __restrict__ out, std::uint64_t n, std::uint64_t lanes,
                                        std::uint64_t m, std::uint64_t seed, std::uint32_t sec, affine_d<F> g,
                                        affine_d<F> q, std::uint64_t first, std::uint64_t last) {
  const std::uint64_t t = first / m + std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= lanes) return;
  const std::uint64_t begin = t * m;
  if (begin >= n || begin >= last) return;
  const std::uint64_t end = begin + m < last ? begin + m : last;
  std::uint64_t k[4];
  syn::scalar_words(seed, sec, t, k);
  xyzz_d<F> p = xyzz_d<F>::identity();
  for (int i = 253; i >= 0; --i) {
    p = p.dbl();
    if ((k[i >> 6] >> (i & 63)) & 1) p.add_affine(g.x, g.y);
  }
  for (std::uint64_t i = begin; i < end; ++i) {
    if (i >= first) {
      const F inv = (p.ZZ * p.ZZZ).inverse();  // x = X / ZZ = X ZZZ inv, y = Y / ZZZ = Y ZZ inv
      out[i - first] = affine_d<F>{p.X * p.ZZZ * inv, p.Y * p.ZZ * inv};
    }
    p.add_affine(q.x, q.y);
  }
}

template <class F, class HostAffine>
affine_d<F> to_device(const HostAffine& a) {
  static_assert(sizeof(affine_d<F>) == sizeof(HostAffine));
  affine_d<F> d;
  std::memcpy(&d, &a, sizeof d);
  return d;
}

template <class F, class HostAffine>
void launch(void* dst, std::size_t n, std::uint64_t seed, std::uint32_t sec, std::uint64_t lanes, const HostAffine& g,
            const HostAffine& q, cudaStream_t stream, std::size_t first, std::size_t count) {
  if (!n || !count) return;
  if (!lanes) lanes = syn::lanes_for(n);
  const std::uint64_t m = syn::run_length(n, lanes), last = first + count;
  const std::uint64_t runs = (last + m - 1) / m - first / m;
  constexpr unsigned threads = 128;
  synthetic_points_kernel<F><<<blocks_for(runs, threads), threads, 0, stream>>>(
      static_cast<affine_d<F>*>(dst), n, lanes, m, seed, sec, to_device<F>(g), to_device<F>(q), first, last);
  CUZK_LAUNCHED();
}

}  // namespace

void synthetic_points(void* dst, std::size_t n, bool g2, std::uint64_t seed, std::uint32_t sec, std::uint64_t lanes,
                      cudaStream_t stream, std::size_t first, std::size_t count) {
  using namespace zk::bls12_381;
  if (count == SIZE_MAX) count = n > first ? n - first : 0;
  if (first + count > n) throw std::invalid_argument("synthetic points: a range beyond the section");
  if (g2)
    launch<fp2_dev>(dst, n, seed, sec, lanes, g2_curve::generator(), zk::groth16::synthetic_step_g2(seed, sec), stream,
                    first, count);
  else
    launch<fp_d>(dst, n, seed, sec, lanes, g1_curve::generator(), zk::groth16::synthetic_step_g1(seed, sec), stream,
                 first, count);
}

template <class Aff>
std::vector<Aff> synthetic_points_to_host(int device, std::uint64_t seed, std::uint32_t sec, std::size_t n,
                                          std::uint64_t lanes, bool g2) {
  CUZK_CUDA(cudaSetDevice(device));
  std::vector<Aff> out(n);
  if (!n) return out;
  dbuf<Aff> d(n);
  synthetic_points(d.get(), n, g2, seed, sec, lanes, nullptr);
  CUZK_CUDA(cudaDeviceSynchronize());
  CUZK_CUDA(cudaMemcpy(out.data(), d.get(), n * sizeof(Aff), cudaMemcpyDeviceToHost));
  return out;
}

std::vector<zk::bls12_381::g1_affine> synthetic_g1_on_device(int device, std::uint64_t seed, std::uint32_t sec,
                                                             std::size_t n, std::uint64_t lanes) {
  return synthetic_points_to_host<zk::bls12_381::g1_affine>(device, seed, sec, n, lanes, false);
}
std::vector<zk::bls12_381::g2_affine> synthetic_g2_on_device(int device, std::uint64_t seed, std::uint32_t sec,
                                                             std::size_t n, std::uint64_t lanes) {
  return synthetic_points_to_host<zk::bls12_381::g2_affine>(device, seed, sec, n, lanes, true);
}

}  // namespace cuzk::gpu
