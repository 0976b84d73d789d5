#include "fil/circuit/sha256.hpp"

#include <string>

#include "zk/cs/gadgets/multipack.hpp"
#include "zk/cs/gadgets/sha256.hpp"

namespace cuzk::fil::circuit {

using zk::cs::constraint_system;
using namespace zk::cs::gadgets;

namespace {

// Bits padded with constant zeros to whole bytes, then each byte's bits reversed, appended to out.
void append_byte_reversed(std::vector<boolean>& out, std::span<const boolean> bits) {
  std::vector<boolean> padded(bits.begin(), bits.end());
  while (padded.size() % 8 != 0) padded.push_back(boolean::constant(false));
  for (std::size_t k = 0; k < padded.size(); k += 8)
    for (int i = 7; i >= 0; --i) out.push_back(padded[k + std::size_t(i)]);
}

}  // namespace

allocated_num sha256_hash_circuit(constraint_system& cs, std::span<const boolean> bits) {
  std::vector<boolean> be;
  {
    constraint_system::scope s(cs, "hash");
    be = sha256(cs, bits);
  }
  std::vector<boolean> le;
  le.reserve(256);
  append_byte_reversed(le, be);
  le.resize(fr_capacity);
  constraint_system::scope s(cs, "pack_le");
  return pack_bits(cs, le);
}

allocated_num sha256_hash_multi_leaf(constraint_system& cs, std::span<const allocated_num> leaves) {
  std::vector<boolean> bits;
  bits.reserve(256 * leaves.size());
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    constraint_system::scope s(cs, std::to_string(i) + "_num_into_bits");
    append_byte_reversed(bits, to_bits_le(cs, leaves[i]));
  }
  return sha256_hash_circuit(cs, bits);
}

}  // namespace cuzk::fil::circuit
