// What the CPU offers the vector code paths, checked once per process, and whether the program
// allows them: libraries read no environment, so the scalar path is chosen by the program (the
// apps map `--no-ifma` / CUZK_NO_IFMA onto set_ifma_allowed before any work starts).
#pragma once

namespace cuzk::zk {

// AVX-512 F/VL/BW/DQ/IFMA with the OS saving ZMM state, and not turned off by
// set_ifma_allowed(false): the IFMA MSM (zk/msm/vector_buckets.cpp), NTT (zk/ntt/ntt_ifma.cpp) and
// point checks (zk/io/point_checks_ifma.cpp) may run.
bool cpu_has_avx512_ifma();

// Process-wide: false makes cpu_has_avx512_ifma() answer false from then on (the scalar paths
// run, for comparison or to rule the vector code out). Call it before proving starts.
void set_ifma_allowed(bool allowed);

// The apps' reading of a CUZK_NO_IFMA-style value: set, non-empty and not "0" means off.
inline bool ifma_off_requested(const char* value) { return value && *value && !(value[0] == '0' && !value[1]); }

}  // namespace cuzk::zk
