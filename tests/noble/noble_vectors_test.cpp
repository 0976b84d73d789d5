// Compares the pairing, Fp12 arithmetic and compressed encodings with @noble/curves 1.9.6.
// The vectors come from tests/noble/gen_vectors.js, run by ctest just before this binary (fixture
// "noble_vectors"); the path arrives in CUZK_NOBLE_VECTORS.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "zk/bls12_381/compressed.hpp"
#include "zk/bls12_381/pairing.hpp"

using namespace cuzk::zk;
using namespace cuzk::zk::bls12_381;
using nlohmann::json;

namespace {

const json& vectors() {
  static const json v = [] {
    const char* path = std::getenv("CUZK_NOBLE_VECTORS");
    if (!path) throw std::runtime_error("CUZK_NOBLE_VECTORS is not set (run through ctest)");
    std::ifstream in(path);
    if (!in) throw std::runtime_error(std::string("cannot open ") + path);
    return json::parse(in);
  }();
  return v;
}

fp fp_of(const json& j) { return fp::from_canonical(*bigint<6>::parse(j.get<std::string>())); }

fp12 fp12_of(const json& l) {
  REQUIRE(l.size() == 12);
  fp2 c[6];
  for (int i = 0; i < 6; ++i) c[i] = {fp_of(l[2 * i]), fp_of(l[2 * i + 1])};
  return {{c[0], c[1], c[2]}, {c[3], c[4], c[5]}};
}

template <std::size_t N>
std::array<std::uint8_t, N> bytes_of(const json& j) {
  std::string h = j.get<std::string>();
  REQUIRE(h.size() == 2 * N);
  std::array<std::uint8_t, N> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = std::uint8_t(std::stoul(h.substr(2 * i, 2), nullptr, 16));
  return out;
}

bigint<4> scalar_of(const json& j) { return *bigint<4>::parse(j.get<std::string>()); }

}  // namespace

TEST_CASE("noble: k*G1 and k*G2 compressed bytes", "[noble][compressed]") {
  const auto& v = vectors();
  REQUIRE(v["g1"].size() >= 10);
  for (const auto& t : v["g1"]) {
    auto k = scalar_of(t["k"]);
    g1_affine p = g1_jacobian(g1_curve::generator()).mul(k).to_affine();
    auto want = bytes_of<48>(t["compressed"]);
    CHECK(to_compressed(p) == want);
    CHECK(g1_from_compressed(want) == p);
  }
  for (const auto& t : v["g2"]) {
    auto k = scalar_of(t["k"]);
    g2_affine p = g2_jacobian(g2_curve::generator()).mul(k).to_affine();
    auto want = bytes_of<96>(t["compressed"]);
    CHECK(to_compressed(p) == want);
    CHECK(g2_from_compressed(want) == p);
  }
}

TEST_CASE("noble: pairings of random multiples", "[noble][pairing]") {
  const auto& v = vectors();
  REQUIRE(v["pairings"].size() >= 4);
  for (const auto& t : v["pairings"]) {
    g1_affine p = g1_from_compressed(bytes_of<48>(t["p"]));
    g2_affine q = g2_from_compressed(bytes_of<96>(t["q"]));
    CHECK(p == g1_jacobian(g1_curve::generator()).mul(scalar_of(t["a"])).to_affine());
    CHECK(q == g2_jacobian(g2_curve::generator()).mul(scalar_of(t["b"])).to_affine());
    CHECK(pairing(p, q) == fp12_of(t["e"]));
  }
}

TEST_CASE("noble: Fp12 mul, sqr, inverse, Frobenius", "[noble][fp12]") {
  const auto& v = vectors();
  REQUIRE(v["fp12"].size() >= 4);
  for (const auto& t : v["fp12"]) {
    fp12 x = fp12_of(t["x"]), y = fp12_of(t["y"]);
    CHECK(x * y == fp12_of(t["mul"]));
    CHECK(x.sqr() == fp12_of(t["sqr"]));
    CHECK(x.inverse() == fp12_of(t["inv"]));
    CHECK(x.frobenius_map(1) == fp12_of(t["frob1"]));
    CHECK(x.frobenius_map(2) == fp12_of(t["frob2"]));
    CHECK(x.frobenius_map(3) == fp12_of(t["frob3"]));
  }
}

TEST_CASE("noble: final exponentiation of arbitrary Fp12 elements", "[noble][pairing]") {
  const auto& v = vectors();
  REQUIRE(v["final_exp"].size() >= 1);
  for (const auto& t : v["final_exp"]) CHECK(final_exponentiation(fp12_of(t["x"])) == fp12_of(t["y"]));
}
