// The Groth16 verifier, with snarkjs's equation:
//   e(-A, B) * e(vk_x, gamma) * e(C, delta) * e(alpha, beta) == 1,  vk_x = IC[0] + sum_i s_i IC[i+1],
// evaluated as one multi-Miller loop and one final exponentiation.
#pragma once

#include <span>

#include "zk/bls12_381/pairing.hpp"
#include "zk/ff/bigint.hpp"
#include "zk/groth16/types.hpp"

namespace cuzk::zk::groth16 {

// True only for a valid proof. False (never a throw) when: the number of public inputs is not
// vk.n_public(), an input is not a canonical Fr value (< r), a proof point is off its curve or
// outside the prime-order subgroup, or the pairing equation fails. The key is trusted as given.
bool verify(const verifying_key& vk, std::span<const bigint<4>> public_inputs, const proof& pi);

// A key with the proof-independent work done once: e(alpha1, beta2) and the Miller-loop lines of
// gamma2 and delta2. Verification then runs a 3-pair Miller loop (about a third less work): for
// checking many proofs of one circuit.
struct prepared_verifying_key {
  verifying_key vk;
  fp12 alpha_beta_inverse;  // e(alpha1, beta2)^-1
  g2_prepared gamma2, delta2;
};
prepared_verifying_key prepare(const verifying_key& vk);
// Same contract and result as verify(vk, ...).
bool verify(const prepared_verifying_key& pvk, std::span<const bigint<4>> public_inputs, const proof& pi);

// e(alpha1, beta2): snarkjs's vk_alphabeta_12.
fp12 alpha_beta(const verifying_key& vk);

}  // namespace cuzk::zk::groth16
