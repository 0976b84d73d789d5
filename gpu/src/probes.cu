// The CUDA backend's benchmark and probe entry points (cuda_backend.hpp: the device-resident
// entry points and the timings): MSMs and NTTs on caller-owned device memory, the compact
// evaluator's kernel and the staging path's uploads timed and checked, an NTT's launches one by
// one, the MSM variant switches. They reach the backend's state only through prover_parts.cuh
// (impl stays in prover.cu), and take the device's lock as a proof does.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "common.cuh"
#include "compact_evaluator.cuh"
#include "cuzk/gpu/cuda_backend.hpp"
#include "device_context.cuh"
#include "device_key.cuh"
#include "msm.cuh"
#include "msm_entry.hpp"
#include "ntt.cuh"
#include "prover_parts.cuh"
#include "staging.cuh"
#include "zk/error.hpp"
#include "zk/groth16/pce_compact.hpp"
#include "zk/ntt/domain.hpp"
#include "zk/util/parallel.hpp"

namespace cuzk::gpu {

using namespace zk::bls12_381;
using zk::groth16::scalar;

namespace {
// Counts the 32-byte elements of x that differ from y.
__global__ void count_differing_kernel(const uint4* x, const uint4* y, std::size_t elements, unsigned long long* out) {
  unsigned long long mine = 0;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < elements;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const uint4 a0 = x[2 * i], a1 = x[2 * i + 1], b0 = y[2 * i], b1 = y[2 * i + 1];
    mine += ((a0.x ^ b0.x) | (a0.y ^ b0.y) | (a0.z ^ b0.z) | (a0.w ^ b0.w) | (a1.x ^ b1.x) | (a1.y ^ b1.y) |
             (a1.z ^ b1.z) | (a1.w ^ b1.w)) != 0;
  }
  if (mine) atomicAdd(out, mine);
}

// The benchmark's shifted sets of caller-owned device bases: made again when other bases (or
// `make`) ask.
// sets_wanted: 0 for one set per window.
msm_bases bench_bases(const prover_parts& P, int kind, const void* dev, std::size_t n, bool make, unsigned sets_wanted) {
  bench_sets& bench = P.bench;
  device_context& ctx = P.ctx;
  if (make || !bench.pts.dev.get() || bench.src != dev || bench.kind != kind || bench.pts.n != n ||
      bench.wanted != sets_wanted) {
    bench.pts = device_points{};
    const unsigned c = shifted_window_bits(n, sets_wanted), sets = sets_wanted ? sets_wanted : msm_windows(c);
    if (sets < 2 || sets > msm_windows(c)) throw std::invalid_argument("cuda msm: shifted sets must be 2 .. the windows");
    if (std::size_t(sets) * n >= (std::size_t(1) << 31))
      throw std::invalid_argument("cuda msm: too many points for shifted sets");
    const std::size_t pb = kind == 2 ? 192 : 96;
    bench.pts.dev = ctx.alloc(std::size_t(sets) * n * pb, "cuda msm: shifted sets");
    bench.pts.n = n;
    bench.pts.point_bytes = pb;
    bench.pts.shift_c = c;
    bench.pts.sets = sets;
    bench.wanted = sets_wanted;
    if (kind == 2) msm_g2_shift(dev, n, c, sets, bench.pts.dev.get(), ctx.compute);
    else msm_g1_shift(dev, n, c, sets, bench.pts.dev.get(), ctx.compute);
    bench.src = dev;
    bench.kind = kind;
  }
  return bench.pts.bases();
}
}  // namespace

std::vector<cuda_backend::compact_timing> cuda_backend::time_compact(const zk::groth16::pce_compact& e,
                                                                     std::span<const scalar> w,
                                                                     const zk::groth16::synthesis& want,
                                                                     std::span<const compact_kernel_options> kernels,
                                                                     int reps, int warmup) {
  const std::size_t n = e.domain_size();
  if (w.size() != e.n_inputs() + e.n_aux())
    throw zk::input_error("witness has " + std::to_string(w.size()) + " values, the recorded circuit " +
                          std::to_string(e.n_inputs() + e.n_aux()));
  if (want.a.size() != n || want.b.size() != n || want.c.size() != n)
    throw std::invalid_argument("cuda time_compact: the reference a, b, c must hold the domain size");
  const prover_parts P = parts_of(*impl_);
  std::lock_guard lock(P.ctx.mu);
  CUZK_CUDA(cudaSetDevice(P.opt.device));
  const device_compact dc = upload_compact(P.ctx, e);
  dbuf<unsigned char> wd = P.ctx.alloc(w.size_bytes(), "cuda time_compact: the witness");
  dbuf<unsigned char> ref = P.ctx.alloc(3 * n * sizeof(fr_d), "cuda time_compact: the host's a, b, c");
  dbuf<unsigned char> out = P.ctx.alloc(3 * n * sizeof(fr_d), "cuda time_compact: a, b, c");
  dbuf<unsigned char> cnt = P.ctx.alloc(sizeof(unsigned long long), "cuda time_compact: a counter");
  P.ctx.upload_async(wd.get(), w.data(), w.size_bytes());
  P.ctx.upload_async(ref.get(), want.a.data(), n * sizeof(fr_d));
  P.ctx.upload_async(ref.get() + n * sizeof(fr_d), want.b.data(), n * sizeof(fr_d));
  P.ctx.upload_async(ref.get() + 2 * n * sizeof(fr_d), want.c.data(), n * sizeof(fr_d));
  auto* v = reinterpret_cast<fr_d*>(out.get());
  const auto* wp = reinterpret_cast<const uint64_t*>(wd.get());
  std::vector<compact_timing> res;
  for (const auto& k : kernels) {
    compact_timing t;
    t.kernel = k;
    std::vector<double> ms;
    for (int i = 0; i < warmup + reps; ++i) {
      CUZK_CUDA(cudaMemsetAsync(out.get(), 0xa5, out.bytes(), P.ctx.compute));  // poisoned: every element must be written
      CUZK_CUDA(cudaEventRecord(P.ctx.t0, P.ctx.compute));
      ::cuzk::gpu::evaluate_compact(dc.view, wp, v, v + n, v + 2 * n, P.ctx.compute, k);
      CUZK_CUDA(cudaEventRecord(P.ctx.t1, P.ctx.compute));
      CUZK_CUDA(cudaEventSynchronize(P.ctx.t1));
      float f = 0;
      CUZK_CUDA(cudaEventElapsedTime(&f, P.ctx.t0, P.ctx.t1));
      if (i >= warmup) ms.push_back(f);
    }
    CUZK_CUDA(cudaMemsetAsync(cnt.get(), 0, sizeof(unsigned long long), P.ctx.compute));
    count_differing_kernel<<<4096, 256, 0, P.ctx.compute>>>(reinterpret_cast<const uint4*>(out.get()),
                                                            reinterpret_cast<const uint4*>(ref.get()), 3 * n,
                                                            reinterpret_cast<unsigned long long*>(cnt.get()));
    CUZK_LAUNCHED();
    unsigned long long d = 0;
    CUZK_CUDA(cudaMemcpyAsync(&d, cnt.get(), sizeof d, cudaMemcpyDeviceToHost, P.ctx.compute));
    CUZK_CUDA(cudaStreamSynchronize(P.ctx.compute));
    t.elements_differing = d;
    if (!ms.empty()) {
      std::sort(ms.begin(), ms.end());
      t.median_ms = ms[ms.size() / 2];
      t.min_ms = ms.front();
      t.max_ms = ms.back();
    }
    res.push_back(t);
  }
  return res;
}

cuda_backend::upload_timing cuda_backend::time_upload(std::size_t bytes, int reps, int warmup) {
  const prover_parts P = parts_of(*impl_);
  std::lock_guard lock(P.ctx.mu);
  CUZK_CUDA(cudaSetDevice(P.opt.device));
  bytes &= ~std::size_t(7);
  std::vector<std::uint64_t> src(bytes / 8), back(bytes / 8);
  zk::parallel_for(src.size(), [&](std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi; ++i) {  // splitmix64 of the index: no zeros in practice
      std::uint64_t z = (i + 1) * 0x9e3779b97f4a7c15ULL;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      src[i] = z ^ (z >> 31);
    }
  });
  dbuf<unsigned char> dst = P.ctx.alloc(bytes, "cuda time_upload: the device copy");
  staging_context& sc = *P.ctx.staging;
  auto run = [&](double& med, double& mn, bool& ok) {
    std::vector<double> ms;
    for (int i = 0; i < warmup + reps; ++i) {
      CUZK_CUDA(cudaMemsetAsync(dst.get(), 0, bytes, sc.stream));  // every byte must come over
      CUZK_CUDA(cudaStreamSynchronize(sc.stream));
      const auto t0 = std::chrono::steady_clock::now();
      sc.upload(dst.get(), src.data(), bytes);
      CUZK_CUDA(cudaStreamSynchronize(sc.stream));
      const double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (i >= warmup) ms.push_back(t);
    }
    std::fill(back.begin(), back.end(), 0);
    sc.download(back.data(), dst.get(), bytes, sc.stream);
    CUZK_CUDA(cudaStreamSynchronize(sc.stream));
    ok = back == src;
    std::sort(ms.begin(), ms.end());
    med = ms.empty() ? 0 : ms[ms.size() / 2];
    mn = ms.empty() ? 0 : ms.front();
  };
  upload_timing r;
  run(r.pageable_ms, r.pageable_min_ms, r.pageable_ok);
  cuda_pinner pin;
  const auto t0 = std::chrono::steady_clock::now();
  const bool pinned = pin.pin(src.data(), bytes);
  r.pin_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!pinned) throw std::runtime_error("cuda time_upload: the host memory could not be pinned");
  if (!staging_context::is_pinned(src.data())) {
    pin.unpin(src.data());
    throw std::runtime_error("cuda time_upload: pinned memory not seen as pinned by the staging path");
  }
  try {
    run(r.pinned_ms, r.pinned_min_ms, r.pinned_ok);
  } catch (...) {
    pin.unpin(src.data());
    throw;
  }
  pin.unpin(src.data());
  return r;
}

template <class Curve>
zk::jacobian_t<Curve> cuda_backend::msm_device(const void* bases, const void* scalars, std::size_t n, bool shifted,
                                               unsigned sets) {
  const prover_parts P = parts_of(*impl_);
  std::lock_guard lock(P.ctx.mu);
  CUZK_CUDA(cudaSetDevice(P.opt.device));
  msm_bases mb{bases};
  if (shifted) mb = bench_bases(P, std::is_same_v<Curve, g2_curve> ? 2 : 1, bases, n, false, sets);
  return msm_on_device<Curve>(*impl_, mb, static_cast<const uint64_t*>(scalars), n);
}
template g1_jacobian cuda_backend::msm_device<g1_curve>(const void*, const void*, std::size_t, bool, unsigned);
template g2_jacobian cuda_backend::msm_device<g2_curve>(const void*, const void*, std::size_t, bool, unsigned);
unsigned cuda_backend::shift_bases_device(const void* bases, std::size_t n, bool g2, unsigned sets) {
  const prover_parts P = parts_of(*impl_);
  std::lock_guard lock(P.ctx.mu);
  CUZK_CUDA(cudaSetDevice(P.opt.device));
  auto mb = bench_bases(P, g2 ? 2 : 1, bases, n, true, sets);
  CUZK_CUDA(cudaStreamSynchronize(P.ctx.compute));
  return mb.c;
}
namespace {
// The second vector of a natural-order NTT on device data whose engine fuses the bit reversal
// (cuda_options::ntt_fused_reversal): the compute stream's MSM arena, used in compute-stream order
// as the MSMs use it, grown to 2^L x 32 B if smaller (and then kept for them).
fr_d* ntt_scratch(device_context& ctx, const ntt_engine& E, unsigned L) {
  if (!E.fuses_reversal(L)) return nullptr;
  const std::size_t n = std::size_t(1) << L;
  if (ctx.scratch.capacity() < n * sizeof(fr_d)) ctx.make_room(n * sizeof(fr_d));
  ctx.scratch.reserve(n * sizeof(fr_d));
  return ctx.scratch.take<fr_d>(n);
}
}  // namespace
void cuda_backend::ntt_device(void* data, unsigned log_n, bool inverse, std::uint64_t root_generator) {
  const prover_parts P = parts_of(*impl_);
  if (root_generator != zk::bls12_381::fr_snarkjs_generator && root_generator != zk::ntt::bellperson_generator)
    throw std::invalid_argument("ntt_device: root_generator must be 5 (snarkjs) or 7 (bellperson)");
  std::lock_guard lock(P.ctx.mu);
  auto* d = static_cast<fr_d*>(data);
  auto& E = root_generator == zk::ntt::bellperson_generator ? P.ntt_bp : P.ntt;
  fr_d* tmp = ntt_scratch(P.ctx, E, log_n);
  if (inverse) E.inverse(d, log_n, P.ctx.compute, tmp);
  else E.forward(d, log_n, P.ctx.compute, tmp);
}
void cuda_backend::compute_h_device(void* a, void* b, void* c, unsigned log_n) {
  const prover_parts P = parts_of(*impl_);
  std::lock_guard lock(P.ctx.mu);
  P.ntt.compute_h(static_cast<fr_d*>(a), static_cast<fr_d*>(b), static_cast<fr_d*>(c), log_n, P.ctx.compute);
}
std::vector<std::pair<std::string, double>> cuda_backend::ntt_profile_device(const std::string& op, void* a, void* b,
                                                                             void* c, unsigned log_n) {
  const prover_parts P = parts_of(*impl_);
  std::lock_guard lock(P.ctx.mu);
  CUZK_CUDA(cudaSetDevice(P.opt.device));
  auto& E = P.ntt;
  const cudaStream_t s = P.ctx.compute;
  E.prepare(log_n, s);
  struct event_marks : ntt_engine::launch_marks {
    std::vector<std::pair<std::string, cudaEvent_t>> ev;
    void mark(const char* what, cudaStream_t st) override {
      cudaEvent_t e;
      CUZK_CUDA(cudaEventCreate(&e));
      CUZK_CUDA(cudaEventRecord(e, st));
      ev.emplace_back(what, e);
    }
    ~event_marks() override {
      for (auto& [n, e] : ev) cudaEventDestroy(e);
    }
  } m;
  m.mark("start", s);
  E.set_marks(&m);
  try {
    auto* fa = static_cast<fr_d*>(a);
    if (op == "forward") E.forward(fa, log_n, s, ntt_scratch(P.ctx, E, log_n));
    else if (op == "inverse") E.inverse(fa, log_n, s, ntt_scratch(P.ctx, E, log_n));
    else if (op == "h") E.compute_h(fa, static_cast<fr_d*>(b), static_cast<fr_d*>(c), log_n, s);
    else throw std::invalid_argument("ntt profile: unknown op '" + op + "' (forward, inverse, h)");
  } catch (...) {
    E.set_marks(nullptr);
    throw;
  }
  E.set_marks(nullptr);
  CUZK_CUDA(cudaStreamSynchronize(s));
  std::vector<std::pair<std::string, double>> out;
  for (std::size_t i = 1; i < m.ev.size(); ++i) {
    float ms = 0;
    CUZK_CUDA(cudaEventElapsedTime(&ms, m.ev[i - 1].second, m.ev[i].second));
    out.emplace_back(m.ev[i].first, ms);
  }
  return out;
}
void cuda_backend::synchronize() { CUZK_CUDA(cudaStreamSynchronize(parts_of(*impl_).ctx.compute)); }
void cuda_backend::set_msm_variant(unsigned acc_blocks, bool segment_split, unsigned window_bits, bool g2_smem,
                                   unsigned g2_pair_add, bool g2_pair_seg) {
  const prover_parts P = parts_of(*impl_);
  P.opt.msm_g2_smem = g2_smem;
  P.opt.msm_g2_pair_add = g2_pair_add;
  P.opt.msm_g2_pair_seg = g2_pair_seg;
  if (acc_blocks != 0 && acc_blocks != 4) throw std::invalid_argument("cuda msm: accumulation blocks must be 0 or 4");
  if (window_bits == 1 || window_bits > 24) throw std::invalid_argument("cuda msm: window bits must be 2..24 (0: by size)");
  P.opt.msm_acc_blocks = acc_blocks;
  P.opt.msm_segment_split = segment_split;
  P.opt.force_window_bits = window_bits;
}

void cuda_backend::set_msm_ones(cuda_options::ones_start start, bool urgent, unsigned points, bool whole_waves) {
  const prover_parts P = parts_of(*impl_);
  P.opt.msm_whole_waves = whole_waves;
  P.opt.msm_ones_start = start;
  P.opt.msm_ones_urgent = urgent;
  P.opt.msm_ones_points = points;
}

std::vector<double> cuda_backend::time_ms(int warmup, int reps, const std::function<void()>& fn) {
  const prover_parts P = parts_of(*impl_);
  device_context& C = P.ctx;
  for (int i = 0; i < warmup; ++i) fn();
  CUZK_CUDA(cudaStreamSynchronize(C.compute));
  std::vector<double> out;
  for (int i = 0; i < reps; ++i) {
    CUZK_CUDA(cudaEventRecord(C.t0, C.compute));
    fn();
    CUZK_CUDA(cudaEventRecord(C.t1, C.compute));
    CUZK_CUDA(cudaEventSynchronize(C.t1));
    float ms = 0;
    CUZK_CUDA(cudaEventElapsedTime(&ms, C.t0, C.t1));
    out.push_back(ms);
  }
  return out;
}

}  // namespace cuzk::gpu
