#include "fil/merkle/verify.hpp"

#include <stdexcept>
#include <vector>

#include "fil/crypto/hashes.hpp"
#include "fil/crypto/poseidon.hpp"
#include "zk/error.hpp"

namespace cuzk::fil::merkle {

namespace {

std::optional<domain> climb(domain h, const inclusion_path& p, tree_hasher kind) {
  std::vector<fr> nodes;
  for (const auto& level : p.path) {
    if (level.index > level.hashes.size()) return std::nullopt;
    if (kind == tree_hasher::sha256) {
      if (level.hashes.size() != 1) return std::nullopt;
      const domain& l = level.index == 0 ? h : level.hashes[0];
      const domain& r = level.index == 0 ? level.hashes[0] : h;
      h = fr32_safe(crypto::sha256().update(l).update(r).finish());
    } else {
      nodes.clear();
      for (std::size_t i = 0; i <= level.hashes.size(); ++i) {
        const domain& d = i == level.index ? h : level.hashes[i < level.index ? i : i - 1];
        nodes.push_back(domain_to_fr(d, "merkle node"));
      }
      h = fr_to_domain(crypto::poseidon(nodes));
    }
  }
  return h;
}

}  // namespace

std::optional<domain> compute_root(const merkle_proof& proof, tree_hasher kind) {
  try {
    if (const auto* p = std::get_if<single_proof>(&proof.data)) return climb(p->leaf, p->path, kind);
    if (const auto* p = std::get_if<sub_tree_proof>(&proof.data)) {
      auto base = climb(p->leaf, p->base_proof, kind);
      return base ? climb(*base, p->sub_proof, kind) : std::nullopt;
    }
    const auto& t = std::get<top_tree_proof>(proof.data);
    auto base = climb(t.leaf, t.base_proof, kind);
    auto sub = base ? climb(*base, t.sub_proof, kind) : std::nullopt;
    return sub ? climb(*sub, t.top_proof, kind) : std::nullopt;
  } catch (const zk::input_error&) {  // a value >= r
    return std::nullopt;
  } catch (const std::invalid_argument&) {  // an arity Poseidon is not defined for
    return std::nullopt;
  }
}

bool verify(const merkle_proof& proof, tree_hasher kind) {
  const auto r = compute_root(proof, kind);
  return r && *r == proof.root();
}

}  // namespace cuzk::fil::merkle
