// snarkjs JSON: byte-identical round trips of the snarkjs-made fixture files, snarkjs's reading
// rules (Jacobian third coordinate, infinity), and validation errors naming file and JSON path.
#include <catch2/catch.hpp>
#include <gmpxx.h>

#include "io_test_util.hpp"
#include "zk/io/snarkjs_json.hpp"
#include "zk/io/zkey.hpp"

using namespace cuzk::zk;
using namespace cuzk::zk::bls12_381;
using namespace cuzk::zk::io;
using namespace io_test;
using Catch::Matchers::Contains;
using snarkjs::json;

namespace {

std::string proof_error(const std::string& text) {
  try {
    snarkjs::parse_proof(text, "proof.json");
  } catch (const input_error& e) {
    std::string m = e.what();
    CHECK(m.find('\n') == std::string::npos);
    return m;
  }
  return "";
}
std::string vk_error(const std::string& text) {
  try {
    snarkjs::parse_vk(text, "verification_key.json");
  } catch (const input_error& e) {
    return e.what();
  }
  return "";
}

const mpz_class gmp_p("0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab");

}  // namespace

TEST_CASE("json: proof.json and public.json round-trip byte for byte", "[parsers][json]") {
  const std::string text = slurp_text(fixture("proof.json"));
  auto p = snarkjs::read_proof(fixture("proof.json"));
  CHECK(p.a.is_on_curve());
  CHECK(p.b.is_on_curve());
  CHECK(in_prime_subgroup(p.a));
  CHECK(snarkjs::dump(snarkjs::proof_to_json(p)) == text);
  CHECK(snarkjs::parse_proof(text, "x") == p);

  const std::string pub = slurp_text(fixture("public.json"));
  auto s = snarkjs::read_public(fixture("public.json"));
  REQUIRE(s.size() == 3);
  CHECK(s[0] == bigint<4>{{33, 0, 0, 0}});
  CHECK(s[2] == bigint<4>{{3, 0, 0, 0}});
  CHECK(snarkjs::dump(snarkjs::public_to_json(s)) == pub);
}

TEST_CASE("json: verification_key.json round-trips and matches the zkey", "[parsers][json]") {
  const std::string text = slurp_text(fixture("verification_key.json"));
  auto vk = snarkjs::read_vk(fixture("verification_key.json"));
  auto k = zkey::load(fixture("sample.zkey"));
  CHECK(vk.alpha1 == k.vk.alpha1);
  CHECK(vk.beta2 == k.vk.beta2);
  CHECK(vk.gamma2 == k.vk.gamma2);
  CHECK(vk.delta2 == k.vk.delta2);
  CHECK(vk.ic == k.vk.ic);
  // The writer with snarkjs's own alphabeta gives snarkjs's bytes, from the zkey's vk too.
  auto alphabeta = json::parse(text)["vk_alphabeta_12"];
  CHECK(snarkjs::dump(snarkjs::vk_to_json(vk, alphabeta)) == text);
  CHECK(snarkjs::dump(snarkjs::vk_to_json(k.vk, alphabeta)) == text);
}

TEST_CASE("json: vk_alphabeta_12 from the pairing equals snarkjs's", "[parsers][json][pairing]") {
  const std::string text = slurp_text(fixture("verification_key.json"));
  auto k = zkey::load(fixture("sample.zkey"));
  CHECK(snarkjs::dump(snarkjs::vk_to_json(k.vk)) == text);
}

TEST_CASE("json: snarkjs's point reading rules", "[parsers][json]") {
  auto p = snarkjs::read_proof(fixture("proof.json"));
  auto j = json::parse(slurp_text(fixture("proof.json")));

  SECTION("a third coordinate other than 1 is Jacobian (coordinates made with GMP)") {
    mpz_class x(j["pi_a"][0].get<std::string>()), y(j["pi_a"][1].get<std::string>());
    mpz_class z(std::to_string(std::uniform_int_distribution<std::uint64_t>(2, ~0ull)(rng())));
    z = z * z * z % gmp_p;  // a random-ish 381-bit z
    mpz_class z2 = z * z % gmp_p, z3 = z2 * z % gmp_p;
    j["pi_a"] = json::array({mpz_class(x * z2 % gmp_p).get_str(), mpz_class(y * z3 % gmp_p).get_str(), z.get_str()});
    // G2: z = (z, 1) in Fp2: x' = x * z^2, y' = y * z^3 with Fp2 products.
    auto fp2_of = [](const json& a) { return std::pair<mpz_class, mpz_class>(mpz_class(a[0].get<std::string>()), mpz_class(a[1].get<std::string>())); };
    auto mul = [](std::pair<mpz_class, mpz_class> a, std::pair<mpz_class, mpz_class> b) {
      mpz_class c0 = (a.first * b.first - a.second * b.second) % gmp_p, c1 = (a.first * b.second + a.second * b.first) % gmp_p;
      if (c0 < 0) c0 += gmp_p;
      return std::pair<mpz_class, mpz_class>(c0, c1);
    };
    auto zz = std::pair<mpz_class, mpz_class>(z, 1), zz2 = mul(zz, zz), zz3 = mul(zz2, zz);
    auto bx = mul(fp2_of(j["pi_b"][0]), zz2), by = mul(fp2_of(j["pi_b"][1]), zz3);
    j["pi_b"] = json::array({json::array({bx.first.get_str(), bx.second.get_str()}),
                             json::array({by.first.get_str(), by.second.get_str()}),
                             json::array({zz.first.get_str(), "1"})});
    CHECK(snarkjs::parse_proof(j.dump(), "jac.json") == p);
  }
  SECTION("[x, y] without z is affine; infinity is [\"0\", \"1\", \"0\"]") {
    j["pi_a"].erase(2);
    j["pi_c"] = json::array({"0", "1", "0"});
    auto q = snarkjs::parse_proof(j.dump(), "inf.json");
    CHECK(q.a == p.a);
    CHECK(q.c.is_identity());
    groth16::proof inf{};
    auto out = snarkjs::proof_to_json(inf);
    CHECK(out["pi_a"] == json::array({"0", "1", "0"}));
    CHECK(out["pi_b"] == json::parse(R"([["0","0"],["1","0"],["0","0"]])"));
    CHECK(snarkjs::parse_proof(out.dump(), "inf.json") == inf);
  }
}

TEST_CASE("json: validation errors name the file and the JSON path", "[parsers][json]") {
  const auto j = json::parse(slurp_text(fixture("proof.json")));
  auto with = [&](const char* key, json v) {
    json c = j;
    c[key] = std::move(v);
    return c.dump();
  };
  json b = j["pi_b"];
  b[1][0] = "12x4";
  CHECK(proof_error(with("pi_b", b)) == "proof.json: pi_b[1][0] is not a decimal field element");
  b = j["pi_b"];
  b[1][0] = 5;
  CHECK(proof_error(with("pi_b", b)) == "proof.json: pi_b[1][0] is not a decimal field element");
  b = j["pi_b"];
  b[0][1] = gmp_p.get_str();
  CHECK(proof_error(with("pi_b", b)) == "proof.json: pi_b[0][1] is not below the field modulus");
  json a = j["pi_a"];
  a[0] = "1";
  CHECK(proof_error(with("pi_a", a)) == "proof.json: pi_a is not on the curve");
  b = j["pi_b"];
  b[0][0] = "1";
  CHECK(proof_error(with("pi_b", b)) == "proof.json: pi_b is not on the curve");
  CHECK(proof_error(with("pi_c", json::array({"1"}))) == "proof.json: pi_c is not an array of 2 or 3 coordinates");
  CHECK(proof_error(with("pi_b", json::array({"1", "2", "1"}))) ==
        "proof.json: pi_b[0] is not an array of 2 field elements");
  json c = j;
  c.erase("pi_c");
  CHECK(proof_error(c.dump()) == "proof.json: pi_c is missing");
  CHECK(proof_error(with("curve", "bn128")) == "proof.json: prime field is BN254's, cuzk proves on BLS12-381 only");
  CHECK(proof_error(with("protocol", "plonk")) == "proof.json: protocol is \"plonk\", expected \"groth16\"");
  CHECK_THAT(proof_error("{\"pi_a\": ["), Contains("proof.json: not valid JSON"));
  CHECK(proof_error("[1]") == "proof.json: is not a JSON object");
  // Found by fuzzing: a number too large for a double throws out_of_range inside the JSON parser.
  CHECK_THAT(proof_error(R"({"pi_a": [15e16975905029459849230006661837439925929176403392669987242851282304938830915327357258410378606221]})"),
             Contains("proof.json: not valid JSON"));

  // public.json
  CHECK_THROWS_WITH(snarkjs::parse_public(R"(["1", "2", "-3"])", "public.json"),
                    "public.json: [2] is not a decimal scalar field element");
  CHECK_THROWS_WITH(
      snarkjs::parse_public(R"(["52435875175126190479447740508185965837690552500527637822603658699938581184513"])",
                            "public.json"),
      "public.json: [0] is not below the scalar field modulus");
  CHECK(snarkjs::parse_public(R"(["52435875175126190479447740508185965837690552500527637822603658699938581184512"])",
                              "public.json")
            .size() == 1);  // r - 1

  // verification_key.json
  const auto v = json::parse(slurp_text(fixture("verification_key.json")));
  json bad = v;
  bad["curve"] = "bn128";
  CHECK(vk_error(bad.dump()) == "verification_key.json: prime field is BN254's, cuzk proves on BLS12-381 only");
  bad = v;
  bad["nPublic"] = 4;
  CHECK(vk_error(bad.dump()) == "verification_key.json: IC is not an array of nPublic + 1 = 5 points");
  bad = v;
  bad["IC"][2][1] = "7";
  CHECK(vk_error(bad.dump()) == "verification_key.json: IC[2] is not on the curve");
  bad = v;
  bad.erase("vk_delta_2");
  CHECK(vk_error(bad.dump()) == "verification_key.json: vk_delta_2 is missing");
  bad = v;
  bad["vk_gamma_2"][1][1] = "0x10";
  CHECK(vk_error(bad.dump()) == "verification_key.json: vk_gamma_2[1][1] is not a decimal field element");
}
