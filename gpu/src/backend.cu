// cuda_backend: device context (streams, pinned staging, caches, memory plan) around the NTT and
// MSM engines, and its registration as "cuda".
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <mutex>
#include <tuple>

#include "common.cuh"
#include "cuzk/gpu/cuda_backend.hpp"
#include "msm.cuh"
#include "msm_entry.hpp"
#include "ntt.cuh"
#include "synthesis.cuh"
#include "zk/error.hpp"
#include "zk/groth16/backend_registry.hpp"
#include "zk/groth16/pce.hpp"
#include "zk/util/parallel.hpp"

namespace cuzk::gpu {

using namespace zk::bls12_381;
using zk::groth16::scalar;

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

bool device_present() { return device_count() > 0; }

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

// Host (pageable) -> device copies through two pinned buffers on an upload stream of its own. The
// backend has one (key points, host scalars, downloads) and every stager one more, so a stager's
// uploads overlap the backend's kernels. Used by one thread at a time.
struct staging_context {
  int device = 0;
  std::size_t staging_bytes = 0;
  cudaStream_t stream = nullptr;
  void* pinned[2] = {nullptr, nullptr};
  cudaEvent_t pinned_free[2] = {nullptr, nullptr};  // each buffer's last copy is done

  staging_context(int dev, std::size_t bytes) : device(dev), staging_bytes(bytes) {
    CUZK_CUDA(cudaSetDevice(device));
    CUZK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    for (int i = 0; i < 2; ++i) {
      CUZK_CUDA(cudaHostAlloc(&pinned[i], staging_bytes, cudaHostAllocDefault));
      CUZK_CUDA(cudaEventCreateWithFlags(&pinned_free[i], cudaEventDisableTiming));
    }
  }
  ~staging_context() {
    if (stream) cudaStreamSynchronize(stream);
    for (int i = 0; i < 2; ++i) {
      if (pinned[i]) cudaFreeHost(pinned[i]);
      if (pinned_free[i]) cudaEventDestroy(pinned_free[i]);
    }
    if (stream) cudaStreamDestroy(stream);
  }
  staging_context(const staging_context&) = delete;
  staging_context& operator=(const staging_context&) = delete;

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

  // Enqueues the copy on `stream`; returns when src has been read (the host waits only for a
  // pinned buffer to come free). Pinned (page-locked) sources are copied by DMA directly.
  void upload(void* dst, const void* src, std::size_t bytes) {
    if (bytes == 0) return;
    if (is_pinned(src)) {
      CUZK_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
      CUZK_CUDA(cudaEventRecord(pinned_free[0], stream));
      CUZK_CUDA(cudaEventSynchronize(pinned_free[0]));  // the contract: src is read on return
      return;
    }
    auto* d = static_cast<unsigned char*>(dst);
    auto* s = static_cast<const unsigned char*>(src);
    for (std::size_t off = 0, i = 0; off < bytes; off += staging_bytes, ++i) {
      std::size_t len = std::min(staging_bytes, bytes - off);
      int b = int(i & 1);
      CUZK_CUDA(cudaEventSynchronize(pinned_free[b]));
      host_copy(pinned[b], s + off, len);
      CUZK_CUDA(cudaMemcpyAsync(d + off, pinned[b], len, cudaMemcpyHostToDevice, stream));
      CUZK_CUDA(cudaEventRecord(pinned_free[b], stream));
    }
  }

  static bool is_pinned(const void* p) {
    cudaPointerAttributes a{};
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    return a.type == cudaMemoryTypeHost;
  }

  // Device -> host after the work already on `after`: chunk i+1 copies over the bus while the
  // host copies chunk i out.
  void download(void* dst, const void* src, std::size_t bytes, cudaStream_t after) {
    auto* d = static_cast<unsigned char*>(dst);
    auto* s = static_cast<const unsigned char*>(src);
    std::size_t chunks = (bytes + staging_bytes - 1) / staging_bytes;
    auto issue = [&](std::size_t i) {
      int b = int(i & 1);
      std::size_t off = i * staging_bytes, len = std::min(staging_bytes, bytes - off);
      CUZK_CUDA(cudaStreamWaitEvent(after, pinned_free[b], 0));  // an upload may still read it
      CUZK_CUDA(cudaMemcpyAsync(pinned[b], s + off, len, cudaMemcpyDeviceToHost, after));
      CUZK_CUDA(cudaEventRecord(pinned_free[b], after));
    };
    if (chunks) issue(0);
    for (std::size_t i = 0; i < chunks; ++i) {
      if (i + 1 < chunks) issue(i + 1);
      int b = int(i & 1);
      std::size_t off = i * staging_bytes, len = std::min(staging_bytes, bytes - off);
      CUZK_CUDA(cudaEventSynchronize(pinned_free[b]));
      host_copy(d + off, pinned[b], len);
    }
  }
};

// One proof's inputs in device memory, laid out [a | b | c | witness] (32-byte elements: a, b, c
// Montgomery, the witness canonical). The memory comes from the stream-ordered pool: allocated on
// the stager's stream, freed on the compute stream after the proof, so no cudaFree synchronizes
// the device between proofs.
class cuda_staged final : public zk::groth16::staged_inputs {
 public:
  cuda_staged(std::shared_ptr<staging_context> ctx, std::size_t n, std::size_t n_vars)
      : ctx_(std::move(ctx)), n_(n), n_vars_(n_vars) {
    CUZK_CUDA(cudaSetDevice(ctx_->device));
    cudaError_t e = cudaMallocAsync(&dev_, device_bytes(), ctx_->stream);
    if (e != cudaSuccess) {
      cudaGetLastError();
      dev_ = nullptr;
      throw std::runtime_error("cuda stage: " + std::to_string(device_bytes() >> 20) +
                               " MiB of device memory for the proof's inputs are not available (" +
                               cudaGetErrorString(e) + ")");
    }
    CUZK_CUDA(cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming));
  }
  ~cuda_staged() override {
    if (dev_) cudaFreeAsync(dev_, ctx_->stream);
    if (ready_) cudaEventDestroy(ready_);
  }
  std::size_t device_bytes() const override { return (3 * n_ + n_vars_) * 32; }

  fr_d* vec(int i) const { return static_cast<fr_d*>(dev_) + std::size_t(i) * n_; }
  const uint64_t* witness() const { return reinterpret_cast<const uint64_t*>(vec(3)); }
  std::size_t n() const { return n_; }
  std::size_t n_vars() const { return n_vars_; }
  int device() const { return ctx_->device; }
  cudaEvent_t ready() const { return ready_; }
  cudaStream_t stream() const { return ctx_->stream; }
  staging_context& staging() const { return *ctx_; }
  void fill(const zk::groth16::synthesis& syn, std::span<const scalar> w) {
    const void* src[3] = {syn.a.data(), syn.b.data(), syn.c.data()};
    for (int i = 0; i < 3; ++i) ctx_->upload(vec(i), src[i], n_ * 32);
    ctx_->upload(vec(3), w.data(), n_vars_ * 32);
    CUZK_CUDA(cudaEventRecord(ready_, ctx_->stream));
  }
  // After the proof's last kernel on `s`: the memory goes back to the pool in stream order.
  void release_after(cudaStream_t s) {
    if (dev_) CUZK_CUDA(cudaFreeAsync(dev_, s));
    dev_ = nullptr;
  }

 private:
  std::shared_ptr<staging_context> ctx_;
  void* dev_ = nullptr;
  std::size_t n_ = 0, n_vars_ = 0;
  cudaEvent_t ready_ = nullptr;
};

std::unique_ptr<zk::groth16::staged_inputs> stage_on(const std::shared_ptr<staging_context>& ctx,
                                                     zk::groth16::synthesis&& syn, std::span<const scalar> w) {
  std::size_t n = syn.a.size();
  if (syn.b.size() != n || syn.c.size() != n || n == 0 || (n & (n - 1)))
    throw std::invalid_argument("cuda stage: a, b and c must have the same power-of-two length");
  CUZK_CUDA(cudaSetDevice(ctx->device));
  auto staged = std::make_unique<cuda_staged>(ctx, n, w.size());
  staged->fill(syn, w);
  return staged;
}

class cuda_stager final : public zk::groth16::stager {
 public:
  explicit cuda_stager(std::shared_ptr<staging_context> ctx) : ctx_(std::move(ctx)) {}
  std::unique_ptr<zk::groth16::staged_inputs> stage(zk::groth16::synthesis&& syn,
                                                    std::span<const scalar> w) override {
    return stage_on(ctx_, std::move(syn), w);
  }

 private:
  std::shared_ptr<staging_context> ctx_;
};

struct cuda_backend::impl {
  cuda_options opt;
  int sms = 0;
  cudaStream_t compute = nullptr;
  std::shared_ptr<staging_context> staging;  // pinned buffers allocated once, reused by every copy
  cudaEvent_t uploaded = nullptr, t0 = nullptr, t1 = nullptr;
  cudaEvent_t stage_ev[7] = {};  // prove_sums: start, h, A, B1, B2, C, H
  std::mutex mu;  // one operation at a time on this device context
  ntt_engine ntt;
  arena scratch;
  // A second MSM lane for a proof: the G2 MSM runs on its own stream and scratch while the G1 MSMs
  // run on the compute stream, so each fills the SMs the other leaves idle in its bucket
  // reductions and tails (the same work, in less time).
  cudaStream_t side = nullptr;
  arena side_scratch;
  cudaEvent_t side_done = nullptr, side_t0 = nullptr, side_t1 = nullptr;
  dbuf<uint64_t> scalars;
  dbuf<fr_d> h_vectors;  // compute_h's a, b, c: kept across proofs (a cudaFree would synchronize the device)
  dbuf<unsigned char> result;
  // Resident bases: (kind, host pointer, count) -> device copy, with a checksum of sampled points:
  // a key evicted and another mapped at the same address with the same size must not be served
  // the old points (the mapping's address is all the pointer says).
  // With shifted sets (msm.cuh), dev holds `sets` copies of the n points, set j = 2^(c j) P.
  struct resident {
    dbuf<unsigned char> dev;
    std::uint64_t sample = 0;
    std::size_t n = 0, point_bytes = 0;
    unsigned shift_c = 0;  // 0: plain bases
  };
  // Where an MSM's bases live: plain, or shifted sets `stride` points apart.
  struct msm_bases {
    const void* ptr = nullptr;
    std::size_t stride = 0;  // 0: plain
    unsigned c = 0;          // the sets' window bits
  };
  static msm_bases bases_of(const resident& r) {
    return {r.dev.get(), r.shift_c ? r.n : 0, r.shift_c};
  }
  // Key bases that lost their shifted sets to an eviction: they stay plain from then on, so that
  // keys taking turns in too little memory do not rebuild sets (seconds each) at every proof.
  std::set<std::tuple<int, const void*, std::size_t>> shifted_evicted;
  void evict_bases() {
    for (const auto& [k, r] : bases)
      if (r.shift_c) shifted_evicted.insert(k);
    bases.clear();
  }
  // Shifted sets made from device bases the caller owns (benchmarks): (kind, pointer, n).
  std::map<std::tuple<int, const void*, std::size_t>, resident> device_shifted;
  std::map<std::tuple<int, const void*, std::size_t>, resident> bases;
  // Resident constraint matrices (synthesize): per evaluator, with a sample of its coefficients.
  struct resident_pce {
    dbuf<unsigned char> dev;
    csr_view a, b;
    std::uint64_t sample = 0;
  };
  std::map<std::tuple<const void*, std::size_t, std::size_t>, resident_pce> pces;

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
    CUZK_CUDA(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
    CUZK_CUDA(cudaEventCreateWithFlags(&side_done, cudaEventDisableTiming));
    CUZK_CUDA(cudaEventCreate(&side_t0));
    CUZK_CUDA(cudaEventCreate(&side_t1));
    staging = std::make_shared<staging_context>(opt.device, opt.staging_bytes);
    CUZK_CUDA(cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming));
    CUZK_CUDA(cudaEventCreate(&t0));
    CUZK_CUDA(cudaEventCreate(&t1));
    for (auto& e : stage_ev) CUZK_CUDA(cudaEventCreate(&e));
    result = dbuf<unsigned char>(result_slot_bytes * 16);
    // Staged inputs come and go every proof: keep their memory in the pool up to 16 GiB between
    // proofs instead of handing it back at every synchronization.
    cudaMemPool_t pool;
    if (cudaDeviceGetDefaultMemPool(&pool, opt.device) == cudaSuccess) {
      std::uint64_t keep = std::uint64_t(16) << 30;
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    }
  }
  ~impl() {
    cudaSetDevice(opt.device);
    cudaDeviceSynchronize();
    for (auto e : {uploaded, t0, t1})
      if (e) cudaEventDestroy(e);
    for (auto e : stage_ev)
      if (e) cudaEventDestroy(e);
    for (auto e : {side_done, side_t0, side_t1})
      if (e) cudaEventDestroy(e);
    if (compute) cudaStreamDestroy(compute);
    if (side) cudaStreamDestroy(side);
  }

  // Host -> device on the staging stream; the compute stream waits for it by event.
  void upload_async(void* dst, const void* src, std::size_t bytes) {
    staging->upload(dst, src, bytes);
    CUZK_CUDA(cudaEventRecord(uploaded, staging->stream));
    CUZK_CUDA(cudaStreamWaitEvent(compute, uploaded, 0));
  }
  void download(void* dst, const void* src, std::size_t bytes) { staging->download(dst, src, bytes, compute); }

  // Device bytes free for planning: what cudaMemGetInfo reports, plus what the stream-ordered
  // pool keeps for staged inputs but does not use now (make_room hands that back when needed).
  std::size_t raw_free() {
    std::size_t fr = 0, total = 0;
    CUZK_CUDA(cudaMemGetInfo(&fr, &total));
    return fr > opt.safety_margin ? fr - opt.safety_margin : 0;
  }
  std::size_t pool_idle() {
    cudaMemPool_t pool;
    std::uint64_t reserved = 0, used = 0;
    if (cudaDeviceGetDefaultMemPool(&pool, opt.device) != cudaSuccess ||
        cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved) != cudaSuccess ||
        cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    return reserved > used ? std::size_t(reserved - used) : 0;
  }
  std::size_t free_bytes() { return raw_free() + pool_idle(); }
  // Before a cudaMalloc of `bytes`: idle pool memory goes back to the device if it is needed.
  void make_room(std::size_t bytes) {
    if (bytes <= raw_free()) return;
    cudaMemPool_t pool;
    if (cudaDeviceGetDefaultMemPool(&pool, opt.device) == cudaSuccess) cudaMemPoolTrimTo(pool, 0);
    cudaGetLastError();
  }

  template <class Aff>
  msm_bases resident_bases(int kind, std::span<const Aff> b) {
    auto key = std::make_tuple(kind, static_cast<const void*>(b.data()), b.size());
    auto sample = sample_of(b);
    auto it = bases.find(key);
    if (it != bases.end() && it->second.sample == sample) return bases_of(it->second);
    if (it != bases.end()) bases.erase(it);
    std::size_t bytes = b.size_bytes();
    if (bytes > free_bytes()) {
      evict_bases();  // make room: the cache is only an optimisation
      h_vectors.reset();
      scratch.release();
      side_scratch.release();
      if (bytes > free_bytes()) throw std::runtime_error("cuda msm: the bases do not fit in device memory");
    }
    make_room(bytes);
    dbuf<unsigned char> d(bytes);
    upload_async(d.get(), b.data(), bytes);
    resident r{std::move(d), sample, b.size(), sizeof(Aff), 0};
    if (shifted_allowed(kind, r.n) && !shifted_evicted.count(key)) shift(kind, r);
    return bases_of(bases.emplace(key, std::move(r)).first->second);
  }

  // Device bytes the shifted sets of resident bases take beyond their plain copies.
  std::size_t shifted_extra() const {
    std::size_t total = 0;
    for (const auto& [k, r] : bases)
      if (r.shift_c) total += r.dev.size() - r.n * r.point_bytes;
    return total;
  }
  // The policy: shifted sets when the options allow them, their extra bytes fit the budget, and
  // what stays free covers keep_free plus both MSM lanes' scratch and two staged proofs.
  bool shifted_allowed(int kind, std::size_t n) {
    if (!opt.shifted_bases_bytes || opt.force_window_bits || n < 2) return false;
    const unsigned c = shifted_window_bits(n), sets = msm_windows(c);
    if (std::size_t(sets) * n >= (std::size_t(1) << 31)) return false;  // 31-bit point indices
    const std::size_t pb = kind == 2 ? 192 : 96, bytes = sets * n * pb, extra = bytes - n * pb;
    if (extra > opt.shifted_bases_bytes || shifted_extra() > opt.shifted_bases_bytes - extra) return false;
    auto sh = make_msm_shape(n, sms, c, true);
    std::size_t reserve = opt.keep_free_bytes + msm_g1_scratch(sh) + msm_g2_scratch(sh) + 8 * n * 32;
    return free_bytes() >= bytes + reserve;
  }
  // The shifted sets of n device points at src (queued on the compute stream).
  resident make_sets(int kind, const void* src, std::size_t n) {
    const unsigned c = shifted_window_bits(n), sets = msm_windows(c);
    resident r;
    r.n = n;
    r.point_bytes = kind == 2 ? 192 : 96;
    r.shift_c = c;
    const std::size_t bytes = std::size_t(sets) * n * r.point_bytes;
    if (std::size_t(sets) * n >= (std::size_t(1) << 31)) throw std::invalid_argument("cuda msm: too many points for shifted sets");
    if (bytes > free_bytes()) throw std::runtime_error("cuda msm: the shifted sets do not fit in device memory");
    make_room(bytes);
    r.dev = dbuf<unsigned char>(bytes);
    if (kind == 2) msm_g2_shift(src, n, c, sets, r.dev.get(), compute);
    else msm_g1_shift(src, n, c, sets, r.dev.get(), compute);
    return r;
  }
  // Replaces r's plain points by their shifted sets (set 0 is the plain copy).
  void shift(int kind, resident& r) {
    resident sets = make_sets(kind, r.dev.get(), r.n);
    CUZK_CUDA(cudaStreamSynchronize(compute));  // before the plain copy is freed
    sets.sample = r.sample;
    r = std::move(sets);
  }
  // Shifted sets of device bases the caller owns (built once per pointer and size).
  msm_bases device_shifted_bases(int kind, const void* dev, std::size_t n) {
    auto key = std::make_tuple(kind, dev, n);
    auto it = device_shifted.find(key);
    if (it == device_shifted.end()) it = device_shifted.emplace(key, make_sets(kind, dev, n)).first;
    return bases_of(it->second);
  }

  // The evaluator's two matrices on the device, uploaded on first use (one allocation: row
  // starts, signals and coefficients of A then B, each part 256-byte aligned).
  const resident_pce& resident_matrices(const zk::groth16::constraint_evaluator& pce) {
    const auto& A = pce.a();
    const auto& B = pce.b();
    auto key = std::make_tuple(static_cast<const void*>(&pce), A.entries(), B.entries());
    auto sample = sample_of(std::span<const zk::groth16::fr>(A.coeff)) ^ (sample_of(std::span<const zk::groth16::fr>(B.coeff)) * 31);
    auto it = pces.find(key);
    if (it != pces.end() && it->second.sample == sample) return it->second;
    if (it != pces.end()) pces.erase(it);
    auto align = [](std::size_t x) { return (x + 255) & ~std::size_t(255); };
    auto part_bytes = [&](const zk::groth16::csr_matrix& m) {
      return align(m.row_start.size() * 8) + align(m.signal.size() * 4) + align(m.coeff.size() * 32);
    };
    std::size_t bytes = part_bytes(A) + part_bytes(B);
    if (bytes > free_bytes()) {
      evict_bases();
      pces.clear();
      h_vectors.reset();
      scratch.release();
      side_scratch.release();
      if (bytes > free_bytes()) throw std::runtime_error("cuda synthesize: the constraint matrices do not fit in device memory");
    }
    make_room(bytes);
    resident_pce r;
    r.dev = dbuf<unsigned char>(bytes);
    r.sample = sample;
    unsigned char* p = r.dev.get();
    auto put = [&](const zk::groth16::csr_matrix& m, csr_view& v) {
      v.rows = m.rows();
      v.row_start = reinterpret_cast<const uint64_t*>(p);
      upload_async(p, m.row_start.data(), m.row_start.size() * 8);
      p += align(m.row_start.size() * 8);
      v.signal = reinterpret_cast<const uint32_t*>(p);
      if (!m.signal.empty()) upload_async(p, m.signal.data(), m.signal.size() * 4);
      p += align(m.signal.size() * 4);
      v.coeff = reinterpret_cast<const fr_d*>(p);
      if (!m.coeff.empty()) upload_async(p, m.coeff.data(), m.coeff.size() * 32);
      p += align(m.coeff.size() * 32);
    };
    put(A, r.a);
    put(B, r.b);
    return pces.emplace(key, std::move(r)).first->second;
  }

  // Points per device run so that the scratch in `ar` fits next to what is resident (and, when
  // `reserve` is given, next to that many more bytes another lane will take).
  msm_shape shape_of(std::size_t len, const msm_bases& mb) const {
    return mb.stride ? make_msm_shape(len, sms, mb.c, true) : make_msm_shape(len, sms, opt.force_window_bits);
  }
  template <bool G2>
  std::size_t scratch_need(std::size_t len, const msm_bases& mb) const {
    auto sh = shape_of(len, mb);
    return G2 ? msm_g2_scratch(sh) : msm_g1_scratch(sh);
  }
  template <bool G2>
  std::size_t chunk_points(std::size_t n, const msm_bases& mb, arena& ar, std::size_t reserve = 0) {
    if (opt.force_msm_chunk) return std::min(n, opt.force_msm_chunk);
    std::size_t avail = free_bytes() + ar.capacity();
    avail = avail > reserve ? avail - reserve : 0;
    std::size_t chunk = n;
    for (;;) {
      std::size_t need = scratch_need<G2>(chunk, mb);
      if (need <= avail) {
        if (need > ar.capacity()) make_room(need - ar.capacity() + reserve);
        return chunk;
      }
      if (chunk <= 1024) throw std::runtime_error("cuda msm: not enough device memory even for a small chunk");
      chunk = (chunk + 1) / 2;
    }
  }
  template <bool G2>
  std::size_t chunk_points(std::size_t n, const msm_bases& mb) {
    return chunk_points<G2>(n, mb, scratch);
  }

  // Each MSM chunk's sum goes to a slot of `result`; the host reads them all in one copy after
  // the last kernel, instead of synchronizing once per MSM.
  static constexpr std::size_t result_slot_bytes = 384;  // an XYZZ G2 point, the larger kind
  std::vector<unsigned char> result_host;
  void ensure_result_slots(std::size_t slots) {
    if (result.size() < slots * result_slot_bytes) {
      CUZK_CUDA(cudaStreamSynchronize(compute));
      result.reset();
      result = dbuf<unsigned char>(slots * result_slot_bytes);
    }
    if (result_host.size() < slots * result_slot_bytes) result_host.resize(slots * result_slot_bytes);
  }
  static std::size_t chunks_of(std::size_t n, std::size_t chunk) { return n ? (n + chunk - 1) / chunk : 0; }

  // Enqueues sum s_i b_i in chunks of `chunk` points; chunk j's sum goes to slot first + j.
  // (A chunk of shifted bases is the same point range of every set: the stride stays.)
  template <bool G2>
  void msm_enqueue(const msm_bases& mb, const uint64_t* dscalars, std::size_t n, std::size_t chunk,
                   std::size_t first) {
    msm_enqueue<G2>(mb, dscalars, n, chunk, first, scratch, compute);
  }
  template <bool G2>
  void msm_enqueue(const msm_bases& mb, const uint64_t* dscalars, std::size_t n, std::size_t chunk,
                   std::size_t first, arena& ar, cudaStream_t st) {
    constexpr std::size_t aff_bytes = G2 ? 192 : 96;
    for (std::size_t off = 0, j = first; off < n; off += chunk, ++j) {
      std::size_t len = std::min(chunk, n - off);
      auto sh = shape_of(len, mb);
      const void* b = static_cast<const unsigned char*>(mb.ptr) + off * aff_bytes;
      void* out = result.get() + j * result_slot_bytes;
      if (G2) ::cuzk::gpu::msm_g2_device(b, dscalars + 4 * off, sh, mb.stride, ar, out, st);
      else ::cuzk::gpu::msm_g1_device(b, dscalars + 4 * off, sh, mb.stride, ar, out, st);
    }
  }
  // Copies `slots` results to the host after the compute stream's work (one synchronization).
  void read_results(std::size_t slots) {
    if (!slots) return;
    CUZK_CUDA(cudaMemcpyAsync(result_host.data(), result.get(), slots * result_slot_bytes, cudaMemcpyDeviceToHost,
                              compute));
    CUZK_CUDA(cudaStreamSynchronize(compute));
  }
  template <class Jac, class Xyzz>
  Jac sum_results(std::size_t first, std::size_t count) const {
    Jac total = Jac::identity();
    for (std::size_t j = first; j < first + count; ++j) {
      Xyzz r;
      std::memcpy(&r, result_host.data() + j * result_slot_bytes, sizeof r);
      total += r.to_jacobian();
    }
    return total;
  }

  template <bool G2, class Jac, class Xyzz>
  Jac msm_resident(const msm_bases& mb, const uint64_t* dscalars, std::size_t n) {
    if (n == 0) return Jac::identity();
    std::size_t chunk = chunk_points<G2>(n, mb), count = chunks_of(n, chunk);
    ensure_result_slots(count);
    msm_enqueue<G2>(mb, dscalars, n, chunk, 0);
    read_results(count);
    return sum_results<Jac, Xyzz>(0, count);
  }

  // h and the five MSMs of one proof on inputs staged in device memory: one synchronization.
  zk::groth16::proof_sums prove_device(const zk::groth16::key_points& key, cuda_staged& in,
                                       zk::groth16::prove_timings* t) {
    std::lock_guard lock(mu);
    CUZK_CUDA(cudaSetDevice(opt.device));
    if (in.device() != opt.device) throw std::invalid_argument("cuda prove: inputs staged on another device");
    const std::size_t n = in.n(), nv = in.n_vars(), npf = key.n_private_from;
    if (key.h.size() != n || key.a.size() != nv || key.b1.size() != nv || key.b2.size() != nv ||
        npf > nv || key.c.size() != nv - npf)
      throw std::invalid_argument("cuda prove: staged inputs do not match the key's sizes");
    unsigned L = 0;
    while ((std::size_t(1) << L) < n) ++L;
    // A first proof of a key uploads its points (on the staging stream, ordered by event).
    const msm_bases ba = resident_bases<zk::groth16::g1_affine>(1, key.a);
    const msm_bases bb1 = resident_bases<zk::groth16::g1_affine>(1, key.b1);
    const msm_bases bb2 = resident_bases<zk::groth16::g2_affine>(2, key.b2);
    const msm_bases bc = resident_bases<zk::groth16::g1_affine>(1, key.c);
    const msm_bases bh = resident_bases<zk::groth16::g1_affine>(1, key.h);
    ntt.prepare(L, compute);
    // The G1 lane's chunk is planned for the most demanding of its four MSMs (one scratch arena).
    std::size_t g1_need = 0, g1_len = std::max(nv, n);
    const msm_bases* g1_most = &ba;
    for (const msm_bases* mb : {&ba, &bb1, &bc, &bh}) {
      std::size_t need = scratch_need<false>(g1_len, *mb);
      if (need > g1_need) g1_need = need, g1_most = mb;
    }
    // The G2 MSM gets the side lane when its scratch fits whole next to the G1 lane's.
    std::size_t c2 = chunk_points<true>(nv, bb2, side_scratch, std::max(g1_need, scratch.capacity()) - scratch.capacity());
    const bool two_lanes = c2 == nv && !opt.force_msm_chunk;
    if (!two_lanes) c2 = chunk_points<true>(nv, bb2);
    std::size_t c1 = chunk_points<false>(g1_len, *g1_most);
    std::size_t na = chunks_of(nv, c1), nc = chunks_of(nv - npf, c1), nh = chunks_of(n, c1), nb2 = chunks_of(nv, c2);
    std::size_t slot_a = 0, slot_b1 = na, slot_b2 = 2 * na, slot_c = slot_b2 + nb2, slot_h = slot_c + nc;
    ensure_result_slots(slot_h + nh);

    const uint64_t* w = in.witness();
    CUZK_CUDA(cudaStreamWaitEvent(compute, in.ready(), 0));
    CUZK_CUDA(cudaEventRecord(stage_ev[0], compute));
    ntt.compute_h(in.vec(0), in.vec(1), in.vec(2), L, compute);  // h (canonical) ends in a
    CUZK_CUDA(cudaEventRecord(stage_ev[1], compute));
    msm_enqueue<false>(ba, w, nv, c1, slot_a);
    CUZK_CUDA(cudaEventRecord(stage_ev[2], compute));
    msm_enqueue<false>(bb1, w, nv, c1, slot_b1);
    CUZK_CUDA(cudaEventRecord(stage_ev[3], compute));
    if (two_lanes) {
      CUZK_CUDA(cudaStreamWaitEvent(side, in.ready(), 0));
      CUZK_CUDA(cudaStreamWaitEvent(side, uploaded, 0));  // a first proof's points (staging stream)
      CUZK_CUDA(cudaEventRecord(side_t0, side));
      msm_enqueue<true>(bb2, w, nv, c2, slot_b2, side_scratch, side);
      CUZK_CUDA(cudaEventRecord(side_t1, side));
      CUZK_CUDA(cudaEventRecord(side_done, side));
    } else {
      msm_enqueue<true>(bb2, w, nv, c2, slot_b2);
    }
    CUZK_CUDA(cudaEventRecord(stage_ev[4], compute));
    msm_enqueue<false>(bc, w + 4 * npf, nv - npf, c1, slot_c);
    CUZK_CUDA(cudaEventRecord(stage_ev[5], compute));
    msm_enqueue<false>(bh, reinterpret_cast<const uint64_t*>(in.vec(0)), n, c1, slot_h);
    CUZK_CUDA(cudaEventRecord(stage_ev[6], compute));
    if (two_lanes) CUZK_CUDA(cudaStreamWaitEvent(compute, side_done, 0));
    in.release_after(compute);
    read_results(slot_h + nh);

    zk::groth16::proof_sums out;
    out.a = sum_results<g1_jacobian, g1_xyzz>(slot_a, na);
    out.b1 = sum_results<g1_jacobian, g1_xyzz>(slot_b1, na);
    out.b2 = sum_results<g2_jacobian, g2_xyzz>(slot_b2, nb2);
    out.c = sum_results<g1_jacobian, g1_xyzz>(slot_c, nc);
    out.h = sum_results<g1_jacobian, g1_xyzz>(slot_h, nh);
    if (t) {
      // With two lanes the G2 MSM overlaps the G1 MSMs: each figure is that MSM's own span, and
      // they add up to more than the proof took.
      double* fields[6] = {&t->h, &t->msm_a, &t->msm_b1, &t->msm_b2, &t->msm_c, &t->msm_h};
      for (int i = 0; i < 6; ++i) {
        float ms = 0;
        if (i == 3 && two_lanes) CUZK_CUDA(cudaEventElapsedTime(&ms, side_t0, side_t1));
        else CUZK_CUDA(cudaEventElapsedTime(&ms, stage_ev[i], stage_ev[i + 1]));
        *fields[i] = ms * 1e-3;
      }
    }
    return out;
  }

  template <bool G2, class Jac, class Xyzz, class Aff>
  Jac msm_host(std::span<const Aff> b, std::span<const scalar> s) {
    if (b.size() != s.size()) throw std::invalid_argument("cuda msm: bases and scalars differ in length");
    std::lock_guard lock(mu);
    CUZK_CUDA(cudaSetDevice(opt.device));
    if (b.empty()) return Jac::identity();
    const msm_bases db = resident_bases<Aff>(G2 ? 2 : 1, b);
    if (scalars.size() < 4 * s.size()) {
      scalars.reset();
      scalars = dbuf<uint64_t>(4 * s.size());
    }
    upload_async(scalars.get(), s.data(), s.size_bytes());
    return msm_resident<G2, Jac, Xyzz>(db, scalars.get(), s.size());
  }
};

cuda_backend::cuda_backend(cuda_options opt) : impl_(std::make_unique<impl>(opt)) {}
std::string cuda_backend::name() const {
  return impl_->opt.device == 0 ? "cuda" : "cuda:" + std::to_string(impl_->opt.device);
}
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
      I.evict_bases();
      I.scratch.release();
    }
    if (need > I.free_bytes()) throw std::runtime_error("cuda compute_h: the three vectors do not fit in device memory");
    I.make_room(need);
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

std::unique_ptr<zk::groth16::staged_inputs> cuda_backend::stage(zk::groth16::synthesis&& syn,
                                                               std::span<const scalar> witness) {
  return stage_on(impl_->staging, std::move(syn), witness);
}

std::unique_ptr<zk::groth16::staged_inputs> cuda_backend::synthesize(const zk::groth16::constraint_evaluator& pce,
                                                                    std::span<const scalar> witness) {
  if (witness.size() != pce.n_vars())
    throw zk::input_error("witness has " + std::to_string(witness.size()) + " values, the key expects nVars = " +
                          std::to_string(pce.n_vars()));
  auto& I = *impl_;
  std::lock_guard lock(I.mu);
  CUZK_CUDA(cudaSetDevice(I.opt.device));
  const auto& m = I.resident_matrices(pce);  // on the staging stream, before the witness
  const std::size_t n = pce.domain_size();
  auto staged = std::make_unique<cuda_staged>(I.staging, n, witness.size());
  staged->staging().upload(staged->vec(3), witness.data(), witness.size_bytes());
  synthesize_device(m.a, m.b, staged->vec(3), n, staged->vec(0), staged->vec(1), staged->vec(2), staged->stream());
  CUZK_CUDA(cudaEventRecord(staged->ready(), staged->stream()));
  // Waited for here, so that the prover's synthesis time is the synthesis (the proof would wait
  // for it anyway).
  CUZK_CUDA(cudaEventSynchronize(staged->ready()));
  return staged;
}

std::unique_ptr<zk::groth16::stager> cuda_backend::make_stager() {
  return std::make_unique<cuda_stager>(std::make_shared<staging_context>(impl_->opt.device, impl_->opt.staging_bytes));
}

zk::groth16::proof_sums cuda_backend::prove_sums(const zk::groth16::key_points& key, zk::groth16::staged_inputs& in,
                                                 zk::groth16::prove_timings* t) {
  if (auto* dev = dynamic_cast<cuda_staged*>(&in)) {
    // Device-staged inputs go through snarkjs's h; bellperson keys are staged on the host
    // (groth16::prove does so), where the default path computes the coset h.
    if (key.bellperson) throw std::invalid_argument("cuda prove: a bellperson key needs host-staged inputs");
    return impl_->prove_device(key, *dev, t);
  }
  return backend::prove_sums(key, in, t);  // host inputs: compute_h and the MSMs upload them
}

g1_jacobian cuda_backend::msm_g1(std::span<const g1_affine> bases, std::span<const scalar> scalars) {
  return impl_->msm_host<false, g1_jacobian, g1_xyzz>(bases, scalars);
}
g2_jacobian cuda_backend::msm_g2(std::span<const g2_affine> bases, std::span<const scalar> scalars) {
  return impl_->msm_host<true, g2_jacobian, g2_xyzz>(bases, scalars);
}
g1_jacobian cuda_backend::msm_g1_device(const void* bases, const void* scalars, std::size_t n, bool shifted) {
  std::lock_guard lock(impl_->mu);
  CUZK_CUDA(cudaSetDevice(impl_->opt.device));
  impl::msm_bases mb{bases};
  if (shifted) mb = impl_->device_shifted_bases(1, bases, n);
  return impl_->msm_resident<false, g1_jacobian, g1_xyzz>(mb, static_cast<const uint64_t*>(scalars), n);
}
g2_jacobian cuda_backend::msm_g2_device(const void* bases, const void* scalars, std::size_t n, bool shifted) {
  std::lock_guard lock(impl_->mu);
  CUZK_CUDA(cudaSetDevice(impl_->opt.device));
  impl::msm_bases mb{bases};
  if (shifted) mb = impl_->device_shifted_bases(2, bases, n);
  return impl_->msm_resident<true, g2_jacobian, g2_xyzz>(mb, static_cast<const uint64_t*>(scalars), n);
}
unsigned cuda_backend::shift_bases_device(const void* bases, std::size_t n, bool g2) {
  std::lock_guard lock(impl_->mu);
  CUZK_CUDA(cudaSetDevice(impl_->opt.device));
  auto mb = impl_->device_shifted_bases(g2 ? 2 : 1, bases, n);
  CUZK_CUDA(cudaStreamSynchronize(impl_->compute));
  return mb.c;
}
std::size_t cuda_backend::shifted_bytes() const {
  std::lock_guard lock(impl_->mu);
  return impl_->shifted_extra();
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
  CUZK_CUDA(cudaSetDevice(impl_->opt.device));
  CUZK_CUDA(cudaStreamSynchronize(impl_->compute));
  impl_->bases.clear();
  impl_->device_shifted.clear();
  impl_->pces.clear();
  impl_->scratch.release();
  impl_->side_scratch.release();
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
  auto options = [](int ordinal, const zk::groth16::backend_settings& s = {}) {
    cuda_options o;
    o.device = ordinal;
    o.shifted_bases_bytes = std::size_t(std::min<std::uint64_t>(s.shifted_bases_bytes, SIZE_MAX));
    o.keep_free_bytes = std::size_t(std::min<std::uint64_t>(s.keep_free_bytes, SIZE_MAX));
    return o;
  };
  zk::groth16::register_backend(
      "cuda",
      [options](int ordinal, const zk::groth16::backend_settings& s) {
        return std::unique_ptr<zk::groth16::backend>(new cuda_backend(options(ordinal, s)));
      },
      [] { return device_count(); },
      [options](int ordinal) {
        auto o = options(ordinal);
        return std::unique_ptr<zk::groth16::stager>(
            new cuda_stager(std::make_shared<staging_context>(o.device, o.staging_bytes)));
      },
      [](int ordinal) {
        cudaDeviceProp p{};
        if (cudaGetDeviceProperties(&p, ordinal) != cudaSuccess) {
          cudaGetLastError();
          return std::uint64_t{0};
        }
        return std::uint64_t(p.totalGlobalMem);
      });
  return true;
}();
}  // namespace

}  // namespace cuzk::gpu
