// The bucket accumulation's first level in whole waves (cuda_options::msm_whole_waves): a host
// rule, apart so that the CPU tests check it.
#pragma once

#include <algorithm>
#include <cstddef>

namespace cuzk::gpu {

// The slice (sorted pairs per thread) for M pairs planned at K pairs a thread, when one wave of
// the kernel's resident blocks is `wave` threads: the smallest slice of at least K whose threads
// fill as many whole waves as the planned threads fill (K itself when they fill none). Equal
// slices take equal times, so a wave begun by a few blocks costs most of a wave: G1 2^24 bits90's
// 1.68M others (16 windows, M = 26.8M) planned 198 pairs a thread, 1,060 blocks of 128 where one
// wave is 528 (4 blocks on each of 132 SMs): 2 waves and 4 blocks; 199 pairs make 1,054 blocks.
// Never below K, so never more threads (nor slots' scratch) than planned.
constexpr unsigned msm_whole_waves_slice(std::size_t M, unsigned K, std::size_t wave) {
  if (K == 0 || wave == 0) return K;
  const std::size_t waves = ((M + K - 1) / K) / wave;
  return waves ? unsigned(std::max<std::size_t>(K, (M + waves * wave - 1) / (waves * wave))) : K;
}

}  // namespace cuzk::gpu
