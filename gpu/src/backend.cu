// The CUDA backend's registration as "cuda" and the device queries. The backend itself is in
// pieces along ownership: device_context (streams, pinned staging, pool, scratch), staging (inputs
// onto the device), device_key (a key's points, owned by whoever keeps the key resident), prover
// (h and the MSMs of a proof).
#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>

#include "common.cuh"
#include "cuzk/gpu/cuda_backend.hpp"
#include "staging.cuh"
#include "zk/groth16/backend_registry.hpp"

namespace cuzk::gpu {

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

alloc_counters& alloc_stats() {
  static alloc_counters c;
  return c;
}

std::shared_ptr<staging_slots> slots_of_device(int device) {
  static std::mutex mu;
  static std::map<int, std::weak_ptr<staging_slots>> slots;
  std::lock_guard lock(mu);
  auto& w = slots[device];
  auto s = w.lock();
  if (!s) w = s = std::make_shared<staging_slots>(device);
  return s;
}

namespace {
struct pin_counters {
  std::mutex mu;
  std::map<void*, std::size_t> ranges;
  std::uint64_t pins = 0;
};
pin_counters& pin_stats() {
  static pin_counters c;
  return c;
}
}  // namespace

bool cuda_pinner::pin(void* p, std::size_t bytes) {
  if (!p || !bytes || cudaHostRegister(p, bytes, cudaHostRegisterPortable) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  auto& c = pin_stats();
  std::lock_guard lock(c.mu);
  c.ranges[p] = bytes;
  ++c.pins;
  return true;
}
void cuda_pinner::unpin(void* p) {
  if (cudaHostUnregister(p) != cudaSuccess) cudaGetLastError();
  auto& c = pin_stats();
  std::lock_guard lock(c.mu);
  c.ranges.erase(p);
}

pinned_counts pinned_host() {
  auto& c = pin_stats();
  std::lock_guard lock(c.mu);
  pinned_counts r;
  r.pins = c.pins;
  r.ranges = c.ranges.size();
  for (auto& [p, b] : c.ranges) r.bytes += b;
  return r;
}

allocation_counts device_allocations() {
  auto& c = alloc_stats();
  return {c.malloc_calls.load(), c.malloc_bytes.load(), c.async_calls.load(), c.async_bytes.load()};
}

std::size_t hold_vram_limit(int device, std::size_t limit) {
  static std::mutex mu;
  static std::map<int, std::size_t> held;
  std::lock_guard lock(mu);
  if (auto it = held.find(device); it != held.end()) return it->second;
  CUZK_CUDA(cudaSetDevice(device));
  std::size_t free = 0, total = 0;
  CUZK_CUDA(cudaMemGetInfo(&free, &total));
  std::size_t take = total > limit ? total - limit : 0;
  take = std::min(take, free);
  if (take) {
    void* p = nullptr;
    CUZK_CUDA(cudaMalloc(&p, take));  // never freed: the card is `limit` bytes for this process
  }
  held[device] = take;
  return take;
}

void* device_alloc(std::size_t bytes) {
  void* p = nullptr;
  CUZK_CUDA(cudaMalloc(&p, bytes));
  count_malloc(bytes);
  return p;
}
void device_free(void* p) { cudaFree(p); }
void copy_to_device(void* dst, const void* src, std::size_t bytes) {
  CUZK_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  // From pageable memory cudaMemcpy returns once the bytes are staged, its last DMA possibly still
  // under way on the legacy stream, which the backend's non-blocking streams do not wait for.
  CUZK_CUDA(cudaStreamSynchronize(cudaStreamLegacy));
}
void copy_to_host(void* dst, const void* src, std::size_t bytes) {
  CUZK_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
}

namespace {
const bool registered = [] {
  auto options = [](int ordinal, const zk::groth16::backend_settings& s = {}) {
    cuda_options o;
    o.device = ordinal;
    o.shifted_bases_bytes = std::size_t(std::min<std::uint64_t>(s.shifted_bases_bytes, SIZE_MAX));
    o.keep_free_bytes = std::size_t(std::min<std::uint64_t>(s.keep_free_bytes, SIZE_MAX));
    o.vram_budget_bytes = std::size_t(std::min<std::uint64_t>(s.vram_budget_bytes, SIZE_MAX));
    o.vram_limit_bytes = std::size_t(std::min<std::uint64_t>(s.vram_limit_bytes, SIZE_MAX));
    if (s.staged_partitions) o.staged_partitions = s.staged_partitions;
    o.b2 = s.b2;
    o.b2_split_share = s.b2_split_share;
    o.b2_lane_share = s.b2_lane_share;
    o.b2_host_threads = s.b2_host_threads;
    o.host_busy_threads = s.host_busy_threads;
    o.b2_host_s_per_point = s.b2_host_s_per_point;
    o.b2_device_s_per_point = s.b2_device_s_per_point;
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
            new cuda_stager(std::make_shared<staging_context>(o.device, o.staging_bytes, slots_of_device(o.device))));
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
