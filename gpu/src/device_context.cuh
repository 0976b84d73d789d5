// One device's context, owned by its cuda_backend: the compute stream and the second MSM lane's
// stream, the backend's staging (pinned buffers on an upload stream), the device's staging slots
// (shared with its stagers), a proof's work buffer, the MSM scratch arenas and result slots, and the
// memory queries every allocation plans with. All of it is kept across proofs, so a steady state
// of proofs allocates no device memory (cuzk_gpu_tests "[alloc]"). It owns no key: a key's points are a device_key (device_key.cuh), made and dropped by
// whoever holds the key resident (the engine's key store), never cached here.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "common.cuh"
#include "cuzk/gpu/fields.cuh"
#include "msm.cuh"
#include "staging.cuh"

namespace cuzk::gpu {

struct device_context {
  device_context(int device, std::size_t staging_bytes, std::size_t safety_margin);
  ~device_context();
  device_context(const device_context&) = delete;
  device_context& operator=(const device_context&) = delete;

  int device = 0;
  int sms = 0;
  std::size_t safety_margin = 0;  // device bytes never planned for
  std::mutex mu;                  // one operation at a time on this context
  cudaStream_t compute = nullptr;
  std::shared_ptr<staging_slots> slots;      // staged inputs' device memory (slots_of_device)
  std::shared_ptr<staging_context> staging;  // pinned buffers allocated once, reused by every copy
  cudaEvent_t uploaded = nullptr, t0 = nullptr, t1 = nullptr;
  // The second MSM lane: a proof's G2 MSM runs here on its own scratch while the G1 MSMs run on
  // the compute stream, so each fills the SMs the other leaves idle (reductions, tails).
  cudaStream_t side = nullptr;
  cudaEvent_t lane_ready = nullptr;  // on the compute stream: the inputs are there, the lane may start
  cudaEvent_t side_done = nullptr, side_t0 = nullptr, side_t1 = nullptr;
  arena scratch, side_scratch;
  // The greatest-priority stream (the others default to the least): a standalone split MSM's
  // bucket method runs here when its ones' sum fills the gaps on the side stream
  // (cuda_options::msm_ones_urgent); urgent_ready on compute starts it, urgent_done ends it.
  cudaStream_t urgent = nullptr;
  cudaEvent_t urgent_ready = nullptr, urgent_done = nullptr;
  // Each MSM chunk's sum goes to a slot of `result`; the host reads them all in one copy.
  static constexpr std::size_t result_slot_bytes = 384;  // an XYZZ G2 point, the larger kind
  dbuf<unsigned char> result;
  std::vector<unsigned char> result_host;
  // A proof's work buffer beside its MSM scratch (the witness gathered at a bellperson key's wires,
  // the split scalars' index lists, counts and CUB temp): kept across proofs, grown when a proof
  // needs more (after the work of both lanes that may still read it), counted in the key's grant as
  // part of its proof's scratch (prover.cu, proof_scratch_bytes).
  dbuf<unsigned char> work;
  // Two device counters (the compact evaluator's check of its entries), on the compute stream.
  dbuf<unsigned long long> counters;

  // Host -> device on the staging stream; the compute stream waits for it by event.
  void upload_async(void* dst, const void* src, std::size_t bytes);
  // Device -> host after the compute stream's work.
  void download(void* dst, const void* src, std::size_t bytes) { staging->download(dst, src, bytes, compute); }

  // Device bytes free for planning: what cudaMemGetInfo reports less the margin, plus the idle
  // staging slots (kept for the next staged proof; make_room hands them back).
  std::size_t raw_free() const;
  std::size_t free_bytes() const { return raw_free() + slots->idle_bytes(); }
  // Before a cudaMalloc of `bytes`: idle staging slots go back to the device if it is needed.
  void make_room(std::size_t bytes) const;
  // The work buffer, at least `bytes` (grown as `alloc` does, naming `what` if it does not fit).
  unsigned char* work_buffer(std::size_t bytes, const char* what);
  // A device allocation of `bytes`, after make_room; throws naming `what` when it does not fit.
  dbuf<unsigned char> alloc(std::size_t bytes, const char* what);

  void ensure_result_slots(std::size_t slots);
  // Drops the scratch arenas and the work buffer (device memory back to the device).
  void release_scratch();
};

}  // namespace cuzk::gpu
