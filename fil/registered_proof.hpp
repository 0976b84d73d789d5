// Filecoin's registered proofs (rust-filecoin-proofs-api `registry.rs`, filecoin-proofs
// `constants.rs`) as one table each: the name as serde writes it ("StackedDrg32GiBV1_1"), the porep id
// number, the API version, the sector size and the shapes that follow from it (partitions, layers,
// challenges per partition, the Poseidon tree's base/sub/top arities). One place for every constant.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace cuzk::fil {

enum class api_version { v1_0_0, v1_1_0, v1_2_0 };
enum class porep_challenges { interactive, synthetic, non_interactive };

// The comm_r_last / comm_c tree: LCTree<Poseidon, base, sub, top> (0 = no such level).
struct tree_shape {
  unsigned base = 8, sub = 0, top = 0;
};

struct seal_proof_info {
  std::string_view name;  // RegisteredSealProof variant
  std::uint64_t id;       // REGISTERED_PROOF_IDS: the first 8 bytes (LE) of porep_id
  api_version version;
  porep_challenges challenges;
  std::uint64_t sector_size;
  unsigned partitions;
  unsigned layers;
  unsigned challenges_per_partition;
  tree_shape tree;
  std::string_view vanilla_key;  // the VanillaSealProof variant C1's vanilla_proofs is keyed by

  std::uint64_t nodes() const { return sector_size / 32; }
};

std::span<const seal_proof_info> seal_proofs();
const seal_proof_info* find_seal_proof(std::string_view name);
tree_shape tree_shape_for(std::uint64_t sector_size);  // throws input_error for an unknown size

enum class post_type { winning, window };

struct post_proof_info {
  std::string_view name;  // RegisteredPoStProof variant
  post_type type;
  api_version version;
  std::uint64_t sector_size;
  unsigned challenge_count;  // leaf challenges per sector: WINNING 66, WINDOW 10
  unsigned sector_count;     // sectors per partition: winning 1, window WINDOW_POST_SECTOR_COUNT
  tree_shape tree;

  // The circuit's own counts (filecoin-proofs winning_post_setup_params): WinningPoSt's circuit
  // proves one challenge in each of 66 copies of the sector; WindowPoSt's is the config itself.
  unsigned circuit_sector_count() const {
    return type == post_type::winning ? challenge_count / sector_count : sector_count;
  }
  unsigned circuit_challenge_count() const {
    return type == post_type::winning ? challenge_count / circuit_sector_count() : challenge_count;
  }
};

std::span<const post_proof_info> post_proofs();
const post_proof_info* find_post_proof(std::string_view name);

std::string_view to_string(api_version v);

}  // namespace cuzk::fil
