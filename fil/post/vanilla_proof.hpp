// The PoSt vanilla proofs (storage-proofs-post `fallback/vanilla.rs`, filecoin-proofs
// FallbackPoStSectorProof): what generate_single_vanilla_proof returns, bincode-serialized, once per
// challenged sector. Reader: fil/io/post_bincode.hpp.
#pragma once

#include <cstdint>
#include <vector>

#include "fil/merkle/proof.hpp"
#include "fil/types.hpp"

namespace cuzk::fil::post {

struct sector_proof {  // SectorProof
  std::vector<merkle::merkle_proof> inclusion_proofs;  // one per leaf challenge, in comm_r_last
  domain comm_c{}, comm_r_last{};
  bool operator==(const sector_proof&) const = default;
};

struct vanilla_proof {  // Proof { sectors }
  std::vector<sector_proof> sectors;
  bool operator==(const vanilla_proof&) const = default;
};

struct fallback_post_sector_proof {  // FallbackPoStSectorProof
  std::uint64_t sector_id = 0;
  domain comm_r{};
  post::vanilla_proof vanilla_proof;
  bool operator==(const fallback_post_sector_proof&) const = default;
};

}  // namespace cuzk::fil::post
