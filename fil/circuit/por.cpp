#include "fil/circuit/por.hpp"

#include <bit>
#include <stdexcept>
#include <string>

#include "fil/circuit/insertion.hpp"
#include "fil/circuit/poseidon.hpp"
#include "zk/cs/gadgets/multipack.hpp"

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
  allocated_num cur;
  {
    constraint_system::scope s(cs, "value");
    cur = allocated_num::alloc(cs, leaf);
  }
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
    cur = poseidon_hash(cs, inserted);
  }
  {
    constraint_system::scope s(cs, "path");
    pack_into_inputs(cs, path_bits);
  }
  constraint_system::scope s(cs, "enforce root is correct");
  enforce_equal(cs, cur, root);
}

}  // namespace cuzk::fil::circuit
