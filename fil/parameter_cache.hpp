// Parameter file names (storage-proofs-core `parameter_cache.rs`): "v28-" + cache_prefix + "-" +
// hex(SHA-256(public params identifier)), then ".params" / ".vk". The identifier strings are the
// Rust Display formats of the public parameters, reproduced exactly:
//   PoRep  layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{expansion_degree: 8
//          base_graph: drgraph::BucketGraph{size: N; degree: 6; hasher: poseidon_hasher} },
//          challenges: LayerChallenges { layers: L, max_count: C }, tree: merkletree-poseidon_hasher-8-8-0 }
//   PoSt   FallbackPoSt::PublicParams{sector_size: S, challenge_count: C, sector_count: K}  (circuit counts)
// The API version and porep id are not part of them: V1, V1_1, synthetic and NI PoRep of one size
// share their files.
#pragma once

#include <string>

#include "fil/registered_proof.hpp"

namespace cuzk::fil {

std::string tree_display(tree_shape t);  // "merkletree-poseidon_hasher-8-8-0"
std::string parameter_cache_id(const seal_proof_info& proof);
std::string parameter_cache_id(const post_proof_info& proof);

}  // namespace cuzk::fil
