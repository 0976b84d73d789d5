#include "fil/circuit/por.hpp"

#include <bit>
#include <type_traits>
#include <variant>
#include <stdexcept>
#include <string>

#include "fil/circuit/insertion.hpp"
#include "fil/circuit/poseidon.hpp"
#include "fil/circuit/sha256.hpp"
#include "zk/cs/gadgets/multipack.hpp"
#include "zk/error.hpp"

namespace cuzk::fil::circuit {

using zk::cs::constraint_system;
using namespace zk::cs::gadgets;

std::vector<path_level> blank_path(const tree_arities& shape, std::uint64_t leaves) {
  std::uint64_t base_leaves = leaves / (shape.sub ? shape.sub : 1) / (shape.top ? shape.top : 1);
  std::vector<path_level> path;
  for (std::uint64_t n = base_leaves; n > 1; n /= shape.base) path.push_back({shape.base, 0, std::vector<fr>(shape.base - 1)});
  if (shape.sub) path.push_back({shape.sub, 0, std::vector<fr>(shape.sub - 1)});
  if (shape.top) path.push_back({shape.top, 0, std::vector<fr>(shape.top - 1)});
  return path;
}

void por(constraint_system& cs, const tree_arities& shape, const fr& leaf, const std::vector<path_level>& path,
         const allocated_num& root) {
  allocated_num value;
  {
    constraint_system::scope s(cs, "value");
    value = allocated_num::alloc(cs, leaf);
  }
  por(cs, shape, tree_hash::poseidon, value, path, root);
}

void por(constraint_system& cs, const tree_arities& shape, tree_hash hash, const allocated_num& leaf,
         const std::vector<path_level>& path, const allocated_num& root, const std::string* check) {
  allocated_num cur = leaf;
  std::vector<boolean> path_bits;
  // Levels are grouped as base, sub, top (the last one or two levels when the shape has them); the
  // numbering restarts in each group.
  const std::size_t extra = (shape.sub ? 1 : 0) + (shape.top ? 1 : 0);
  if (path.size() < extra) throw std::invalid_argument("por: a path of " + std::to_string(path.size()) + " levels");
  const std::size_t base_levels = path.size() - extra;
  const char* groups[] = {"base", "sub", "top"};
  for (std::size_t l = 0; l < path.size(); ++l) {
    const path_level& lv = path[l];
    const std::size_t group = l < base_levels ? 0 : l - base_levels + 1;
    const std::size_t in_group = l < base_levels ? l : 0;
    const unsigned want = group == 0 ? shape.base : group == 1 ? shape.sub : shape.top;
    if (lv.arity != want || !std::has_single_bit(lv.arity) || lv.siblings.size() + 1 != lv.arity)
      throw std::invalid_argument("por: level " + std::to_string(l) + " has " + std::to_string(lv.siblings.size()) +
                                  " siblings for arity " + std::to_string(lv.arity));
    constraint_system::scope g(cs, groups[group]);
    constraint_system::scope s(cs, "merkle tree hash " + std::to_string(in_group));
    const unsigned nbits = unsigned(std::countr_zero(lv.arity));
    std::vector<allocated_bit> bits;
    for (unsigned i = 0; i < nbits; ++i) {
      constraint_system::scope b(cs, "index bit " + std::to_string(i));
      bits.push_back(allocated_bit::alloc(cs, ((lv.index >> i) & 1) != 0));
      path_bits.push_back(boolean::from(bits.back()));
    }
    std::vector<allocated_num> siblings;
    for (std::size_t i = 0; i < lv.siblings.size(); ++i) {
      constraint_system::scope e(cs, "path element " + std::to_string(i));
      siblings.push_back(allocated_num::alloc(cs, lv.siblings[i]));
    }
    const auto inserted = insert(cs, cur, bits, siblings);
    constraint_system::scope h(cs, "computation of commitment hash");
    cur = hash == tree_hash::poseidon ? poseidon_hash(cs, inserted) : sha256_hash_multi_leaf(cs, inserted);
  }
  {
    constraint_system::scope s(cs, "path");
    pack_into_inputs(cs, path_bits);
  }
  if (check && !(cur.value == root.value)) throw zk::input_error(*check + ": path does not reach the root");
  constraint_system::scope s(cs, "enforce root is correct");
  enforce_equal(cs, cur, root);
}

void por_no_challenge_input(constraint_system& cs, const tree_arities& shape, tree_hash hash,
                            std::span<const allocated_bit> challenge_bits, const allocated_num& leaf,
                            const std::vector<std::vector<allocated_num>>& path, const allocated_num& root) {
  const std::size_t extra = (shape.sub ? 1 : 0) + (shape.top ? 1 : 0);
  if (path.size() < extra) throw std::logic_error("por_no_challenge_input: a path of " + std::to_string(path.size()) + " levels");
  const std::size_t base_levels = path.size() - extra;
  allocated_num cur = leaf;
  std::size_t used = 0;
  for (std::size_t height = 0; height < path.size(); ++height) {
    const unsigned arity = height < base_levels ? shape.base : height == base_levels && shape.sub ? shape.sub : shape.top;
    const unsigned nbits = unsigned(std::countr_zero(arity));
    if (path[height].size() + 1 != arity || used + nbits > challenge_bits.size())
      throw std::logic_error("por_no_challenge_input: level " + std::to_string(height) + " does not fit arity " +
                             std::to_string(arity));
    std::vector<allocated_num> preimage;
    {
      constraint_system::scope s(cs, "merkle proof insert (height=" + std::to_string(height) + ")");
      preimage = insert(cs, cur, challenge_bits.subspan(used, nbits), path[height]);
    }
    used += nbits;
    constraint_system::scope s(cs, "merkle proof hash (height=" + std::to_string(height) + ")");
    cur = hash == tree_hash::poseidon ? poseidon_hash(cs, preimage) : sha256_hash_multi_leaf(cs, preimage);
  }
  if (used != challenge_bits.size())
    throw std::logic_error("por_no_challenge_input: " + std::to_string(challenge_bits.size()) + " challenge bits for " +
                           std::to_string(used) + " path bits");
  constraint_system::scope s(cs, "calculated root == provided root");
  enforce_equal(cs, cur, root);
}

namespace {

void append_levels(std::vector<path_level>& out, const merkle::inclusion_path& p, unsigned arity,
                   const std::string& what) {
  for (std::size_t l = 0; l < p.path.size(); ++l) {
    const auto& e = p.path[l];
    if (e.hashes.size() + 1 != arity || e.index >= arity)
      throw zk::input_error(what + " level " + std::to_string(l) + ": " + std::to_string(e.hashes.size()) +
                            " siblings, index " + std::to_string(e.index) + " for arity " + std::to_string(arity));
    path_level lv{arity, e.index, {}};
    for (const auto& h : e.hashes) lv.siblings.push_back(domain_to_fr(h, what + " sibling"));
    out.push_back(std::move(lv));
  }
}

}  // namespace

std::vector<path_level> path_levels(const merkle::merkle_proof& p, const tree_arities& shape, const std::string& what) {
  const unsigned have = (shape.sub ? 1 : 0) + (shape.top ? 1 : 0);
  if (p.kind() != have)
    throw zk::input_error(what + ": a Merkle proof of kind " + std::to_string(p.kind()) + " for a tree of " +
                          std::to_string(have) + " upper levels");
  std::vector<path_level> levels;
  std::visit(
      [&](const auto& q) {
        using T = std::decay_t<decltype(q)>;
        if constexpr (std::is_same_v<T, merkle::single_proof>) {
          append_levels(levels, q.path, shape.base, what);
        } else if constexpr (std::is_same_v<T, merkle::sub_tree_proof>) {
          append_levels(levels, q.base_proof, shape.base, what + " base");
          append_levels(levels, q.sub_proof, shape.sub, what + " sub");
        } else {
          append_levels(levels, q.base_proof, shape.base, what + " base");
          append_levels(levels, q.sub_proof, shape.sub, what + " sub");
          append_levels(levels, q.top_proof, shape.top, what + " top");
        }
      },
      p.data);
  return levels;
}

std::vector<path_level> path_levels_from(const merkle::merkle_proof& p, const tree_arities& shape,
                                         std::uint64_t leaves, const std::string& what) {
  const unsigned have = (shape.sub ? 1 : 0) + (shape.top ? 1 : 0);
  std::vector<path_level> levels = path_levels(p, shape, what);
  const std::size_t want = blank_path(shape, leaves).size();
  if (levels.size() != want)
    throw zk::input_error(what + ": a path of " + std::to_string(levels.size()) + " levels, the tree has " +
                          std::to_string(want));
  // The sub and top parts hold one level each.
  if (have > 0) {
    std::size_t upper = 0;
    std::visit(
        [&](const auto& q) {
          using T = std::decay_t<decltype(q)>;
          if constexpr (std::is_same_v<T, merkle::sub_tree_proof>) upper = q.sub_proof.path.size();
          else if constexpr (std::is_same_v<T, merkle::top_tree_proof>) upper = q.sub_proof.path.size() + q.top_proof.path.size();
        },
        p.data);
    if (upper != have) throw zk::input_error(what + ": " + std::to_string(upper) + " upper levels, the tree has " + std::to_string(have));
  }
  return levels;
}

}  // namespace cuzk::fil::circuit
