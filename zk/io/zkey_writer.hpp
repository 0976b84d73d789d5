// Writes a complete Groth16 .zkey in snarkjs's layout (sections 1..10), from keys made in memory
// (`cuzk setup`). snarkjs's `groth16 prove`, `groth16 verify` (through an exported vk) and
// `zkey export verificationkey` accept the result.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "zk/io/zkey.hpp"

namespace cuzk::zk::io {

struct zkey_parts {
  std::uint32_t n_vars = 0, n_public = 0, domain_size = 0;
  groth16::verifying_key vk;  // alpha1, beta1, delta1, beta2, gamma2, delta2, ic (n_public + 1)
  std::span<const g1_affine> a, b1;      // n_vars each
  std::span<const g2_affine> b2;         // n_vars
  std::span<const g1_affine> c;          // n_vars - n_public - 1
  std::span<const g1_affine> h;          // domain_size
  std::span<const zkey_coefficient> coefficients;  // section 4 in the order to write; value = stored repr
  // Section 10: snarkjs's circuit hash (blake2b-512 of the r1cs-derived key; zero when unknown) and no
  // contributions. Only `zkey verify` reads it.
  std::array<std::uint8_t, 64> cs_hash{};
};

// The parts of a loaded key (to rewrite or copy one).
zkey_parts parts_of(const zkey& key);

// The file's bytes; throws std::invalid_argument when the parts are inconsistent (sizes).
std::vector<std::uint8_t> serialize_zkey(const zkey_parts& parts);

// Writes `path` atomically (a temporary file renamed over it); throws std::runtime_error on I/O errors.
void write_zkey(const std::string& path, const zkey_parts& parts);

}  // namespace cuzk::zk::io
