#include "fil/update/public_params.hpp"

#include <bit>

#include "fil/crypto/hashes.hpp"
#include "fil/parameter_cache.hpp"
#include "fil/types.hpp"
#include "zk/error.hpp"

namespace cuzk::fil::update {

namespace {

constexpr std::uint64_t kib_nodes(std::uint64_t k) { return k * 1024 / 32; }

constexpr update_proof_info table[] = {
    {"StackedDrg2KiBV1", 2ull << 10},
    {"StackedDrg8MiBV1", 8ull << 20},
    {"StackedDrg512MiBV1", 512ull << 20},
    {"StackedDrg32GiBV1", 32ull << 30},
    {"StackedDrg64GiBV1", 64ull << 30},
};

}  // namespace

public_params from_sector_size(std::uint64_t sector_size) {
  switch (sector_size) {
    case 2ull << 10: case 4ull << 10: case 16ull << 10: case 32ull << 10: case 8ull << 20: case 16ull << 20:
    case 512ull << 20: case 32ull << 30: case 64ull << 30: break;
    default: throw zk::input_error("sector size " + std::to_string(sector_size) + ": no SnapDeals proof for it");
  }
  public_params p;
  p.sector_nodes = sector_size / 32;
  const std::uint64_t n = p.sector_nodes;
  p.challenge_bit_len = unsigned(std::countr_zero(n));
  p.challenge_count = n <= kib_nodes(16 * 1024) ? 10 : 86;
  p.partition_count = n <= kib_nodes(8) ? 1 : n <= kib_nodes(32) ? 2 : n <= kib_nodes(16 * 1024) ? 4 : 16;
  p.partition_bit_len = unsigned(std::countr_zero(p.partition_count));
  p.apex_leaf_count = n <= kib_nodes(8) ? 8 : 128;
  p.apex_leaf_bit_len = unsigned(std::countr_zero(p.apex_leaf_count));
  p.tree = tree_shape_for(sector_size);
  if (n <= kib_nodes(32)) p.hs = {1, 1, 1, 1, 1, 1};
  else p.hs = {7, 8, 9, 10, 11, 12};
  p.h = p.hs[3];
  for (unsigned i = 0; i < p.hs.size(); ++i)
    if (p.hs[i] == p.h) {
      p.h_index = i;
      break;
    }
  return p;
}

std::span<const update_proof_info> update_proofs() { return table; }

const update_proof_info* find_update_proof(std::string_view name) {
  for (const auto& p : table)
    if (p.name == name) return &p;
  return nullptr;
}

const update_proof_info* update_proof_for_size(std::uint64_t sector_size) {
  for (const auto& p : table)
    if (p.sector_size == sector_size) return &p;
  return nullptr;
}

std::string parameter_cache_id(const public_params& pp) {
  const std::string id = "empty_sector_update::PublicParams{ sector_nodes: " + std::to_string(pp.sector_nodes) + " }";
  const auto d = crypto::sha256().update(id).finish();
  return "v28-empty-sector-update-" + tree_display(pp.tree) + "-" + to_hex(d);
}

}  // namespace cuzk::fil::update
