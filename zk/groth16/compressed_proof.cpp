#include "zk/groth16/compressed_proof.hpp"

#include <algorithm>

#include "zk/bls12_381/compressed.hpp"

namespace cuzk::zk::groth16 {

std::array<std::uint8_t, compressed_proof_size> to_compressed(const proof& p) {
  std::array<std::uint8_t, compressed_proof_size> out{};
  auto a = bls12_381::to_compressed(p.a);
  auto b = bls12_381::to_compressed(p.b);
  auto c = bls12_381::to_compressed(p.c);
  std::copy(a.begin(), a.end(), out.begin());
  std::copy(b.begin(), b.end(), out.begin() + 48);
  std::copy(c.begin(), c.end(), out.begin() + 144);
  return out;
}

proof proof_from_compressed(std::span<const std::uint8_t, compressed_proof_size> bytes) {
  proof p;
  p.a = g1_from_compressed(bytes.subspan<0, 48>(), "proof.A");
  p.b = g2_from_compressed(bytes.subspan<48, 96>(), "proof.B");
  p.c = g1_from_compressed(bytes.subspan<144, 48>(), "proof.C");
  return p;
}

}  // namespace cuzk::zk::groth16
