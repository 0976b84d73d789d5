// bincode 1.x (default options) as Filecoin's vanilla proofs use it: little-endian fixed-width
// integers, u64 sequence lengths, u32 enum variant tags, [u8; 32] domains as 32 raw bytes; the
// MerkleProof encoding shared by PoSt and SnapDeals vanilla proofs (fil/io/post_bincode.hpp).
// Lengths are checked against the bytes left before anything is allocated; every error is one line
// naming `origin`, the field and the byte offset.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "fil/merkle/proof.hpp"
#include "zk/error.hpp"

namespace cuzk::fil::io {

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

inline merkle::inclusion_path read_path(bincode_reader& r, const std::string& f) {
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

inline merkle::merkle_proof read_merkle(bincode_reader& r, const std::string& f) {
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

inline void put_u64(std::vector<std::uint8_t>& o, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) o.push_back(std::uint8_t(v >> (8 * i)));
}
inline void put_u32(std::vector<std::uint8_t>& o, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) o.push_back(std::uint8_t(v >> (8 * i)));
}
inline void put_dom(std::vector<std::uint8_t>& o, const domain& d) { o.insert(o.end(), d.begin(), d.end()); }
inline void put_path(std::vector<std::uint8_t>& o, const merkle::inclusion_path& p) {
  put_u64(o, p.path.size());
  for (const auto& e : p.path) {
    put_u64(o, e.hashes.size());
    for (const auto& h : e.hashes) put_dom(o, h);
    put_u64(o, e.index);
  }
}
inline void put_merkle(std::vector<std::uint8_t>& o, const merkle::merkle_proof& m) {
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

}  // namespace cuzk::fil::io
