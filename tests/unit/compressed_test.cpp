// zcash/bellperson compressed points: round trips, exact rejection of every malformed input, and
// the endomorphism subgroup checks against the definition [r]P = O.
#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "zk/bls12_381/compressed.hpp"
#include "zk/bls12_381/subgroup.hpp"

using namespace cuzk::zk;
using namespace cuzk::zk::bls12_381;

namespace {

bigint<4> random_scalar(std::mt19937_64& g) {
  bigint<4> b{};
  do {
    for (auto& l : b.limb) l = g();
    b.limb[3] &= (std::uint64_t{1} << 63) - 1;
  } while (!fr::is_canonical(b));
  return b;
}

fp random_fp(std::mt19937_64& g) {
  bigint<6> b{};
  do {
    for (auto& l : b.limb) l = g();
    b.limb[5] &= (std::uint64_t{1} << 61) - 1;
  } while (!fp::is_canonical(b));
  return fp::from_canonical(b);
}

// Random points on the curves, almost surely outside the prime-order subgroup.
g1_affine random_g1_curve_point(std::mt19937_64& g) {
  for (;;) {
    fp x = random_fp(g);
    if (auto y = (x.sqr() * x + g1_curve::b()).sqrt()) return g1_affine::of(x, *y);
  }
}
g2_affine random_g2_curve_point(std::mt19937_64& g) {
  for (;;) {
    fp2 x{random_fp(g), random_fp(g)};
    if (auto y = (x.sqr() * x + g2_curve::b()).sqrt()) return g2_affine::of(x, *y);
  }
}

// Big-endian bytes of p, for "x not below p" inputs.
std::array<std::uint8_t, 48> modulus_be() {
  std::array<std::uint8_t, 48> out{};
  for (std::size_t i = 0; i < 48; ++i) out[i] = std::uint8_t(fp::P.limb[(47 - i) / 8] >> (8 * ((47 - i) % 8)));
  return out;
}

template <std::size_t N, class Decode>
std::string rejection(const std::array<std::uint8_t, N>& bytes, Decode decode) {
  try {
    decode(std::span<const std::uint8_t, N>(bytes));
  } catch (const input_error& e) {
    return e.what();
  }
  return "";
}

auto dec1 = [](std::span<const std::uint8_t, 48> b) { return g1_from_compressed(b, "test.G1"); };
auto dec2 = [](std::span<const std::uint8_t, 96> b) { return g2_from_compressed(b, "test.G2"); };

bool has(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

}  // namespace

TEST_CASE("compressed G1/G2 round trips", "[compressed]") {
  std::mt19937_64 g(31);
  for (int i = 0; i < 20; ++i) {
    auto k = random_scalar(g);
    g1_affine p = g1_jacobian(g1_curve::generator()).mul(k).to_affine();
    g2_affine q = g2_jacobian(g2_curve::generator()).mul(k).to_affine();
    auto bp = to_compressed(p);
    auto bq = to_compressed(q);
    CHECK((bp[0] & 0x80) != 0);
    CHECK((bq[0] & 0x80) != 0);
    CHECK(((bp[0] & 0x20) != 0) == p.y.lexicographically_largest());
    CHECK(g1_from_compressed(bp) == p);
    CHECK(g2_from_compressed(bq) == q);
    // The negated point differs only in the sign bit.
    auto bn = to_compressed(-p);
    CHECK((bn[0] ^ bp[0]) == 0x20);
    CHECK(std::equal(bn.begin() + 1, bn.end(), bp.begin() + 1));
    CHECK(g1_from_compressed(bn) == -p);
  }
  auto i1 = to_compressed(g1_affine::identity());
  auto i2 = to_compressed(g2_affine::identity());
  CHECK(i1[0] == 0xc0);
  CHECK(i2[0] == 0xc0);
  CHECK(std::all_of(i1.begin() + 1, i1.end(), [](auto b) { return b == 0; }));
  CHECK(std::all_of(i2.begin() + 1, i2.end(), [](auto b) { return b == 0; }));
  CHECK(g1_from_compressed(i1).is_identity());
  CHECK(g2_from_compressed(i2).is_identity());
}

TEST_CASE("G2 compressed x is written c1 then c0", "[compressed]") {
  // The generator's x.c1 starts 0x13e02b60..., x.c0 0x024aa2b2....
  auto b = to_compressed(g2_curve::generator());
  CHECK(b[0] == 0x93);
  CHECK(b[1] == 0xe0);
  CHECK(b[48] == 0x02);
  CHECK(b[49] == 0x4a);
}

TEST_CASE("compressed decoding rejects malformed input", "[compressed]") {
  std::mt19937_64 g(32);
  auto k = random_scalar(g);
  const auto good1 = to_compressed(g1_jacobian(g1_curve::generator()).mul(k).to_affine());
  const auto good2 = to_compressed(g2_jacobian(g2_curve::generator()).mul(k).to_affine());

  // No compression flag.
  auto b1 = good1;
  b1[0] &= 0x7f;
  CHECK(has(rejection(b1, dec1), "test.G1"));
  CHECK(has(rejection(b1, dec1), "compression flag"));
  auto b2 = good2;
  b2[0] &= 0x7f;
  CHECK(has(rejection(b2, dec2), "compression flag"));

  // Infinity with the sign flag, or with non-zero coordinate bits.
  std::array<std::uint8_t, 48> inf1{};
  inf1[0] = 0xe0;
  CHECK(has(rejection(inf1, dec1), "sign flag"));
  inf1[0] = 0xc0;
  inf1[47] = 1;
  CHECK(has(rejection(inf1, dec1), "not zero"));
  inf1[47] = 0;
  inf1[0] = 0xc1;
  CHECK(has(rejection(inf1, dec1), "not zero"));
  std::array<std::uint8_t, 96> inf2{};
  inf2[0] = 0xc0;
  inf2[60] = 4;
  CHECK(has(rejection(inf2, dec2), "not zero"));
  // All-zero bytes (uncompressed-style infinity) lack the compression flag.
  CHECK(has(rejection(std::array<std::uint8_t, 48>{}, dec1), "compression flag"));

  // x = p (not below the modulus), in G1 and in either G2 half.
  auto pb = modulus_be();
  std::array<std::uint8_t, 48> xp = pb;
  xp[0] |= 0x80;
  CHECK(has(rejection(xp, dec1), "modulus"));
  std::array<std::uint8_t, 96> xp2 = good2;
  std::copy(pb.begin(), pb.end(), xp2.begin());
  xp2[0] |= 0x80;
  CHECK(has(rejection(xp2, dec2), "modulus"));
  xp2 = good2;
  std::copy(pb.begin(), pb.end(), xp2.begin() + 48);
  CHECK(has(rejection(xp2, dec2), "modulus"));

  // x with no point on the curve.
  int found = 0;
  for (std::uint64_t x = 1; found < 2; ++x) {
    fp fx = fp::from_u64(x);
    if ((fx.sqr() * fx + g1_curve::b()).sqrt()) continue;
    auto b = to_compressed(g1_affine::of(fx, fp::one()));  // y unused by the encoder but for its sign
    CHECK(has(rejection(b, dec1), "on the curve"));
    ++found;
  }
  for (int i = 0; i < 2;) {
    fp2 x{random_fp(g), random_fp(g)};
    if ((x.sqr() * x + g2_curve::b()).sqrt()) continue;
    auto b = to_compressed(g2_affine::of(x, fp2::one()));
    CHECK(has(rejection(b, dec2), "on the curve"));
    ++i;
  }

  // On the curve but outside the prime-order subgroup.
  for (int i = 0; i < 3; ++i) {
    auto p = random_g1_curve_point(g);
    REQUIRE_FALSE(in_prime_subgroup(p));
    CHECK(has(rejection(to_compressed(p), dec1), "subgroup"));
    auto q = random_g2_curve_point(g);
    REQUIRE_FALSE(in_prime_subgroup(q));
    CHECK(has(rejection(to_compressed(q), dec2), "subgroup"));
  }
}

TEST_CASE("endomorphism subgroup checks agree with r P = O", "[subgroup]") {
  std::mt19937_64 g(33);
  const bigint<2> h1{{0x8c00aaab0000aaabull, 0x396c8c005555e156ull}};  // G1 cofactor (x - 1)^2 / 3
  for (int i = 0; i < 12; ++i) {
    auto k = random_scalar(g);
    // In the subgroup: k G and cofactor-cleared random points.
    g1_affine s1 = g1_jacobian(g1_curve::generator()).mul(k).to_affine();
    g2_affine s2 = g2_jacobian(g2_curve::generator()).mul(k).to_affine();
    g1_affine c1 = g1_jacobian(random_g1_curve_point(g)).mul(h1).to_affine();
    CHECK(g1_in_subgroup(s1));
    CHECK(g2_in_subgroup(s2));
    CHECK(in_prime_subgroup(c1));
    CHECK(g1_in_subgroup(c1));
    // Outside: random curve points, their small-torsion parts [r]P, and subgroup + torsion sums.
    g1_affine r1 = random_g1_curve_point(g);
    g2_affine r2 = random_g2_curve_point(g);
    g1_affine t1 = g1_jacobian(r1).mul(fr::P).to_affine();
    g2_affine t2 = g2_jacobian(r2).mul(fr::P).to_affine();
    g1_affine m1 = (g1_jacobian(s1) + t1).to_affine();
    g2_affine m2 = (g2_jacobian(s2) + t2).to_affine();
    for (const auto& p : {r1, t1, m1}) CHECK(g1_in_subgroup(p) == in_prime_subgroup(p));
    for (const auto& q : {r2, t2, m2}) CHECK(g2_in_subgroup(q) == in_prime_subgroup(q));
    CHECK_FALSE(g1_in_subgroup(m1));
    CHECK_FALSE(g2_in_subgroup(m2));
  }
  CHECK(g1_in_subgroup(g1_affine::identity()));
  CHECK(g2_in_subgroup(g2_affine::identity()));
}

TEST_CASE("endomorphisms act as their eigenvalues on the subgroups", "[subgroup]") {
  // phi = [-x^2] on G1 and psi = [x] on G2 (x = -0xd201000000010000), and both map curve points
  // to curve points.
  std::mt19937_64 g(34);
  auto k = random_scalar(g);
  g1_affine p = g1_jacobian(g1_curve::generator()).mul(k).to_affine();
  g2_affine q = g2_jacobian(g2_curve::generator()).mul(k).to_affine();
  bigint<2> x2{};  // |x|^2
  {
    unsigned __int128 s = static_cast<unsigned __int128>(0xd201000000010000ull) * 0xd201000000010000ull;
    x2.limb[0] = std::uint64_t(s);
    x2.limb[1] = std::uint64_t(s >> 64);
  }
  CHECK(g1_jacobian(g1_phi(p)) == -g1_jacobian(p).mul(x2));
  CHECK(g2_jacobian(g2_psi(q)) == -g2_jacobian(q).mul(bigint<1>{{0xd201000000010000ull}}));
  CHECK(g1_phi(random_g1_curve_point(g)).is_on_curve());
  CHECK(g2_psi(random_g2_curve_point(g)).is_on_curve());
}
