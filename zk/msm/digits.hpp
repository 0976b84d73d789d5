// Signed window digits of 255-bit scalars, shared by the scalar and the vector bucket paths.
//
// Digits are in [-2^(c-1), 2^(c-1)] (Booth recoding: a window whose top bit is set borrows 2^c
// from the next window), so each window needs only 2^(c-1) buckets and a negative digit adds the
// negated point. Digit w depends only on bits [c*w - 1, c*w + c) of the scalar, so windows are
// independent and need no precomputed digit table.
#pragma once

#include <cstddef>
#include <cstdint>

#include "zk/ff/bigint.hpp"

namespace cuzk::zk::msm_detail {

inline constexpr std::size_t scalar_bits = 255;  // BLS12-381's r < 2^255

// Signed digit of window w (bits [c*w, c*w + c)) in [-2^(c-1), 2^(c-1)].
inline int signed_digit(const bigint<4>& s, unsigned w, unsigned c) {
  std::size_t pos = std::size_t(w) * c;
  std::int64_t raw = s.window(pos, c);
  std::int64_t top = raw >> (c - 1);
  std::int64_t carry_in = pos ? std::int64_t(s.bit(pos - 1)) : 0;
  return int(raw - (top << c) + carry_in);
}

// Windows needed so that the top window's top bit is above the scalar (no carry out).
inline unsigned num_windows(unsigned c) { return unsigned((scalar_bits + c) / c); }

}  // namespace cuzk::zk::msm_detail
