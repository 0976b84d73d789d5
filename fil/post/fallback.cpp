#include "fil/post/fallback.hpp"

#include <string>

#include "fil/crypto/hashes.hpp"
#include "zk/error.hpp"

namespace cuzk::fil::post {

namespace {
std::uint64_t first_u64_le(const crypto::digest32& h) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | h[i];
  return v;
}
}  // namespace

std::uint64_t generate_sector_challenge(const domain& randomness, std::uint64_t n, std::uint64_t sector_set_len,
                                        const domain& prover_id) {
  if (sector_set_len == 0) throw zk::input_error("post: the sector set is empty");
  return first_u64_le(crypto::sha256().update(prover_id).update(randomness).update_u64_le(n).finish()) % sector_set_len;
}

std::vector<std::uint64_t> generate_sector_challenges(const domain& randomness, std::uint64_t count,
                                                      std::uint64_t sector_set_len, const domain& prover_id) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t n = 0; n < count; ++n) out.push_back(generate_sector_challenge(randomness, n, sector_set_len, prover_id));
  return out;
}

std::uint64_t generate_leaf_challenge(std::uint64_t sector_size, const domain& randomness, std::uint64_t sector_id,
                                      std::uint64_t index) {
  const auto h = crypto::sha256().update(randomness).update_u64_le(sector_id).update_u64_le(index).finish();
  return first_u64_le(h) % (sector_size / node_size);
}

std::uint64_t challenge_index(api_version v, std::uint64_t sector_index, std::uint64_t challenge_count, std::uint64_t n) {
  return v == api_version::v1_2_0 ? n : sector_index * challenge_count + n;
}

std::vector<std::uint64_t> leaf_challenges(const post_proof_info& proof, const domain& randomness,
                                           std::uint64_t sector_id, std::uint64_t sector_index) {
  std::vector<std::uint64_t> out;
  out.reserve(proof.challenge_count);
  for (std::uint64_t n = 0; n < proof.challenge_count; ++n)
    out.push_back(generate_leaf_challenge(proof.sector_size, randomness, sector_id,
                                          challenge_index(proof.version, sector_index, proof.challenge_count, n)));
  return out;
}

std::size_t partition_count(const post_proof_info& proof, std::size_t sectors) {
  return (sectors + proof.sector_count - 1) / proof.sector_count;
}

std::vector<fr> generate_public_inputs(const post_proof_info& proof, const domain& randomness,
                                       std::span<const public_sector> given, std::size_t partition) {
  std::vector<public_sector> copies;
  std::span<const public_sector> sectors = given;
  if (proof.type == post_type::winning) {
    if (given.size() != proof.sector_count)
      throw zk::input_error("post: WinningPoSt proves " + std::to_string(proof.sector_count) + " sector, " +
                            std::to_string(given.size()) + " given");
    for (unsigned i = 0; i < proof.circuit_sector_count(); ++i) copies.insert(copies.end(), given.begin(), given.end());
    sectors = copies;
  }
  const std::size_t per_partition = proof.circuit_sector_count();
  const std::size_t begin = partition * per_partition;
  if (begin >= sectors.size())
    throw zk::input_error("post: partition " + std::to_string(partition) + " has no sectors (" +
                          std::to_string(sectors.size()) + " sectors, " + std::to_string(per_partition) +
                          " per partition)");
  const std::size_t end = std::min(sectors.size(), begin + per_partition);
  return partition_public_inputs(proof, randomness, sectors.subspan(begin, end - begin), partition);
}

std::vector<fr> partition_public_inputs(const post_proof_info& proof, const domain& randomness,
                                        std::span<const public_sector> sectors, std::size_t partition) {
  const std::size_t per_partition = proof.circuit_sector_count(), challenges = proof.circuit_challenge_count();
  if (sectors.empty() || sectors.size() > per_partition)
    throw zk::input_error("post: partition " + std::to_string(partition) + ": " + std::to_string(sectors.size()) +
                          " sectors, a partition holds 1 to " + std::to_string(per_partition));
  const std::size_t begin = partition * per_partition;  // the first sector's index in the whole proof
  std::vector<fr> out;
  out.reserve(per_partition * (1 + challenges));
  for (std::size_t i = 0; i < sectors.size(); ++i) {
    out.push_back(domain_to_fr(sectors[i].comm_r, "sector " + std::to_string(sectors[i].id) + " comm_r"));
    for (std::uint64_t n = 0; n < challenges; ++n)
      out.push_back(fr::from_u64(generate_leaf_challenge(proof.sector_size, randomness, sectors[i].id,
                                                         challenge_index(proof.version, begin + i, challenges, n))));
  }
  const std::size_t per_sector = 1 + challenges;
  while (out.size() < per_partition * per_sector) {
    const std::size_t from = out.size() - per_sector;
    for (std::size_t i = 0; i < per_sector; ++i) out.push_back(out[from + i]);
  }
  return out;
}

}  // namespace cuzk::fil::post
