// ChaCha8Rng as rand_chacha 0.3 defines it (the DRG's parent sampler): the 32-byte seed is the key,
// the 64-bit block counter starts at 0 (words 12-13), the stream id is 0 (words 14-15), 8 rounds.
// The output is the keystream read as little-endian u32 words; next_u64 takes two consecutive
// words, low first. rand_core's BlockRng only departs from that when a u64 straddles the end of its
// 64-word buffer at an odd index, which cannot happen when every draw is a u64 (the DRG's case).
#pragma once

#include <array>
#include <cstdint>

namespace cuzk::fil::crypto {

template <int Rounds>
class chacha_rng {
 public:
  explicit chacha_rng(const std::array<std::uint8_t, 32>& seed) {
    for (int i = 0; i < 8; ++i)
      key_[i] = std::uint32_t(seed[4 * i]) | std::uint32_t(seed[4 * i + 1]) << 8 |
                std::uint32_t(seed[4 * i + 2]) << 16 | std::uint32_t(seed[4 * i + 3]) << 24;
  }

  std::uint32_t next_u32() {
    if (index_ == 16) refill();
    return block_[index_++];
  }
  std::uint64_t next_u64() {
    const std::uint64_t lo = next_u32();
    return lo | std::uint64_t(next_u32()) << 32;
  }

 private:
  static std::uint32_t rotl(std::uint32_t x, int n) { return x << n | x >> (32 - n); }
  static void quarter(std::uint32_t& a, std::uint32_t& b, std::uint32_t& c, std::uint32_t& d) {
    a += b, d ^= a, d = rotl(d, 16);
    c += d, b ^= c, b = rotl(b, 12);
    a += b, d ^= a, d = rotl(d, 8);
    c += d, b ^= c, b = rotl(b, 7);
  }
  void refill() {
    std::array<std::uint32_t, 16> s{0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
    for (int i = 0; i < 8; ++i) s[4 + i] = key_[i];
    s[12] = std::uint32_t(counter_), s[13] = std::uint32_t(counter_ >> 32), s[14] = 0, s[15] = 0;
    auto x = s;
    for (int r = 0; r < Rounds; r += 2) {
      quarter(x[0], x[4], x[8], x[12]), quarter(x[1], x[5], x[9], x[13]);
      quarter(x[2], x[6], x[10], x[14]), quarter(x[3], x[7], x[11], x[15]);
      quarter(x[0], x[5], x[10], x[15]), quarter(x[1], x[6], x[11], x[12]);
      quarter(x[2], x[7], x[8], x[13]), quarter(x[3], x[4], x[9], x[14]);
    }
    for (int i = 0; i < 16; ++i) block_[i] = x[i] + s[i];
    ++counter_;
    index_ = 0;
  }

  std::array<std::uint32_t, 8> key_{};
  std::array<std::uint32_t, 16> block_{};
  std::uint64_t counter_ = 0;
  int index_ = 16;
};

using chacha8_rng = chacha_rng<8>;
using chacha20_rng = chacha_rng<20>;  // for known-answer tests of the core

}  // namespace cuzk::fil::crypto
