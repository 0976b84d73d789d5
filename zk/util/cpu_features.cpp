#include "zk/util/cpu_features.hpp"

#include <cstdlib>
#include <cstring>

namespace cuzk::zk {

bool cpu_has_avx512_ifma() {
  static const bool ok = [] {
    const char* off = std::getenv("CUZK_NO_IFMA");
    if (off && *off && std::strcmp(off, "0") != 0) return false;
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

}  // namespace cuzk::zk
