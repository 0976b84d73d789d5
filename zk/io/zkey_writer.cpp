#include "zk/io/zkey_writer.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "zk/io/field_checks.hpp"

namespace cuzk::zk::io {

namespace {

class byte_writer {
 public:
  std::vector<std::uint8_t> out;

  void u32(std::uint32_t v) {
    auto p = grow(4);
    store_u32(p, v);
  }
  void raw(const void* p, std::size_t n) {
    if (n) std::memcpy(grow(n), p, n);
  }
  void g1(const g1_affine& a) { write_g1(grow(96), a); }
  void g2(const g2_affine& a) { write_g2(grow(192), a); }
  template <std::size_t N>
  void integer(const bigint<N>& v) { v.to_le_bytes(grow(8 * N)); }

  // Section framing: id, then a size patched when the section ends.
  void begin(std::uint32_t id) {
    u32(id);
    size_at_ = out.size();
    grow(8);
  }
  void end() { store_u64(out.data() + size_at_, out.size() - size_at_ - 8); }

 private:
  std::uint8_t* grow(std::size_t n) {
    out.resize(out.size() + n);
    return out.data() + out.size() - n;
  }
  std::size_t size_at_ = 0;
};

void expect(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("zkey writer: " + what);
}

}  // namespace

zkey_parts parts_of(const zkey& key) {
  zkey_parts p;
  p.n_vars = key.n_vars;
  p.n_public = key.n_public;
  p.domain_size = key.domain_size;
  p.vk = key.vk;
  p.a = key.a;
  p.b1 = key.b1;
  p.b2 = key.b2;
  p.c = key.c;
  p.h = key.h;
  p.coefficients = key.coefficients;
  return p;
}

std::vector<std::uint8_t> serialize_zkey(const zkey_parts& k) {
  expect(k.n_vars >= k.n_public + 1, "n_vars must cover the constant and the public signals");
  expect(k.domain_size && (k.domain_size & (k.domain_size - 1)) == 0, "domain_size must be a power of two");
  expect(k.vk.ic.size() == std::size_t(k.n_public) + 1, "vk.ic must hold n_public + 1 points");
  expect(k.a.size() == k.n_vars && k.b1.size() == k.n_vars && k.b2.size() == k.n_vars,
         "a, b1, b2 must hold n_vars points");
  expect(k.c.size() == std::size_t(k.n_vars) - k.n_public - 1, "c must hold n_vars - n_public - 1 points");
  expect(k.h.size() == k.domain_size, "h must hold domain_size points");

  byte_writer w;
  w.out.reserve(12 + 10 * 12 + 4 + 964 + 96 * (k.vk.ic.size() + 2 * k.a.size() + k.c.size() + k.h.size()) +
                192 * k.b2.size() + 4 + 44 * k.coefficients.size() + 68);
  w.raw("zkey", 4);
  w.u32(1);   // version
  w.u32(10);  // sections

  w.begin(1);
  w.u32(1);  // groth16
  w.end();

  w.begin(2);
  w.u32(48);
  w.integer(fp::P);
  w.u32(32);
  w.integer(fr::P);
  w.u32(k.n_vars);
  w.u32(k.n_public);
  w.u32(k.domain_size);
  w.g1(k.vk.alpha1);
  w.g1(k.vk.beta1);
  w.g2(k.vk.beta2);
  w.g2(k.vk.gamma2);
  w.g1(k.vk.delta1);
  w.g2(k.vk.delta2);
  w.end();

  w.begin(3);
  for (auto& p : k.vk.ic) w.g1(p);
  w.end();

  w.begin(4);
  w.u32(std::uint32_t(k.coefficients.size()));
  for (auto& c : k.coefficients) {
    w.u32(c.matrix);
    w.u32(c.constraint);
    w.u32(c.signal);
    w.integer(c.value.m);
  }
  w.end();

  // The point sections are the in-memory layout already.
  w.begin(5);
  w.raw(k.a.data(), k.a.size_bytes());
  w.end();
  w.begin(6);
  w.raw(k.b1.data(), k.b1.size_bytes());
  w.end();
  w.begin(7);
  w.raw(k.b2.data(), k.b2.size_bytes());
  w.end();
  w.begin(8);
  w.raw(k.c.data(), k.c.size_bytes());
  w.end();
  w.begin(9);
  w.raw(k.h.data(), k.h.size_bytes());
  w.end();

  // snarkjs's readMPCParams: 64-byte csHash, u32 number of contributions, then the contributions.
  w.begin(10);
  w.raw(k.cs_hash.data(), k.cs_hash.size());
  w.u32(0);
  w.end();
  return std::move(w.out);
}

void write_zkey(const std::string& path, const zkey_parts& parts) {
  auto bytes = serialize_zkey(parts);
  std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw std::runtime_error(tmp + ": cannot create: " + std::strerror(errno));
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    std::remove(tmp.c_str());
    throw std::runtime_error(path + ": cannot write: " + std::strerror(e));
  }
}

}  // namespace cuzk::zk::io
