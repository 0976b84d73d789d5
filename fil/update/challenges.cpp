#include "fil/update/challenges.hpp"

#include "fil/crypto/poseidon.hpp"

namespace cuzk::fil::update {

namespace {

fr gen(const fr& a, const fr& b) {
  const fr in[2] = {a, b};
  return crypto::poseidon(in, crypto::gen_randomness_tag());
}

}  // namespace

std::vector<std::uint32_t> challenges(const public_params& pp, const fr& comm_r_new, unsigned k) {
  const unsigned bits = pp.challenge_bit_len - pp.partition_bit_len;
  const unsigned per_digest = 254 / bits;
  const unsigned digests = (pp.challenge_count + per_digest - 1) / per_digest;
  std::vector<std::uint32_t> out;
  for (unsigned j = 0; out.size() < pp.challenge_count; ++j) {
    const auto d = gen(comm_r_new, fr::from_u64(std::uint64_t(k) * digests + j)).to_canonical();
    for (unsigned i = 0; i < per_digest && out.size() < pp.challenge_count; ++i) {
      std::uint32_t c = 0;
      for (unsigned b = 0; b < bits; ++b)
        if (d.bit(i * bits + b)) c |= std::uint32_t{1} << b;
      out.push_back(c | (std::uint32_t(k) << bits));
    }
  }
  return out;
}

fr phi(const fr& comm_d_new, const fr& comm_r_old) { return gen(comm_d_new, comm_r_old); }

fr rho(const fr& phi, std::uint32_t high) { return gen(phi, fr::from_u64(high)); }

}  // namespace cuzk::fil::update
