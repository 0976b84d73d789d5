// storage-proofs-update constants.rs and vanilla.rs PublicParams: the shape of a SnapDeals
// (EmptySectorUpdate) proof from the sector size alone. Partitions: 1 up to 8 KiB, 2 up to 32 KiB,
// 4 up to 16 MiB, 16 from 512 MiB; challenges per partition 10 up to 16 MiB, 86 above; apex leafs
// per partition 8 up to 8 KiB, 128 above; the six h values the circuit can select (1 for every h up
// to 32 KiB, else 7..12) and the one filecoin-proofs uses (index 3: h_select = 8, h = 10 in
// production); TreeR's arities are the PoRep tree's (fil/registered_proof tree_shape_for).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "fil/registered_proof.hpp"

namespace cuzk::fil::update {

struct public_params {
  std::uint64_t sector_nodes = 0;
  unsigned challenge_count = 0;
  unsigned challenge_bit_len = 0;  // log2(sector_nodes): TreeD's height
  unsigned partition_count = 0;
  unsigned partition_bit_len = 0;
  unsigned apex_leaf_count = 0;
  unsigned apex_leaf_bit_len = 0;
  tree_shape tree;                 // TreeR (old and new)
  std::array<unsigned, 6> hs{};
  unsigned h = 0;                  // h_default: hs[3]
  unsigned h_index = 0;            // the first index of h in hs (h_select = 2^h_index)

  std::uint64_t sector_size() const { return sector_nodes * 32; }
  std::uint64_t h_select() const { return std::uint64_t{1} << h_index; }
  // The path length from a leaf up to its apex leaf (TreeD levels below the apex tree).
  unsigned path_len_to_apex_leaf() const { return challenge_bit_len - partition_bit_len - apex_leaf_bit_len; }
};

// PublicParams::from_sector_size for the sizes whose TreeR shape Filecoin defines (2 KiB, 4 KiB,
// 16 KiB, 32 KiB, 8 MiB, 16 MiB, 512 MiB, 32 GiB, 64 GiB); throws zk::input_error otherwise.
public_params from_sector_size(std::uint64_t sector_size);

// RegisteredUpdateProof: "StackedDrg2KiBV1" .. "StackedDrg64GiBV1" (all API 1.1, shape by size).
struct update_proof_info {
  std::string_view name;
  std::uint64_t sector_size;
};
std::span<const update_proof_info> update_proofs();
const update_proof_info* find_update_proof(std::string_view name);
const update_proof_info* update_proof_for_size(std::uint64_t sector_size);

// "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-<sha256 of the identifier>" (no suffix):
// cache_prefix "empty-sector-update-" + TreeR's display, identifier
// "empty_sector_update::PublicParams{ sector_nodes: N }".
std::string parameter_cache_id(const public_params& pp);

}  // namespace cuzk::fil::update
