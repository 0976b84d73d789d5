// The bucket accumulation's first level and the lane pairs' bucket segments in whole waves
// (cuda_options::msm_whole_waves): host rules, apart so that the CPU tests check them.
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

// The bucket segments' length for `windows` windows of `buckets` buckets planned at L buckets a
// segment, when one wave of the segment kernel's resident blocks takes `wave` segments: the
// smallest length of at least L whose segments fill as many whole waves as the planned ones fill
// (L itself when they fill none). A segment's time is its length, so a last wave begun by a few
// segments costs a whole one: G2 2^24 shifted, one window of 2^21 buckets at L = 64 is 32,768
// segments where a wave of the lane pairs' kernel is 25,344 (6 blocks of 32 pairs on 132 SMs):
// two waves of 64, against one of 83. Never below L, so never more segments (nor scratch) than
// planned.
constexpr unsigned msm_whole_waves_segment(unsigned buckets, unsigned windows, unsigned L, std::size_t wave) {
  if (L == 0 || windows == 0 || wave == 0) return L;
  const std::size_t planned = std::size_t(windows) * ((std::size_t(buckets) + L - 1) / L);
  const std::size_t waves = planned / wave;
  if (!waves) return L;
  const std::size_t per_window = waves * wave / windows;
  if (!per_window) return L;  // a wave smaller than the windows
  return unsigned(std::max<std::size_t>(L, (std::size_t(buckets) + per_window - 1) / per_window));
}

}  // namespace cuzk::gpu
