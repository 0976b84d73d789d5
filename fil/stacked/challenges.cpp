#include "fil/stacked/challenges.hpp"

#include <string>

#include "fil/crypto/hashes.hpp"
#include "zk/error.hpp"

namespace cuzk::fil::stacked {

namespace {

// BigUint::from_bytes_le(hash) % (nodes - 1) + 1, by Horner's rule on 64-bit words from the top.
std::uint64_t to_challenge(const crypto::digest32& h, std::uint64_t sector_nodes) {
  const std::uint64_t m = sector_nodes - 1;
  unsigned __int128 r = 0;
  for (int w = 3; w >= 0; --w) {
    std::uint64_t word = 0;
    for (int i = 7; i >= 0; --i) word = word << 8 | h[8 * w + i];
    r = ((r << 64) | word) % m;
  }
  return static_cast<std::uint64_t>(r) + 1;
}

void check_nodes(std::uint64_t sector_nodes) {
  if (sector_nodes < 2 || sector_nodes >= (std::uint64_t{1} << 32))
    throw zk::input_error("porep challenges: " + std::to_string(sector_nodes) + " sector nodes is out of range");
}

}  // namespace

std::vector<std::uint64_t> interactive_challenges(std::uint64_t sector_nodes, unsigned per_partition,
                                                  const domain& replica_id, const domain& seed, unsigned k) {
  check_nodes(sector_nodes);
  std::vector<std::uint64_t> out;
  out.reserve(per_partition);
  for (unsigned i = 0; i < per_partition; ++i) {
    const auto j = static_cast<std::uint32_t>(per_partition * std::uint64_t(k) + i);
    out.push_back(to_challenge(crypto::sha256().update(replica_id).update(seed).update_u32_le(j).finish(), sector_nodes));
  }
  return out;
}

std::vector<std::uint64_t> ni_challenges(std::uint64_t sector_nodes, unsigned per_partition, const domain& replica_id,
                                         const domain& comm_r, unsigned k) {
  check_nodes(sector_nodes);
  crypto::sha256 init;
  init.update("filecoin.io|PoRep|1|NonInteractive|1").update(replica_id).update(comm_r);
  std::vector<std::uint64_t> out;
  out.reserve(per_partition);
  for (unsigned i = 0; i < per_partition; ++i) {
    const auto j = static_cast<std::uint32_t>(per_partition * std::uint64_t(k) + i);
    out.push_back(to_challenge(crypto::sha256(init).update_u32_le(j).finish(), sector_nodes));
  }
  return out;
}

std::vector<std::uint64_t> porep_challenges_for(const seal_proof_info& proof, const domain& replica_id,
                                                const domain& seed, const domain& comm_r, unsigned k) {
  switch (proof.challenges) {
    case porep_challenges::interactive:
      return interactive_challenges(proof.nodes(), proof.challenges_per_partition, replica_id, seed, k);
    case porep_challenges::non_interactive:
      return ni_challenges(proof.nodes(), proof.challenges_per_partition, replica_id, comm_r, k);
    case porep_challenges::synthetic:
      break;
  }
  throw zk::input_error(std::string(proof.name) + ": synthetic PoRep challenges are not supported yet");
}

}  // namespace cuzk::fil::stacked
