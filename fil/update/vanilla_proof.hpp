// storage-proofs-update vanilla.rs: one partition's vanilla proof as Curio sends it (bincode,
// fil/io/update_bincode): CommC of the old sector, this partition's apex leafs of TreeDNew, and per
// challenge three Merkle proofs: TreeROld (Poseidon, the PoRep tree's shape), TreeDNew (SHA-256,
// binary) and TreeRNew (as TreeROld).
#pragma once

#include <vector>

#include "fil/merkle/proof.hpp"
#include "fil/types.hpp"

namespace cuzk::fil::update {

struct challenge_proof {  // ChallengeProof
  merkle::merkle_proof proof_r_old, proof_d_new, proof_r_new;
  bool operator==(const challenge_proof&) const = default;
};

struct partition_proof {  // PartitionProof
  domain comm_c{};
  std::vector<domain> apex_leafs;
  std::vector<challenge_proof> challenge_proofs;
  bool operator==(const partition_proof&) const = default;
};

}  // namespace cuzk::fil::update
