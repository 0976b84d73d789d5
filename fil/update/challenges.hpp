// storage-proofs-update challenges.rs and vanilla.rs phi / rho: partition k's challenges are the
// bits of digests Poseidon(comm_r_new, k * D + j) (gen-randomness tag, D digests per partition), cut
// into log2(nodes / partitions)-bit chunks, floor(254 / bits) per digest, each with k appended as its
// high bits; phi = Poseidon(comm_d_new, comm_r_old) and rho = Poseidon(phi, high), both with the
// same tag, encode node i as label_r_old + label_d_new * rho(i >> (log2(nodes) - h)).
#pragma once

#include <cstdint>
#include <vector>

#include "fil/types.hpp"
#include "fil/update/public_params.hpp"

namespace cuzk::fil::update {

std::vector<std::uint32_t> challenges(const public_params& pp, const fr& comm_r_new, unsigned k);
fr phi(const fr& comm_d_new, const fr& comm_r_old);
fr rho(const fr& phi, std::uint32_t high);

}  // namespace cuzk::fil::update
