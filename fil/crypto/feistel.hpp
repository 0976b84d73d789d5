// The Feistel permutation of storage-proofs-core `crypto/feistel.rs` (the SDR expander's "Chung"
// construction). The domain [0, n) is widened to the smallest even number of bits 2h with 4^h >= n;
// three rounds on (left, right) halves of h bits each, round function = the first 8 bytes (big-endian)
// of BLAKE2b-512(right as u64 BE || key as u64 BE), masked to h bits. Values that land outside [0, n)
// are encrypted again ("cycle walking") until they fall inside, which keeps it a permutation of [0, n).
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace cuzk::fil::crypto::feistel {

inline constexpr int rounds = 3;  // FEISTEL_ROUNDS

struct precomputed {  // FeistelPrecomputed: (left_mask, right_mask, half_bits)
  std::uint64_t left_mask = 0, right_mask = 0, half_bits = 0;
};

precomputed precompute(std::uint64_t num_elements);
std::uint64_t permute(std::uint64_t num_elements, std::uint64_t index, std::span<const std::uint64_t> keys,
                      const precomputed& p);
std::uint64_t invert_permute(std::uint64_t num_elements, std::uint64_t index, std::span<const std::uint64_t> keys,
                             const precomputed& p);

}  // namespace cuzk::fil::crypto::feistel
