// filecoin-hashers' Sha256Function circuits (the hasher of comm_d's binary tree). Each leaf is an Fr
// unpacked by AllocatedNum::to_bits_le (255 bits + 1 constant zero pad), its bytes given most
// significant bit first (bit order reversed within each byte, so that the preimage is the leaf's
// 32-byte little-endian encoding as SHA-256 reads it), hashed with padding by bellpepper's sha256, and
// the digest turned back into an Fr the same way: bits reversed within each byte, the first 254 packed
// by pack_bits (what trim_to_fr32 does natively: the top two bits are dropped).
#pragma once

#include <span>

#include "zk/cs/gadgets/num.hpp"

namespace cuzk::fil::circuit {

// Sha256Function::hash_circuit: sha256 ("hash") then pack_bits of the byte-reversed digest ("pack_le").
zk::cs::gadgets::allocated_num sha256_hash_circuit(zk::cs::constraint_system& cs,
                                                   std::span<const zk::cs::gadgets::boolean> bits);
// hash_multi_leaf_circuit (a Merkle node of leaves.size() children) and hash2_circuit.
zk::cs::gadgets::allocated_num sha256_hash_multi_leaf(zk::cs::constraint_system& cs,
                                                      std::span<const zk::cs::gadgets::allocated_num> leaves);

}  // namespace cuzk::fil::circuit
