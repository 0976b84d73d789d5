#include "zk/bls12_381/compressed.hpp"

#include <algorithm>
#include <string>

#include "zk/bls12_381/subgroup.hpp"
#include "zk/error.hpp"

namespace cuzk::zk::bls12_381 {

namespace {

constexpr std::uint8_t flag_compressed = 0x80, flag_infinity = 0x40, flag_sign = 0x20;

void write_fp(const fp& x, std::uint8_t* out) {
  auto c = x.to_canonical();
  for (std::size_t i = 0; i < 48; ++i) out[i] = std::uint8_t(c.limb[(47 - i) / 8] >> (8 * ((47 - i) % 8)));
}

// Big-endian 48 bytes with the flag bits cleared; nullopt when not below p.
std::optional<fp> read_fp(const std::uint8_t* in, bool first) {
  bigint<6> c{};
  for (std::size_t i = 0; i < 48; ++i) {
    std::uint8_t b = in[i];
    if (first && i == 0) b &= 0x1f;
    c.limb[(47 - i) / 8] |= std::uint64_t(b) << (8 * ((47 - i) % 8));
  }
  if (!fp::is_canonical(c)) return std::nullopt;
  return fp::from_canonical(c);
}

[[noreturn]] void fail(std::string_view what, std::string_view why) {
  throw input_error(std::string(what) + ": invalid compressed point: " + std::string(why));
}

// Common flag handling; returns true for the (valid) point at infinity.
template <std::size_t N>
bool check_flags(std::span<const std::uint8_t, N> bytes, std::string_view what) {
  std::uint8_t flags = bytes[0] & 0xe0;
  if (!(flags & flag_compressed)) fail(what, "compression flag (0x80) not set");
  if (!(flags & flag_infinity)) return false;
  if (flags & flag_sign) fail(what, "infinity flag set together with the sign flag");
  if (bytes[0] & 0x1f) fail(what, "infinity flag set but the coordinate is not zero");
  for (std::size_t i = 1; i < N; ++i)
    if (bytes[i]) fail(what, "infinity flag set but the coordinate is not zero");
  return true;
}

}  // namespace

std::array<std::uint8_t, g1_compressed_size> to_compressed(const g1_affine& p) {
  std::array<std::uint8_t, g1_compressed_size> out{};
  if (p.is_identity()) {
    out[0] = flag_compressed | flag_infinity;
    return out;
  }
  write_fp(p.x, out.data());
  out[0] |= flag_compressed | (p.y.lexicographically_largest() ? flag_sign : 0);
  return out;
}

std::array<std::uint8_t, g2_compressed_size> to_compressed(const g2_affine& p) {
  std::array<std::uint8_t, g2_compressed_size> out{};
  if (p.is_identity()) {
    out[0] = flag_compressed | flag_infinity;
    return out;
  }
  write_fp(p.x.c1, out.data());
  write_fp(p.x.c0, out.data() + 48);
  out[0] |= flag_compressed | (p.y.lexicographically_largest() ? flag_sign : 0);
  return out;
}

g1_affine g1_from_compressed(std::span<const std::uint8_t, g1_compressed_size> bytes, std::string_view what) {
  if (check_flags(bytes, what)) return g1_affine::identity();
  auto x = read_fp(bytes.data(), true);
  if (!x) fail(what, "x coordinate is not below the field modulus");
  auto y = (x->sqr() * *x + g1_curve::b()).sqrt();
  if (!y) fail(what, "x is not the x coordinate of a point on the curve");
  bool largest = bytes[0] & flag_sign;
  if (y->lexicographically_largest() != largest) *y = -*y;
  g1_affine p = g1_affine::of(*x, *y);
  if (!g1_in_subgroup(p)) fail(what, "point is not in the prime-order subgroup");
  return p;
}

g2_affine g2_from_compressed(std::span<const std::uint8_t, g2_compressed_size> bytes, std::string_view what) {
  if (check_flags(bytes, what)) return g2_affine::identity();
  auto x1 = read_fp(bytes.data(), true);
  auto x0 = read_fp(bytes.data() + 48, false);
  if (!x1 || !x0) fail(what, "x coordinate is not below the field modulus");
  fp2 x{*x0, *x1};
  auto y = (x.sqr() * x + g2_curve::b()).sqrt();
  if (!y) fail(what, "x is not the x coordinate of a point on the curve");
  bool largest = bytes[0] & flag_sign;
  if (y->lexicographically_largest() != largest) *y = -*y;
  g2_affine p = g2_affine::of(x, *y);
  if (!g2_in_subgroup(p)) fail(what, "point is not in the prime-order subgroup");
  return p;
}

namespace {

[[noreturn]] void fail_uncompressed(std::string_view what, std::string_view why) {
  throw input_error(std::string(what) + ": invalid uncompressed point: " + std::string(why));
}

// Flags of an uncompressed encoding; true for the (valid) point at infinity.
template <std::size_t N>
bool check_uncompressed_flags(std::span<const std::uint8_t, N> bytes, std::string_view what) {
  const std::uint8_t flags = bytes[0] & 0xe0;
  if (flags & flag_compressed) fail_uncompressed(what, "compression flag (0x80) set");
  if (flags & flag_sign) fail_uncompressed(what, "sign flag (0x20) set");
  if (!(flags & flag_infinity)) return false;
  if (bytes[0] & 0x1f) fail_uncompressed(what, "infinity flag set but the coordinates are not zero");
  for (std::size_t i = 1; i < N; ++i)
    if (bytes[i]) fail_uncompressed(what, "infinity flag set but the coordinates are not zero");
  return true;
}

}  // namespace

void write_uncompressed(const g1_affine& p, std::uint8_t* out) {
  std::fill(out, out + g1_uncompressed_size, std::uint8_t{0});
  if (p.is_identity()) {
    out[0] = flag_infinity;
    return;
  }
  write_fp(p.x, out);
  write_fp(p.y, out + 48);
}

void write_uncompressed(const g2_affine& p, std::uint8_t* out) {
  std::fill(out, out + g2_uncompressed_size, std::uint8_t{0});
  if (p.is_identity()) {
    out[0] = flag_infinity;
    return;
  }
  write_fp(p.x.c1, out);
  write_fp(p.x.c0, out + 48);
  write_fp(p.y.c1, out + 96);
  write_fp(p.y.c0, out + 144);
}

g1_affine g1_from_uncompressed(std::span<const std::uint8_t, g1_uncompressed_size> bytes, std::string_view what) {
  if (check_uncompressed_flags(bytes, what)) return g1_affine::identity();
  auto x = read_fp(bytes.data(), true);
  auto y = read_fp(bytes.data() + 48, false);
  if (!x || !y) fail_uncompressed(what, "coordinate is not below the field modulus");
  g1_affine p = g1_affine::of(*x, *y);
  if (!p.is_on_curve()) fail_uncompressed(what, "not on the curve");
  return p;
}

g2_affine g2_from_uncompressed(std::span<const std::uint8_t, g2_uncompressed_size> bytes, std::string_view what) {
  if (check_uncompressed_flags(bytes, what)) return g2_affine::identity();
  auto x1 = read_fp(bytes.data(), true);
  auto x0 = read_fp(bytes.data() + 48, false);
  auto y1 = read_fp(bytes.data() + 96, false);
  auto y0 = read_fp(bytes.data() + 144, false);
  if (!x1 || !x0 || !y1 || !y0) fail_uncompressed(what, "coordinate is not below the field modulus");
  g2_affine p = g2_affine::of(fp2{*x0, *x1}, fp2{*y0, *y1});
  if (!p.is_on_curve()) fail_uncompressed(what, "not on the curve");
  return p;
}

}  // namespace cuzk::zk::bls12_381
