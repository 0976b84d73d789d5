// StackedBucketGraph (storage-proofs-porep `stacked/vanilla/graph.rs`): the bucket graph's 6 parents
// in the same layer plus 8 expander parents in the previous layer. Expander parent i of node v is
// feistel::permute(8 n, 8 v + i, keys) / 8 with keys = the four u64 LE words of
// SHA-256("Filecoin_Feistel" || porep_id): a random bipartite graph of degree 8 (Chung's
// construction) whose edges are a permutation of the 8n (node, slot) pairs.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "fil/crypto/feistel.hpp"
#include "fil/drgraph.hpp"

namespace cuzk::fil::stacked {

inline constexpr unsigned exp_degree = 8;                          // EXP_DEGREE
inline constexpr unsigned degree = base_degree + exp_degree;       // DEGREE
inline constexpr unsigned total_parents = 37;                      // TOTAL_PARENTS (labels repeat parents)

class stacked_bucket_graph {
 public:
  stacked_bucket_graph(std::uint64_t nodes, const domain& porep_id, api_version version);

  std::uint64_t size() const { return base_.size(); }
  const bucket_graph& base_graph() const { return base_; }
  void base_parents(std::uint32_t node, std::span<std::uint32_t, base_degree> out) const { base_.parents(node, out); }
  void expanded_parents(std::uint32_t node, std::span<std::uint32_t, exp_degree> out) const;
  // All 14: base parents then expander parents (one row of the parent cache).
  void parents(std::uint32_t node, std::span<std::uint32_t, degree> out) const;
  const std::array<std::uint64_t, 4>& feistel_keys() const { return keys_; }

 private:
  bucket_graph base_;
  std::array<std::uint64_t, 4> keys_{};
  bool legacy_;
  crypto::feistel::precomputed pre_;
};

}  // namespace cuzk::fil::stacked
