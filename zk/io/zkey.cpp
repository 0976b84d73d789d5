#include "zk/io/zkey.hpp"

#include <algorithm>
#include <tuple>

#include "zk/io/field_checks.hpp"
#include "zk/io/sha256.hpp"

namespace cuzk::zk::io {

namespace {

constexpr std::uint64_t g1_bytes = 96, g2_bytes = 192, coef_bytes = 44;
static_assert(sizeof(g1_affine) == g1_bytes && alignof(g1_affine) == 8, "g1_affine must be the file layout");
static_assert(sizeof(g2_affine) == g2_bytes && alignof(g2_affine) == 8, "g2_affine must be the file layout");
static_assert(sizeof(fr) == 32);

// The mapping plus the aligned copies of any point section that could not be used in place.
struct zkey_storage {
  std::shared_ptr<const file_bytes> file;
  std::vector<std::vector<g1_affine>> g1_copies;
  std::vector<std::vector<g2_affine>> g2_copies;
};

const char* protocol_name(std::uint32_t p) {
  switch (p) {
    case 2: return " (PLONK)";
    case 10: return " (FFLONK)";
    default: return "";
  }
}

std::string points_unit(std::uint64_t n, std::uint64_t size) {
  return std::to_string(n) + " points of " + std::to_string(size) + " bytes";
}

// A point section as a span of affine points: in place when aligned, else copied once. Then every
// point is checked (canonical coordinates, on the curve).
template <class Point>
std::span<const Point> point_section(const binfile& f, zkey_storage& st, std::uint32_t id, std::string_view what,
                                     std::uint64_t count, bool& in_place) {
  auto bytes = f.bytes_exact(id, what, count * sizeof(Point), points_unit(count, sizeof(Point)));
  std::span<const Point> pts;
  if (reinterpret_cast<std::uintptr_t>(bytes.data()) % alignof(Point) == 0) {
    pts = {reinterpret_cast<const Point*>(bytes.data()), std::size_t(count)};
  } else {
    in_place = false;
    std::vector<Point> copy(count);
    if (count) std::memcpy(static_cast<void*>(copy.data()), bytes.data(), bytes.size());
    if constexpr (std::is_same_v<Point, g1_affine>) {
      st.g1_copies.push_back(std::move(copy));
      pts = st.g1_copies.back();
    } else {
      st.g2_copies.push_back(std::move(copy));
      pts = st.g2_copies.back();
    }
  }
  const char* reason = nullptr;
  std::size_t bad = find_invalid_point(pts, &reason);
  if (bad < pts.size()) f.fail(section_label(id, what) + " point " + std::to_string(bad) + " " + reason);
  return pts;
}

template <class Point>
Point header_point(section_reader& r, const char* field) {
  auto b = r.take(sizeof(Point), field);
  Point p;
  if constexpr (std::is_same_v<Point, g1_affine>) p = read_g1(b.data());
  else p = read_g2(b.data());
  const char* reason = nullptr;
  if (find_invalid_point(std::span<const Point>(&p, 1), &reason) == 0)
    r.fail(std::string(field) + " " + reason);
  return p;
}

bool is_power_of_two(std::uint32_t v) { return v != 0 && (v & (v - 1)) == 0; }

// SHA-256 over what identifies a key without reading its points: sections 1-3 (protocol, header
// with the verifying key, IC), section 10 when present (snarkjs's circuit hash and the ceremony's
// contributions), and every section's id and size. Two keys with equal fingerprints verify the same
// proofs and were made for the same circuit by the same ceremony.
std::string fingerprint_of(const binfile& f) {
  sha256 h;
  h.update("cuzk zkey fingerprint v1");
  for (std::uint32_t id : {1u, 2u, 3u, 10u})
    if (f.has(id)) {
      auto b = f.bytes(id, "fingerprinted section");
      std::uint8_t tag[12];
      store_u32(tag, id);
      store_u64(tag + 4, b.size());
      h.update(tag);
      h.update(b);
    }
  for (auto& [id, sec] : f.sections()) {
    std::uint8_t tag[12];
    store_u32(tag, id);
    store_u64(tag + 4, sec.size);
    h.update(tag);
  }
  return h.hex();
}

// Sections 1..3: protocol, header (primes, sizes, vk points) and IC. Everything a verifier and a
// cluster coordinator need, without touching the proving key's points.
void parse_header(const binfile& f, zkey_header& k) {
  {
    auto s = f.bytes_exact(1, "protocol", 4);
    std::uint32_t protocol = load_u32(s.data());
    if (protocol != 1)
      f.fail("protocol is " + std::to_string(protocol) + protocol_name(protocol) +
             ", cuzk proves Groth16 (1) only");
  }
  {
    section_reader r(f, 2, "header", f.bytes(2, "header"));
    std::uint32_t n8q = r.u32("n8q");
    if (n8q == 32 && r.remaining() >= 32 && bigint<4>::from_le_bytes(r.take(32, "q").data()) == bn254_q)
      f.fail(bn254_message);
    if (n8q != 48) r.fail("n8q is " + std::to_string(n8q) + ", expected 48 (BLS12-381's p)");
    auto q = bigint<6>::from_le_bytes(r.take(48, "q").data());
    if (q != fp::P) r.fail("prime q is " + q.to_decimal() + ", expected BLS12-381's p");
    expect_scalar_prime(r, "n8r");
    k.n_vars = r.u32("nVars");
    k.n_public = r.u32("nPublic");
    k.domain_size = r.u32("domainSize");
    if (k.n_vars == 0 || k.n_public > k.n_vars - 1)
      r.fail("nVars " + std::to_string(k.n_vars) + " leaves no room for the constant and nPublic " +
             std::to_string(k.n_public) + " public signals");
    if (!is_power_of_two(k.domain_size))
      r.fail("domainSize " + std::to_string(k.domain_size) + " is not a power of two");
    k.log_domain = unsigned(__builtin_ctz(k.domain_size));
    k.vk.alpha1 = header_point<g1_affine>(r, "alpha1");
    k.vk.beta1 = header_point<g1_affine>(r, "beta1");
    k.vk.beta2 = header_point<g2_affine>(r, "beta2");
    k.vk.gamma2 = header_point<g2_affine>(r, "gamma2");
    k.vk.delta1 = header_point<g1_affine>(r, "delta1");
    k.vk.delta2 = header_point<g2_affine>(r, "delta2");
    r.expect_end();
  }
}

}  // namespace

zkey_header zkey_header::read(const std::string& path) { return parse(file_bytes::map(path), path); }

zkey_header zkey_header::parse(std::shared_ptr<const file_bytes> bytes, std::string name) {
  binfile f(name, bytes, "zkey", 1);
  zkey_header h;
  h.path = name;
  parse_header(f, h);
  zkey_storage st;
  bool in_place = true;
  auto ic = point_section<g1_affine>(f, st, 3, "IC", std::uint64_t(h.n_public) + 1, in_place);
  h.vk.ic.assign(ic.begin(), ic.end());
  h.fingerprint = fingerprint_of(f);
  h.size_bytes = bytes->bytes().size();
  return h;
}

zkey zkey::load(const std::string& path) {
  auto k = parse(file_bytes::map(path), path);
  if (!k.intact()) throw input_error(path + ": the file shrank while it was read (truncated under us?)");
  return k;
}

bool zkey::intact() const {
  // Storage read as a file's: a zkey's (zkey_storage) or a .params key's, whose storages also hold
  // the mapping first. A synthetic key maps no file, and its storage is its points (on the host) or
  // a zero mapping: read that way it crashed the key store's acquire of a hot synthetic key.
  if (synthetic) return true;
  auto st = std::static_pointer_cast<const zkey_storage>(storage);
  return !st || !st->file || !st->file->damaged();
}

zkey zkey::parse(std::shared_ptr<const file_bytes> bytes, std::string name) {
  binfile f(name, bytes, "zkey", 1);
  zkey k;
  k.path = name;
  {
    zkey_header h;
    parse_header(f, h);
    k.n_vars = h.n_vars;
    k.n_public = h.n_public;
    k.domain_size = h.domain_size;
    k.log_domain = h.log_domain;
    k.vk = std::move(h.vk);
  }

  auto st = std::make_shared<zkey_storage>();
  st->file = bytes;
  bool in_place = true;

  // Section 3: IC, copied into the vk.
  {
    auto ic = point_section<g1_affine>(f, *st, 3, "IC", std::uint64_t(k.n_public) + 1, in_place);
    k.vk.ic.assign(ic.begin(), ic.end());
  }

  // Section 4: the A and B coefficients.
  {
    auto s = f.bytes(4, "coefficients");
    if (s.size() < 4) f.fail(section_label(4, "coefficients") + " has " + std::to_string(s.size()) +
                             " bytes, too short for nCoef");
    std::uint32_t n = load_u32(s.data());
    f.bytes_exact(4, "coefficients", 4 + coef_bytes * n, std::to_string(n) + " coefficients of 44 bytes");
    k.coefficients.resize(n);
    std::uint32_t rows = 0;
    const std::uint8_t* p = s.data() + 4;
    for (std::uint32_t i = 0; i < n; ++i, p += coef_bytes) {
      auto& c = k.coefficients[i];
      c.matrix = load_u32(p);
      c.constraint = load_u32(p + 4);
      c.signal = load_u32(p + 8);
      auto v = bigint<4>::from_le_bytes(p + 12);
      auto where = [&] { return section_label(4, "coefficients") + " entry " + std::to_string(i) + ": "; };
      if (c.matrix > 1) f.fail(where() + "matrix is " + std::to_string(c.matrix) + ", expected 0 (A) or 1 (B)");
      if (c.constraint >= k.domain_size)
        f.fail(where() + "constraint " + std::to_string(c.constraint) + " is not below domainSize " +
               std::to_string(k.domain_size));
      if (c.signal >= k.n_vars)
        f.fail(where() + "signal " + std::to_string(c.signal) + " is not below nVars " + std::to_string(k.n_vars));
      if (v >= fr::P) f.fail(where() + "value is not below r");
      c.value = fr::from_mont(v);
      rows = std::max(rows, c.constraint + 1);
    }
    // snarkjs appends one A row per public signal and the constant after the r1cs constraints.
    if (rows < k.n_public + 1)
      f.fail(section_label(4, "coefficients") + " has " + std::to_string(rows) + " rows, fewer than nPublic + 1 = " +
             std::to_string(k.n_public + 1));
    k.n_rows = rows;
  }

  // Sections 5..9: the proving key points.
  const std::uint64_t n_private = std::uint64_t(k.n_vars) - k.n_public - 1;
  k.a = point_section<g1_affine>(f, *st, 5, "A points", k.n_vars, in_place);
  k.b1 = point_section<g1_affine>(f, *st, 6, "B1 points", k.n_vars, in_place);
  k.b2 = point_section<g2_affine>(f, *st, 7, "B2 points", k.n_vars, in_place);
  k.c = point_section<g1_affine>(f, *st, 8, "C points", n_private, in_place);
  k.h = point_section<g1_affine>(f, *st, 9, "H points", k.domain_size, in_place);
  k.points_in_place = in_place;
  k.storage = std::move(st);
  return k;
}

// ---- cross-file checks -------------------------------------------------------------------------

void check_witness_matches(const zkey& key, const witness& w) {
  if (w.values.size() != key.n_vars)
    throw input_error(w.path + ": witness has " + std::to_string(w.values.size()) + " values, " + key.path +
                      " expects " + std::to_string(key.n_vars));
}

void check_r1cs_matches(const zkey& key, const r1cs& cs) {
  auto fail = [&](const std::string& what) { throw input_error(cs.path + ": " + what + " (" + key.path + ")"); };
  if (cs.n_wires != key.n_vars)
    fail("r1cs has " + std::to_string(cs.n_wires) + " wires, zkey has nVars " + std::to_string(key.n_vars));
  if (cs.n_public() != key.n_public)
    fail("r1cs has " + std::to_string(cs.n_public()) + " public signals, zkey has nPublic " +
         std::to_string(key.n_public));
  std::uint64_t rows = std::uint64_t(cs.n_constraints) + cs.n_public() + 1;
  if (rows != key.n_rows)
    fail("r1cs has " + std::to_string(cs.n_constraints) + " constraints (" + std::to_string(rows) +
         " rows with the public ones), zkey has " + std::to_string(key.n_rows) + " rows");

  // The same (matrix, row, signal, value) multiset; values compared as the stored Montgomery form
  // coef * R^2, i.e. the field element coef * R.
  using entry = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, bigint<4>>;
  auto less = [](const entry& x, const entry& y) {
    if (std::get<0>(x) != std::get<0>(y)) return std::get<0>(x) < std::get<0>(y);
    if (std::get<1>(x) != std::get<1>(y)) return std::get<1>(x) < std::get<1>(y);
    if (std::get<2>(x) != std::get<2>(y)) return std::get<2>(x) < std::get<2>(y);
    return std::get<3>(x) < std::get<3>(y);
  };
  const fr R = fr::from_mont(fr::R2);  // the element R = 2^256 mod r
  std::vector<entry> want, have;
  for (std::uint32_t i = 0; i < cs.n_constraints; ++i) {
    for (auto& t : cs.constraints[i].a)
      if (!t.coeff.is_zero()) want.emplace_back(0, i, t.wire, (t.coeff * R).m);
    for (auto& t : cs.constraints[i].b)
      if (!t.coeff.is_zero()) want.emplace_back(1, i, t.wire, (t.coeff * R).m);
  }
  for (std::uint32_t s = 0; s <= cs.n_public(); ++s)
    want.emplace_back(0, cs.n_constraints + s, s, (fr::one() * R).m);
  for (auto& c : key.coefficients)
    if (!c.value.is_zero()) have.emplace_back(c.matrix, c.constraint, c.signal, c.value.m);
  std::sort(want.begin(), want.end(), less);
  std::sort(have.begin(), have.end(), less);
  if (want != have) {
    auto [wi, hi] = std::mismatch(want.begin(), want.end(), have.begin(), have.end());
    const entry& e = wi != want.end() ? *wi : *hi;
    fail(std::string("zkey coefficients differ from the r1cs's A/B matrices, first at ") +
         (std::get<0>(e) ? "B" : "A") + " row " + std::to_string(std::get<1>(e)) + " signal " +
         std::to_string(std::get<2>(e)));
  }
}

}  // namespace cuzk::zk::io
