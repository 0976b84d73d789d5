#include <catch2/catch.hpp>

#include <random>

#include "groth16_test_support.hpp"
#include "zk/error.hpp"
#include "zk/groth16/cpu_backend.hpp"
#include "zk/groth16/prover.hpp"
#include "zk/groth16/random.hpp"
#include "zk/groth16/setup.hpp"
#include "zk/groth16/verifier.hpp"
#include "zk/io/snarkjs_json.hpp"

using namespace cuzk::zk;
using namespace cuzk::zk::bls12_381;
using namespace cuzk::zk::groth16;

namespace {
randomness fixed_randomness(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  return {test::random_fr(rng), test::random_fr(rng)};
}
}  // namespace

TEST_CASE("proofs from a test setup verify, match the trapdoor equation, and agree across backends",
          "[prover]") {
  std::mt19937_64 rng(2024);
  auto rc = test::make_random_circuit(rng, 3, 5, 20);
  auto tw = toxic_waste_from_seed(77);
  io::zkey key = setup(rc.cs, tw);
  auto pce = constraint_evaluator::build(key);
  auto w = rc.witness();
  auto rnd = fixed_randomness(1);

  auto cpu = make_cpu_backend();
  prove_timings t;
  proof p = prove(key, pce, w, rnd, *cpu, &t);
  auto pub = public_inputs(key, w);
  REQUIRE(pub.size() == 3);
  CHECK(pub[0] == w.values[1]);
  CHECK(pub[2] == w.values[3]);
  CHECK(verify(key.vk, pub, p));
  CHECK(test::trapdoor_check(rc.cs, tw, key.domain_size, rc.values, rnd, p));
  CHECK(t.total() > 0);

  test::naive_backend naive;
  CHECK(prove(key, pce, w, rnd, naive) == p);
  CHECK(prove_synthesized(key, pce.evaluate(w), w, rnd, *cpu) == p);

  // Another randomness: another proof, still valid.
  proof p2 = prove(key, pce, w, fixed_randomness(2), *cpu);
  CHECK_FALSE(p2 == p);
  CHECK(verify(key.vk, pub, p2));

  // Wrong public inputs are refused.
  auto pub_bad = pub;
  pub_bad[1].limb[0] ^= 1;
  CHECK_FALSE(verify(key.vk, pub_bad, p));
}

TEST_CASE("changing one witness value breaks the proof", "[prover]") {
  std::mt19937_64 rng(5);
  auto rc = test::make_random_circuit(rng, 2, 3, 12);
  auto tw = toxic_waste_from_seed(8);
  io::zkey key = setup(rc.cs, tw);
  auto pce = constraint_evaluator::build(key);
  auto cpu = make_cpu_backend();
  auto rnd = fixed_randomness(3);
  for (std::size_t wire : {std::size_t{2}, std::size_t{5}, rc.values.size() - 1}) {
    INFO("wire " << wire);
    auto values = rc.values;
    values[wire] += fr::one();
    io::witness w;
    for (const auto& v : values) w.values.push_back(v.to_canonical());
    proof p = prove(key, pce, w, rnd, *cpu);
    CHECK_FALSE(verify(key.vk, public_inputs(key, w), p));
    CHECK_FALSE(test::trapdoor_check(rc.cs, tw, key.domain_size, values, rnd, p));
  }
}

TEST_CASE("proof on the snarkjs fixture verifies against snarkjs's verification key", "[prover][fixture]") {
  const std::string dir = CUZK_SOURCE_DIR "/tests/fixtures/sample/";
  auto key = io::zkey::load(dir + "sample.zkey");
  auto w = io::witness::load(dir + "sample.wtns");
  auto vk = io::snarkjs::read_vk(dir + "verification_key.json");
  auto pub = io::snarkjs::read_public(dir + "public.json");
  CHECK(public_inputs(key, w) == pub);
  auto cpu = make_cpu_backend();
  proof p = prove(key, constraint_evaluator::build(key), w, random_randomness(), *cpu);
  CHECK(verify(vk, pub, p));
  CHECK(verify(key.vk, pub, p));
  // snarkjs's own proof verifies with the key's vk too (the reader and the verifier agree with it).
  CHECK(verify(key.vk, pub, io::snarkjs::read_proof(dir + "proof.json")));
}

TEST_CASE("prover refuses a witness that does not fit the key", "[prover]") {
  std::mt19937_64 rng(6);
  auto rc = test::make_random_circuit(rng, 1, 1, 4);
  io::zkey key = setup(rc.cs, toxic_waste_from_seed(9));
  auto pce = constraint_evaluator::build(key);
  auto cpu = make_cpu_backend();
  auto w = rc.witness();
  w.values.push_back(bigint<4>{});
  CHECK_THROWS_AS(prove(key, pce, w, fixed_randomness(1), *cpu), input_error);
  w = rc.witness();
  w.values[0] = bigint<4>{{2, 0, 0, 0}};
  CHECK_THROWS_AS(prove(key, pce, w, fixed_randomness(1), *cpu), input_error);
}

TEST_CASE("random_randomness draws distinct nonzero canonical values", "[prover]") {
  auto a = random_randomness(), b = random_randomness();
  CHECK_FALSE(a.r.is_zero());
  CHECK_FALSE(a.s.is_zero());
  CHECK_FALSE(a.r == a.s);
  CHECK_FALSE(a.r == b.r);
  CHECK(a.r.m < fr::P);
}

namespace {
// A host backend that plays a device for the reserve step: load_key "holds" the key (a resident
// that synthesizes the evaluator or not, as told), and every load and reserve is recorded in order.
struct recorded_resident final : resident_key {
  explicit recorded_resident(bool s) : synth(s) {}
  std::uint64_t bytes() const override { return 1; }
  bool synthesizes(const constraint_evaluator&) const override { return synth; }
  bool synth;
};
class reserve_recorder final : public cpu_backend {
 public:
  explicit reserve_recorder(bool resident, bool synthesizes = false) : resident_(resident), synth_(synthesizes) {}
  std::unique_ptr<resident_key> load_key(const key_points&, const constraint_evaluator*, bool) override {
    calls.push_back("load");
    if (!resident_) return nullptr;
    auto r = std::make_unique<recorded_resident>(synth_);
    made = r.get();
    return r;
  }
  std::uint64_t reserve_proof(const key_points& key) override {
    calls.push_back(key.resident && key.resident == made ? "proof scratch for the key made"
                                                         : "proof scratch, another key");
    return 0;
  }
  unsigned reserve_staging(std::uint64_t bytes, unsigned count) override {
    calls.push_back("staging " + std::to_string(count) + " x " + std::to_string(bytes));
    return count;
  }
  std::vector<std::string> calls;
  const resident_key* made = nullptr;

 private:
  bool resident_, synth_;
};
}  // namespace

TEST_CASE("load_for_proofs: load_key, then the proof's scratch for the key made, then one staging slot of its path",
          "[prover][reserve]") {
  std::mt19937_64 rng(2025);
  auto rc = test::make_random_circuit(rng, 2, 4, 12);
  io::zkey key = setup(rc.cs, toxic_waste_from_seed(78));
  auto pce = constraint_evaluator::build(key);
  const auto slot = [&](bool witness_only) {
    return "staging 1 x " + std::to_string(staged_bytes(key.domain_size, key.n_vars, witness_only));
  };
  using calls = std::vector<std::string>;
  {  // a, b, c and the witness staged: the key holds no device form of the evaluator
    reserve_recorder be(true);
    auto resident = load_for_proofs(be, points_of(key), pce);
    REQUIRE(resident.get() == be.made);
    CHECK(be.calls == calls{"load", "proof scratch for the key made", slot(false)});
    // Its proofs run on it and verify.
    auto w = rc.witness();
    CHECK(verify(key.vk, public_inputs(key, w), prove(key, pce, w, fixed_randomness(3), be, nullptr, resident.get())));
  }
  {  // the witness alone: the key synthesizes
    reserve_recorder be(true, true);
    auto resident = load_for_proofs(be, points_of(key), pce);
    CHECK(be.calls == calls{"load", "proof scratch for the key made", slot(true)});
    CHECK(slot(true) != slot(false));
  }
  {  // a host backend's load makes nothing resident: nothing reserved
    reserve_recorder be(false);
    CHECK(load_for_proofs(be, points_of(key), pce) == nullptr);
    CHECK(be.calls == calls{"load"});
  }
  // The engine's form (reserve_for_proofs after its own load): no slots asked, the scratch alone;
  // no key resident, nothing.
  reserve_recorder be(true);
  auto resident = be.load_key(points_of(key), &pce, true);
  reserve_for_proofs(be, points_of(key), resident.get(), {});
  reserve_for_proofs(be, points_of(key), nullptr, {96, 3});
  reserve_for_proofs(be, points_of(key), resident.get(), {96, 3});
  CHECK(be.calls ==
        calls{"load", "proof scratch for the key made", "proof scratch for the key made", "staging 3 x 96"});
}
