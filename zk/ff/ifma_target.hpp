// CUZK_IFMA_TARGET_BEGIN / _END: the code between them is compiled for AVX-512 F/VL/BW/DQ/IFMA
// (zk/ff/fp_ifma.hpp must be included between them), the rest of the file for baseline x86-64.
// A region rather than flags for the whole file: the inline functions a file shares with others
// (fields, curves, std::) must stay baseline, since the linker may keep any one copy of them.
// Run the region's code only where the CPU has these (msm_detail::vector_msm_available()).
#pragma once

#if defined(__clang__)
#define CUZK_IFMA_TARGET_BEGIN                                                                              \
  _Pragma("clang attribute push(__attribute__((target(\"avx512f,avx512vl,avx512bw,avx512dq,avx512ifma\"))), \
apply_to = function)")
#define CUZK_IFMA_TARGET_END _Pragma("clang attribute pop")
#else
// (GCC 12's own _mm512_set1 / _mm512_undefined trip -Wuninitialized: GCC bug 105593.)
#define CUZK_IFMA_TARGET_BEGIN                                                   \
  _Pragma("GCC push_options")                                                    \
  _Pragma("GCC target(\"avx512f,avx512vl,avx512bw,avx512dq,avx512ifma\")")     \
  _Pragma("GCC diagnostic push")                                                 \
  _Pragma("GCC diagnostic ignored \"-Wuninitialized\"")                          \
  _Pragma("GCC diagnostic ignored \"-Wmaybe-uninitialized\"")
#define CUZK_IFMA_TARGET_END _Pragma("GCC diagnostic pop") _Pragma("GCC pop_options")
#endif
