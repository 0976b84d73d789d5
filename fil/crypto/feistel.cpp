#include "fil/crypto/feistel.hpp"

#include "fil/crypto/hashes.hpp"

namespace cuzk::fil::crypto::feistel {

precomputed precompute(std::uint64_t num_elements) {
  std::uint64_t next_pow4 = 4, log4 = 1;
  while (next_pow4 < num_elements) next_pow4 *= 4, ++log4;
  return {((std::uint64_t{1} << log4) - 1) << log4, (std::uint64_t{1} << log4) - 1, log4};
}

namespace {

std::uint64_t round_function(std::uint64_t right, std::uint64_t key, std::uint64_t right_mask) {
  std::uint8_t data[16];
  for (int i = 0; i < 8; ++i) data[i] = std::uint8_t(right >> (56 - 8 * i)), data[8 + i] = std::uint8_t(key >> (56 - 8 * i));
  const auto h = blake2b512(data);
  std::uint64_t r = 0;
  for (int i = 0; i < 8; ++i) r = r << 8 | h[i];
  return r & right_mask;
}

std::uint64_t encode(std::uint64_t index, std::span<const std::uint64_t> keys, const precomputed& p) {
  std::uint64_t left = (index & p.left_mask) >> p.half_bits, right = index & p.right_mask;
  for (int i = 0; i < rounds; ++i) {
    const std::uint64_t l = right, r = left ^ round_function(right, keys[i], p.right_mask);
    left = l, right = r;
  }
  return left << p.half_bits | right;
}

std::uint64_t decode(std::uint64_t index, std::span<const std::uint64_t> keys, const precomputed& p) {
  std::uint64_t left = (index & p.left_mask) >> p.half_bits, right = index & p.right_mask;
  for (int i = rounds - 1; i >= 0; --i) {
    const std::uint64_t l = right ^ round_function(left, keys[i], p.right_mask), r = left;
    left = l, right = r;
  }
  return left << p.half_bits | right;
}

}  // namespace

std::uint64_t permute(std::uint64_t n, std::uint64_t index, std::span<const std::uint64_t> keys, const precomputed& p) {
  std::uint64_t u = encode(index, keys, p);
  while (u >= n) u = encode(u, keys, p);
  return u;
}

std::uint64_t invert_permute(std::uint64_t n, std::uint64_t index, std::span<const std::uint64_t> keys,
                             const precomputed& p) {
  std::uint64_t u = decode(index, keys, p);
  while (u >= n) u = decode(u, keys, p);
  return u;
}

}  // namespace cuzk::fil::crypto::feistel
