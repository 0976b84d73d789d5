#include "fil/circuit/gen_challenge_bits.hpp"

#include <string>

#include "fil/circuit/poseidon.hpp"
#include "fil/crypto/poseidon.hpp"
#include "zk/cs/gadgets/multipack.hpp"

namespace cuzk::fil::circuit {

using zk::cs::constraint_system;
using zk::cs::linear_combination;
using zk::cs::one_var;
using namespace zk::cs::gadgets;

std::vector<allocated_bit> allocated_num_to_allocated_bits(constraint_system& cs, const allocated_num& num) {
  const auto c = num.value.to_canonical();
  std::vector<allocated_bit> bits;
  bits.reserve(fr_num_bits);
  for (std::size_t i = 0; i < fr_num_bits; ++i) {
    constraint_system::scope s(cs, "bit " + std::to_string(i));
    bits.push_back(allocated_bit::alloc(cs, c.bit(i)));
  }
  if (!cs.recording()) return cs.enforce_unrecorded(), bits;
  linear_combination lc;
  for (std::size_t i = 0; i < bits.size(); ++i) lc.add(bits[i].var, pow2(i));
  constraint_system::scope s(cs, "binary decomp");
  cs.enforce(std::move(lc), linear_combination(one_var), linear_combination(num.var));
  return bits;
}

std::vector<std::vector<allocated_bit>> gen_challenge_bits(constraint_system& cs, const allocated_num& comm_r_new,
                                                           const allocated_num& partition, std::size_t challenges,
                                                           std::size_t bits_per_challenge) {
  const std::size_t per_digest = fr_capacity / bits_per_challenge;
  const std::size_t digests = (challenges + per_digest - 1) / per_digest;
  std::vector<std::vector<allocated_bit>> out;
  out.reserve(challenges);
  for (std::size_t j = 0; j < digests; ++j) {
    const fr d = fr::from_u64(digests), jf = fr::from_u64(j);
    allocated_num digest_index;
    {
      constraint_system::scope s(cs, "digest_index_" + std::to_string(j));
      digest_index = allocated_num::alloc(cs, partition.value * d + jf);
    }
    {
      constraint_system::scope s(cs, "digest_index_" + std::to_string(j) + " == k * digests_per_partition + " +
                                         std::to_string(j));
      linear_combination a;
      a.add(partition.var, d).add(one_var, jf);
      cs.enforce(std::move(a), linear_combination(one_var), linear_combination(digest_index.var));
    }
    allocated_num digest;
    {
      constraint_system::scope s(cs, "digest_" + std::to_string(j));
      const allocated_num pre[2] = {comm_r_new, digest_index};
      digest = poseidon_hash(cs, pre, crypto::gen_randomness_tag());
    }
    std::vector<allocated_bit> bits;
    {
      constraint_system::scope s(cs, "digest_" + std::to_string(j) + "_bits");
      bits = allocated_num_to_allocated_bits(cs, digest);
    }
    const std::size_t take = j + 1 == digests ? challenges - out.size() : per_digest;
    for (std::size_t c = 0; c < take; ++c) {
      const std::size_t from = c * bits_per_challenge, to = std::min(bits.size(), from + bits_per_challenge);
      out.emplace_back(bits.begin() + std::ptrdiff_t(from), bits.begin() + std::ptrdiff_t(to));
    }
  }
  return out;
}

}  // namespace cuzk::fil::circuit
