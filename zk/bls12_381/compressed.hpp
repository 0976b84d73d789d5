// The zcash / bellperson compressed point encoding of BLS12-381.
//
// G1: 48 bytes, G2: 96 bytes, big-endian x (G2: x.c1 then x.c0), with the three top bits of the
// first byte as flags: 0x80 compressed (always set here), 0x40 point at infinity (then every other
// bit is zero), 0x20 y is the lexicographically largest of the two roots (zero for infinity).
// Decoding validates everything: flags, x < p, x on the curve, the point in the prime subgroup.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "zk/bls12_381/curves.hpp"
#include "zk/error.hpp"  // input_error, thrown by the decoders

namespace cuzk::zk::bls12_381 {

inline constexpr std::size_t g1_compressed_size = 48;
inline constexpr std::size_t g2_compressed_size = 96;

std::array<std::uint8_t, g1_compressed_size> to_compressed(const g1_affine& p);
std::array<std::uint8_t, g2_compressed_size> to_compressed(const g2_affine& p);

// Throw cuzk::zk::input_error naming `what` (e.g. "proof.A") and the defect.
g1_affine g1_from_compressed(std::span<const std::uint8_t, g1_compressed_size> bytes,
                             std::string_view what = "G1 point");
g2_affine g2_from_compressed(std::span<const std::uint8_t, g2_compressed_size> bytes,
                             std::string_view what = "G2 point");

}  // namespace cuzk::zk::bls12_381
