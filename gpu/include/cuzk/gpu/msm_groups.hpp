// The MSM's groups of bucket arrays (msm.cuh: steps 1-3 run one group at a time, so the sort's
// scratch is one group's pairs): a host rule, apart so that the CPU tests check it.
#pragma once

#include <algorithm>
#include <cstddef>

namespace cuzk::gpu {

// Digit pairs sorted together: at most this many per group, unless one bucket array alone has more.
constexpr std::size_t msm_group_pairs = std::size_t(1) << 29;

// Bucket arrays per group for n points on `sets` shifted sets (an array: one window of plain bases,
// or the `sets` windows sharing one), of `arrays` in all: as many as msm_group_pairs pairs hold,
// rounded down (one at least), all when they fit. Rounded up, a size just short of a power of two
// would take one array more than the cap: n = 2^27 - 1 on 4 sets made groups of two arrays, twice
// the 8.6 GB sort scratch that 2^27 takes.
constexpr unsigned msm_group_arrays(std::size_t n, unsigned sets, unsigned arrays) {
  const std::size_t per_array = std::max<std::size_t>(n * std::max(sets, 1u), 1);
  return unsigned(std::clamp<std::size_t>(msm_group_pairs / per_array, 1, std::max(arrays, 1u)));
}

}  // namespace cuzk::gpu
