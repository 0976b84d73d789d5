#include "fil/io/post_bincode.hpp"

#include <cstring>

#include "fil/crypto/poseidon.hpp"
#include "fil/io/bincode.hpp"
#include "zk/error.hpp"

namespace cuzk::fil::io {

post::fallback_post_sector_proof read_post_vanilla_proof(std::span<const std::uint8_t> bytes, const std::string& origin) {
  bincode_reader r(bytes, origin);
  post::fallback_post_sector_proof p;
  p.sector_id = r.u64("sector_id");
  p.comm_r = r.dom("comm_r");
  // A SectorProof is at least 8 + 64 bytes; a MerkleProof at least 4 + 64 + 8.
  const std::size_t n = r.len("vanilla_proof.sectors", 72);
  p.vanilla_proof.sectors.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::string f = "vanilla_proof.sectors[" + std::to_string(i) + "]";
    auto& s = p.vanilla_proof.sectors[i];
    const std::size_t m = r.len(f + ".inclusion_proofs", 76);
    s.inclusion_proofs.reserve(m);
    for (std::size_t j = 0; j < m; ++j)
      s.inclusion_proofs.push_back(read_merkle(r, f + ".inclusion_proofs[" + std::to_string(j) + "]"));
    s.comm_c = r.dom(f + ".comm_c");
    s.comm_r_last = r.dom(f + ".comm_r_last");
  }
  if (!r.at_end())
    r.fail("FallbackPoStSectorProof", std::to_string(bytes.size() - r.offset()) + " bytes after the end of the proof");
  return p;
}

std::vector<std::uint8_t> to_bincode(const post::fallback_post_sector_proof& p) {
  std::vector<std::uint8_t> o;
  put_u64(o, p.sector_id);
  put_dom(o, p.comm_r);
  put_u64(o, p.vanilla_proof.sectors.size());
  for (const auto& s : p.vanilla_proof.sectors) {
    put_u64(o, s.inclusion_proofs.size());
    for (const auto& m : s.inclusion_proofs) put_merkle(o, m);
    put_dom(o, s.comm_c), put_dom(o, s.comm_r_last);
  }
  return o;
}

void check_post_shape(const post::fallback_post_sector_proof& p, const post_proof_info& info,
                      std::span<const std::uint64_t> leaf_challenges, const std::string& origin) {
  auto err = [&](const std::string& field, const std::string& what) {
    throw zk::input_error(origin + ": " + field + ": " + what);
  };
  if (p.vanilla_proof.sectors.size() != 1)
    err("vanilla_proof.sectors", "expected 1 sector proof, found " + std::to_string(p.vanilla_proof.sectors.size()));
  const auto& s = p.vanilla_proof.sectors[0];
  if (crypto::poseidon2(s.comm_c, s.comm_r_last) != p.comm_r)
    err("comm_r", "is not Poseidon(comm_c, comm_r_last) of the sector proof");
  if (s.inclusion_proofs.size() != info.challenge_count)
    err("vanilla_proof.sectors[0].inclusion_proofs", "expected " + std::to_string(info.challenge_count) +
                                                         " proofs, found " + std::to_string(s.inclusion_proofs.size()));
  const tree_shape t = info.tree;
  const unsigned want_kind = t.top ? 2 : t.sub ? 1 : 0;
  const std::uint64_t nodes = info.sector_size / node_size;
  const std::uint64_t base_leaves = nodes / (t.sub ? t.sub : 1) / (t.top ? t.top : 1);
  unsigned base_levels = 0;
  for (std::uint64_t n = base_leaves; n > 1; n /= t.base) ++base_levels;
  for (std::size_t i = 0; i < s.inclusion_proofs.size(); ++i) {
    const auto& m = s.inclusion_proofs[i];
    const std::string f = "vanilla_proof.sectors[0].inclusion_proofs[" + std::to_string(i) + "]";
    if (m.kind() != want_kind) err(f + ".data", "wrong tree shape for " + std::string(info.name));
    if (m.root() != s.comm_r_last) err(f + ".data", "root is not the sector's comm_r_last");
    auto check = [&](const merkle::inclusion_path& path, unsigned arity, unsigned levels, const std::string& pf) {
      if (path.path.size() != levels) err(pf, "expected " + std::to_string(levels) + " levels, found " +
                                                  std::to_string(path.path.size()));
      for (const auto& e : path.path)
        if (e.hashes.size() != arity - 1 || e.index >= arity) err(pf, "a level does not have arity " + std::to_string(arity));
      return path.path_index(arity);
    };
    std::uint64_t index = 0;
    if (const auto* q = std::get_if<merkle::single_proof>(&m.data)) {
      index = check(q->path, t.base, base_levels, f + ".data.Single.path");
    } else if (const auto* q = std::get_if<merkle::sub_tree_proof>(&m.data)) {
      index = check(q->sub_proof, t.sub, 1, f + ".data.Sub.sub_proof") * base_leaves +
              check(q->base_proof, t.base, base_levels, f + ".data.Sub.base_proof");
    } else {
      const auto& q2 = std::get<merkle::top_tree_proof>(m.data);
      index = (check(q2.top_proof, t.top, 1, f + ".data.Top.top_proof") * t.sub +
               check(q2.sub_proof, t.sub, 1, f + ".data.Top.sub_proof")) * base_leaves +
              check(q2.base_proof, t.base, base_levels, f + ".data.Top.base_proof");
    }
    if (i < leaf_challenges.size() && index != leaf_challenges[i])
      err(f, "proves leaf " + std::to_string(index) + ", the challenge is " + std::to_string(leaf_challenges[i]));
  }
}

}  // namespace cuzk::fil::io
