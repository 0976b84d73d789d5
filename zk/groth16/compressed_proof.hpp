// A Groth16 proof in the 192-byte zcash/bellperson compressed form: A (48) || B (96) || C (48).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "zk/groth16/types.hpp"

namespace cuzk::zk::groth16 {

inline constexpr std::size_t compressed_proof_size = 192;

std::array<std::uint8_t, compressed_proof_size> to_compressed(const proof& p);
// Full validation of each point (flags, x < p, on curve, in subgroup); throws input_error naming
// the point ("proof.A", "proof.B", "proof.C").
proof proof_from_compressed(std::span<const std::uint8_t, compressed_proof_size> bytes);

// STABLE API (zk/fil uses it). bellperson's multi-partition form: N >= 1 proofs of 192 bytes
// concatenated. Each point is fully validated as above and, as bellperson reads proofs, the
// identity is rejected. Throws input_error with one line naming `name`, the partition and the
// point, e.g. "proof.bin: partition 2: proof.B: point at infinity", or the length
// ("proof.bin: 191 bytes is not a positive multiple of 192").
std::vector<proof> proofs_from_compressed(std::span<const std::uint8_t> bytes, const std::string& name);

}  // namespace cuzk::zk::groth16
