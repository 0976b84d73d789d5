// Page-locking of host memory for a device's DMA. A backend that uploads from host memory (the CUDA
// backend: cudaHostRegister) hands one out through its stager (stager::pinner), and the owner of
// long-lived buffers (partition_buffers: a PoRep key's kept witness vectors) pins them once, so
// that each upload from them runs at the bus's pinned speed with no bounce through staging buffers.
// Pinning changes no byte and takes no memory of its own: the pinned buffers stay accounted where
// they were (the key's host grant).
#pragma once

#include <cstddef>

namespace cuzk::zk::groth16 {

class host_pinner {
 public:
  virtual ~host_pinner() = default;
  // Page-locks [p, p + bytes); false when it cannot (the memory stays pageable and usable).
  virtual bool pin(void* p, std::size_t bytes) = 0;
  // Undoes a pin that succeeded, before the memory is freed.
  virtual void unpin(void* p) = 0;
};

}  // namespace cuzk::zk::groth16
