// Where the points of a synthetic SRS come from, written once for the host (the CPU generator and
// the tests' recomputation) and the device (gpu/src/synthetic_srs.cu), as xyzz_formulas.hpp is.
//
// Section s of n points is cut into `lanes` runs of m = ceil(n / lanes) consecutive points (by
// default runs of 256: lanes_for). Run t starts at k_t G (k_t: 254 random bits from splitmix64 of the seed, the section and t, never zero)
// and walks by a fixed random step Q_s = q_s G: point t m + j = k_t G + j Q_s. So each thread pays one
// scalar multiplication and then one addition per point, every point is a random-looking point of
// the prime-order subgroup, and two points coincide (or one is the identity) only if
// k_t - k_u = (i - j) q_s mod r for some small i - j: with 254-bit random k and q, never in practice
// (the device test checks distinctness and non-identity on its sample).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define CUZK_SRS_FN __host__ __device__ __forceinline__ constexpr
#else
#define CUZK_SRS_FN constexpr inline
#endif

namespace cuzk::zk::groth16::synthetic {

// The sections of a synthetic key; each draws its own scalars.
enum section : std::uint32_t { sec_a = 1, sec_b1 = 2, sec_b2 = 3, sec_l = 4, sec_h = 5, sec_ic = 6, sec_vk = 7 };

// Runs of 256 points: a lane's scalar multiplication (~380 additions) is a small share of its points'
// inversions, a 2^27-point section still has 2^19 lanes (threads) to fill a GPU, and the host's
// generator (one batch inversion per lane) stays fast enough for small shapes.
inline constexpr std::uint64_t points_per_lane = 256;
CUZK_SRS_FN std::uint64_t lanes_for(std::uint64_t n) { return (n + points_per_lane - 1) / points_per_lane; }
CUZK_SRS_FN std::uint64_t run_length(std::uint64_t n, std::uint64_t lanes) {
  return lanes ? (n + lanes - 1) / lanes : 0;
}

CUZK_SRS_FN std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The scalar of run `index` of section `sec` (index ~0: the section's step q): 4 little-endian
// words, below 2^254 < r, odd (so never zero).
CUZK_SRS_FN void scalar_words(std::uint64_t seed, std::uint32_t sec, std::uint64_t index, std::uint64_t out[4]) {
  std::uint64_t s = splitmix64(seed ^ (std::uint64_t{sec} << 56)) ^ splitmix64(index);
  for (int i = 0; i < 4; ++i) {
    s = splitmix64(s + std::uint64_t(i));
    out[i] = s;
  }
  out[3] &= (std::uint64_t{1} << 62) - 1;
  out[0] |= 1;
}
inline constexpr std::uint64_t step_index = ~std::uint64_t{0};

}  // namespace cuzk::zk::groth16::synthetic
