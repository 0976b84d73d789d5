#include <functional>
#include <random>

#include "fil/crypto/hashes.hpp"
#include "fil/crypto/poseidon.hpp"
#include "fil/synthetic.hpp"
#include "fil/update/challenges.hpp"

namespace cuzk::fil {

namespace {

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
    for (std::size_t l = 0; l < from; ++l) i /= arities_[l];
    merkle::inclusion_path p;
    for (std::size_t l = from; l < to; ++l) {
      const unsigned a = arities_[l];
      merkle::path_element e;
      e.index = i % a;
      for (unsigned j = 0; j < a; ++j)
        if (j != e.index) e.hashes.push_back(node(l, i - e.index + j));
      p.path.push_back(std::move(e));
      i /= a;
    }
    return p;
  }

 private:
  std::vector<unsigned> arities_;
  unsigned block_levels_;
  std::vector<std::vector<domain>> low_;
  std::vector<domain> high_;
};

domain poseidon_of(std::span<const domain> in) {
  std::vector<fr> v;
  for (const auto& d : in) v.push_back(domain_to_fr(d, "synthetic node"));
  return fr_to_domain(crypto::poseidon(v));
}

domain sha254_of(std::span<const domain> in) {
  crypto::sha256 h;
  for (const auto& d : in) h.update(d);
  return fr32_safe(h.finish());
}

}  // namespace

synthetic_update synthetic_update_proofs(std::uint64_t sector_size, std::uint64_t seed) {
  const auto pp = update::from_sector_size(sector_size);
  std::mt19937_64 rng(seed);
  auto random_domain = [&] {
    domain d;
    for (int i = 0; i < 4; ++i) {
      const std::uint64_t v = rng();
      for (int j = 0; j < 8; ++j) d[8 * i + j] = std::uint8_t(v >> (8 * j));
    }
    d[31] &= 0x3f;
    return d;
  };
  // TreeR: base levels of arity 8, then sub and top; a block of two base levels (64 leaves).
  const tree_shape t = pp.tree;
  const std::uint64_t base_leaves = pp.sector_nodes / (t.sub ? t.sub : 1) / (t.top ? t.top : 1);
  unsigned base_levels = 0;
  for (std::uint64_t n = base_leaves; n > 1; n /= t.base) ++base_levels;
  std::vector<unsigned> r_arities(base_levels, t.base);
  if (t.sub) r_arities.push_back(t.sub);
  if (t.top) r_arities.push_back(t.top);
  const unsigned r_block_levels = std::min(2u, base_levels);
  std::vector<domain> r_block;
  for (unsigned i = 0; i < (1u << (3 * r_block_levels)); ++i) r_block.push_back(random_domain());
  const periodic_tree tree_r(r_arities, r_block, r_block_levels, poseidon_of);
  // TreeD over zero data: every level is one value.
  const periodic_tree tree_d(std::vector<unsigned>(pp.challenge_bit_len, 2), {domain{}}, 0, sha254_of);

  synthetic_update out;
  const domain comm_c = random_domain();
  out.comms.comm_r_old = out.comms.comm_r_new = crypto::poseidon2(comm_c, tree_r.root());
  out.comms.comm_d_new = tree_d.root();
  auto r_proof = [&](std::uint64_t c) {
    merkle::merkle_proof m;
    const domain leaf = tree_r.node(0, c), root = tree_r.root();
    if (!t.sub) m.data = merkle::single_proof{root, leaf, tree_r.path(c, 0, base_levels)};
    else if (!t.top)
      m.data = merkle::sub_tree_proof{tree_r.path(c, 0, base_levels), tree_r.path(c, base_levels, base_levels + 1), root, leaf};
    else
      m.data = merkle::top_tree_proof{tree_r.path(c, 0, base_levels), tree_r.path(c, base_levels, base_levels + 1),
                                      tree_r.path(c, base_levels + 1, base_levels + 2), root, leaf};
    return m;
  };
  const fr comm_r_new = domain_to_fr(out.comms.comm_r_new, "comm_r_new");
  for (unsigned k = 0; k < pp.partition_count; ++k) {
    update::partition_proof p;
    p.comm_c = comm_c;
    for (unsigned a = 0; a < pp.apex_leaf_count; ++a)
      p.apex_leafs.push_back(tree_d.node(pp.path_len_to_apex_leaf(), std::uint64_t(k) * pp.apex_leaf_count + a));
    for (const std::uint32_t c : update::challenges(pp, comm_r_new, k)) {
      update::challenge_proof cp;
      cp.proof_r_old = cp.proof_r_new = r_proof(c);
      cp.proof_d_new.data = merkle::single_proof{tree_d.root(), tree_d.node(0, c), tree_d.path(c, 0, pp.challenge_bit_len)};
      p.challenge_proofs.push_back(std::move(cp));
    }
    out.partitions.push_back(std::move(p));
  }
  return out;
}

}  // namespace cuzk::fil
