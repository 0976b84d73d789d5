// The Groth16 verifier, with snarkjs's equation:
//   e(-A, B) * e(vk_x, gamma) * e(C, delta) * e(alpha, beta) == 1,  vk_x = IC[0] + sum_i s_i IC[i+1],
// evaluated as one multi-Miller loop and one final exponentiation.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "zk/bls12_381/pairing.hpp"
#include "zk/ff/bigint.hpp"
#include "zk/groth16/types.hpp"

namespace cuzk::zk::groth16 {

// True only for a valid proof. False (never a throw) when: the number of public inputs is not
// vk.n_public(), an input is not a canonical Fr value (< r), a proof point is off its curve or
// outside the prime-order subgroup, or the pairing equation fails. The key is trusted as given.
bool verify(const verifying_key& vk, std::span<const bigint<4>> public_inputs, const proof& pi);

// A key with the proof-independent work done once (bellperson's PreparedVerifyingKey):
// e(alpha1, beta2) and the Miller-loop lines of gamma2, delta2 and beta2. Verification then runs a
// 3-pair Miller loop (about a third less work): for checking many proofs of one circuit.
struct prepared_verifying_key {
  verifying_key vk;
  fp12 alpha_beta_inverse;  // e(alpha1, beta2)^-1
  g2_prepared gamma2, delta2;
  g2_prepared beta2;  // the batch check's e(Z alpha1, beta2) pair
};
prepared_verifying_key prepare(const verifying_key& vk);
// Same contract and result as verify(vk, ...).
bool verify(const prepared_verifying_key& pvk, std::span<const bigint<4>> public_inputs, const proof& pi);

// STABLE API (zk/fil uses it). Several proofs of one circuit in one pairing check, as bellperson's
// verify_proofs_batch: with random 128-bit z_i (OS CSPRNG),
//   prod_i e(-z_i A_i, B_i) * e(sum_i z_i vk_x_i, gamma) * e(sum_i z_i C_i, delta)
//     == e(alpha, beta)^(-sum_i z_i),
// one (N+3)-pair Miller loop (the right side as the pair e(sum z_i alpha, beta)) and one final
// exponentiation; sum_i z_i vk_x_i is one MSM over the IC points of the z-weighted input sums. A false proof passes with probability
// about 2^-128. When the batch fails, each proof is verified alone so that the answer names the bad
// ones (partition indices). Proofs whose inputs or points fail the pre-checks of verify() are
// invalid without entering the batch. public_inputs[i] belongs to proofs[i] (sizes must match,
// else every index is reported invalid).
struct batch_verdict {
  bool all_valid = false;
  std::vector<std::size_t> invalid;  // ascending partition indices; empty when all_valid
};
batch_verdict verify_batch(const prepared_verifying_key& pvk, std::span<const std::vector<bigint<4>>> public_inputs,
                           std::span<const proof> proofs);

// e(alpha1, beta2): snarkjs's vk_alphabeta_12.
fp12 alpha_beta(const verifying_key& vk);

}  // namespace cuzk::zk::groth16
