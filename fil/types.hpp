// The value types every part of fil/ shares: 32-byte domain elements (commitments, ids, tickets),
// conversions to Fr, and the node size. A "domain" is Filecoin's `Domain`: 32 bytes that are the
// little-endian representation of an Fr element (Poseidon) or a SHA-256 digest with its top two bits
// cleared (Sha256Domain, "fr32 safe"), so both convert to Fr.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "zk/bls12_381/fields.hpp"

namespace cuzk::fil {

using fr = zk::bls12_381::fr;
using domain = std::array<std::uint8_t, 32>;  // Commitment, Ticket, PoseidonDomain, Sha256Domain

inline constexpr std::uint64_t node_size = 32;  // NODE_SIZE

// Fr from the 32-byte little-endian representation; throws zk::input_error naming `what` when the
// value is not below the modulus.
fr domain_to_fr(const domain& d, std::string_view what);
// The 32-byte little-endian representation of an Fr element.
domain fr_to_domain(const fr& x);
// bytes_into_fr_repr_safe: clears the top two bits (byte 31 &= 0x3f) so any 32 bytes become an Fr.
inline domain fr32_safe(domain d) {
  d[31] &= 0x3f;
  return d;
}

std::string to_hex(std::span<const std::uint8_t> bytes);
// 64 hex digits (an optional 0x prefix) -> 32 bytes; throws zk::input_error naming `what`.
domain domain_from_hex(std::string_view hex, std::string_view what);

}  // namespace cuzk::fil
