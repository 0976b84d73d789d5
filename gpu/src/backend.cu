// cuda_backend: device context (streams, pinned staging, caches, memory plan) around the NTT and
// MSM engines, and its registration as "cuda".
#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>

#include "common.cuh"
#include "cuzk/gpu/cuda_backend.hpp"
#include "msm.cuh"
#include "msm_entry.hpp"
#include "ntt.cuh"
#include "zk/groth16/backend_registry.hpp"
#include "zk/util/parallel.hpp"

namespace cuzk::gpu {

using namespace zk::bls12_381;
using zk::groth16::scalar;

bool device_present() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return n > 0;
}

std::string device_description() {
  if (!device_present()) return "no CUDA device";
  cudaDeviceProp p{};
  int dev = 0;
  cudaGetDevice(&dev);
  if (cudaGetDeviceProperties(&p, dev) != cudaSuccess) return "CUDA device (properties unavailable)";
  int rt = 0, drv = 0;
  cudaRuntimeGetVersion(&rt);
  cudaDriverGetVersion(&drv);
  return std::string(p.name) + ", " + std::to_string(p.multiProcessorCount) + " SMs, " +
         std::to_string(p.totalGlobalMem >> 20) + " MiB, cc " + std::to_string(p.major) + "." +
         std::to_string(p.minor) + ", runtime " + std::to_string(rt) + ", driver " + std::to_string(drv);
}

void* device_alloc(std::size_t bytes) {
  void* p = nullptr;
  CUZK_CUDA(cudaMalloc(&p, bytes));
  return p;
}
void device_free(void* p) { cudaFree(p); }
void copy_to_device(void* dst, const void* src, std::size_t bytes) {
  CUZK_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}
void copy_to_host(void* dst, const void* src, std::size_t bytes) {
  CUZK_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
}

struct cuda_backend::impl {
  cuda_options opt;
  int sms = 0;
  cudaStream_t compute = nullptr, upload = nullptr;
  // Two pinned staging buffers, allocated once; each has an event marking its last copy done.
  void* pinned[2] = {nullptr, nullptr};
  cudaEvent_t pinned_free[2] = {nullptr, nullptr};
  cudaEvent_t uploaded = nullptr, t0 = nullptr, t1 = nullptr;
  std::mutex mu;  // one operation at a time on this device context
  ntt_engine ntt;
  arena scratch;
  dbuf<uint64_t> scalars;
  dbuf<fr_d> h_vectors;  // compute_h's a, b, c: kept across proofs (a cudaFree would synchronize the device)
  dbuf<unsigned char> result;
  // Resident bases: (kind, host pointer, count) -> device copy, with a checksum of sampled points:
  // a key evicted and another mapped at the same address with the same size must not be served
  // the old points (the mapping's address is all the pointer says).
  struct resident {
    dbuf<unsigned char> dev;
    std::uint64_t sample = 0;
  };
  std::map<std::tuple<int, const void*, std::size_t>, resident> bases;

  // FNV-1a over up to 64 evenly spaced points plus the last: microseconds, whatever the size.
  template <class Aff>
  static std::uint64_t sample_of(std::span<const Aff> b) {
    std::uint64_t h = 1469598103934665603ull;
    auto mix = [&](const Aff& p) {
      auto* bytes = reinterpret_cast<const unsigned char*>(&p);
      for (std::size_t i = 0; i < sizeof(Aff); ++i) h = (h ^ bytes[i]) * 1099511628211ull;
    };
    std::size_t step = std::max<std::size_t>(1, b.size() / 64);
    for (std::size_t i = 0; i < b.size(); i += step) mix(b[i]);
    mix(b.back());
    return h;
  }

  explicit impl(cuda_options o) : opt(o) {
    CUZK_CUDA(cudaSetDevice(opt.device));
    CUZK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, opt.device));
    CUZK_CUDA(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    CUZK_CUDA(cudaStreamCreateWithFlags(&upload, cudaStreamNonBlocking));
    for (int i = 0; i < 2; ++i) {
      CUZK_CUDA(cudaHostAlloc(&pinned[i], opt.staging_bytes, cudaHostAllocDefault));
      CUZK_CUDA(cudaEventCreateWithFlags(&pinned_free[i], cudaEventDisableTiming));
    }
    CUZK_CUDA(cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming));
    CUZK_CUDA(cudaEventCreate(&t0));
    CUZK_CUDA(cudaEventCreate(&t1));
    result = dbuf<unsigned char>(4096);
  }
  ~impl() {
    cudaDeviceSynchronize();
    for (int i = 0; i < 2; ++i) {
      if (pinned[i]) cudaFreeHost(pinned[i]);
      if (pinned_free[i]) cudaEventDestroy(pinned_free[i]);
    }
    for (auto e : {uploaded, t0, t1})
      if (e) cudaEventDestroy(e);
    if (compute) cudaStreamDestroy(compute);
    if (upload) cudaStreamDestroy(upload);
  }

  // Pageable <-> pinned copies on the host thread pool: one thread's memcpy (~5 GB/s) was most
  // of a 2^24 proof's transfer time (first device run: h 817 ms against 34 ms on the device).
  static void host_copy(void* dst, const void* src, std::size_t len) {
    constexpr std::size_t piece = std::size_t(4) << 20;
    auto* d = static_cast<unsigned char*>(dst);
    auto* s = static_cast<const unsigned char*>(src);
    zk::parallel_for((len + piece - 1) / piece, [&](std::size_t lo, std::size_t hi) {
      for (std::size_t i = lo; i < hi; ++i) std::memcpy(d + i * piece, s + i * piece, std::min(piece, len - i * piece));
    });
  }

  // Host (pageable) -> device through the pinned buffers on the upload stream; the compute
  // stream waits for it by event, the host only for a buffer to come free.
  void upload_async(void* dst, const void* src, std::size_t bytes) {
    auto* d = static_cast<unsigned char*>(dst);
    auto* s = static_cast<const unsigned char*>(src);
    for (std::size_t off = 0, i = 0; off < bytes; off += opt.staging_bytes, ++i) {
      std::size_t len = std::min(opt.staging_bytes, bytes - off);
      int b = int(i & 1);
      CUZK_CUDA(cudaEventSynchronize(pinned_free[b]));
      host_copy(pinned[b], s + off, len);
      CUZK_CUDA(cudaMemcpyAsync(d + off, pinned[b], len, cudaMemcpyHostToDevice, upload));
      CUZK_CUDA(cudaEventRecord(pinned_free[b], upload));
    }
    CUZK_CUDA(cudaEventRecord(uploaded, upload));
    CUZK_CUDA(cudaStreamWaitEvent(compute, uploaded, 0));
  }
  // Device -> host after the compute stream's work, through the two pinned buffers: chunk i+1
  // copies over the bus while the host copies chunk i out.
  void download(void* dst, const void* src, std::size_t bytes) {
    auto* d = static_cast<unsigned char*>(dst);
    auto* s = static_cast<const unsigned char*>(src);
    std::size_t chunks = (bytes + opt.staging_bytes - 1) / opt.staging_bytes;
    auto issue = [&](std::size_t i) {
      int b = int(i & 1);
      std::size_t off = i * opt.staging_bytes, len = std::min(opt.staging_bytes, bytes - off);
      CUZK_CUDA(cudaStreamWaitEvent(compute, pinned_free[b], 0));  // an upload may still read it
      CUZK_CUDA(cudaMemcpyAsync(pinned[b], s + off, len, cudaMemcpyDeviceToHost, compute));
      CUZK_CUDA(cudaEventRecord(pinned_free[b], compute));
    };
    if (chunks) issue(0);
    for (std::size_t i = 0; i < chunks; ++i) {
      if (i + 1 < chunks) issue(i + 1);
      int b = int(i & 1);
      std::size_t off = i * opt.staging_bytes, len = std::min(opt.staging_bytes, bytes - off);
      CUZK_CUDA(cudaEventSynchronize(pinned_free[b]));
      host_copy(d + off, pinned[b], len);
    }
  }

  std::size_t free_bytes() {
    std::size_t fr = 0, total = 0;
    CUZK_CUDA(cudaMemGetInfo(&fr, &total));
    return fr > opt.safety_margin ? fr - opt.safety_margin : 0;
  }

  template <class Aff>
  const void* resident_bases(int kind, std::span<const Aff> b) {
    auto key = std::make_tuple(kind, static_cast<const void*>(b.data()), b.size());
    auto sample = sample_of(b);
    auto it = bases.find(key);
    if (it != bases.end() && it->second.sample == sample) return it->second.dev.get();
    if (it != bases.end()) bases.erase(it);
    std::size_t bytes = b.size_bytes();
    if (bytes > free_bytes()) {
      bases.clear();  // make room: the cache is only an optimisation
      h_vectors.reset();
      scratch.release();
      if (bytes > free_bytes()) throw std::runtime_error("cuda msm: the bases do not fit in device memory");
    }
    dbuf<unsigned char> d(bytes);
    upload_async(d.get(), b.data(), bytes);
    return bases.emplace(key, resident{std::move(d), sample}).first->second.dev.get();
  }

  // Points per device run so that scratch fits next to what is resident.
  template <bool G2>
  std::size_t chunk_points(std::size_t n) {
    if (opt.force_msm_chunk) return std::min(n, opt.force_msm_chunk);
    std::size_t avail = free_bytes() + scratch.capacity();
    std::size_t chunk = n;
    for (;;) {
      auto sh = make_msm_shape(chunk, sms, opt.force_window_bits);
      std::size_t need = (G2 ? msm_g2_scratch(sh) : msm_g1_scratch(sh));
      if (need <= avail) return chunk;
      if (chunk <= 1024) throw std::runtime_error("cuda msm: not enough device memory even for a small chunk");
      chunk = (chunk + 1) / 2;
    }
  }

  template <bool G2, class Jac, class Xyzz>
  Jac msm_resident(const void* dbases, const uint64_t* dscalars, std::size_t n) {
    constexpr std::size_t aff_bytes = G2 ? 192 : 96;
    Jac total = Jac::identity();
    if (n == 0) return total;
    std::size_t chunk = chunk_points<G2>(n);
    for (std::size_t off = 0; off < n; off += chunk) {
      std::size_t len = std::min(chunk, n - off);
      auto sh = make_msm_shape(len, sms, opt.force_window_bits);
      const void* b = static_cast<const unsigned char*>(dbases) + off * aff_bytes;
      if (G2) ::cuzk::gpu::msm_g2_device(b, dscalars + 4 * off, sh, scratch, result.get(), compute);
      else ::cuzk::gpu::msm_g1_device(b, dscalars + 4 * off, sh, scratch, result.get(), compute);
      Xyzz r;
      CUZK_CUDA(cudaMemcpyAsync(&r, result.get(), sizeof r, cudaMemcpyDeviceToHost, compute));
      CUZK_CUDA(cudaStreamSynchronize(compute));
      total += r.to_jacobian();
    }
    return total;
  }

  template <bool G2, class Jac, class Xyzz, class Aff>
  Jac msm_host(std::span<const Aff> b, std::span<const scalar> s) {
    if (b.size() != s.size()) throw std::invalid_argument("cuda msm: bases and scalars differ in length");
    std::lock_guard lock(mu);
    CUZK_CUDA(cudaSetDevice(opt.device));
    if (b.empty()) return Jac::identity();
    const void* db = resident_bases<Aff>(G2 ? 2 : 1, b);
    if (scalars.size() < 4 * s.size()) {
      scalars.reset();
      scalars = dbuf<uint64_t>(4 * s.size());
    }
    upload_async(scalars.get(), s.data(), s.size_bytes());
    return msm_resident<G2, Jac, Xyzz>(db, scalars.get(), s.size());
  }
};

cuda_backend::cuda_backend(cuda_options opt) : impl_(std::make_unique<impl>(opt)) {}
cuda_backend::~cuda_backend() = default;

static unsigned log2_exact(std::size_t n, const char* what) {
  if (n == 0 || (n & (n - 1))) throw std::invalid_argument(std::string(what) + ": size must be a power of two");
  unsigned l = 0;
  while ((std::size_t(1) << l) < n) ++l;
  return l;
}

void cuda_backend::compute_h(std::span<fr> a, std::span<fr> b, std::span<fr> c, std::span<scalar> h) {
  std::size_t n = a.size();
  if (b.size() != n || c.size() != n || h.size() != n)
    throw std::invalid_argument("cuda compute_h: a, b, c and h differ in length");
  unsigned L = log2_exact(n, "cuda compute_h");
  auto& I = *impl_;
  std::lock_guard lock(I.mu);
  CUZK_CUDA(cudaSetDevice(I.opt.device));
  if (I.h_vectors.size() < 3 * n) {
    I.h_vectors.reset();
    std::size_t need = 3 * n * sizeof(fr_d) + ntt_engine::table_bytes(L);
    if (need > I.free_bytes() + I.scratch.capacity()) {
      I.bases.clear();
      I.scratch.release();
    }
    if (need > I.free_bytes()) throw std::runtime_error("cuda compute_h: the three vectors do not fit in device memory");
    I.h_vectors = dbuf<fr_d>(3 * n);
  }
  I.ntt.prepare(L, I.compute);
  // Each vector's transforms start as soon as it is on the device; the next one uploads meanwhile.
  std::span<fr> hv[3] = {a, b, c};
  fr_d* dv[3] = {I.h_vectors.get(), I.h_vectors.get() + n, I.h_vectors.get() + 2 * n};
  for (int i = 0; i < 3; ++i) {
    I.upload_async(dv[i], hv[i].data(), n * sizeof(fr));
    I.ntt.to_odd_coset(dv[i], L, I.compute);
  }
  I.ntt.combine_h(dv[0], dv[1], dv[2], L, I.compute);
  I.download(h.data(), dv[0], n * sizeof(scalar));
}

g1_jacobian cuda_backend::msm_g1(std::span<const g1_affine> bases, std::span<const scalar> scalars) {
  return impl_->msm_host<false, g1_jacobian, g1_xyzz>(bases, scalars);
}
g2_jacobian cuda_backend::msm_g2(std::span<const g2_affine> bases, std::span<const scalar> scalars) {
  return impl_->msm_host<true, g2_jacobian, g2_xyzz>(bases, scalars);
}
g1_jacobian cuda_backend::msm_g1_device(const void* bases, const void* scalars, std::size_t n) {
  std::lock_guard lock(impl_->mu);
  return impl_->msm_resident<false, g1_jacobian, g1_xyzz>(bases, static_cast<const uint64_t*>(scalars), n);
}
g2_jacobian cuda_backend::msm_g2_device(const void* bases, const void* scalars, std::size_t n) {
  std::lock_guard lock(impl_->mu);
  return impl_->msm_resident<true, g2_jacobian, g2_xyzz>(bases, static_cast<const uint64_t*>(scalars), n);
}
void cuda_backend::ntt_device(void* data, unsigned log_n, bool inverse) {
  std::lock_guard lock(impl_->mu);
  auto* d = static_cast<fr_d*>(data);
  if (inverse) impl_->ntt.inverse(d, log_n, impl_->compute);
  else impl_->ntt.forward(d, log_n, impl_->compute);
}
void cuda_backend::compute_h_device(void* a, void* b, void* c, unsigned log_n) {
  std::lock_guard lock(impl_->mu);
  impl_->ntt.compute_h(static_cast<fr_d*>(a), static_cast<fr_d*>(b), static_cast<fr_d*>(c), log_n, impl_->compute);
}
void cuda_backend::synchronize() { CUZK_CUDA(cudaStreamSynchronize(impl_->compute)); }
void cuda_backend::release_caches() {
  std::lock_guard lock(impl_->mu);
  CUZK_CUDA(cudaStreamSynchronize(impl_->compute));
  impl_->bases.clear();
  impl_->scratch.release();
  impl_->scalars.reset();
  impl_->h_vectors.reset();
}

std::vector<double> cuda_backend::time_ms(int warmup, int reps, const std::function<void()>& fn) {
  auto& I = *impl_;
  for (int i = 0; i < warmup; ++i) fn();
  CUZK_CUDA(cudaStreamSynchronize(I.compute));
  std::vector<double> out;
  for (int i = 0; i < reps; ++i) {
    CUZK_CUDA(cudaEventRecord(I.t0, I.compute));
    fn();
    CUZK_CUDA(cudaEventRecord(I.t1, I.compute));
    CUZK_CUDA(cudaEventSynchronize(I.t1));
    float ms = 0;
    CUZK_CUDA(cudaEventElapsedTime(&ms, I.t0, I.t1));
    out.push_back(ms);
  }
  return out;
}

namespace {
const bool registered = [] {
  zk::groth16::register_backend(
      "cuda", [] { return std::unique_ptr<zk::groth16::backend>(new cuda_backend()); }, [] { return device_present(); });
  return true;
}();
}  // namespace

}  // namespace cuzk::gpu
