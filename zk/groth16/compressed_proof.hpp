// A Groth16 proof in the 192-byte zcash/bellperson compressed form: A (48) || B (96) || C (48).
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "zk/groth16/types.hpp"

namespace cuzk::zk::groth16 {

inline constexpr std::size_t compressed_proof_size = 192;

std::array<std::uint8_t, compressed_proof_size> to_compressed(const proof& p);
// Full validation of each point (flags, x < p, on curve, in subgroup); throws input_error naming
// the point ("proof.A", "proof.B", "proof.C").
proof proof_from_compressed(std::span<const std::uint8_t, compressed_proof_size> bytes);

}  // namespace cuzk::zk::groth16
