#include "zk/groth16/compressed_proof.hpp"

#include <algorithm>
#include <string>

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

std::vector<proof> proofs_from_compressed(std::span<const std::uint8_t> bytes, const std::string& name) {
  if (bytes.empty() || bytes.size() % compressed_proof_size != 0)
    throw input_error(name + ": " + std::to_string(bytes.size()) + " bytes is not a positive multiple of " +
                      std::to_string(compressed_proof_size));
  std::vector<proof> out(bytes.size() / compressed_proof_size);
  for (std::size_t k = 0; k < out.size(); ++k) {
    const std::string where = name + ": partition " + std::to_string(k) + ": ";
    try {
      out[k] = proof_from_compressed(bytes.subspan(k * compressed_proof_size).first<compressed_proof_size>());
    } catch (const input_error& e) {
      throw input_error(where + e.what());
    }
    const char* which = out[k].a.is_identity() ? "proof.A" : out[k].b.is_identity() ? "proof.B"
                        : out[k].c.is_identity() ? "proof.C" : nullptr;
    if (which) throw input_error(where + which + ": point at infinity");
  }
  return out;
}

}  // namespace cuzk::zk::groth16
