// Staging: host -> device copies through two pinned buffers on an upload stream of their own
// (staging_context), and one proof's inputs in device memory (cuda_staged), placed there by the
// backend or by a stager on another thread (cuda_stager) while the device computes. The inputs'
// device memory is a staging slot (staging_slots), kept for the next proof: a steady state of
// proofs allocates nothing.
#pragma once

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "common.cuh"
#include "cuzk/gpu/fields.cuh"
#include "zk/groth16/backend.hpp"
#include "zk/util/parallel.hpp"

namespace cuzk::gpu {

// The device memory of staged inputs, one slot per staged proof, kept when the proof is done for
// the next one of the same size (a partition's inputs have its key's shape: the slot sizes repeat).
// One per device (slots_of_device: the backend's context and every stager of the device share it), so
// a slot freed by a proof on the compute stream serves the stager's next upload: stream order is
// kept by an event per slot (recorded where the slot's last use was enqueued, waited for by the
// next user's stream), never by a host wait. Slots in use are what the VRAM budget granted to the
// staged partitions; idle slots count as free memory (device_context::free_bytes) and go back to
// the device when an allocation needs their room (trim), as the stream-ordered pool's idle memory
// did before (cudaMallocAsync per proof: 2-3 calls a partition). The slots are made ahead by the
// reserve step (reserve: the engine's config::staged_partitions of a key's size when the key goes
// resident, backend::reserve_staging), so that the partitions staged at once in a later sector find theirs;
// acquire still makes one when none of the size is idle (a caller that reserved nothing, or fewer
// than it stages at once). Thread-safe.
class staging_slots {
 public:
  struct slot {
    void* dev = nullptr;
    std::size_t bytes = 0;
    cudaEvent_t free_ev = nullptr;  // the last use's work is done
    bool busy = false;
  };
  explicit staging_slots(int device) : device_(device) {}
  ~staging_slots() {
    cudaSetDevice(device_);
    for (auto& s : slots_) {
      if (s->free_ev) {
        cudaEventSynchronize(s->free_ev);
        cudaEventDestroy(s->free_ev);
      }
      cudaFree(s->dev);
    }
  }
  staging_slots(const staging_slots&) = delete;
  staging_slots& operator=(const staging_slots&) = delete;

  // A slot of exactly `bytes` whose memory `s` may use from now on (s waits for its last use): an
  // idle one, else a new one (cudaMalloc; the idle slots of other sizes go first when it does not
  // fit). Throws naming the size when the device has no room.
  slot* acquire(std::size_t bytes, cudaStream_t s) {
    std::lock_guard lock(mu_);
    for (auto& x : slots_)
      if (!x->busy && x->bytes == bytes) {
        x->busy = true;
        CUZK_CUDA(cudaStreamWaitEvent(s, x->free_ev, 0));
        return x.get();
      }
    auto x = std::make_unique<slot>();
    x->bytes = bytes;
    cudaError_t e = cudaMalloc(&x->dev, bytes);
    if (e != cudaSuccess) {
      cudaGetLastError();
      trim_locked(SIZE_MAX);
      e = cudaMalloc(&x->dev, bytes);
    }
    if (e != cudaSuccess) {
      cudaGetLastError();
      throw std::runtime_error("cuda stage: " + std::to_string(bytes >> 20) +
                               " MiB of device memory for the proof's inputs are not available (" +
                               cudaGetErrorString(e) + ")");
    }
    count_malloc(bytes);
    e = cudaEventCreateWithFlags(&x->free_ev, cudaEventDisableTiming);
    if (e != cudaSuccess) {
      cudaFree(x->dev);
      throw_cuda(e, "cudaEventCreateWithFlags", __FILE__, __LINE__);
    }
    x->busy = true;
    slots_.push_back(std::move(x));
    return slots_.back().get();
  }
  // The reserve step: slots of exactly `bytes` made until `count` of that size exist (busy or
  // idle), each only while the device's free memory less `margin` holds it; idle slots of other
  // sizes go back first, one at a time, while it does not (a bigger key's partitions replace a
  // smaller one's idle slots; those of a key still proving stay while there is room). Never
  // throws for want of room: what does not fit is made at its first use as before. Returns how
  // many slots of `bytes` exist now. (Made idle with their event recorded on no stream: the first
  // user's wait on it returns at once.)
  unsigned reserve(std::size_t bytes, unsigned count, std::size_t margin) {
    std::lock_guard lock(mu_);
    CUZK_CUDA(cudaSetDevice(device_));
    auto have = [&] {
      unsigned n = 0;
      for (auto& x : slots_) n += x->bytes == bytes;
      return n;
    };
    unsigned n = have();
    while (bytes && n < count) {
      while (free_less(margin) < bytes && trim_other_locked(bytes)) {
      }
      if (free_less(margin) < bytes) break;
      auto x = std::make_unique<slot>();
      x->bytes = bytes;
      if (cudaMalloc(&x->dev, bytes) != cudaSuccess) {
        cudaGetLastError();
        break;
      }
      count_malloc(bytes);
      if (cudaEventCreateWithFlags(&x->free_ev, cudaEventDisableTiming) != cudaSuccess) {
        cudaGetLastError();
        cudaFree(x->dev);
        break;
      }
      slots_.push_back(std::move(x));
      ++n;
    }
    return n;
  }
  // The slot is free once the work already enqueued on `s` is done.
  void release(slot* x, cudaStream_t s) {
    std::lock_guard lock(mu_);
    cudaEventRecord(x->free_ev, s);
    x->busy = false;
  }
  std::size_t idle_bytes() const {
    std::lock_guard lock(mu_);
    std::size_t b = 0;
    for (auto& x : slots_) b += x->busy ? 0 : x->bytes;
    return b;
  }
  // Hands idle slots back to the device (after their last use) until `bytes` went back or none is
  // left idle; returns the bytes handed back.
  std::size_t trim(std::size_t bytes) {
    std::lock_guard lock(mu_);
    return trim_locked(bytes);
  }
  std::size_t count() const {
    std::lock_guard lock(mu_);
    return slots_.size();
  }
  // Slots of exactly `bytes`, busy or idle.
  std::size_t count(std::size_t bytes) const {
    std::lock_guard lock(mu_);
    std::size_t n = 0;
    for (auto& x : slots_) n += x->bytes == bytes;
    return n;
  }

 private:
  static std::size_t free_less(std::size_t margin) {
    std::size_t fr = 0, total = 0;
    if (cudaMemGetInfo(&fr, &total) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    return fr > margin ? fr - margin : 0;
  }
  // One idle slot of a size other than `bytes` back to the device (after its last use); false when
  // there is none.
  bool trim_other_locked(std::size_t bytes) {
    for (auto it = slots_.begin(); it != slots_.end(); ++it) {
      auto& x = **it;
      if (x.busy || x.bytes == bytes) continue;
      cudaEventSynchronize(x.free_ev);
      cudaEventDestroy(x.free_ev);
      cudaFree(x.dev);
      slots_.erase(it);
      cudaGetLastError();
      return true;
    }
    return false;
  }

  std::size_t trim_locked(std::size_t bytes) {
    std::size_t freed = 0;
    for (auto it = slots_.begin(); it != slots_.end() && freed < bytes;) {
      auto& x = **it;
      if (x.busy) {
        ++it;
        continue;
      }
      cudaEventSynchronize(x.free_ev);
      cudaEventDestroy(x.free_ev);
      cudaFree(x.dev);
      freed += x.bytes;
      it = slots_.erase(it);
    }
    cudaGetLastError();
    return freed;
  }

  int device_ = 0;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<slot>> slots_;
};

// The device's staging slots: one object per device in the process (made at the first ask, gone
// with its last holder), shared by that device's backend context and every stager of it (the
// engine's stager actor makes its stager through the registry, apart from the backend).
std::shared_ptr<staging_slots> slots_of_device(int device);

// Host (pageable) -> device copies through two pinned buffers on an upload stream of its own. The
// backend has one (key points, host scalars, downloads) and every stager one more, so a stager's
// uploads overlap the backend's kernels. Used by one thread at a time.
struct staging_context {
  int device = 0;
  std::size_t staging_bytes = 0;
  cudaStream_t stream = nullptr;
  void* pinned[2] = {nullptr, nullptr};
  cudaEvent_t pinned_free[2] = {nullptr, nullptr};  // each buffer's last copy is done
  std::shared_ptr<staging_slots> slots;              // the device's (device_context::slots)

  staging_context(int dev, std::size_t bytes, std::shared_ptr<staging_slots> sl)
      : device(dev), staging_bytes(bytes), slots(std::move(sl)) {
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

  // Pageable <-> pinned copies on the host thread pool: one thread's memcpy (~5 GB/s) would be
  // most of a proof's transfer time.
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
// Montgomery, the witness canonical), or [witness] alone (`witness_only`: the proof evaluates a, b,
// c into its device key's vectors first, compact_evaluator.cuh). The memory is a staging slot of
// the device (staging_slots): taken on the stager's stream, given back on the compute stream after
// the proof (or on the stager's stream when dropped unproved), kept for the next proof.
class cuda_staged final : public zk::groth16::staged_inputs {
 public:
  cuda_staged(std::shared_ptr<staging_context> ctx, std::size_t n, std::size_t n_vars, bool witness_only = false)
      : ctx_(std::move(ctx)), n_(n), n_vars_(n_vars), abc_(witness_only ? 0 : 3) {
    CUZK_CUDA(cudaSetDevice(ctx_->device));
    slot_ = ctx_->slots->acquire(device_bytes(), ctx_->stream);
    dev_ = slot_->dev;
    cudaError_t e = cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming);
    if (e != cudaSuccess) {
      ctx_->slots->release(slot_, ctx_->stream);
      throw_cuda(e, "cudaEventCreateWithFlags", __FILE__, __LINE__);
    }
  }
  ~cuda_staged() override {
    if (slot_) ctx_->slots->release(slot_, ctx_->stream);
    if (ready_) cudaEventDestroy(ready_);
  }
  std::size_t device_bytes() const override { return zk::groth16::staged_bytes(n_, n_vars_, abc_ == 0); }

  bool witness_only() const { return abc_ == 0; }
  fr_d* vec(int i) const { return static_cast<fr_d*>(dev_) + std::size_t(i) * n_; }  // a, b, c: not witness_only
  uint64_t* witness() const { return reinterpret_cast<uint64_t*>(static_cast<fr_d*>(dev_) + abc_ * n_); }
  std::size_t n() const { return n_; }
  std::size_t n_vars() const { return n_vars_; }
  int device() const { return ctx_->device; }
  cudaEvent_t ready() const { return ready_; }
  cudaStream_t stream() const { return ctx_->stream; }
  staging_context& staging() const { return *ctx_; }
  void fill(const zk::groth16::synthesis& syn, std::span<const zk::groth16::scalar> w) {
    const void* src[3] = {syn.a.data(), syn.b.data(), syn.c.data()};
    for (int i = 0; i < 3; ++i) ctx_->upload(vec(i), src[i], n_ * 32);
    ctx_->upload(vec(3), w.data(), n_vars_ * 32);
    CUZK_CUDA(cudaEventRecord(ready_, ctx_->stream));
    host_witness_ = w;
  }
  void fill_witness(std::span<const zk::groth16::scalar> w) {
    put_witness(w);
    CUZK_CUDA(cudaEventRecord(ready_, ctx_->stream));
  }
  // The witness into its slot, remembered in host memory too (every staging that uploads one goes
  // through here, so a host part of B2 finds it whatever path synthesized a, b, c).
  void put_witness(std::span<const zk::groth16::scalar> w) {
    ctx_->upload(witness(), w.data(), n_vars_ * 32);
    host_witness_ = w;
  }
  // The witness in host memory (its owner keeps it alive until the proof is done, as for host
  // staging): the host's part of B2 reads it there.
  std::span<const zk::groth16::scalar> host_witness() const { return host_witness_; }
  // After the proof's last kernel on `s`: the slot goes back, free in stream order.
  void release_after(cudaStream_t s) {
    if (slot_) ctx_->slots->release(slot_, s);
    slot_ = nullptr;
    dev_ = nullptr;
  }

 private:
  std::shared_ptr<staging_context> ctx_;
  staging_slots::slot* slot_ = nullptr;
  void* dev_ = nullptr;
  std::size_t n_ = 0, n_vars_ = 0, abc_ = 3;
  cudaEvent_t ready_ = nullptr;
  std::span<const zk::groth16::scalar> host_witness_;
};

inline std::unique_ptr<zk::groth16::staged_inputs> stage_on(const std::shared_ptr<staging_context>& ctx,
                                                            zk::groth16::synthesis&& syn,
                                                            std::span<const zk::groth16::scalar> w) {
  std::size_t n = syn.a.size();
  if (syn.b.size() != n || syn.c.size() != n || n == 0 || (n & (n - 1)))
    throw std::invalid_argument("cuda stage: a, b and c must have the same power-of-two length");
  CUZK_CUDA(cudaSetDevice(ctx->device));
  auto staged = std::make_unique<cuda_staged>(ctx, n, w.size());
  staged->fill(syn, w);
  return staged;
}

// Host memory page-locked for every device (cudaHostRegister, portable): an upload from it is one
// DMA (staging_context::upload sees it pinned), not a copy through the staging buffers. Counted in
// pinned_host() (cuda_backend.hpp).
class cuda_pinner final : public zk::groth16::host_pinner {
 public:
  bool pin(void* p, std::size_t bytes) override;
  void unpin(void* p) override;
};

class cuda_stager final : public zk::groth16::stager {
 public:
  explicit cuda_stager(std::shared_ptr<staging_context> ctx) : ctx_(std::move(ctx)) {}
  std::shared_ptr<zk::groth16::host_pinner> pinner() override { return std::make_shared<cuda_pinner>(); }
  std::unique_ptr<zk::groth16::staged_inputs> stage(zk::groth16::synthesis&& syn,
                                                    std::span<const zk::groth16::scalar> w) override {
    return stage_on(ctx_, std::move(syn), w);
  }
  // prover.cu: the witness alone when `resident` is a device key holding pce's compact evaluator.
  std::unique_ptr<zk::groth16::staged_inputs> stage_witness(const zk::groth16::constraint_evaluator& pce,
                                                            std::span<const zk::groth16::scalar> w,
                                                            const zk::groth16::resident_key* resident) override;

 private:
  std::shared_ptr<staging_context> ctx_;
};

}  // namespace cuzk::gpu
