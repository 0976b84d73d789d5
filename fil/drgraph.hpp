// BucketGraph (storage-proofs-core `drgraph.rs`): the SDR's depth-robust base graph of degree 6.
// Node v's parents come from a ChaCha8Rng seeded with drg_seed (28 bytes: SHA-256("Filecoin_DRSample"
// || porep_id)) || v (u32 LE). Think of a "metagraph" with m' = 5 copies of every node: for each of
// the 5 random parents, pick a bucket b uniformly in [1, ceil(log2(v m'))], then a distance uniformly
// in [max(2, min(v m', 2^b) / 2), min(v m', 2^b)], and map the metagraph node v m' - distance back to
// node (v m' - distance) / m' (v itself -> v - 1). The sixth parent is v - 1: first since API 1.1,
// last in 1.0. Nodes 0 and 1 have only zeros.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "fil/registered_proof.hpp"
#include "fil/types.hpp"

namespace cuzk::fil {

inline constexpr unsigned base_degree = 6;  // BASE_DEGREE

class bucket_graph {
 public:
  bucket_graph(std::uint64_t nodes, const domain& porep_id, api_version version);

  std::uint64_t size() const { return nodes_; }
  void parents(std::uint32_t node, std::span<std::uint32_t, base_degree> out) const;
  const std::array<std::uint8_t, 28>& seed() const { return seed_; }

 private:
  std::uint64_t nodes_;
  std::array<std::uint8_t, 28> seed_{};
  api_version version_;
};

}  // namespace cuzk::fil
