// Fixed-width unsigned integers on 64-bit limbs, little-endian limb order.
// The representation every field element, scalar and file field uses: limb[0] is least significant.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cuzk::zk {

using u128 = unsigned __int128;

template <std::size_t N>
struct bigint {
  std::array<std::uint64_t, N> limb{};

  static constexpr std::size_t limbs = N;
  static constexpr std::size_t bits = 64 * N;

  constexpr bool operator==(const bigint&) const = default;

  constexpr bool is_zero() const {
    std::uint64_t acc = 0;
    for (auto l : limb) acc |= l;
    return acc == 0;
  }

  constexpr bool bit(std::size_t i) const { return (limb[i / 64] >> (i % 64)) & 1; }

  // Number of significant bits (0 for zero).
  constexpr std::size_t bit_length() const {
    for (std::size_t i = N; i-- > 0;)
      if (limb[i]) return 64 * i + 64 - static_cast<std::size_t>(__builtin_clzll(limb[i]));
    return 0;
  }

  // Bits [pos, pos + width) as an integer; width <= 32. Bits past the top read as zero.
  constexpr std::uint32_t window(std::size_t pos, std::size_t width) const {
    std::size_t li = pos / 64, sh = pos % 64;
    if (li >= N) return 0;
    std::uint64_t w = limb[li] >> sh;
    if (sh + width > 64 && li + 1 < N) w |= limb[li + 1] << (64 - sh);
    return static_cast<std::uint32_t>(w & ((std::uint64_t{1} << width) - 1));
  }

  // this += b, returns the carry out.
  constexpr std::uint64_t add_in_place(const bigint& b) {
    std::uint64_t carry = 0;
    for (std::size_t i = 0; i < N; ++i) {
      u128 s = u128(limb[i]) + b.limb[i] + carry;
      limb[i] = std::uint64_t(s);
      carry = std::uint64_t(s >> 64);
    }
    return carry;
  }

  // this -= b, returns the borrow out (1 when b > this).
  constexpr std::uint64_t sub_in_place(const bigint& b) {
    std::uint64_t borrow = 0;
    for (std::size_t i = 0; i < N; ++i) {
      u128 d = u128(limb[i]) - b.limb[i] - borrow;
      limb[i] = std::uint64_t(d);
      borrow = std::uint64_t(d >> 64) & 1;
    }
    return borrow;
  }

  constexpr void shr1() {
    for (std::size_t i = 0; i < N; ++i) {
      limb[i] >>= 1;
      if (i + 1 < N) limb[i] |= limb[i + 1] << 63;
    }
  }

  // this = this * m + a (small m, a); returns the overflow limb.
  constexpr std::uint64_t mul_add_small(std::uint64_t m, std::uint64_t a) {
    std::uint64_t carry = a;
    for (std::size_t i = 0; i < N; ++i) {
      u128 p = u128(limb[i]) * m + carry;
      limb[i] = std::uint64_t(p);
      carry = std::uint64_t(p >> 64);
    }
    return carry;
  }

  // this /= d (small d); returns the remainder.
  constexpr std::uint64_t div_small(std::uint64_t d) {
    u128 rem = 0;
    for (std::size_t i = N; i-- > 0;) {
      u128 cur = (rem << 64) | limb[i];
      limb[i] = std::uint64_t(cur / d);
      rem = cur % d;
    }
    return std::uint64_t(rem);
  }

  // Parses "0x..." hex or a decimal string; nullopt on bad characters or overflow.
  static constexpr std::optional<bigint> parse(std::string_view s) {
    bigint r{};
    if (s.empty()) return std::nullopt;
    std::uint64_t base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      base = 16;
      s.remove_prefix(2);
    }
    for (char c : s) {
      std::uint64_t d;
      if (c >= '0' && c <= '9') d = std::uint64_t(c - '0');
      else if (base == 16 && c >= 'a' && c <= 'f') d = std::uint64_t(c - 'a' + 10);
      else if (base == 16 && c >= 'A' && c <= 'F') d = std::uint64_t(c - 'A' + 10);
      else return std::nullopt;
      if (r.mul_add_small(base, d) != 0) return std::nullopt;
    }
    return r;
  }

  std::string to_decimal() const {
    if (is_zero()) return "0";
    bigint t = *this;
    std::string out;
    while (!t.is_zero()) out.push_back(char('0' + t.div_small(10)));
    return std::string(out.rbegin(), out.rend());
  }

  std::string to_hex() const {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out = "0x";
    bool started = false;
    for (std::size_t i = N; i-- > 0;)
      for (int s = 60; s >= 0; s -= 4) {
        unsigned d = unsigned(limb[i] >> s) & 15;
        if (d || started || (i == 0 && s == 0)) {
          out.push_back(digits[d]);
          started = true;
        }
      }
    return out;
  }

  // Little-endian bytes (the on-disk order of every snarkjs/circom file).
  static constexpr bigint from_le_bytes(const std::uint8_t* p) {
    bigint r{};
    for (std::size_t i = 0; i < N; ++i) {
      std::uint64_t w = 0;
      for (std::size_t b = 0; b < 8; ++b) w |= std::uint64_t(p[8 * i + b]) << (8 * b);
      r.limb[i] = w;
    }
    return r;
  }
  constexpr void to_le_bytes(std::uint8_t* p) const {
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t b = 0; b < 8; ++b) p[8 * i + b] = std::uint8_t(limb[i] >> (8 * b));
  }
};

template <std::size_t N>
constexpr bool operator<(const bigint<N>& a, const bigint<N>& b) {
  for (std::size_t i = N; i-- > 0;)
    if (a.limb[i] != b.limb[i]) return a.limb[i] < b.limb[i];
  return false;
}
template <std::size_t N>
constexpr bool operator>=(const bigint<N>& a, const bigint<N>& b) { return !(a < b); }

// Compile-time parse for parameter tables; a bad literal fails the build.
template <std::size_t N>
consteval bigint<N> big(std::string_view s) {
  auto r = bigint<N>::parse(s);
  if (!r) throw "bad bigint literal";
  return *r;
}

}  // namespace cuzk::zk
