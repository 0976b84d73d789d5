// Groth16 verification: a proof built from known trapdoor values (alpha, beta, gamma, delta and
// the proof's own discrete logs), its tampered variants, the compressed round trip, and the
// committed snarkjs fixture (proof + vk + public inputs produced by snarkjs 0.7.6).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

#include "curve_test_points.hpp"
#include "zk/bls12_381/subgroup.hpp"
#include "zk/error.hpp"
#include "zk/groth16/compressed_proof.hpp"
#include "zk/groth16/verifier.hpp"
#include "zk/io/snarkjs_json.hpp"

using namespace cuzk::zk;
using namespace cuzk::zk::bls12_381;
using namespace cuzk::zk::groth16;

using test::g1_mul;
using test::g2_mul;
using test::random_nonzero_fr;

namespace {

// A point on the G1 curve outside the prime-order subgroup.
g1_affine g1_off_subgroup() {
  for (std::uint64_t x = 1;; ++x) {
    fp fx = fp::from_u64(x);
    if (auto y = (fx.sqr() * fx + g1_curve::b()).sqrt()) {
      g1_affine p = g1_affine::of(fx, *y);
      if (!in_prime_subgroup(p)) return p;
    }
  }
}

// With trapdoor t: a*b = alpha*beta + x*gamma + c*delta, x = ic0 + s*ic1 (the discrete logs of
// vk_x and the IC points), so c = (a*b - alpha*beta - x*gamma) / delta.
struct fixture {
  verifying_key vk;
  proof pi;
  bigint<4> input;
  explicit fixture(std::uint64_t seed) {
    std::mt19937_64 g(seed);
    fr alpha = random_nonzero_fr(g), beta = random_nonzero_fr(g), gamma = random_nonzero_fr(g), delta = random_nonzero_fr(g);
    fr ic0 = random_nonzero_fr(g), ic1 = random_nonzero_fr(g), s = random_nonzero_fr(g), a = random_nonzero_fr(g), b = random_nonzero_fr(g);
    vk.alpha1 = g1_mul(alpha);
    vk.beta1 = g1_mul(beta);
    vk.delta1 = g1_mul(delta);
    vk.beta2 = g2_mul(beta);
    vk.gamma2 = g2_mul(gamma);
    vk.delta2 = g2_mul(delta);
    vk.ic = {g1_mul(ic0), g1_mul(ic1)};
    fr x = ic0 + s * ic1;
    fr c = (a * b - alpha * beta - x * gamma) * delta.inverse();
    pi = {g1_mul(a), g2_mul(b), g1_mul(c)};
    input = s.to_canonical();
  }
};

}  // namespace

// verify with the plain key and with the prepared one; both must give the same answer.
bool verify_both(const verifying_key& vk, std::span<const bigint<4>> in, const proof& pi) {
  bool plain = verify(vk, in, pi);
  bool prepared = verify(prepare(vk), in, pi);
  CHECK(plain == prepared);
  return plain;
}

TEST_CASE("Groth16 verify accepts a trapdoor-built proof and rejects tampered ones", "[groth16][verify]") {
  fixture f(21);
  std::vector<bigint<4>> in{f.input};
  REQUIRE(verify_both(f.vk, in, f.pi));

  SECTION("wrong public input") {
    fr s1 = fr::from_canonical(f.input) + fr::one();
    std::vector<bigint<4>> bad{s1.to_canonical()};
    CHECK_FALSE(verify_both(f.vk, bad, f.pi));
  }
  SECTION("public input not reduced (s + r)") {
    bigint<4> big = f.input;
    REQUIRE(big.add_in_place(fr::P) == 0);
    std::vector<bigint<4>> bad{big};
    CHECK_FALSE(verify_both(f.vk, bad, f.pi));
  }
  SECTION("wrong number of public inputs") {
    CHECK_FALSE(verify_both(f.vk, std::span<const bigint<4>>{}, f.pi));
    std::vector<bigint<4>> two{f.input, f.input};
    CHECK_FALSE(verify_both(f.vk, two, f.pi));
  }
  SECTION("tampered A, B or C") {
    proof p = f.pi;
    p.a = (g1_jacobian(p.a) + g1_curve::generator()).to_affine();
    CHECK_FALSE(verify_both(f.vk, in, p));
    p = f.pi;
    p.b = (g2_jacobian(p.b) + g2_curve::generator()).to_affine();
    CHECK_FALSE(verify_both(f.vk, in, p));
    p = f.pi;
    p.c = -p.c;
    CHECK_FALSE(verify_both(f.vk, in, p));
    p = f.pi;
    std::swap(p.a, p.c);
    CHECK_FALSE(verify_both(f.vk, in, p));
    p = f.pi;
    p.a = g1_affine::identity();
    CHECK_FALSE(verify_both(f.vk, in, p));
  }
  SECTION("points off the curve or outside the subgroup") {
    proof p = f.pi;
    p.a.x += fp::one();
    CHECK_FALSE(verify_both(f.vk, in, p));
    p = f.pi;
    p.b.y += fp2::one();
    CHECK_FALSE(verify_both(f.vk, in, p));
    p = f.pi;
    p.c = g1_off_subgroup();
    CHECK(p.c.is_on_curve());
    CHECK_FALSE(verify_both(f.vk, in, p));
  }
  SECTION("another key") {
    fixture other(22);
    CHECK_FALSE(verify_both(other.vk, in, f.pi));
    std::vector<bigint<4>> in2{other.input};
    CHECK(verify_both(other.vk, in2, other.pi));
  }
}

TEST_CASE("Groth16 proof survives the 192-byte compressed encoding", "[groth16][compressed]") {
  fixture f(23);
  std::vector<bigint<4>> in{f.input};
  auto bytes = to_compressed(f.pi);
  proof back = proof_from_compressed(bytes);
  CHECK(back == f.pi);
  CHECK(verify(f.vk, in, back));
  // A corrupted B is rejected by decoding, with the point named.
  bytes[48 + 20] ^= 0x01;
  try {
    (void)proof_from_compressed(bytes);
    FAIL("corrupted proof decoded");
  } catch (const input_error& e) {
    CHECK(std::string(e.what()).find("proof.B") != std::string::npos);
  }
}

TEST_CASE("alpha_beta is e(alpha1, beta2)", "[groth16]") {
  fixture f(24);
  CHECK(alpha_beta(f.vk) == pairing(f.vk.alpha1, f.vk.beta2));
  CHECK_FALSE(alpha_beta(f.vk).is_one());
}

TEST_CASE("Groth16 verify accepts the snarkjs fixture proof", "[groth16][verify][snarkjs]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(CUZK_SOURCE_DIR) / "tests/fixtures/sample";
  auto vk = io::snarkjs::read_vk((dir / "verification_key.json").string());
  auto pi = io::snarkjs::read_proof((dir / "proof.json").string());
  auto pub = io::snarkjs::read_public((dir / "public.json").string());
  REQUIRE(pub.size() == vk.n_public());
  CHECK(verify_both(vk, pub, pi));

  // snarkjs's vk_alphabeta_12 is our alpha_beta, coefficient by coefficient.
  std::ifstream in(dir / "verification_key.json");
  auto j = nlohmann::json::parse(in);
  CHECK(io::snarkjs::fp12_to_json(alpha_beta(vk)).dump() == j["vk_alphabeta_12"].dump());

  auto bad = pub;
  bad[0] = (fr::from_canonical(bad[0]) + fr::one()).to_canonical();
  CHECK_FALSE(verify_both(vk, bad, pi));
  proof swapped = pi;
  swapped.c = pi.a;
  CHECK_FALSE(verify_both(vk, pub, swapped));
  // The compressed form of a snarkjs proof verifies too.
  CHECK(verify_both(vk, pub, proof_from_compressed(to_compressed(pi))));
}
