#include "fil/parameter_cache.hpp"

#include "fil/crypto/hashes.hpp"
#include "fil/types.hpp"

namespace cuzk::fil {

namespace {
std::string hashed(const std::string& prefix, const std::string& identifier) {
  const auto d = crypto::sha256().update(identifier).finish();
  return "v28-" + prefix + "-" + to_hex(d);
}
}  // namespace

std::string tree_display(tree_shape t) {
  return "merkletree-poseidon_hasher-" + std::to_string(t.base) + "-" + std::to_string(t.sub) + "-" + std::to_string(t.top);
}

std::string parameter_cache_id(const seal_proof_info& p) {
  const std::string id = "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{expansion_degree: 8 "
                         "base_graph: drgraph::BucketGraph{size: " + std::to_string(p.nodes()) +
                         "; degree: 6; hasher: poseidon_hasher} }, challenges: LayerChallenges { layers: " +
                         std::to_string(p.layers) + ", max_count: " + std::to_string(p.challenges_per_partition) +
                         " }, tree: " + tree_display(p.tree) + " }";
  return hashed("stacked-proof-of-replication-" + tree_display(p.tree) + "-sha256_hasher", id);
}

std::string parameter_cache_id(const post_proof_info& p) {
  const std::string id = "FallbackPoSt::PublicParams{sector_size: " + std::to_string(p.sector_size) +
                         ", challenge_count: " + std::to_string(p.circuit_challenge_count()) +
                         ", sector_count: " + std::to_string(p.circuit_sector_count()) + "}";
  return hashed("proof-of-spacetime-fallback-" + tree_display(p.tree), id);
}

}  // namespace cuzk::fil
