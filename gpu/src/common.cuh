// CUDA plumbing shared by the backend's translation units: error checks, owning device buffers.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace cuzk::gpu {

[[noreturn]] inline void throw_cuda(cudaError_t e, const char* what, const char* file, int line) {
  throw std::runtime_error(std::string("CUDA error: ") + cudaGetErrorString(e) + " (" + what + ") at " + file + ":" +
                           std::to_string(line));
}

#define CUZK_CUDA(call)                                                      \
  do {                                                                       \
    cudaError_t cuzk_e_ = (call);                                            \
    if (cuzk_e_ != cudaSuccess) ::cuzk::gpu::throw_cuda(cuzk_e_, #call, __FILE__, __LINE__); \
  } while (0)
// After a kernel launch: launch-configuration errors surface here.
#define CUZK_LAUNCHED() CUZK_CUDA(cudaGetLastError())

// Counters behind device_allocations() (cuda_backend.hpp): every cudaMalloc / cudaMallocAsync.
struct alloc_counters {
  std::atomic<std::uint64_t> malloc_calls{0}, malloc_bytes{0}, async_calls{0}, async_bytes{0};
};
alloc_counters& alloc_stats();
inline void count_malloc(std::size_t bytes) {
  alloc_stats().malloc_calls.fetch_add(1, std::memory_order_relaxed);
  alloc_stats().malloc_bytes.fetch_add(bytes, std::memory_order_relaxed);
}
inline void count_malloc_async(std::size_t bytes) {
  alloc_stats().async_calls.fetch_add(1, std::memory_order_relaxed);
  alloc_stats().async_bytes.fetch_add(bytes, std::memory_order_relaxed);
}

// Where a cuda_buf's bytes live: device memory (plain cudaMalloc, counted: one allocator for the
// whole backend), or page-locked host memory (cudaHostAlloc: a streamed key's points and small
// read-backs, copied by DMA at full PCIe speed with no staging copy through the pageable path).
struct device_memory {
  static void* allocate(std::size_t bytes) {
    void* p = nullptr;
    CUZK_CUDA(cudaMalloc(&p, bytes));
    count_malloc(bytes);
    return p;
  }
  static void release(void* p) { cudaFree(p); }
};
struct pinned_memory {
  static void* allocate(std::size_t bytes) {
    void* p = nullptr;
    CUZK_CUDA(cudaHostAlloc(&p, bytes, cudaHostAllocDefault));
    return p;
  }
  static void release(void* p) { cudaFreeHost(p); }
};

// The one owner of an allocation of n T in Memory: freed by its destructor, moved never copied.
template <class T, class Memory>
class cuda_buf {
 public:
  cuda_buf() = default;
  explicit cuda_buf(std::size_t n) : n_(n) {
    if (n) p_ = static_cast<T*>(Memory::allocate(n * sizeof(T)));
  }
  cuda_buf(const cuda_buf&) = delete;
  cuda_buf& operator=(const cuda_buf&) = delete;
  cuda_buf(cuda_buf&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  cuda_buf& operator=(cuda_buf&& o) noexcept {
    reset();
    p_ = std::exchange(o.p_, nullptr);
    n_ = std::exchange(o.n_, 0);
    return *this;
  }
  ~cuda_buf() { reset(); }
  void reset() {
    if (p_) Memory::release(p_);
    p_ = nullptr;
    n_ = 0;
  }
  T* get() const { return p_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * sizeof(T); }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

template <class T>
using dbuf = cuda_buf<T, device_memory>;
using pinned_buf = cuda_buf<unsigned char, pinned_memory>;

inline unsigned blocks_for(std::size_t n, unsigned threads) { return unsigned((n + threads - 1) / threads); }

}  // namespace cuzk::gpu
