// The zcash / bellperson compressed point encoding of BLS12-381.
//
// G1: 48 bytes, G2: 96 bytes, big-endian x (G2: x.c1 then x.c0), with the three top bits of the
// first byte as flags: 0x80 compressed (always set here), 0x40 point at infinity (then every other
// bit is zero), 0x20 y is the lexicographically largest of the two roots (zero for infinity).
// Decoding validates everything: flags, x < p, x on the curve, the point in the prime subgroup.
//
// The uncompressed form (bellperson's .params and .vk files): G1 96 bytes x || y, G2 192 bytes
// x.c1 || x.c0 || y.c1 || y.c0, big-endian, the same three flag bits with 0x80 and 0x20 clear, and
// infinity as 0x40 followed by zeros. Its decoder checks flags, coordinates < p and the curve
// equation only: subgroup checks cost a scalar multiplication each and are the caller's choice
// (a vk is checked fully, a params file's millions of points are not; see zk/io/bellperson.hpp).
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

inline constexpr std::size_t g1_uncompressed_size = 96;
inline constexpr std::size_t g2_uncompressed_size = 192;

void write_uncompressed(const g1_affine& p, std::uint8_t* out);  // 96 bytes
void write_uncompressed(const g2_affine& p, std::uint8_t* out);  // 192 bytes

// Throw input_error naming `what` and the defect (flags, coordinate >= p, not on the curve); the
// point at infinity decodes to the identity (callers that forbid it check is_identity()).
g1_affine g1_from_uncompressed(std::span<const std::uint8_t, g1_uncompressed_size> bytes,
                               std::string_view what = "G1 point");
g2_affine g2_from_uncompressed(std::span<const std::uint8_t, g2_uncompressed_size> bytes,
                               std::string_view what = "G2 point");

}  // namespace cuzk::zk::bls12_381
