#include "zk/io/bellperson.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <bit>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>

#include "zk/bls12_381/compressed.hpp"
#include "zk/bls12_381/subgroup.hpp"
#include "zk/io/point_checks_ifma.hpp"
#include "zk/io/zkey.hpp"
#include "zk/util/parallel.hpp"

namespace cuzk::zk::io {

namespace {

constexpr std::uint64_t g1_size = g1_uncompressed_size, g2_size = g2_uncompressed_size;

std::uint32_t load_u32_be(const std::uint8_t* p) {
  return std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 | std::uint32_t(p[3]);
}
void store_u32_be(std::uint8_t* p, std::uint32_t v) {
  p[0] = std::uint8_t(v >> 24), p[1] = std::uint8_t(v >> 16), p[2] = std::uint8_t(v >> 8), p[3] = std::uint8_t(v);
}

[[noreturn]] void fail(const std::string& name, const std::string& what) { throw input_error(name + ": " + what); }

// Decoders that prefix the file name to the point's message.
template <class Point>
Point decode(const std::uint8_t* p, const std::string& name, const std::string& field) {
  try {
    if constexpr (std::is_same_v<Point, g1_affine>)
      return g1_from_uncompressed(std::span<const std::uint8_t, g1_size>(p, g1_size), field);
    else
      return g2_from_uncompressed(std::span<const std::uint8_t, g2_size>(p, g2_size), field);
  } catch (const input_error& e) {
    fail(name, e.what());
  }
}

// A vk point: decoded, not the identity, in the subgroup.
template <class Point>
Point vk_point(const std::uint8_t* p, const std::string& name, const std::string& field) {
  Point q = decode<Point>(p, name, field);
  if (q.is_identity()) fail(name, field + ": point at infinity");
  bool ok;
  if constexpr (std::is_same_v<Point, g1_affine>) ok = g1_in_subgroup(q);
  else ok = g2_in_subgroup(q);
  if (!ok) fail(name, field + ": point is not in the prime-order subgroup");
  return q;
}

// The vk at the start of `b`; returns its length. Bounds checked before each read.
std::uint64_t parse_vk_prefix(std::span<const std::uint8_t> b, const std::string& name, groth16::verifying_key& vk) {
  if (b.size() < bellperson_vk_fixed_bytes)
    fail(name, "verifying key truncated: " + std::to_string(b.size()) + " bytes, the fixed part alone has " +
                   std::to_string(bellperson_vk_fixed_bytes));
  const std::uint8_t* p = b.data();
  vk.alpha1 = vk_point<g1_affine>(p, name, "vk.alpha_g1");
  vk.beta1 = vk_point<g1_affine>(p + 96, name, "vk.beta_g1");
  vk.beta2 = vk_point<g2_affine>(p + 192, name, "vk.beta_g2");
  vk.gamma2 = vk_point<g2_affine>(p + 384, name, "vk.gamma_g2");
  vk.delta1 = vk_point<g1_affine>(p + 576, name, "vk.delta_g1");
  vk.delta2 = vk_point<g2_affine>(p + 672, name, "vk.delta_g2");
  const std::uint32_t n = load_u32_be(p + 864);
  const std::uint64_t end = bellperson_vk_fixed_bytes + std::uint64_t{n} * g1_size;
  if (n == 0) fail(name, "vk.ic: count is 0 (at least the constant input's point is needed)");
  if (end > b.size())
    fail(name, "vk.ic: count " + std::to_string(n) + " needs " + std::to_string(end) + " bytes, the file has " +
                   std::to_string(b.size()));
  vk.ic.resize(n);
  for (std::uint32_t i = 0; i < n; ++i)
    vk.ic[i] = vk_point<g1_affine>(p + bellperson_vk_fixed_bytes + i * g1_size, name, "vk.ic[" + std::to_string(i) + "]");
  return end;
}

// 48 big-endian bytes as an integer (the flag bits of a point's first coordinate masked off).
bigint<6> load_fp_be(const std::uint8_t* p, bool first) {
  bigint<6> c;
  for (int k = 0; k < 6; ++k) {
    std::uint64_t w;
    std::memcpy(&w, p + 8 * (5 - k), 8);
    c.limb[k] = __builtin_bswap64(w);
  }
  if (first) c.limb[5] &= 0x1fffffffffffffffull;
  return c;
}

// The fast path of one point: no flag set, coordinates below p (then converted to Montgomery
// form), not (0, 0). False sends the point to the slow path, which says what is wrong.
bool decode_fast(const std::uint8_t* p, g1_affine& out) {
  if (p[0] & 0xe0) return false;
  const bigint<6> x = load_fp_be(p, true), y = load_fp_be(p + 48, false);
  if (!fp::is_canonical(x) || !fp::is_canonical(y)) return false;
  out = g1_affine::of(fp::from_canonical(x), fp::from_canonical(y));
  return !out.is_identity();
}
bool decode_fast(const std::uint8_t* p, g2_affine& out) {
  if (p[0] & 0xe0) return false;
  const bigint<6> x1 = load_fp_be(p, true), x0 = load_fp_be(p + 48, false), y1 = load_fp_be(p + 96, false),
                  y0 = load_fp_be(p + 144, false);
  if (!fp::is_canonical(x1) || !fp::is_canonical(x0) || !fp::is_canonical(y1) || !fp::is_canonical(y0)) return false;
  out = g2_affine::of(fp2{fp::from_canonical(x0), fp::from_canonical(x1)},
                      fp2{fp::from_canonical(y0), fp::from_canonical(y1)});
  return !out.is_identity();
}

// What is wrong with point i of a section (the slow path: the decoder's own message, named).
template <class Point>
std::string point_message(const bellperson_params& f, const bellperson_params::section& s, std::string_view what,
                          std::size_t i) {
  constexpr std::uint64_t size = sizeof(Point) == 96 ? g1_size : g2_size;
  const std::uint8_t* p = f.bytes->bytes().data() + s.offset + i * size;
  const std::string field =
      std::string(what) + "[" + std::to_string(i) + "] (offset " + std::to_string(s.offset + i * size) + ")";
  try {
    const Point q = decode<Point>(p, f.path, field);
    if (q.is_identity()) return f.path + ": " + field + ": point at infinity";
    return f.path + ": " + field + ": not decoded";  // (unreachable for a point the checks refused)
  } catch (const input_error& e) {
    return e.what();
  }
}

template <class Point>
decoded_points<Point> decode_section(const bellperson_params& f, const bellperson_params::section& s,
                                     std::string_view what) {
  constexpr std::uint64_t size = sizeof(Point) == 96 ? g1_size : g2_size;
  const std::uint8_t* base = f.bytes->bytes().data() + s.offset;
  decoded_points<Point> out(s.count);  // not zeroed: every element is written below
  const bool lanes = lane_point_checks_available();
  // The first bad point in file order wins, whichever thread finds it.
  std::atomic<std::size_t> first_bad{SIZE_MAX};
  std::mutex mu;
  std::string message;
  parallel_for(s.count, [&](std::size_t lo, std::size_t hi) {
    std::size_t i = lo;
    // Eight at a time: decoded, then one IFMA on-curve test for the eight. A group with anything
    // wrong in it is redone one point at a time to find the first bad one.
    for (; lanes && i + 8 <= hi && i < first_bad.load(std::memory_order_relaxed); i += 8) {
      bool good = true;
      for (std::size_t l = 0; l < 8; ++l) good &= decode_fast(base + (i + l) * size, out[i + l]);
      if (!good || off_curve_lanes(&out[i]) != 0) break;
    }
    for (; i < hi && i < first_bad.load(std::memory_order_relaxed); ++i) {
      if (decode_fast(base + i * size, out[i]) && out[i].is_on_curve()) continue;
      // The slow path names the point (the fast one builds no strings).
      std::string why = point_message<Point>(f, s, what, i);
      std::lock_guard lk(mu);
      if (i < first_bad) first_bad = i, message = why;
      return;
    }
  }, 4096);
  if (first_bad != SIZE_MAX) throw input_error(message);
  return out;
}

template <class Point>
void append_points(std::vector<std::uint8_t>& out, std::span<const Point> pts) {
  constexpr std::size_t size = sizeof(Point) == 96 ? g1_size : g2_size;
  std::uint8_t count[4];
  store_u32_be(count, std::uint32_t(pts.size()));
  out.insert(out.end(), count, count + 4);
  const std::size_t at = out.size();
  out.resize(at + pts.size() * size);
  parallel_for(pts.size(), [&](std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi; ++i) write_uncompressed(pts[i], out.data() + at + i * size);
  }, 4096);
}

void write_file(const std::string& path, std::span<const std::uint8_t> bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw input_error(path + ": cannot open for writing");
  f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  if (!f) throw input_error(path + ": write failed");
}

}  // namespace

groth16::verifying_key parse_bellperson_vk(std::span<const std::uint8_t> bytes, const std::string& name) {
  groth16::verifying_key vk;
  const std::uint64_t end = parse_vk_prefix(bytes, name, vk);
  if (end != bytes.size())
    fail(name, std::to_string(bytes.size() - end) + " bytes after the verifying key's " + std::to_string(vk.ic.size()) +
                   " IC points (a .vk is 868 + 96 n bytes)");
  return vk;
}

groth16::verifying_key parse_compressed_vk(std::span<const std::uint8_t> b, const std::string& name) {
  constexpr std::uint64_t fixed = 3 * g1_compressed_size + 3 * g2_compressed_size + 4;
  if (b.size() < fixed)
    fail(name, "verifying key truncated: " + std::to_string(b.size()) + " bytes, the fixed part alone has " +
                   std::to_string(fixed));
  auto g1 = [&](std::uint64_t at, const std::string& field) {
    g1_affine q;
    try {
      q = g1_from_compressed(std::span<const std::uint8_t, g1_compressed_size>(b.data() + at, g1_compressed_size), field);
    } catch (const input_error& e) {
      fail(name, e.what());
    }
    if (q.is_identity()) fail(name, field + ": point at infinity");
    return q;
  };
  auto g2 = [&](std::uint64_t at, const std::string& field) {
    g2_affine q;
    try {
      q = g2_from_compressed(std::span<const std::uint8_t, g2_compressed_size>(b.data() + at, g2_compressed_size), field);
    } catch (const input_error& e) {
      fail(name, e.what());
    }
    if (q.is_identity()) fail(name, field + ": point at infinity");
    return q;
  };
  groth16::verifying_key vk;
  vk.alpha1 = g1(0, "vk.alpha_g1");
  vk.beta1 = g1(48, "vk.beta_g1");
  vk.beta2 = g2(96, "vk.beta_g2");
  vk.gamma2 = g2(192, "vk.gamma_g2");
  vk.delta1 = g1(288, "vk.delta_g1");
  vk.delta2 = g2(336, "vk.delta_g2");
  const std::uint32_t n = load_u32_be(b.data() + 432);
  if (n == 0) fail(name, "vk.ic: count is 0 (at least the constant input's point is needed)");
  if (fixed + std::uint64_t{n} * g1_compressed_size != b.size())
    fail(name, "vk.ic: count " + std::to_string(n) + " needs " + std::to_string(fixed + std::uint64_t{n} * 48) +
                   " bytes, the file has " + std::to_string(b.size()));
  for (std::uint32_t i = 0; i < n; ++i) vk.ic.push_back(g1(fixed + i * 48, "vk.ic[" + std::to_string(i) + "]"));
  return vk;
}

groth16::verifying_key read_bellperson_vk(const std::string& path) {
  auto f = file_bytes::map(path);
  return parse_bellperson_vk(f->bytes(), path);
}

std::vector<std::uint8_t> bellperson_vk_bytes(const groth16::verifying_key& vk) {
  std::vector<std::uint8_t> out(bellperson_vk_fixed_bytes);
  std::uint8_t* p = out.data();
  write_uncompressed(vk.alpha1, p);
  write_uncompressed(vk.beta1, p + 96);
  write_uncompressed(vk.beta2, p + 192);
  write_uncompressed(vk.gamma2, p + 384);
  write_uncompressed(vk.delta1, p + 576);
  write_uncompressed(vk.delta2, p + 672);
  out.resize(bellperson_vk_fixed_bytes - 4);
  append_points<g1_affine>(out, vk.ic);
  return out;
}

std::uint64_t bellperson_params::domain_size() const {
  const std::uint64_t n = std::uint64_t{h.count} + 1;
  return std::has_single_bit(n) ? n : 0;
}

bellperson_params bellperson_params::parse(std::shared_ptr<const file_bytes> data, std::string name) {
  bellperson_params p;
  p.path = std::move(name);
  p.bytes = std::move(data);
  const auto b = p.bytes->bytes();
  std::uint64_t at = parse_vk_prefix(b, p.path, p.vk);
  auto next = [&](section& s, std::uint64_t point_size, const char* what) {
    if (b.size() - at < 4)
      fail(p.path, std::string("section ") + what + ": truncated before its count (offset " + std::to_string(at) +
                       ", file size " + std::to_string(b.size()) + ")");
    s.count = load_u32_be(b.data() + at);
    s.offset = at + 4;
    const std::uint64_t need = std::uint64_t{s.count} * point_size;
    if (need > b.size() - s.offset)
      fail(p.path, std::string("section ") + what + ": count " + std::to_string(s.count) + " needs " +
                       std::to_string(need) + " bytes at offset " + std::to_string(s.offset) + ", the file has " +
                       std::to_string(b.size() - s.offset) + " left");
    at = s.offset + need;
  };
  next(p.h, g1_size, "h");
  next(p.l, g1_size, "l");
  next(p.a, g1_size, "a");
  next(p.b_g1, g1_size, "b_g1");
  next(p.b_g2, g2_size, "b_g2");
  if (at != b.size()) fail(p.path, std::to_string(b.size() - at) + " bytes after the last section (b_g2)");
  if (p.domain_size() == 0)
    fail(p.path, "section h: " + std::to_string(p.h.count) + " points, not 2^k - 1");
  if (p.a.count < p.n_inputs())
    fail(p.path, "section a: " + std::to_string(p.a.count) + " points, fewer than the vk's " +
                     std::to_string(p.n_inputs()) + " inputs");
  if (p.b_g1.count != p.b_g2.count)
    fail(p.path, "sections b_g1 and b_g2 differ in length (" + std::to_string(p.b_g1.count) + " and " +
                     std::to_string(p.b_g2.count) + ")");
  return p;
}

bellperson_params bellperson_params::open(const std::string& path) { return parse(file_bytes::map(path, false), path); }

decoded_points<g1_affine> bellperson_params::g1_section(const section& s, std::string_view what) const {
  return decode_section<g1_affine>(*this, s, what);
}
decoded_points<g2_affine> bellperson_params::g2_section(const section& s, std::string_view what) const {
  return decode_section<g2_affine>(*this, s, what);
}

std::string bellperson_params::point_error(const section& s, std::string_view what, std::size_t i, bool g2) const {
  if (i >= s.count) return path + ": " + std::string(what) + "[" + std::to_string(i) + "]: no such point";
  return g2 ? point_message<g2_affine>(*this, s, what, i) : point_message<g1_affine>(*this, s, what, i);
}

void write_bellperson_vk(const std::string& path, const groth16::verifying_key& vk) {
  write_file(path, bellperson_vk_bytes(vk));
}

void write_bellperson_params(const std::string& path, const zkey& key) {
  if (key.convention != key_convention::bellperson)
    throw input_error(path + ": a snarkjs-convention key cannot be written as bellperson .params");
  write_file(path, bellperson_params_bytes(key));
}

std::vector<std::uint8_t> bellperson_params_bytes(const zkey& key) {
  if (key.convention != key_convention::bellperson)
    throw input_error("a snarkjs-convention key cannot be written as bellperson .params");
  std::vector<std::uint8_t> out = bellperson_vk_bytes(key.vk);
  out.reserve(out.size() + 20 + (key.h.size() + key.c.size() + key.a.size() + key.b1.size()) * g1_size +
              key.b2.size() * g2_size);
  append_points<g1_affine>(out, key.h);
  append_points<g1_affine>(out, key.c);
  append_points<g1_affine>(out, key.a);
  append_points<g1_affine>(out, key.b1);
  append_points<g2_affine>(out, key.b2);
  return out;
}

namespace {

// BLAKE2b-512 fed by `feed(update)`; the first 16 bytes as hex (parameters.json's digest).
template <class Feed>
std::string blake2b_prefix_hex(Feed&& feed) {
  parameters_json_hasher h;
  feed([&](const void* p, std::size_t n) { h.update({static_cast<const std::uint8_t*>(p), n}); });
  return h.hex();
}

}  // namespace

parameters_json_hasher::parameters_json_hasher() {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  if (!ctx || EVP_DigestInit_ex(ctx, EVP_blake2b512(), nullptr) != 1) {
    EVP_MD_CTX_free(ctx);
    throw std::runtime_error("OpenSSL: BLAKE2b-512 unavailable");
  }
  ctx_ = ctx;
}

parameters_json_hasher::~parameters_json_hasher() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_)); }

void parameters_json_hasher::update(std::span<const std::uint8_t> bytes) {
  EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), bytes.data(), bytes.size());
}

std::string parameters_json_hasher::hex() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(ctx_), md, &len);
  static const char* hexd = "0123456789abcdef";
  std::string hex;
  for (unsigned i = 0; i < 16 && i < len; ++i) hex += hexd[md[i] >> 4], hex += hexd[md[i] & 15];
  return hex;
}

std::string parameters_json_digest(const std::string& path,
                                   const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  // Only a regular file (opened without blocking: a FIFO must not hang the open; a device such as
  // /dev/zero has no end).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw input_error(path + ": cannot open");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw input_error(path + ": not a regular file");
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::FILE* f = ::fdopen(fd, "rb");
  if (!f) {
    ::close(fd);
    throw input_error(path + ": cannot open");
  }
  std::fseek(f, 0, SEEK_END);
  const long total = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  bool read_error = false;
  std::string hex;
  try {
    hex = blake2b_prefix_hex([&](auto&& update) {
      std::vector<unsigned char> buf(std::size_t(8) << 20);
      std::uint64_t done = 0;
      for (;;) {
        const std::size_t got = std::fread(buf.data(), 1, buf.size(), f);
        if (got == 0) break;
        update(buf.data(), got);
        done += got;
        if (progress) progress(done, std::uint64_t(total < 0 ? 0 : total));
      }
      read_error = std::ferror(f) != 0;
    });
  } catch (...) {
    std::fclose(f);
    throw;
  }
  std::fclose(f);
  if (read_error) throw input_error(path + ": read error");
  return hex;
}

std::string parameters_json_digest(std::span<const std::uint8_t> bytes) {
  return blake2b_prefix_hex([&](auto&& update) { update(bytes.data(), bytes.size()); });
}

}  // namespace cuzk::zk::io
