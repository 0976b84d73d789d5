// An allocator whose value-initialization does nothing: vector::resize(n) only reserves and sets the
// size, leaving the elements for the caller to write. The witness of a 32 GiB PoRep partition is
// 130M field elements (4 GB): zeroing them on one thread before sixteen threads overwrite their
// slices would cost as much as the synthesis itself. Only for trivially copyable element types whose
// every element is written before it is read.
#pragma once

#include <memory>
#include <type_traits>
#include <utility>

namespace cuzk::zk {

template <class T>
struct uninitialized_allocator : std::allocator<T> {
  static_assert(std::is_trivially_copyable_v<T>);
  template <class U>
  struct rebind {
    using other = uninitialized_allocator<U>;
  };
  uninitialized_allocator() = default;
  template <class U>
  uninitialized_allocator(const uninitialized_allocator<U>&) noexcept {}
  template <class U>
  void construct(U*) noexcept {}  // value-initialization: left to the caller
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

}  // namespace cuzk::zk
