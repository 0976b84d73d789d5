// What the CPU offers the vector code paths, checked once per process.
#pragma once

namespace cuzk::zk {

// AVX-512 F/VL/BW/DQ/IFMA with the OS saving ZMM state, and CUZK_NO_IFMA unset (or "0"): the
// IFMA MSM (zk/msm/vector_buckets.cpp) and NTT (zk/ntt/ntt_ifma.cpp) may run.
bool cpu_has_avx512_ifma();

}  // namespace cuzk::zk
