// The periodic trees of fil/synthetic's proofs that verify (SnapDeals PartitionProofs, PoSt sector
// proofs): a tree whose leaves repeat a block, so that every opened path reaches one root computed
// once per level, whatever the challenges. Internal to fil/synthetic*.cpp.
#pragma once

#include <functional>
#include <random>
#include <span>
#include <vector>

#include "fil/crypto/hashes.hpp"
#include "fil/crypto/poseidon.hpp"
#include "fil/merkle/proof.hpp"
#include "fil/types.hpp"

namespace cuzk::fil::synthetic_detail {

// The path of leaf i from level `from` to level `to` of a tree of per-level `arities`, its siblings
// from node_at(level, index): split into a proof's base / sub / top parts by the level counts.
template <class NodeAt>
merkle::inclusion_path tree_path(const std::vector<unsigned>& arities, const NodeAt& node_at, std::uint64_t i,
                                 std::size_t from, std::size_t to) {
  for (std::size_t l = 0; l < from; ++l) i /= arities[l];
  merkle::inclusion_path p;
  for (std::size_t l = from; l < to; ++l) {
    const unsigned a = arities[l];
    merkle::path_element e;
    e.index = i % a;
    for (unsigned j = 0; j < a; ++j)
      if (j != e.index) e.hashes.push_back(node_at(l, i - e.index + j));
    p.path.push_back(std::move(e));
    i /= a;
  }
  return p;
}

// A tree of per-level arities whose leaves repeat a block spanning the lowest `block_levels` levels:
// below them every node is computed from the block, above them a level has a single value.
class periodic_tree {
 public:
  using hasher = std::function<domain(std::span<const domain>)>;
  periodic_tree(std::vector<unsigned> arities, std::vector<domain> block, unsigned block_levels, const hasher& h)
      : arities_(std::move(arities)), block_levels_(block_levels) {
    low_.push_back(std::move(block));
    for (unsigned l = 0; l < block_levels_; ++l) {
      auto& next = low_.emplace_back();
      const unsigned a = arities_[l];
      for (std::size_t i = 0; i + a <= low_[l].size(); i += a)
        next.push_back(h(std::span<const domain>(low_[l]).subspan(i, a)));
    }
    high_.push_back(low_.back().at(0));
    for (std::size_t l = block_levels_; l < arities_.size(); ++l) {
      std::vector<domain> kids(arities_[l], high_.back());
      high_.push_back(h(kids));
    }
  }
  domain node(std::size_t level, std::uint64_t i) const {
    if (level <= block_levels_) return low_[level][i % low_[level].size()];
    return high_[level - block_levels_];
  }
  domain root() const { return high_.back(); }
  merkle::inclusion_path path(std::uint64_t i, std::size_t from, std::size_t to) const {
    return tree_path(arities_, [this](std::size_t l, std::uint64_t k) { return node(l, k); }, i, from, to);
  }

 private:
  std::vector<unsigned> arities_;
  unsigned block_levels_;
  std::vector<std::vector<domain>> low_;
  std::vector<domain> high_;
};

inline domain poseidon_of(std::span<const domain> in) {
  std::vector<fr> v;
  for (const auto& d : in) v.push_back(domain_to_fr(d, "synthetic node"));
  return fr_to_domain(crypto::poseidon(v));
}

inline domain sha254_of(std::span<const domain> in) {
  crypto::sha256 h;
  for (const auto& d : in) h.update(d);
  return fr32_safe(h.finish());
}

// A random 32-byte field element (its top two bits cleared).
inline domain random_domain(std::mt19937_64& rng) {
  domain d;
  for (int i = 0; i < 4; ++i) {
    const std::uint64_t v = rng();
    for (int j = 0; j < 8; ++j) d[8 * i + j] = std::uint8_t(v >> (8 * j));
  }
  d[31] &= 0x3f;
  return d;
}

// A sector's TreeR (base levels of arity t.base, then sub and top) over a random block of two base
// levels (64 leaves) repeated, and the Merkle proof of leaf c in Filecoin's shape.
struct periodic_tree_r {
  tree_shape t;
  unsigned base_levels = 0;
  periodic_tree tree;
  domain root() const { return tree.root(); }
  merkle::merkle_proof proof(std::uint64_t c) const {
    merkle::merkle_proof m;
    const domain leaf = tree.node(0, c), r = tree.root();
    if (!t.sub) m.data = merkle::single_proof{r, leaf, tree.path(c, 0, base_levels)};
    else if (!t.top)
      m.data = merkle::sub_tree_proof{tree.path(c, 0, base_levels), tree.path(c, base_levels, base_levels + 1), r, leaf};
    else
      m.data = merkle::top_tree_proof{tree.path(c, 0, base_levels), tree.path(c, base_levels, base_levels + 1),
                                      tree.path(c, base_levels + 1, base_levels + 2), r, leaf};
    return m;
  }
};

inline periodic_tree_r make_tree_r(std::uint64_t sector_nodes, tree_shape t, std::mt19937_64& rng) {
  const std::uint64_t base_leaves = sector_nodes / (t.sub ? t.sub : 1) / (t.top ? t.top : 1);
  unsigned base_levels = 0;
  for (std::uint64_t n = base_leaves; n > 1; n /= t.base) ++base_levels;
  std::vector<unsigned> arities(base_levels, t.base);
  if (t.sub) arities.push_back(t.sub);
  if (t.top) arities.push_back(t.top);
  const unsigned block_levels = std::min(2u, base_levels);
  std::vector<domain> block;
  for (unsigned i = 0; i < (1u << (3 * block_levels)); ++i) block.push_back(random_domain(rng));
  return {t, base_levels, periodic_tree(arities, block, block_levels, poseidon_of)};
}

}  // namespace cuzk::fil::synthetic_detail
