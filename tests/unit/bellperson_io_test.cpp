// bellperson key formats and batched verification: the uncompressed point codec, the .vk reader
// and writer (byte-identical round trip, every defect named), polka-storage's published 2 KiB
// vectors (decoded and subgroup-checked), multi-partition proof decoding, and verify_batch
// against proofs built from a known trapdoor (all valid; one bad partition named).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "curve_test_points.hpp"
#include "zk/bls12_381/compressed.hpp"
#include "zk/bls12_381/subgroup.hpp"
#include "zk/error.hpp"
#include "zk/groth16/compressed_proof.hpp"
#include "zk/groth16/verifier.hpp"
#include "zk/io/bellperson.hpp"

using namespace cuzk::zk;
using namespace cuzk::zk::bls12_381;
using namespace cuzk::zk::groth16;

using test::g1_mul;
using test::g2_mul;
using test::random_nonzero_fr;

namespace {

// A vk with known trapdoor and n_inputs public inputs; proofs for any inputs can be built from it.
struct trapdoor_key {
  fr alpha, beta, gamma, delta;
  std::vector<fr> ic;
  verifying_key vk;
  trapdoor_key(std::mt19937_64& g, std::size_t n_inputs) {
    alpha = random_nonzero_fr(g), beta = random_nonzero_fr(g), gamma = random_nonzero_fr(g), delta = random_nonzero_fr(g);
    for (std::size_t i = 0; i <= n_inputs; ++i) ic.push_back(random_nonzero_fr(g));
    vk.alpha1 = g1_mul(alpha), vk.beta1 = g1_mul(beta), vk.delta1 = g1_mul(delta);
    vk.beta2 = g2_mul(beta), vk.gamma2 = g2_mul(gamma), vk.delta2 = g2_mul(delta);
    for (const auto& x : ic) vk.ic.push_back(g1_mul(x));
  }
  // A valid proof for `inputs`: c = (a b - alpha beta - x gamma) / delta.
  proof prove(std::mt19937_64& g, const std::vector<bigint<4>>& inputs) const {
    fr x = ic[0];
    for (std::size_t i = 0; i < inputs.size(); ++i) x += fr::from_canonical(inputs[i]) * ic[i + 1];
    fr a = random_nonzero_fr(g), b = random_nonzero_fr(g);
    fr c = (a * b - alpha * beta - x * gamma) * delta.inverse();
    return {g1_mul(a), g2_mul(b), g1_mul(c)};
  }
};

std::vector<std::uint8_t> read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  REQUIRE(f);
  return {std::istreambuf_iterator<char>(f), {}};
}

std::string fixture(const std::string& name) {
  return std::string(CUZK_SOURCE_DIR) + "/tests/fixtures/filecoin/polka-storage/" + name;
}

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const input_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("uncompressed points round trip and reject malformed encodings", "[bellperson][io]") {
  std::mt19937_64 g(5);
  for (int i = 0; i < 8; ++i) {
    g1_affine p = g1_mul(random_nonzero_fr(g));
    g2_affine q = g2_mul(random_nonzero_fr(g));
    std::array<std::uint8_t, 96> b1{};
    std::array<std::uint8_t, 192> b2{};
    write_uncompressed(p, b1.data());
    write_uncompressed(q, b2.data());
    CHECK(g1_from_uncompressed(b1) == p);
    CHECK(g2_from_uncompressed(b2) == q);
    auto bad = b1;
    bad[0] |= 0x80;
    CHECK_THROWS_AS(g1_from_uncompressed(bad), input_error);
    bad = b1;
    bad[0] |= 0x20;
    CHECK_THROWS_AS(g1_from_uncompressed(bad), input_error);
    bad = b1;
    bad[95] ^= 1;  // y changed: off the curve
    CHECK_THROWS_WITH(g1_from_uncompressed(bad, "p"), Catch::Contains("not on the curve"));
    auto bad2 = b2;
    bad2[191] ^= 1;
    CHECK_THROWS_WITH(g2_from_uncompressed(bad2, "q"), Catch::Contains("not on the curve"));
  }
  std::array<std::uint8_t, 96> inf{};
  write_uncompressed(g1_affine::identity(), inf.data());
  CHECK(inf[0] == 0x40);
  CHECK(g1_from_uncompressed(inf).is_identity());
  inf[50] = 1;
  CHECK_THROWS_AS(g1_from_uncompressed(inf), input_error);
  std::array<std::uint8_t, 96> big{};
  std::fill(big.begin(), big.end(), 0x1f);  // x >= p
  CHECK_THROWS_WITH(g1_from_uncompressed(big, "p"), Catch::Contains("below the field modulus"));
}

TEST_CASE("bellperson .vk: byte-identical round trip and one-line errors", "[bellperson][io]") {
  std::mt19937_64 g(6);
  trapdoor_key k(g, 3);
  auto bytes = io::bellperson_vk_bytes(k.vk);
  REQUIRE(bytes.size() == 868 + 96 * 4);
  auto vk = io::parse_bellperson_vk(bytes, "k.vk");
  CHECK(vk.alpha1 == k.vk.alpha1);
  CHECK(vk.beta2 == k.vk.beta2);
  CHECK(vk.gamma2 == k.vk.gamma2);
  CHECK(vk.delta1 == k.vk.delta1);
  CHECK(vk.ic == k.vk.ic);
  CHECK(io::bellperson_vk_bytes(vk) == bytes);

  SECTION("truncated") {
    auto t = bytes;
    t.pop_back();
    CHECK_THROWS_WITH(io::parse_bellperson_vk(t, "k.vk"), Catch::StartsWith("k.vk: vk.ic: count 4 needs"));
    t.resize(500);
    CHECK_THROWS_WITH(io::parse_bellperson_vk(t, "k.vk"), Catch::Contains("truncated"));
  }
  SECTION("trailing bytes") {
    auto t = bytes;
    t.push_back(0);
    CHECK_THROWS_WITH(io::parse_bellperson_vk(t, "k.vk"), Catch::Contains("after the verifying key"));
  }
  SECTION("IC point at infinity") {
    auto t = bytes;
    std::fill(t.begin() + 868 + 96 * 2, t.begin() + 868 + 96 * 3, 0);
    t[868 + 96 * 2] = 0x40;
    CHECK(error_of([&] { io::parse_bellperson_vk(t, "k.vk"); }) == "k.vk: vk.ic[2]: point at infinity");
  }
  SECTION("point outside the subgroup") {
    auto t = bytes;
    for (std::uint64_t x = 1;; ++x) {  // a G1 curve point outside the prime-order subgroup
      fp fx = fp::from_u64(x);
      if (auto y = (fx.sqr() * fx + g1_curve::b()).sqrt()) {
        g1_affine p = g1_affine::of(fx, *y);
        if (in_prime_subgroup(p)) continue;
        write_uncompressed(p, t.data() + 96);
        break;
      }
    }
    CHECK_THROWS_WITH(io::parse_bellperson_vk(t, "k.vk"), Catch::Contains("vk.beta_g1: point is not in the prime-order subgroup"));
  }
  SECTION("off the curve at the end of the IC section") {
    auto t = bytes;
    t.back() ^= 1;
    CHECK_THROWS_WITH(io::parse_bellperson_vk(t, "k.vk"), Catch::Contains("vk.ic[3]") && Catch::Contains("not on the curve"));
  }
}

TEST_CASE("polka-storage 2 KiB vectors decode and pass the subgroup checks", "[bellperson][io][filecoin]") {
  auto porep = io::parse_compressed_vk(read_all(fixture("porep-2k.vk.compressed")), "porep-2k.vk");
  auto post = io::parse_compressed_vk(read_all(fixture("window-post-2k.vk.compressed")), "window-post-2k.vk");
  CHECK(porep.n_public() == 39);
  CHECK(post.n_public() == 22);
  // Converted to bellperson's .vk and read back: the same key.
  auto vk_bytes = io::bellperson_vk_bytes(porep);
  auto again = io::parse_bellperson_vk(vk_bytes, "porep-2k.vk");
  CHECK(again.ic == porep.ic);
  CHECK(again.delta2 == porep.delta2);
  auto p1 = proofs_from_compressed(read_all(fixture("porep-2k.proof")), "porep-2k.proof");
  auto p2 = proofs_from_compressed(read_all(fixture("window-post-2k.proof")), "window-post-2k.proof");
  REQUIRE(p1.size() == 1);
  REQUIRE(p2.size() == 1);
  CHECK(g1_in_subgroup(p1[0].a));
  CHECK(g2_in_subgroup(p1[0].b));
  // A proof for other public inputs than its own (zeros) does not verify.
  std::vector<bigint<4>> zeros(porep.n_public());
  CHECK_FALSE(verify(porep, zeros, p1[0]));
  // A flipped bit is refused when decoding or fails verification; never accepted.
  auto bytes = read_all(fixture("porep-2k.proof"));
  bytes[150] ^= 0x04;
  CHECK_THROWS_AS(proofs_from_compressed(bytes, "x"), input_error);
}

TEST_CASE("multi-partition proofs: length and identity rejected with the partition named", "[bellperson][io]") {
  std::mt19937_64 g(7);
  trapdoor_key k(g, 2);
  std::vector<std::uint8_t> bytes;
  for (int i = 0; i < 3; ++i) {
    auto c = to_compressed(k.prove(g, {fr::from_u64(i).to_canonical(), fr::one().to_canonical()}));
    bytes.insert(bytes.end(), c.begin(), c.end());
  }
  CHECK(proofs_from_compressed(bytes, "p.bin").size() == 3);
  auto t = bytes;
  t.pop_back();
  CHECK(error_of([&] { proofs_from_compressed(t, "p.bin"); }) == "p.bin: 575 bytes is not a positive multiple of 192");
  t = std::vector<std::uint8_t>(bytes.begin(), bytes.begin() + 191);
  CHECK(error_of([&] { proofs_from_compressed(t, "p.bin"); }) == "p.bin: 191 bytes is not a positive multiple of 192");
  t = bytes;
  std::fill(t.begin() + 192 + 48, t.begin() + 192 + 144, 0);
  t[192 + 48] = 0xc0;  // partition 1's B: the point at infinity
  CHECK(error_of([&] { proofs_from_compressed(t, "p.bin"); }) == "p.bin: partition 1: proof.B: point at infinity");
}

TEST_CASE("verify_batch accepts valid partitions and names the bad ones", "[groth16][verify][batch]") {
  std::mt19937_64 g(8);
  trapdoor_key k(g, 5);
  const auto pvk = prepare(k.vk);
  std::vector<std::vector<bigint<4>>> inputs;
  std::vector<proof> proofs;
  for (int i = 0; i < 10; ++i) {
    std::vector<bigint<4>> in;
    for (int j = 0; j < 5; ++j) in.push_back(random_nonzero_fr(g).to_canonical());
    proofs.push_back(k.prove(g, in));
    inputs.push_back(std::move(in));
  }
  auto ok = verify_batch(pvk, inputs, proofs);
  CHECK(ok.all_valid);
  CHECK(ok.invalid.empty());

  SECTION("one wrong public input") {
    inputs[6][2] = (fr::from_canonical(inputs[6][2]) + fr::one()).to_canonical();
    auto r = verify_batch(pvk, inputs, proofs);
    CHECK_FALSE(r.all_valid);
    CHECK(r.invalid == std::vector<std::size_t>{6});
  }
  SECTION("two swapped proofs") {
    std::swap(proofs[2], proofs[7]);
    auto r = verify_batch(pvk, inputs, proofs);
    CHECK(r.invalid == std::vector<std::size_t>{2, 7});
  }
  SECTION("a point outside the subgroup fails its pre-check") {
    proofs[0].c = -proofs[0].c;
    proofs[9].a.x += fp::one();
    auto r = verify_batch(pvk, inputs, proofs);
    CHECK(r.invalid == std::vector<std::size_t>{0, 9});
  }
  SECTION("mismatched sizes") {
    inputs.pop_back();
    CHECK(verify_batch(pvk, inputs, proofs).invalid.size() == 10);
  }
  SECTION("one proof") {
    CHECK(verify_batch(pvk, std::span(inputs).first(1), std::span(proofs).first(1)).all_valid);
  }
}
