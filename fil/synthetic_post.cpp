#include <random>

#include "fil/post/fallback.hpp"
#include "fil/synthetic.hpp"
#include "fil/synthetic_tree.hpp"

namespace cuzk::fil {

using namespace synthetic_detail;

std::vector<post::fallback_post_sector_proof> synthetic_valid_post_proofs(const post_proof_info& proof,
                                                                          const domain& randomness,
                                                                          std::uint32_t partition_index, std::size_t count,
                                                                          std::uint64_t first_sector_id,
                                                                          std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto tree_r = make_tree_r(proof.sector_size / node_size, proof.tree, rng);
  const domain comm_c = random_domain(rng);
  const domain comm_r = crypto::poseidon2(comm_c, tree_r.root());
  std::vector<post::fallback_post_sector_proof> out;
  for (std::size_t i = 0; i < count; ++i) {
    post::fallback_post_sector_proof p;
    p.sector_id = first_sector_id + i;
    p.comm_r = comm_r;
    auto& sp = p.vanilla_proof.sectors.emplace_back();
    sp.comm_c = comm_c, sp.comm_r_last = tree_r.root();
    // The sector's challenges by its index across the whole proof, as the verifier draws them.
    const std::uint64_t index = proof.type == post_type::winning ? 0 : std::uint64_t{partition_index} * proof.sector_count + i;
    for (const auto leaf : post::leaf_challenges(proof, randomness, p.sector_id, index))
      sp.inclusion_proofs.push_back(tree_r.proof(leaf));
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace cuzk::fil
