#include "fil/synthetic.hpp"

#include "fil/crypto/poseidon.hpp"
#include "fil/ids.hpp"
#include "fil/post/fallback.hpp"
#include "fil/stacked/challenges.hpp"
#include "fil/stacked/graph.hpp"

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

seal_commit_phase1_output synthetic_c1(const seal_proof_info& proof, std::uint64_t sector_id, std::uint64_t miner_id,
                                       std::uint64_t s) {
  seal_commit_phase1_output c1;
  c1.registered_proof = &proof;
  c1.vanilla_proofs_variant = std::string(proof.vanilla_key);
  c1.comm_d = random_domain(s), c1.seed = random_domain(s), c1.ticket = random_domain(s);
  c1.replica_id = replica_id(prover_id(miner_id), sector_id, c1.ticket, c1.comm_d, porep_id(proof));
  const std::uint64_t nodes = proof.nodes();
  stacked::stacked_bucket_graph graph(nodes, porep_id(proof), proof.version);
  const domain comm_c = random_domain(s), comm_r_last = random_domain(s);
  c1.comm_r = crypto::poseidon2(comm_c, comm_r_last);
  auto column_proof = [&](std::uint32_t node) {
    stacked::column_proof cp;
    cp.column.index = node;
    for (unsigned l = 0; l < proof.layers; ++l) cp.column.rows.push_back(random_domain(s));
    cp.inclusion_proof = synthetic_merkle_proof(nodes, proof.tree, node, s);
    std::visit([&](auto& p) { p.root = comm_c; }, cp.inclusion_proof.data);
    return cp;
  };
  for (unsigned k = 0; k < proof.partitions; ++k) {
    auto& part = c1.vanilla_proofs.emplace_back();
    for (const std::uint64_t c : stacked::porep_challenges_for(proof, c1.replica_id, c1.seed, c1.comm_r, k)) {
      stacked::proof p;
      p.comm_d_proofs = synthetic_merkle_proof(nodes, tree_shape{2, 0, 0}, c, s);
      p.comm_r_last_proof = synthetic_merkle_proof(nodes, proof.tree, c, s);
      std::visit([&](auto& q) { q.root = comm_r_last; }, p.comm_r_last_proof.data);
      std::array<std::uint32_t, stacked::degree> parents{};
      graph.parents(static_cast<std::uint32_t>(c), parents);
      p.replica_column_proofs.c_x = column_proof(static_cast<std::uint32_t>(c));
      for (unsigned i = 0; i < base_degree; ++i) p.replica_column_proofs.drg_parents.push_back(column_proof(parents[i]));
      for (unsigned i = 0; i < stacked::exp_degree; ++i)
        p.replica_column_proofs.exp_parents.push_back(column_proof(parents[base_degree + i]));
      for (unsigned l = 1; l <= proof.layers; ++l) {
        stacked::labeling_proof lp;
        for (unsigned i = 0; i < stacked::total_parents; ++i) lp.parents.push_back(random_domain(s));
        lp.layer_index = l, lp.node = c;
        p.labeling_proofs.push_back(std::move(lp));
      }
      p.encoding_proof.parents = p.labeling_proofs.back().parents;
      p.encoding_proof.layer_index = proof.layers, p.encoding_proof.node = c;
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
