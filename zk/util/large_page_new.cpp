// Global operator new/delete for the cuzk executables: allocations of 1 MiB and more are 2 MiB
// aligned and marked MADV_HUGEPAGE.
//
// Why: a proof allocates and first-touches a few hundred MB of short-lived arrays (evaluations,
// h, MSM bases in vector form, bucket arrays). With 4 KiB pages that is tens of thousands of page
// faults and TLB misses, about a fifth of a 2^16 CPU proof on a 2-core machine. Distributions ship transparent huge pages in "madvise" mode, so huge pages need
// the madvise. Everything still goes through malloc/free, so sanitizers and malloc tools see
// matched pairs.
//
// Linked into the executables only (an object library: CMake target cuzk_large_pages), never into
// cuzk_zk, so that programs embedding the library keep their own allocator.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

#include "zk/util/large_page_stats.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace {

constexpr std::size_t huge_page = std::size_t{2} << 20;
constexpr std::size_t large = std::size_t{1} << 20;  // (rounded up to whole huge pages)

std::atomic<std::uint64_t> large_calls{0}, large_bytes{0};

// align: 0 for plain new (malloc's alignment), else the type's alignment (a power of two).
void* allocate(std::size_t n, std::size_t align) {
  for (;;) {
    void* p = nullptr;
    if (n >= large && align <= huge_page) {
      const std::size_t rounded = (n + huge_page - 1) / huge_page * huge_page;
      p = std::aligned_alloc(huge_page, rounded);
      large_calls.fetch_add(1, std::memory_order_relaxed);
      large_bytes.fetch_add(rounded, std::memory_order_relaxed);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
      if (p) ::madvise(p, rounded, MADV_HUGEPAGE);  // advice only: failure leaves small pages
#endif
    } else if (align) {
      p = std::aligned_alloc(align, (std::max<std::size_t>(n, 1) + align - 1) / align * align);
    } else {
      p = std::malloc(n ? n : 1);
    }
    if (p) return p;
    std::new_handler h = std::get_new_handler();
    if (!h) throw std::bad_alloc();
    h();
  }
}

}  // namespace

cuzk::large_allocation_counts cuzk::large_allocations() { return {large_calls.load(), large_bytes.load()}; }

void* operator new(std::size_t n) { return allocate(n, 0); }
void* operator new[](std::size_t n) { return allocate(n, 0); }
void* operator new(std::size_t n, std::align_val_t a) { return allocate(n, std::size_t(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return allocate(n, std::size_t(a)); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
