// Groth16 values shared by the prover, the verifier, the encoders and the engine.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
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

// A key's points as its file stores them, for a device that converts and checks them itself: a
// bellperson .params file's sections (io::bellperson_params; G1 96 bytes, G2 192: big-endian x || y,
// not Montgomery, the flags in byte 0's top three bits; G2 coordinates c1 before c0). The device
// reads each point straight from the mapping and keeps those that are canonical, on the curve and
// not the identity (rust-fil-proofs does not subgroup-check them either); for the first one that
// is not, `describe(section, index)` gives the one-line error the host decoder gives for it.
struct file_points {
  enum section : int { a, b1, b2, c, h };
  std::span<const std::uint8_t> bytes[5];  // indexed by section
  // The order the host decoder checks them in: the first bad point in this order is the one named.
  static constexpr section check_order[5] = {h, c, a, b1, b2};
  std::function<std::string(int section, std::size_t index)> describe;
};

}  // namespace cuzk::zk::groth16
