// The compute backend of the prover: the h polynomial and the MSMs. The CPU backend lives in zk/;
// the CUDA backend in gpu/. Given the same inputs, every backend returns the same group elements.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "zk/bls12_381/curves.hpp"

namespace cuzk::zk::groth16 {

using namespace cuzk::zk::bls12_381;
using scalar = bigint<4>;  // canonical (normal-form) scalar, < r

class backend {
 public:
  virtual ~backend() = default;
  virtual std::string name() const = 0;

  // a, b, c: evaluations over the size-n domain (Montgomery form), n = a.size() a power of two.
  // Writes h_i = A_i * B_i - C_i at the odd 2n-th roots g * omega^i (snarkjs's convention),
  // canonical, into h. a, b, c may be clobbered.
  virtual void compute_h(std::span<fr> a, std::span<fr> b, std::span<fr> c, std::span<scalar> h) = 0;

  // sum scalars[i] * bases[i]; bases may contain the point at infinity, scalars may be zero.
  // Backends may cache bases across calls keyed by (bases.data(), bases.size()): keys stay mapped.
  virtual g1_jacobian msm_g1(std::span<const g1_affine> bases, std::span<const scalar> scalars) = 0;
  virtual g2_jacobian msm_g2(std::span<const g2_affine> bases, std::span<const scalar> scalars) = 0;
};

}  // namespace cuzk::zk::groth16
