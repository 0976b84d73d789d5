// Counts of the host allocations of 1 MiB and more that went through operator new (the cuzk
// executables' allocator, zk/util/large_page_new.cpp; only programs that link it may call this):
// what a steady state of proofs should not add to.
#pragma once

#include <cstdint>

namespace cuzk {

struct large_allocation_counts {
  std::uint64_t calls = 0, bytes = 0;
};
large_allocation_counts large_allocations();

}  // namespace cuzk
