#include "fil/registered_proof.hpp"

#include <array>
#include <string>

#include "zk/error.hpp"

namespace cuzk::fil {

namespace {

constexpr std::uint64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

constexpr tree_shape shape(std::uint64_t sector_size) {
  switch (sector_size) {
    case 4 * KiB: case 16 * MiB: case 1 * GiB: return {8, 2, 0};  // SectorShapeSub2
    case 16 * KiB: case 32 * GiB: return {8, 8, 0};               // SectorShapeSub8
    case 32 * KiB: case 64 * GiB: return {8, 8, 2};               // SectorShapeTop2
    default: return {8, 0, 0};                                    // SectorShapeBase
  }
}
constexpr bool production(std::uint64_t s) { return s == 32 * GiB || s == 64 * GiB; }
constexpr unsigned div_ceil(unsigned a, unsigned b) { return (a + b - 1) / b; }

constexpr seal_proof_info seal(std::string_view name, std::uint64_t id, api_version v, porep_challenges c,
                               std::uint64_t size, std::string_view vanilla_key) {
  // POREP_PARTITIONS, LAYERS, get_porep_*_minimum_challenges / get_porep_non_interactive_partitions.
  const bool ni = c == porep_challenges::non_interactive;
  const unsigned partitions = ni ? (production(size) ? 126 : 13) : (production(size) ? 10 : 1);
  const unsigned minimum = ni ? (production(size) ? 2253 : 26) : (production(size) ? 176 : 2);
  return {name, id, v, c, size, partitions, production(size) ? 11u : 2u, div_ceil(minimum, partitions), shape(size),
          vanilla_key};
}

using enum api_version;
using enum porep_challenges;

constexpr std::array<seal_proof_info, 20> seal_table{{
    seal("StackedDrg2KiBV1", 0, v1_0_0, interactive, 2 * KiB, "StackedDrg2KiBV1"),
    seal("StackedDrg8MiBV1", 1, v1_0_0, interactive, 8 * MiB, "StackedDrg8MiBV1"),
    seal("StackedDrg512MiBV1", 2, v1_0_0, interactive, 512 * MiB, "StackedDrg512MiBV1"),
    seal("StackedDrg32GiBV1", 3, v1_0_0, interactive, 32 * GiB, "StackedDrg32GiBV1"),
    seal("StackedDrg64GiBV1", 4, v1_0_0, interactive, 64 * GiB, "StackedDrg64GiBV1"),
    seal("StackedDrg2KiBV1_1", 5, v1_1_0, interactive, 2 * KiB, "StackedDrg2KiBV1"),
    seal("StackedDrg8MiBV1_1", 6, v1_1_0, interactive, 8 * MiB, "StackedDrg8MiBV1"),
    seal("StackedDrg512MiBV1_1", 7, v1_1_0, interactive, 512 * MiB, "StackedDrg512MiBV1"),
    seal("StackedDrg32GiBV1_1", 8, v1_1_0, interactive, 32 * GiB, "StackedDrg32GiBV1"),
    seal("StackedDrg64GiBV1_1", 9, v1_1_0, interactive, 64 * GiB, "StackedDrg64GiBV1"),
    seal("StackedDrg2KiBV1_1_Feat_SyntheticPoRep", 10, v1_2_0, synthetic, 2 * KiB, "StackedDrg2KiBV1"),
    seal("StackedDrg8MiBV1_1_Feat_SyntheticPoRep", 11, v1_2_0, synthetic, 8 * MiB, "StackedDrg8MiBV1"),
    seal("StackedDrg512MiBV1_1_Feat_SyntheticPoRep", 12, v1_2_0, synthetic, 512 * MiB, "StackedDrg512MiBV1"),
    seal("StackedDrg32GiBV1_1_Feat_SyntheticPoRep", 13, v1_2_0, synthetic, 32 * GiB, "StackedDrg32GiBV1"),
    seal("StackedDrg64GiBV1_1_Feat_SyntheticPoRep", 14, v1_2_0, synthetic, 64 * GiB, "StackedDrg64GiBV1"),
    seal("StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", 15, v1_2_0, non_interactive, 2 * KiB, "StackedDrg2KiBV1"),
    seal("StackedDrg8MiBV1_2_Feat_NonInteractivePoRep", 16, v1_2_0, non_interactive, 8 * MiB, "StackedDrg8MiBV1"),
    seal("StackedDrg512MiBV1_2_Feat_NonInteractivePoRep", 17, v1_2_0, non_interactive, 512 * MiB,
         "StackedDrg512MiBV1"),
    seal("StackedDrg32GiBV1_2_Feat_NonInteractivePoRep", 18, v1_2_0, non_interactive, 32 * GiB, "StackedDrg32GiBV1"),
    seal("StackedDrg64GiBV1_2_Feat_NonInteractivePoRep", 19, v1_2_0, non_interactive, 64 * GiB, "StackedDrg64GiBV1"),
}};

constexpr unsigned window_sector_count(std::uint64_t size) {  // WINDOW_POST_SECTOR_COUNT
  return size == 32 * GiB ? 2349 : size == 64 * GiB ? 2300 : 2;
}
constexpr post_proof_info winning(std::string_view name, std::uint64_t size) {
  return {name, post_type::winning, v1_0_0, size, 66, 1, shape(size)};
}
constexpr post_proof_info window(std::string_view name, api_version v, std::uint64_t size) {
  return {name, post_type::window, v, size, 10, window_sector_count(size), shape(size)};
}

constexpr std::array<post_proof_info, 15> post_table{{
    winning("StackedDrgWinning2KiBV1", 2 * KiB),
    winning("StackedDrgWinning8MiBV1", 8 * MiB),
    winning("StackedDrgWinning512MiBV1", 512 * MiB),
    winning("StackedDrgWinning32GiBV1", 32 * GiB),
    winning("StackedDrgWinning64GiBV1", 64 * GiB),
    window("StackedDrgWindow2KiBV1", v1_0_0, 2 * KiB),
    window("StackedDrgWindow8MiBV1", v1_0_0, 8 * MiB),
    window("StackedDrgWindow512MiBV1", v1_0_0, 512 * MiB),
    window("StackedDrgWindow32GiBV1", v1_0_0, 32 * GiB),
    window("StackedDrgWindow64GiBV1", v1_0_0, 64 * GiB),
    window("StackedDrgWindow2KiBV1_2", v1_2_0, 2 * KiB),
    window("StackedDrgWindow8MiBV1_2", v1_2_0, 8 * MiB),
    window("StackedDrgWindow512MiBV1_2", v1_2_0, 512 * MiB),
    window("StackedDrgWindow32GiBV1_2", v1_2_0, 32 * GiB),
    window("StackedDrgWindow64GiBV1_2", v1_2_0, 64 * GiB),
}};

}  // namespace

std::span<const seal_proof_info> seal_proofs() { return seal_table; }
const seal_proof_info* find_seal_proof(std::string_view name) {
  for (const auto& p : seal_table)
    if (p.name == name) return &p;
  return nullptr;
}

tree_shape tree_shape_for(std::uint64_t sector_size) {
  switch (sector_size) {
    case 2 * KiB: case 4 * KiB: case 16 * KiB: case 32 * KiB: case 8 * MiB: case 16 * MiB: case 512 * MiB:
    case 1 * GiB: case 32 * GiB: case 64 * GiB:
      return shape(sector_size);
    default:
      throw zk::input_error("sector size " + std::to_string(sector_size) + ": not a Filecoin sector size");
  }
}

std::span<const post_proof_info> post_proofs() { return post_table; }
const post_proof_info* find_post_proof(std::string_view name) {
  for (const auto& p : post_table)
    if (p.name == name) return &p;
  return nullptr;
}

std::string_view to_string(api_version v) {
  switch (v) {
    case api_version::v1_0_0: return "1.0.0";
    case api_version::v1_1_0: return "1.1.0";
    case api_version::v1_2_0: return "1.2.0";
  }
  return "?";
}

}  // namespace cuzk::fil
