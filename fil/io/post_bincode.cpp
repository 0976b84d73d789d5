#include "fil/io/post_bincode.hpp"

#include <cstring>

#include "fil/crypto/poseidon.hpp"
#include "zk/error.hpp"

namespace cuzk::fil::io {

namespace {

class bincode_reader {
 public:
  bincode_reader(std::span<const std::uint8_t> b, const std::string& origin) : b_(b), origin_(origin) {}

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw zk::input_error(origin_ + ": " + field + ": " + what + " (at byte " + std::to_string(at_) + ")");
  }
  void need(std::size_t n, const std::string& field) const {
    if (b_.size() - at_ < n) fail(field, "truncated: needs " + std::to_string(n) + " bytes, " +
                                         std::to_string(b_.size() - at_) + " left");
  }
  std::uint64_t u64(const std::string& field) {
    need(8, field);
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = v << 8 | b_[at_ + std::size_t(i)];
    at_ += 8;
    return v;
  }
  std::uint32_t u32(const std::string& field) {
    need(4, field);
    std::uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = v << 8 | b_[at_ + std::size_t(i)];
    at_ += 4;
    return v;
  }
  domain dom(const std::string& field) {
    need(32, field);
    domain d;
    std::memcpy(d.data(), b_.data() + at_, 32);
    at_ += 32;
    return d;
  }
  // A sequence length, refused when even `min_element` bytes per element do not fit in what is left.
  std::size_t len(const std::string& field, std::size_t min_element) {
    const std::uint64_t n = u64(field);
    if (n > (b_.size() - at_) / min_element) fail(field, "length " + std::to_string(n) + " exceeds the bytes left");
    return std::size_t(n);
  }
  bool at_end() const { return at_ == b_.size(); }
  std::size_t offset() const { return at_; }

 private:
  std::span<const std::uint8_t> b_;
  const std::string& origin_;
  std::size_t at_ = 0;
};

merkle::inclusion_path read_path(bincode_reader& r, const std::string& f) {
  merkle::inclusion_path p;
  const std::size_t n = r.len(f + ".path", 16);
  p.path.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::string e = f + ".path[" + std::to_string(i) + "]";
    const std::size_t k = r.len(e + ".hashes", 32);
    p.path[i].hashes.resize(k);
    for (std::size_t j = 0; j < k; ++j) p.path[i].hashes[j] = r.dom(e + ".hashes[" + std::to_string(j) + "]");
    p.path[i].index = r.u64(e + ".index");
  }
  return p;
}

merkle::merkle_proof read_merkle(bincode_reader& r, const std::string& f) {
  merkle::merkle_proof m;
  const std::uint32_t v = r.u32(f + ".data");
  if (v == 0) {
    merkle::single_proof p;
    p.root = r.dom(f + ".data.Single.root");
    p.leaf = r.dom(f + ".data.Single.leaf");
    p.path = read_path(r, f + ".data.Single.path");
    m.data = std::move(p);
  } else if (v == 1) {
    merkle::sub_tree_proof p;
    p.base_proof = read_path(r, f + ".data.Sub.base_proof");
    p.sub_proof = read_path(r, f + ".data.Sub.sub_proof");
    p.root = r.dom(f + ".data.Sub.root");
    p.leaf = r.dom(f + ".data.Sub.leaf");
    m.data = std::move(p);
  } else if (v == 2) {
    merkle::top_tree_proof p;
    p.base_proof = read_path(r, f + ".data.Top.base_proof");
    p.sub_proof = read_path(r, f + ".data.Top.sub_proof");
    p.top_proof = read_path(r, f + ".data.Top.top_proof");
    p.root = r.dom(f + ".data.Top.root");
    p.leaf = r.dom(f + ".data.Top.leaf");
    m.data = std::move(p);
  } else {
    r.fail(f + ".data", "unknown variant " + std::to_string(v) + " (expected 0 Single, 1 Sub, 2 Top)");
  }
  return m;
}

void put_u64(std::vector<std::uint8_t>& o, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) o.push_back(std::uint8_t(v >> (8 * i)));
}
void put_u32(std::vector<std::uint8_t>& o, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) o.push_back(std::uint8_t(v >> (8 * i)));
}
void put_dom(std::vector<std::uint8_t>& o, const domain& d) { o.insert(o.end(), d.begin(), d.end()); }
void put_path(std::vector<std::uint8_t>& o, const merkle::inclusion_path& p) {
  put_u64(o, p.path.size());
  for (const auto& e : p.path) {
    put_u64(o, e.hashes.size());
    for (const auto& h : e.hashes) put_dom(o, h);
    put_u64(o, e.index);
  }
}
void put_merkle(std::vector<std::uint8_t>& o, const merkle::merkle_proof& m) {
  put_u32(o, m.kind());
  if (const auto* p = std::get_if<merkle::single_proof>(&m.data)) {
    put_dom(o, p->root), put_dom(o, p->leaf), put_path(o, p->path);
  } else if (const auto* p = std::get_if<merkle::sub_tree_proof>(&m.data)) {
    put_path(o, p->base_proof), put_path(o, p->sub_proof), put_dom(o, p->root), put_dom(o, p->leaf);
  } else {
    const auto& t = std::get<merkle::top_tree_proof>(m.data);
    put_path(o, t.base_proof), put_path(o, t.sub_proof), put_path(o, t.top_proof), put_dom(o, t.root), put_dom(o, t.leaf);
  }
}

}  // namespace

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
