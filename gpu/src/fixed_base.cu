// The streamed setup's points on the device (zk/groth16/streaming_setup.hpp point_multiplier,
// registered as "cuda"): k G from the host's fixed-base table, uploaded once per table. One thread a
// point: the sum of its windows' table entries in XYZZ (the shared formulas of curve.cuh, which
// handle the identity and doubling), made affine with its own Fermat inversion. The same affine
// points as the host's fixed_base::mul_into, so the same .params bytes.
#include <cstring>
#include <memory>
#include <vector>

#include "common.cuh"
#include "cuzk/gpu/cuda_backend.hpp"
#include "cuzk/gpu/curve.cuh"
#include "zk/error.hpp"
#include "zk/groth16/streaming_setup.hpp"
#include "zk/util/parallel.hpp"

namespace cuzk::gpu {

namespace {

// Bits [pos, pos + w) of a 256-bit canonical scalar (w <= 32), as bigint::window reads them.
__device__ __forceinline__ std::uint32_t scalar_window(const std::uint64_t* k, unsigned pos, unsigned w) {
  const unsigned li = pos / 64, sh = pos % 64;
  if (li >= 4) return 0;
  std::uint64_t v = k[li] >> sh;
  if (sh + w > 64 && li + 1 < 4) v |= k[li + 1] << (64 - sh);
  return std::uint32_t(v & ((std::uint64_t{1} << w) - 1));
}

template <class F>
__global__ void fixed_base_kernel(affine_d<F>* __restrict__ out, const std::uint64_t* __restrict__ scalars,
                                  std::uint64_t n, const affine_d<F>* __restrict__ table, unsigned w,
                                  unsigned windows) {
  const std::uint64_t t = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= n) return;
  std::uint64_t k[4];
  for (int i = 0; i < 4; ++i) k[i] = scalars[4 * t + i];
  xyzz_d<F> p = xyzz_d<F>::identity();
  for (unsigned j = 0; j < windows; ++j) {
    const std::uint32_t d = scalar_window(k, j * w, w);
    if (!d) continue;
    const affine_d<F>& q = table[(std::uint64_t(j) << w) | d];
    p.add_affine(q.x, q.y);
  }
  if (p.is_identity()) {
    out[t] = affine_d<F>::identity();
    return;
  }
  const F inv = (p.ZZ * p.ZZZ).inverse();  // x = X / ZZ = X ZZZ inv, y = Y / ZZZ = Y ZZ inv
  out[t] = affine_d<F>{p.X * p.ZZZ * inv, p.Y * p.ZZ * inv};
}

class cuda_point_multiplier : public zk::groth16::point_multiplier {
 public:
  explicit cuda_point_multiplier(int device) : device_(device) { CUZK_CUDA(cudaSetDevice(device)); }

  void g1(const zk::groth16::fixed_base_table<zk::bls12_381::g1_affine>& t, std::span<const zk::bls12_381::fr> k,
          std::span<zk::bls12_381::g1_affine> out) override {
    run<fp_d>(t, k, out, g1_);
  }
  void g2(const zk::groth16::fixed_base_table<zk::bls12_381::g2_affine>& t, std::span<const zk::bls12_381::fr> k,
          std::span<zk::bls12_381::g2_affine> out) override {
    run<fp2_dev>(t, k, out, g2_);
  }

 private:
  // One curve's uploaded table (which host table it is) and its chunk buffers.
  struct curve_state {
    const void* host_table = nullptr;
    dbuf<std::uint8_t> table, scalars, points;
  };

  template <class F, class Affine>
  void run(const zk::groth16::fixed_base_table<Affine>& t, std::span<const zk::bls12_381::fr> k, std::span<Affine> out,
           curve_state& s) {
    static_assert(sizeof(affine_d<F>) == sizeof(Affine));
    const std::size_t n = k.size();
    if (!n) return;
    CUZK_CUDA(cudaSetDevice(device_));
    if (s.host_table != t.points.data()) {
      s.table = dbuf<std::uint8_t>(t.points.size_bytes());
      CUZK_CUDA(cudaMemcpy(s.table.get(), t.points.data(), t.points.size_bytes(), cudaMemcpyHostToDevice));
      s.host_table = t.points.data();
    }
    if (s.scalars.size() < n * 32) s.scalars = dbuf<std::uint8_t>(n * 32);
    if (s.points.size() < n * sizeof(Affine)) s.points = dbuf<std::uint8_t>(n * sizeof(Affine));
    // Canonical scalars (the windows are read from the integer), converted on the host's cores.
    canonical_.resize(4 * n);
    zk::parallel_for(n, [&](std::size_t lo, std::size_t hi) {
      for (std::size_t i = lo; i < hi; ++i) {
        const auto c = k[i].to_canonical();
        std::memcpy(&canonical_[4 * i], c.limb.data(), 32);
      }
    }, 4096);
    CUZK_CUDA(cudaMemcpy(s.scalars.get(), canonical_.data(), n * 32, cudaMemcpyHostToDevice));
    constexpr unsigned threads = 128;
    fixed_base_kernel<F><<<blocks_for(n, threads), threads>>>(
        reinterpret_cast<affine_d<F>*>(s.points.get()), reinterpret_cast<const std::uint64_t*>(s.scalars.get()), n,
        reinterpret_cast<const affine_d<F>*>(s.table.get()), t.window, unsigned(t.windows));
    CUZK_LAUNCHED();
    CUZK_CUDA(cudaMemcpy(out.data(), s.points.get(), n * sizeof(Affine), cudaMemcpyDeviceToHost));
  }

  int device_;
  curve_state g1_, g2_;
  std::vector<std::uint64_t> canonical_;
};

[[maybe_unused]] const bool registered = [] {
  zk::groth16::register_point_multiplier("cuda", [](int device) -> std::unique_ptr<zk::groth16::point_multiplier> {
    if (!device_present()) throw zk::input_error("setup backend cuda: no CUDA device present");
    return std::make_unique<cuda_point_multiplier>(device);
  });
  return true;
}();

}  // namespace

}  // namespace cuzk::gpu
