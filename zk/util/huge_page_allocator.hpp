// An allocator for buffers of gigabytes that many threads write once (a key's decoded points):
// blocks of 2 MiB or more are anonymous mappings of their own, 2 MiB-aligned and advised for
// transparent huge pages (MADV_HUGEPAGE; the kernel's "madvise" mode gives huge pages only to
// mappings that ask). First touch then costs one page fault per 2 MiB instead of one per 4 KiB: a
// 2^24-row bellperson key decodes into 9.2 GB, 2.3 M small faults that took ~24 s of system time
// across 16 threads and more than the decoding itself; freeing is one munmap of few pages. Smaller
// blocks come from operator new. Value-initialization does nothing, as with uninitialized_allocator:
// only for trivially copyable types whose every element is written before it is read.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace cuzk::zk {

inline constexpr std::size_t huge_page_bytes = std::size_t(2) << 20;

// `bytes` (rounded up to 2 MiB) of zeroed memory, 2 MiB-aligned, advised for huge pages; the rounded
// length goes back to huge_page_free. Throws std::bad_alloc.
inline void* huge_page_alloc(std::size_t bytes) {
  const std::size_t len = (bytes + huge_page_bytes - 1) & ~(huge_page_bytes - 1);
  // Over-map by one huge page, then trim to an aligned start (mmap aligns to 4 KiB only).
  void* raw = ::mmap(nullptr, len + huge_page_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto base = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t start = (base + huge_page_bytes - 1) & ~std::uintptr_t(huge_page_bytes - 1);
  if (start > base) ::munmap(raw, start - base);
  if (const std::size_t tail = base + huge_page_bytes - start; tail) ::munmap(reinterpret_cast<void*>(start + len), tail);
  ::madvise(reinterpret_cast<void*>(start), len, MADV_HUGEPAGE);  // advice only: a kernel without THP ignores it
  return reinterpret_cast<void*>(start);
}
inline void huge_page_free(void* p, std::size_t bytes) {
  ::munmap(p, (bytes + huge_page_bytes - 1) & ~(huge_page_bytes - 1));
}

template <class T>
struct huge_page_allocator {
  static_assert(std::is_trivially_copyable_v<T>);
  using value_type = T;
  template <class U>
  struct rebind {
    using other = huge_page_allocator<U>;
  };
  huge_page_allocator() = default;
  template <class U>
  huge_page_allocator(const huge_page_allocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_alloc();
    if (n * sizeof(T) < huge_page_bytes) return std::allocator<T>().allocate(n);
    return static_cast<T*>(huge_page_alloc(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < huge_page_bytes) std::allocator<T>().deallocate(p, n);
    else huge_page_free(p, n * sizeof(T));
  }
  template <class U>
  void construct(U*) noexcept {}  // value-initialization: left to the caller
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <class U>
  bool operator==(const huge_page_allocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace cuzk::zk
