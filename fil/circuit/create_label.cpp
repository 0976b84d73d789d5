#include "fil/circuit/create_label.hpp"

#include <stdexcept>

#include "fil/stacked/graph.hpp"
#include "zk/cs/gadgets/multipack.hpp"
#include "zk/cs/gadgets/sha256.hpp"

namespace cuzk::fil::circuit {

using zk::cs::constraint_system;
using namespace zk::cs::gadgets;

std::vector<boolean> reverse_bit_numbering(std::vector<boolean> bits) {
  while (bits.size() % 8 != 0) bits.push_back(boolean::constant(false));
  for (std::size_t k = 0; k < bits.size(); k += 8) std::reverse(bits.begin() + long(k), bits.begin() + long(k) + 8);
  return bits;
}

allocated_num create_label(constraint_system& cs, const std::vector<boolean>& replica_id,
                           const std::vector<const std::vector<boolean>*>& parents, std::uint32_t layer,
                           const uint64_bits& node) {
  if (parents.size() != stacked::total_parents) throw std::logic_error("create_label: not 37 parents");
  if (replica_id.size() < 32 || replica_id.size() > 256) throw std::logic_error("create_label: replica id size");
  std::vector<boolean> msg;
  msg.reserve((2 + stacked::total_parents) * 256);
  msg.insert(msg.end(), replica_id.begin(), replica_id.end());
  msg.resize(256, boolean::constant(false));
  for (int i = 31; i >= 0; --i) msg.push_back(boolean::constant(((layer >> i) & 1) != 0));
  node.append_bits_be(msg);
  msg.resize(512, boolean::constant(false));
  for (const auto* p : parents) {
    msg.insert(msg.end(), p->begin(), p->end());
    while (msg.size() % 256 != 0) msg.push_back(boolean::constant(false));
  }
  std::vector<boolean> digest;
  {
    constraint_system::scope s(cs, "hash");
    digest = sha256(cs, msg);
  }
  auto bits = reverse_bit_numbering(std::move(digest));
  bits.resize(fr_capacity);
  constraint_system::scope s(cs, "result_num");
  return pack_bits(cs, bits);
}

}  // namespace cuzk::fil::circuit
