// bellpepper's SHA-256 circuit (sha256.rs), constraint for constraint.
//  - sha256: pads the message with constant Booleans (1, zeros, the 64-bit bit length), so padding
//    costs nothing, then one compression per 512-bit block ("block i") from the constant IV;
//  - the compression function keeps one MultiEq for its whole run: the message schedule (48 addmany
//    of 4 operands), then 64 rounds. Its trick is deferral: the new a and e are kept as the list of
//    their addends (Maybe::Deferred) and summed by one addmany only when the next round reads them,
//    so "e = d + temp1" and "a = temp1 + temp2" cost one 6- and one 7-operand addmany per round
//    instead of chains of two-operand additions; the final h0/h4 fold the IV word into that list.
//    Rounds read constants for free: with constant state words Ch and Maj fold (boolean.hpp), and
//    an all-constant addmany allocates nothing.
// Output: the 256 digest bits, most significant bit of each word first (into_bits_be).
#pragma once

#include <span>
#include <vector>

#include "zk/cs/gadgets/uint32.hpp"

namespace cuzk::zk::cs::gadgets {

// sha256_compression_function: 512 input bits (big-endian words) and the current state.
std::array<uint32, 8> sha256_compression(constraint_system& cs, std::span<const boolean> block,
                                         const std::array<uint32, 8>& state);
// sha256_block_no_padding: one compression from the IV, digest bits big-endian.
std::vector<boolean> sha256_block_no_padding(constraint_system& cs, std::span<const boolean> block);
// sha256: the padded message (its length a multiple of 8 bits).
std::vector<boolean> sha256(constraint_system& cs, std::span<const boolean> message);

}  // namespace cuzk::zk::cs::gadgets
