// zkey reader: the snarkjs fixture loads and agrees with snarkjs's own exports; every class of bad
// input is refused with a one-line input_error naming the file and the problem.
#include <catch2/catch.hpp>
#include <gmpxx.h>

#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>

#include "io_test_util.hpp"
#include "zk/io/zkey.hpp"
#include "zk/io/zkey_writer.hpp"

using namespace cuzk::zk;
using namespace cuzk::zk::bls12_381;
using namespace cuzk::zk::io;
using namespace io_test;
using Catch::Matchers::Contains;

namespace {

mpz_class mpz_of_le(const std::uint8_t* p, std::size_t n) {
  mpz_class r;
  mpz_import(r.get_mpz_t(), n, -1, 1, 0, 0, p);
  return r;
}
const mpz_class gmp_p("0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab");
const mpz_class gmp_r("0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001");

// Normal form of a Montgomery Fp coordinate, computed by GMP: m * 2^-384 mod p.
std::string gmp_fp_decimal(const fp& x) {
  std::uint8_t b[48];
  x.m.to_le_bytes(b);
  mpz_class m = mpz_of_le(b, 48), rinv, two384 = mpz_class(1) << 384;
  mpz_invert(rinv.get_mpz_t(), two384.get_mpz_t(), gmp_p.get_mpz_t());
  mpz_class v = (m * rinv) % gmp_p;
  return v.get_str(10);
}

std::vector<std::string> g1_strings(const g1_affine& p) { return {gmp_fp_decimal(p.x), gmp_fp_decimal(p.y), "1"}; }
nlohmann::json g2_strings(const g2_affine& p) {
  return nlohmann::json::array({nlohmann::json::array({gmp_fp_decimal(p.x.c0), gmp_fp_decimal(p.x.c1)}),
                                nlohmann::json::array({gmp_fp_decimal(p.y.c0), gmp_fp_decimal(p.y.c1)}),
                                nlohmann::json::array({"1", "0"})});
}

// Loads `bytes` as a zkey from a temp file; returns the error message ("" when it loaded).
std::string zkey_error(const std::vector<std::uint8_t>& bytes) {
  temp_file f(bytes, ".zkey");
  try {
    zkey::load(f.path());
  } catch (const input_error& e) {
    std::string m = e.what();
    CHECK(m.rfind(f.path() + ": ", 0) == 0);     // names the file first
    CHECK(m.find('\n') == std::string::npos);     // one line
    return m;
  }
  return "";
}

}  // namespace

TEST_CASE("zkey: the snarkjs fixture loads and matches snarkjs's exported vk", "[parsers][zkey]") {
  auto k = zkey::load(fixture("sample.zkey"));
  CHECK(k.n_vars == 8);
  CHECK(k.n_public == 3);
  CHECK(k.domain_size == 8);  // 4 constraints + 3 public + 1 rows -> 8
  CHECK(k.log_domain == 3);
  CHECK(k.n_rows == 8);
  CHECK(k.a.size() == 8);
  CHECK(k.b1.size() == 8);
  CHECK(k.b2.size() == 8);
  CHECK(k.c.size() == 4);
  CHECK(k.h.size() == 8);
  REQUIRE(k.vk.ic.size() == 4);

  auto vkj = nlohmann::json::parse(slurp_text(fixture("verification_key.json")));
  CHECK(vkj["nPublic"] == 3);
  CHECK(nlohmann::json(g1_strings(k.vk.alpha1)) == vkj["vk_alpha_1"]);
  CHECK(g2_strings(k.vk.beta2) == vkj["vk_beta_2"]);
  CHECK(g2_strings(k.vk.gamma2) == vkj["vk_gamma_2"]);
  CHECK(g2_strings(k.vk.delta2) == vkj["vk_delta_2"]);
  CHECK(k.vk.gamma2 == g2_curve::generator());
  CHECK_FALSE(k.vk.delta2 == g2_curve::generator());  // a contributed key
  for (int i = 0; i < 4; ++i) CHECK(nlohmann::json(g1_strings(k.vk.ic[i])) == vkj["IC"][i]);
  for (auto& p : k.a) CHECK(p.is_on_curve());
  for (auto& p : k.h) CHECK(!p.is_identity());

  // In place exactly when every point section is 8-byte aligned in the file (the mapping is
  // page-aligned).
  auto bytes = slurp(fixture("sample.zkey"));
  bool all_aligned = true;
  for (auto [id, s] : sections_of(bytes))
    if (id == 3 || (id >= 5 && id <= 9)) all_aligned = all_aligned && s.data % 8 == 0;
  CHECK(k.points_in_place == all_aligned);
}

TEST_CASE("zkey: section 4 values are coef * R^2 mod r of the r1cs coefficients (GMP)", "[parsers][zkey]") {
  auto k = zkey::load(fixture("sample.zkey"));
  auto cs = r1cs::load(fixture("sample.r1cs"));
  check_r1cs_matches(k, cs);  // the library's own comparison
  // Independently: the raw r1cs file's A coefficients of constraint 0, times 2^512 mod r, are in
  // section 4 as (0, 0, wire, value).
  auto rb = slurp(fixture("sample.r1cs"));
  auto rs = sections_of(rb).at(2);
  std::size_t pos = rs.data;
  std::uint32_t n = get32(rb, pos);
  pos += 4;
  REQUIRE(n > 0);
  const mpz_class r2 = (mpz_class(1) << 512) % gmp_r;
  for (std::uint32_t t = 0; t < n; ++t, pos += 36) {
    std::uint32_t wire = get32(rb, pos);
    mpz_class coef = mpz_of_le(rb.data() + pos + 4, 32);
    mpz_class want = coef * r2 % gmp_r;
    bool found = false;
    for (auto& c : k.coefficients) {
      if (c.matrix != 0 || c.constraint != 0 || c.signal != wire) continue;
      std::uint8_t b[32];
      c.value.m.to_le_bytes(b);
      found = mpz_of_le(b, 32) == want;
    }
    CHECK(found);
  }
}

TEST_CASE("zkey: an unaligned file is copied to aligned storage and gives the same key", "[parsers][zkey]") {
  auto bytes = slurp(fixture("sample.zkey"));
  auto shifted = with_section(bytes, 77, {0xab}, true);  // unknown id, 1 byte: shifts everything by 13
  temp_file f(shifted, ".zkey");
  auto k = zkey::load(f.path());
  auto ref = zkey::load(fixture("sample.zkey"));
  CHECK_FALSE(k.points_in_place);
  CHECK(std::equal(k.a.begin(), k.a.end(), ref.a.begin(), ref.a.end()));
  CHECK(std::equal(k.b2.begin(), k.b2.end(), ref.b2.begin(), ref.b2.end()));
  CHECK(std::equal(k.h.begin(), k.h.end(), ref.h.begin(), ref.h.end()));
  CHECK(k.vk.ic == ref.vk.ic);
  for (std::size_t i = 0; i < 8; ++i) CHECK(reinterpret_cast<std::uintptr_t>(&k.a[i]) % 8 == 0);
}

TEST_CASE("zkey: container errors", "[parsers][zkey]") {
  const auto good = slurp(fixture("sample.zkey"));
  REQUIRE(zkey_error(good).empty());

  SECTION("truncated at several offsets") {
    auto secs = sections_of(good);
    std::vector<std::size_t> cuts = {0, 3, 11, 12, 20, secs.at(2).data + 50, secs.at(5).data + 1,
                                     secs.at(9).header + 5, good.size() - 1};
    for (auto cut : cuts) {
      INFO("cut at " << cut);
      auto m = zkey_error({good.begin(), good.begin() + std::ptrdiff_t(cut)});
      CHECK_FALSE(m.empty());
      if (cut < 12) CHECK_THAT(m, Contains("too short for a zkey header"));
      else CHECK_THAT(m, Contains("truncated?"));
    }
  }
  SECTION("wrong magic") {
    auto b = good;
    b[3] = 'z';
    CHECK_THAT(zkey_error(b), Contains("not a .zkey file: magic is 'zkez', expected 'zkey'"));
    auto w = slurp(fixture("sample.wtns"));
    CHECK_THAT(zkey_error(w), Contains("magic is 'wtns', expected 'zkey'"));
  }
  SECTION("wrong version") {
    auto b = good;
    put32(b, 4, 2);
    CHECK_THAT(zkey_error(b), Contains("zkey version is 2, expected 1"));
  }
  SECTION("a section size that claims more than the file") {
    auto b = good;
    std::uint32_t last = 0;
    section_pos s{0, 0, 0};
    for (auto [id, pos] : sections_of(b))
      if (pos.header >= s.header) last = id, s = pos;
    put64(b, s.header + 4, s.size + 96);
    CHECK_THAT(zkey_error(b), Contains("section " + std::to_string(last) + " claims " + std::to_string(s.size + 96) +
                                       " bytes at offset " + std::to_string(s.data) + " but the file has only " +
                                       std::to_string(s.size) + " bytes left (truncated?)"));
    put64(b, s.header + 4, ~std::uint64_t(0));  // no overflow in the bounds check
    CHECK_THAT(zkey_error(b), Contains("truncated?"));
  }
  SECTION("a section size that lies about its content") {
    CHECK_THAT(zkey_error(shrink_section(good, 9, 96)),
               Contains("section 9 (H points) has 672 bytes, expected 768 (8 points of 96 bytes)"));
    CHECK_THAT(zkey_error(shrink_section(good, 7, 1)), Contains("section 7 (B2 points) has 1535 bytes, expected 1536"));
    CHECK_THAT(zkey_error(shrink_section(good, 2, 4)), Contains("section 2 (header) ends inside delta2"));
    CHECK_THAT(zkey_error(shrink_section(good, 4, 44)), Contains("section 4 (coefficients) has"));
  }
  SECTION("missing and duplicate sections") {
    for (std::uint32_t id : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 9u})
      CHECK_THAT(zkey_error(without_section(good, id)), Contains("section " + std::to_string(id) + " (") &&
                                                             Contains("is missing"));
    CHECK(zkey_error(without_section(good, 10)).empty());  // contributions: not needed to prove
    CHECK_THAT(zkey_error(with_section(good, 1, {1, 0, 0, 0})), Contains("section 1 appears more than once"));
  }
  SECTION("trailing bytes") {
    auto b = good;
    b.push_back(0);
    CHECK_THAT(zkey_error(b), Contains("1 unexpected bytes after the last of"));
  }
}

TEST_CASE("zkey: header and content errors", "[parsers][zkey]") {
  const auto good = slurp(fixture("sample.zkey"));
  const auto secs = sections_of(good);
  const std::size_t h = secs.at(2).data;  // n8q @0, q @4, n8r @52, r @56, nVars @88, nPublic @92, domainSize @96

  SECTION("BN254 key") {
    CHECK_THAT(zkey_error(slurp(fixture("sample_bn254.zkey"))),
               Contains("prime field is BN254's, cuzk proves on BLS12-381 only"));
  }
  SECTION("protocol") {
    auto b = good;
    put32(b, secs.at(1).data, 2);
    CHECK_THAT(zkey_error(b), Contains("protocol is 2 (PLONK), cuzk proves Groth16 (1) only"));
  }
  SECTION("primes") {
    auto b = good;
    b[h + 4] ^= 1;
    CHECK_THAT(zkey_error(b), Contains("section 2 (header) prime q is") && Contains("expected BLS12-381's p"));
    b = good;
    b[h + 56] ^= 2;
    CHECK_THAT(zkey_error(b), Contains("expected BLS12-381's r"));
    b = good;
    put32(b, h, 32);
    CHECK_THAT(zkey_error(b), Contains("n8q is 32, expected 48"));
  }
  SECTION("sizes") {
    auto b = good;
    put32(b, h + 96, 12);
    CHECK_THAT(zkey_error(b), Contains("domainSize 12 is not a power of two"));
    put32(b, h + 96, 0);
    CHECK_THAT(zkey_error(b), Contains("domainSize 0 is not a power of two"));
    b = good;
    put32(b, h + 96, 4);  // smaller than the 8 rows of section 4
    CHECK_THAT(zkey_error(b), Contains("constraint 4 is not below domainSize 4"));
    b = good;
    put32(b, h + 92, 8);
    CHECK_THAT(zkey_error(b), Contains("nVars 8 leaves no room for the constant and nPublic 8"));
    b = good;
    put32(b, h + 88, 9);  // nVars: the point sections no longer match
    CHECK_THAT(zkey_error(b), Contains("expected 864 (9 points of 96 bytes)"));
  }
  SECTION("section 4 entries") {
    const std::size_t e0 = secs.at(4).data + 4;  // entry 0: matrix, constraint, signal, value
    auto b = good;
    put32(b, e0, 2);
    CHECK_THAT(zkey_error(b), Contains("section 4 (coefficients) entry 0: matrix is 2, expected 0 (A) or 1 (B)"));
    b = good;
    put32(b, e0 + 44 + 8, 8);
    CHECK_THAT(zkey_error(b), Contains("entry 1: signal 8 is not below nVars 8"));
    b = good;
    fr::P.to_le_bytes(b.data() + e0 + 3 * 44 + 12);
    CHECK_THAT(zkey_error(b), Contains("entry 3: value is not below r"));
  }
  SECTION("points: off the curve, coordinate >= p") {
    auto k = zkey::load(fixture("sample.zkey"));
    std::size_t i = 0;
    while (k.a[i].is_identity()) ++i;
    auto b = good;
    b[secs.at(5).data + 96 * i + 7] ^= 0x10;
    CHECK_THAT(zkey_error(b), Contains("section 5 (A points) point " + std::to_string(i) + " is not on the curve"));
    b = good;
    fp::P.to_le_bytes(b.data() + secs.at(9).data + 96 * 5);  // H[5].x = p
    CHECK_THAT(zkey_error(b), Contains("section 9 (H points) point 5 has a coordinate >= p"));
    b = good;
    b[secs.at(7).data + 192 * 7 + 100] ^= 1;
    CHECK_THAT(zkey_error(b), Contains("section 7 (B2 points) point 7"));
    b = good;
    b[h + 100 + 3] ^= 1;  // alpha1
    CHECK_THAT(zkey_error(b), Contains("section 2 (header) alpha1 is not on the curve"));
    b = good;
    b[h + 100 + 96 + 96 + 192 + 5] ^= 1;  // gamma2.x
    CHECK_THAT(zkey_error(b), Contains("section 2 (header) gamma2"));
    b = good;
    b[secs.at(3).data + 96 * 2 + 50] ^= 1;
    CHECK_THAT(zkey_error(b), Contains("section 3 (IC) point 2 is not on the curve"));
    // The point at infinity (all zero bytes) is valid.
    b = good;
    std::fill_n(b.begin() + std::ptrdiff_t(secs.at(9).data + 96 * 3), 96, 0);
    CHECK(zkey_error(b).empty());
  }
  SECTION("missing file") {
    CHECK_THROWS_WITH(zkey::load("/nonexistent/x.zkey"), Contains("/nonexistent/x.zkey: cannot open"));
  }
}

TEST_CASE("zkey: witness and r1cs cross-checks", "[parsers][zkey]") {
  auto k = zkey::load(fixture("sample.zkey"));
  auto w = witness::load(fixture("sample.wtns"));
  check_witness_matches(k, w);
  w.values.pop_back();
  CHECK_THROWS_WITH(check_witness_matches(k, w),
                    fixture("sample.wtns") + ": witness has 7 values, " + fixture("sample.zkey") + " expects 8");

  auto cs = r1cs::load(fixture("sample.r1cs"));
  check_r1cs_matches(k, cs);
  auto bad = cs;
  bad.constraints[2].b[0].coeff += fr::one();
  CHECK_THROWS_WITH(check_r1cs_matches(k, bad), Contains("differ from the r1cs's A/B matrices, first at"));
  bad = cs;
  bad.n_pub_in += 1;
  CHECK_THROWS_WITH(check_r1cs_matches(k, bad), Contains("r1cs has 4 public signals, zkey has nPublic 3"));
  bad = cs;
  bad.n_wires = 9;
  CHECK_THROWS_WITH(check_r1cs_matches(k, bad), Contains("r1cs has 9 wires, zkey has nVars 8"));
}

// A 2^16 key of valid points (consecutive multiples of the generators), written by the writer.
TEST_CASE("zkey: a 2^16 key loads fast", "[parsers][zkey][perf]") {
  const std::uint32_t domain = 1u << 16, n_vars = 1u << 16, n_public = 2;
  auto g1_run = [](std::size_t n, std::uint64_t seed) {
    std::vector<g1_jacobian> j(n);
    g1_jacobian acc = g1_jacobian(g1_curve::generator()).mul(bigint<1>{{seed}});
    for (auto& p : j) p = acc = acc + g1_curve::generator();
    return batch_normalize(j);
  };
  std::vector<g2_jacobian> j2(n_vars);
  g2_jacobian acc2 = g2_jacobian(g2_curve::generator());
  for (auto& p : j2) p = acc2 = acc2 + g2_curve::generator();
  auto b2 = batch_normalize(j2);
  auto a = g1_run(n_vars, 3), b1 = g1_run(n_vars, 5), c = g1_run(n_vars - n_public - 1, 7), h = g1_run(domain, 11);
  std::vector<zkey_coefficient> coefs;
  for (std::uint32_t i = 0; i < domain - n_public - 1; ++i)
    coefs.push_back({i & 1, i, (i * 7919u) % n_vars, fr::from_u64(i + 1)});
  for (std::uint32_t s = 0; s <= n_public; ++s) coefs.push_back({0, domain - n_public - 1 + s, s, fr::one()});
  zkey_parts parts;
  parts.n_vars = n_vars;
  parts.n_public = n_public;
  parts.domain_size = domain;
  parts.vk.alpha1 = a[0];
  parts.vk.beta1 = a[1];
  parts.vk.delta1 = a[2];
  parts.vk.beta2 = b2[0];
  parts.vk.gamma2 = g2_curve::generator();
  parts.vk.delta2 = b2[1];
  parts.vk.ic = {a[3], a[4], a[5]};
  parts.a = a;
  parts.b1 = b1;
  parts.b2 = b2;
  parts.c = c;
  parts.h = h;
  parts.coefficients = coefs;
  temp_file f(serialize_zkey(parts), ".zkey");

  auto cpu = [] { return double(std::clock()) / CLOCKS_PER_SEC; };  // all threads of the process
  auto t0 = std::chrono::steady_clock::now();
  double c0 = cpu();
  auto k = zkey::load(f.path());
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), cpu_s = cpu() - c0;
  WARN("2^16 zkey (" << (n_vars * 3 + domain) << " G1 + " << n_vars << " G2 points) loaded in " << s << " s wall, "
                     << cpu_s << " s CPU");
  CHECK(k.h.size() == domain);
  CHECK(k.h[12345] == h[12345]);
  CHECK(k.b2[777] == b2[777]);
  CHECK(k.coefficients.size() == coefs.size());
#if !defined(__SANITIZE_ADDRESS__) && defined(NDEBUG)
  CHECK(cpu_s < 1.0);  // CPU time: wall time on a shared CI machine measures the neighbours
#endif
}
