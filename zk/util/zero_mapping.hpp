// Address space that reads as zeros and costs nothing until read: an anonymous private mapping,
// read-only, without swap reserved. Keys whose points a device makes or converts itself (a
// synthetic SRS, a bellperson key converted on the GPU) point their host spans here, so that a
// key keeps its shape (section sizes) without holding the points.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace cuzk::zk {

struct zero_mapping {
  void* p = nullptr;
  std::size_t bytes = 0;
  explicit zero_mapping(std::size_t b) : bytes(b) {
    p = ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      p = nullptr;
      throw std::runtime_error("cannot map " + std::to_string(bytes) + " bytes of address space");
    }
  }
  ~zero_mapping() {
    if (p) ::munmap(p, bytes);
  }
  zero_mapping(const zero_mapping&) = delete;
  zero_mapping& operator=(const zero_mapping&) = delete;
};

}  // namespace cuzk::zk
