// storage-proofs-update gadgets.rs gen_challenge_bits (and allocated_num_to_allocated_bits): a
// partition's challenges drawn in the circuit. Digest j is Poseidon(comm_r_new, k * D + j) with the
// gen-randomness tag (D digests per partition, digest_index_j allocated and tied to the partition
// number by one constraint), unpacked into 255 bits (field_into_allocated_bits_le, then
// `sum 2^i bit_i * ONE = digest`), cut into chunks of `bits_per_challenge` bits, floor(254 / bits)
// challenges per digest.
#pragma once

#include <vector>

#include "zk/cs/gadgets/num.hpp"

namespace cuzk::fil::circuit {

std::vector<zk::cs::gadgets::allocated_bit> allocated_num_to_allocated_bits(zk::cs::constraint_system& cs,
                                                                            const zk::cs::gadgets::allocated_num& num);

// Each challenge's `bits_per_challenge` random bits, least significant first.
std::vector<std::vector<zk::cs::gadgets::allocated_bit>> gen_challenge_bits(
    zk::cs::constraint_system& cs, const zk::cs::gadgets::allocated_num& comm_r_new,
    const zk::cs::gadgets::allocated_num& partition, std::size_t challenges, std::size_t bits_per_challenge);

}  // namespace cuzk::fil::circuit
