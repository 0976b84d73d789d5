#include "zk/util/cpu_features.hpp"

#include <atomic>

namespace cuzk::zk {

namespace {

std::atomic<bool> ifma_allowed{true};

bool cpu_supports_ifma() {
  static const bool ok = [] {
#if defined(__x86_64__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512ifma");
#else
    return false;
#endif
  }();
  return ok;
}

}  // namespace

bool cpu_has_avx512_ifma() { return ifma_allowed.load(std::memory_order_relaxed) && cpu_supports_ifma(); }

void set_ifma_allowed(bool allowed) { ifma_allowed.store(allowed, std::memory_order_relaxed); }

}  // namespace cuzk::zk
