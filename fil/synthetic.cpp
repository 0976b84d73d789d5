#include "fil/synthetic.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "fil/crypto/hashes.hpp"
#include "fil/crypto/poseidon.hpp"
#include "fil/ids.hpp"
#include "fil/post/fallback.hpp"
#include "fil/stacked/challenges.hpp"
#include "fil/stacked/graph.hpp"
#include "fil/stacked/label.hpp"
#include "fil/synthetic_tree.hpp"
#include "zk/error.hpp"

namespace cuzk::fil {

namespace {

std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

domain random_domain(std::uint64_t& s) {
  domain d;
  for (int i = 0; i < 4; ++i) {
    const std::uint64_t v = splitmix(s);
    for (int j = 0; j < 8; ++j) d[8 * i + j] = std::uint8_t(v >> (8 * j));
  }
  d[31] &= 0x3f;  // a valid Fr, as real Poseidon / fr32 SHA-256 values are
  return d;
}

merkle::inclusion_path random_path(std::uint64_t index, unsigned arity, unsigned levels, std::uint64_t& s) {
  merkle::inclusion_path p;
  for (unsigned l = 0; l < levels; ++l) {
    merkle::path_element e;
    for (unsigned i = 0; i + 1 < arity; ++i) e.hashes.push_back(random_domain(s));
    e.index = index % arity;
    index /= arity;
    p.path.push_back(std::move(e));
  }
  return p;
}

unsigned levels_of(std::uint64_t n, unsigned arity) {
  unsigned k = 0;
  while (n > 1) n /= arity, ++k;
  return k;
}

}  // namespace

merkle::merkle_proof synthetic_merkle_proof(std::uint64_t nodes, tree_shape t, std::uint64_t index, std::uint64_t& s) {
  const std::uint64_t base_leaves = nodes / (t.sub ? t.sub : 1) / (t.top ? t.top : 1);
  const unsigned levels = levels_of(base_leaves, t.base);
  merkle::merkle_proof m;
  if (!t.sub) {
    merkle::single_proof p{random_domain(s), random_domain(s), random_path(index, t.base, levels, s)};
    m.data = std::move(p);
  } else if (!t.top) {
    merkle::sub_tree_proof p;
    p.base_proof = random_path(index % base_leaves, t.base, levels, s);
    p.sub_proof = random_path(index / base_leaves, t.sub, 1, s);
    p.root = random_domain(s), p.leaf = random_domain(s);
    m.data = std::move(p);
  } else {
    merkle::top_tree_proof p;
    p.base_proof = random_path(index % base_leaves, t.base, levels, s);
    p.sub_proof = random_path((index / base_leaves) % t.sub, t.sub, 1, s);
    p.top_proof = random_path(index / base_leaves / t.sub, t.top, 1, s);
    p.root = random_domain(s), p.leaf = random_domain(s);
    m.data = std::move(p);
  }
  return m;
}

namespace {

// Sparse Merkle tree: only the nodes on the opened leaves' paths are computed (each once, shared
// upper nodes included); every other node is a placeholder drawn from (salt, level, index), so the
// same untouched subtree reads the same wherever it is a sibling.
class sparse_tree {
 public:
  using hasher = std::function<domain(std::span<const domain>)>;
  sparse_tree(std::vector<unsigned> arities, hasher h, std::uint64_t salt)
      : arities_(std::move(arities)), hash_(std::move(h)), salt_(salt), levels_(arities_.size() + 1) {}

  void set_leaf(std::uint64_t i, const domain& v) { levels_[0][i] = v; }
  void build() {
    std::vector<domain> kids;
    for (std::size_t l = 0; l < arities_.size(); ++l) {
      const unsigned a = arities_[l];
      std::vector<std::uint64_t> idx;
      for (const auto& [i, v] : levels_[l]) idx.push_back(i / a);
      std::sort(idx.begin(), idx.end());
      idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
      for (const auto p : idx) {
        kids.clear();
        for (unsigned j = 0; j < a; ++j) kids.push_back(node(l, p * a + j));
        levels_[l + 1][p] = hash_(kids);
      }
    }
  }
  const domain& root() const { return levels_.back().at(0); }
  domain node(std::size_t level, std::uint64_t i) const {
    if (auto it = levels_[level].find(i); it != levels_[level].end()) return it->second;
    std::uint64_t s = salt_ ^ (std::uint64_t(level) << 56) ^ (i * 0x9e3779b97f4a7c15ULL);
    return random_domain(s);
  }
  // The path of leaf i, split into the proof's base / sub / top parts by the level counts.
  merkle::inclusion_path path(std::uint64_t i, std::size_t from, std::size_t to) const {
    return synthetic_detail::tree_path(arities_, [this](std::size_t l, std::uint64_t k) { return node(l, k); }, i,
                                       from, to);
  }

 private:
  std::vector<unsigned> arities_;
  hasher hash_;
  std::uint64_t salt_;
  std::vector<std::unordered_map<std::uint64_t, domain>> levels_;
};

domain poseidon_of(std::span<const domain> in) {
  std::vector<fr> v;
  v.reserve(in.size());
  for (const auto& d : in) v.push_back(domain_to_fr(d, "synthetic node"));
  return fr_to_domain(crypto::poseidon(v));
}

domain sha254_of(std::span<const domain> in) {
  crypto::sha256 h;
  for (const auto& d : in) h.update(d);
  return fr32_safe(h.finish());
}

// LCTree<Poseidon, base, sub, top> over `nodes` leaves as one tree of per-level arities.
struct lc_tree {
  unsigned base_levels = 0;
  tree_shape shape;
  sparse_tree tree;
  lc_tree(std::uint64_t nodes, tree_shape t, std::uint64_t salt)
      : base_levels(levels_of(nodes / (t.sub ? t.sub : 1) / (t.top ? t.top : 1), t.base)), shape(t),
        tree(arities(t, base_levels), poseidon_of, salt) {}
  static std::vector<unsigned> arities(tree_shape t, unsigned base_levels) {
    std::vector<unsigned> a(base_levels, t.base);
    if (t.sub) a.push_back(t.sub);
    if (t.top) a.push_back(t.top);
    return a;
  }
  merkle::merkle_proof proof(std::uint64_t i) const {
    merkle::merkle_proof m;
    const domain leaf = tree.node(0, i), root = tree.root();
    if (!shape.sub) {
      m.data = merkle::single_proof{root, leaf, tree.path(i, 0, base_levels)};
    } else if (!shape.top) {
      m.data = merkle::sub_tree_proof{tree.path(i, 0, base_levels), tree.path(i, base_levels, base_levels + 1), root, leaf};
    } else {
      m.data = merkle::top_tree_proof{tree.path(i, 0, base_levels), tree.path(i, base_levels, base_levels + 1),
                                      tree.path(i, base_levels + 1, base_levels + 2), root, leaf};
    }
    return m;
  }
};

// The data: a random block of `period` leaves repeated over the sector, so every aligned subtree of
// `period` leaves has the same root and comm_d is a genuine binary SHA-256 root over real data,
// known before the challenges (which depend on it through replica_id).
class periodic_data_tree {
 public:
  periodic_data_tree(std::uint64_t nodes, std::uint64_t& s) : levels_(levels_of(nodes, 2)) {
    const std::uint64_t period = std::min<std::uint64_t>(nodes, 1024);
    low_levels_ = levels_of(period, 2);
    low_.emplace_back();
    for (std::uint64_t i = 0; i < period; ++i) low_[0].push_back(random_domain(s));
    for (unsigned l = 0; l < low_levels_; ++l) {
      auto& next = low_.emplace_back();
      for (std::size_t i = 0; i + 1 < low_[l].size(); i += 2) next.push_back(sha254_of(std::array{low_[l][i], low_[l][i + 1]}));
    }
    high_.push_back(low_.back()[0]);
    for (unsigned l = low_levels_; l < levels_; ++l) high_.push_back(sha254_of(std::array{high_.back(), high_.back()}));
  }
  domain leaf(std::uint64_t n) const { return low_[0][n % low_[0].size()]; }
  domain root() const { return high_.back(); }
  merkle::merkle_proof proof(std::uint64_t n) const {
    merkle::single_proof p;
    p.leaf = leaf(n), p.root = root();
    for (unsigned l = 0; l < levels_; ++l) {
      merkle::path_element e;
      e.index = (n >> l) & 1;
      if (l < low_levels_) {
        const std::uint64_t i = (n >> l) % low_[l].size();
        e.hashes.push_back(low_[l][i ^ 1]);
      } else {
        e.hashes.push_back(high_[l - low_levels_]);
      }
      p.path.path.push_back(std::move(e));
    }
    merkle::merkle_proof m;
    m.data = std::move(p);
    return m;
  }

 private:
  unsigned levels_, low_levels_ = 0;
  std::vector<std::vector<domain>> low_;
  std::vector<domain> high_;  // the root of an aligned subtree at each level from low_levels_ up
};

}  // namespace

seal_commit_phase1_output synthetic_c1(const seal_proof_info& proof, std::uint64_t sector_id, std::uint64_t miner_id,
                                       std::uint64_t s) {
  if (proof.challenges != porep_challenges::interactive)
    throw zk::input_error(std::string(proof.name) +
                          ": synth-c1 makes interactive PoRep only (other challenges depend on comm_r)");
  seal_commit_phase1_output c1;
  c1.registered_proof = &proof;
  c1.vanilla_proofs_variant = std::string(proof.vanilla_key);
  c1.seed = random_domain(s), c1.ticket = random_domain(s);
  const std::uint64_t salt = splitmix(s);
  const std::uint64_t nodes = proof.nodes();
  const unsigned layers = proof.layers;
  const periodic_data_tree data(nodes, s);
  c1.comm_d = data.root();
  c1.replica_id = replica_id(prover_id(miner_id), sector_id, c1.ticket, c1.comm_d, porep_id(proof));
  std::vector<std::vector<std::uint64_t>> challenges;
  std::set<std::uint64_t> challenged;
  for (unsigned k = 0; k < proof.partitions; ++k) {
    challenges.push_back(stacked::porep_challenges_for(proof, c1.replica_id, c1.seed, domain{}, k));
    challenged.insert(challenges.back().begin(), challenges.back().end());
  }

  // Labels: a challenged node's are computed from its parents' (DRG parents on the same layer,
  // expander parents on the layer below); any other node's are random. (node, layer) pairs recurse on
  // a smaller node or a lower layer, so this ends.
  stacked::stacked_bucket_graph graph(nodes, porep_id(proof), proof.version);
  std::map<std::pair<std::uint64_t, unsigned>, domain> labels;
  std::map<std::pair<std::uint64_t, unsigned>, std::vector<domain>> label_parents;  // challenged only
  std::function<domain(std::uint64_t, unsigned)> label = [&](std::uint64_t n, unsigned l) -> domain {
    if (auto it = labels.find({n, l}); it != labels.end()) return it->second;
    domain v;
    if (!challenged.count(n)) {
      std::uint64_t t = salt ^ (std::uint64_t(l) << 58) ^ (n * 0x94d049bb133111ebULL);
      v = random_domain(t);
    } else {
      std::array<std::uint32_t, stacked::degree> p{};
      graph.parents(static_cast<std::uint32_t>(n), p);
      std::vector<domain> ps;
      for (unsigned i = 0; i < base_degree; ++i) {
        if (p[i] >= n) throw std::logic_error("synthetic_c1: a DRG parent not before its node");
        ps.push_back(label(p[i], l));
      }
      if (l > 1)
        for (unsigned i = 0; i < stacked::exp_degree; ++i) ps.push_back(label(p[base_degree + i], l - 1));
      const std::size_t distinct = ps.size();
      while (ps.size() < stacked::total_parents) ps.push_back(ps[ps.size() % distinct]);
      v = stacked::create_label(c1.replica_id, l, n, ps);
      label_parents[{n, l}] = std::move(ps);
    }
    labels[{n, l}] = v;
    return v;
  };
  auto column_rows = [&](std::uint64_t n) {
    std::vector<domain> rows;
    for (unsigned l = 1; l <= layers; ++l) rows.push_back(label(n, l));
    return rows;
  };

  // The trees over the opened leaves: comm_c over the columns of the challenges and their parents,
  // comm_r_last over the challenges' replica leaves = last label + data leaf.
  std::map<std::uint64_t, std::array<std::uint32_t, stacked::degree>> parents_of;
  lc_tree comm_c(nodes, proof.tree, salt ^ 0xc0cc), comm_r_last(nodes, proof.tree, salt ^ 0x7e11);
  std::set<std::uint64_t> columns;
  for (const auto c : challenged) {
    graph.parents(static_cast<std::uint32_t>(c), parents_of[c]);
    columns.insert(c);
    columns.insert(parents_of[c].begin(), parents_of[c].end());
    const fr replica = domain_to_fr(label(c, layers), "label") + domain_to_fr(data.leaf(c), "data");
    comm_r_last.tree.set_leaf(c, fr_to_domain(replica));
  }
  for (const auto n : columns) comm_c.tree.set_leaf(n, poseidon_of(column_rows(n)));
  comm_c.tree.build();
  comm_r_last.tree.build();
  c1.comm_r = crypto::poseidon2(comm_c.tree.root(), comm_r_last.tree.root());

  auto column_proof = [&](std::uint32_t n) {
    stacked::column_proof cp;
    cp.column.index = n;
    cp.column.rows = column_rows(n);
    cp.inclusion_proof = comm_c.proof(n);
    return cp;
  };
  for (unsigned k = 0; k < proof.partitions; ++k) {
    auto& part = c1.vanilla_proofs.emplace_back();
    for (const std::uint64_t c : challenges[k]) {
      stacked::proof p;
      p.comm_d_proofs = data.proof(c);
      p.comm_r_last_proof = comm_r_last.proof(c);
      const auto& parents = parents_of[c];
      p.replica_column_proofs.c_x = column_proof(static_cast<std::uint32_t>(c));
      for (unsigned i = 0; i < base_degree; ++i) p.replica_column_proofs.drg_parents.push_back(column_proof(parents[i]));
      for (unsigned i = 0; i < stacked::exp_degree; ++i)
        p.replica_column_proofs.exp_parents.push_back(column_proof(parents[base_degree + i]));
      for (unsigned l = 1; l <= layers; ++l) {
        stacked::labeling_proof lp;
        lp.parents = label_parents.at({c, l});
        lp.layer_index = l, lp.node = c;
        p.labeling_proofs.push_back(std::move(lp));
      }
      p.encoding_proof.parents = p.labeling_proofs.back().parents;
      p.encoding_proof.layer_index = layers, p.encoding_proof.node = c;
      part.push_back(std::move(p));
    }
  }
  return c1;
}

post::fallback_post_sector_proof synthetic_post_proof(const post_proof_info& proof, std::uint64_t sector_id,
                                                      const domain& randomness, std::uint64_t sector_index,
                                                      std::uint64_t s) {
  post::fallback_post_sector_proof p;
  p.sector_id = sector_id;
  auto& sp = p.vanilla_proof.sectors.emplace_back();
  sp.comm_c = random_domain(s), sp.comm_r_last = random_domain(s);
  p.comm_r = crypto::poseidon2(sp.comm_c, sp.comm_r_last);
  for (const auto leaf : post::leaf_challenges(proof, randomness, sector_id, sector_index)) {
    auto m = synthetic_merkle_proof(proof.sector_size / node_size, proof.tree, leaf, s);
    std::visit([&](auto& q) { q.root = sp.comm_r_last; }, m.data);
    sp.inclusion_proofs.push_back(std::move(m));
  }
  return p;
}

}  // namespace cuzk::fil
