// Groth16 values shared by the prover, the verifier, the encoders and the engine.
#pragma once

#include <vector>

#include "zk/bls12_381/curves.hpp"

namespace cuzk::zk::groth16 {

using namespace cuzk::zk::bls12_381;

struct verifying_key {
  g1_affine alpha1, beta1, delta1;
  g2_affine beta2, gamma2, delta2;
  std::vector<g1_affine> ic;  // n_public + 1 points
  std::uint32_t n_public() const { return ic.empty() ? 0 : std::uint32_t(ic.size() - 1); }
};

struct proof {
  g1_affine a;
  g2_affine b;
  g1_affine c;
  bool operator==(const proof&) const = default;
};

// The prover's blinding factors. Production draws them from the OS CSPRNG; tests fix them so that
// two backends (or the engine and a direct call) can be compared byte for byte.
struct randomness {
  fr r, s;
};

}  // namespace cuzk::zk::groth16
