// Shared fixtures of the engine tests: the snarkjs-made sample circuit, witnesses for it drawn at
// random (the circuit is small enough to compute its wires here), and the direct prover to compare
// the engine with.
#pragma once

#include <memory>
#include <random>
#include <string>

#include <algorithm>
#include <chrono>
#include <thread>
#include <catch2/catch.hpp>

#include "engine/engine.hpp"
#include "zk/groth16/backend_registry.hpp"
#include "zk/groth16/compressed_proof.hpp"
#include "zk/groth16/pce.hpp"
#include "zk/groth16/prover.hpp"
#include "zk/groth16/verifier.hpp"
#include "zk/io/wtns.hpp"
#include "zk/io/zkey.hpp"

namespace cuzk::test {

inline std::string fixture(const std::string& name) {
  return std::string(CUZK_SOURCE_DIR) + "/tests/fixtures/sample/" + name;
}
inline std::string sample_zkey() { return fixture("sample.zkey"); }
inline std::string sample_wtns() { return fixture("sample.wtns"); }

// sample.circom: inputs a (public), b, d; c = a*b, sq = b*b, e = c*d + a, t = (sq + a)*(d + 1).
// Wire order (see the fixture README): 1, c, e, a, b, d, sq, t.
inline std::shared_ptr<const zk::io::witness> random_sample_witness(std::mt19937_64& rng) {
  using zk::bls12_381::fr;
  auto draw = [&] {
    zk::bigint<4> v;
    for (auto& l : v.limb) l = rng();
    v.limb[3] &= (std::uint64_t{1} << 60) - 1;  // < 2^252 < r
    return fr::from_canonical(v);
  };
  fr a = draw(), b = draw(), d = draw();
  fr c = a * b, sq = b * b, e = c * d + a, t = (sq + a) * (d + fr::one());
  auto w = std::make_shared<zk::io::witness>();
  for (const fr& x : {fr::one(), c, e, a, b, d, sq, t}) w->values.push_back(x.to_canonical());
  return w;
}

inline zk::groth16::randomness fixed_randomness(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto draw = [&] {
    zk::bigint<4> v;
    for (auto& l : v.limb) l = rng();
    v.limb[3] &= (std::uint64_t{1} << 60) - 1;
    return zk::bls12_381::fr::from_canonical(v);
  };
  return {draw(), draw()};
}

// The prover without the engine.
struct direct_prover {
  zk::io::zkey key = zk::io::zkey::load(sample_zkey());
  zk::groth16::constraint_evaluator pce = zk::groth16::constraint_evaluator::build(key);
  std::unique_ptr<zk::groth16::backend> be = zk::groth16::make_backend("cpu");
  zk::groth16::proof prove(const zk::io::witness& w, const zk::groth16::randomness& rnd) {
    return zk::groth16::prove(key, pce, w, rnd, *be);
  }
};

// A small engine on the CPU device: 2 synthesizers, budgets far above the sample circuit's needs.
inline engine::config small_config() {
  engine::config c;
  c.host_budget = "256MiB";
  c.device_budget = "64MiB";
  c.synthesizers = 2;
  c.devices = {"cpu"};
  c.scheduler_threads = 4;
  return c;
}

// A job of `n` random witnesses of the sample circuit.
inline engine::request sample_request(std::mt19937_64& rng, std::size_t n,
                                      engine::priority prio = engine::priority::normal) {
  engine::request r;
  r.circuit = sample_zkey();
  r.prio = prio;
  for (std::size_t i = 0; i < n; ++i) r.partitions.push_back({"", random_sample_witness(rng)});
  return r;
}

// The job succeeded with n partitions whose proofs verify and whose compressed bytes match.
inline void require_verifies(const zk::io::zkey& key, const engine::job_outcome& r, std::size_t n) {
  REQUIRE(r.state == engine::job_state::succeeded);
  REQUIRE(r.partitions.size() == n);
  REQUIRE(r.compressed.size() == 192 * n);
  for (std::size_t i = 0; i < n; ++i) {
    auto& p = r.partitions[i];
    REQUIRE(zk::groth16::verify(key.vk, p.publics, p.proof));
    auto bytes = zk::groth16::to_compressed(p.proof);
    REQUIRE(std::equal(bytes.begin(), bytes.end(), r.compressed.begin() + static_cast<std::ptrdiff_t>(192 * i)));
  }
}

// Polls until every budget is back to zero (releases travel as messages; idle keys are evicted first).
inline bool budgets_drain(engine::engine& e, std::chrono::milliseconds limit = std::chrono::seconds(5)) {
  auto until = std::chrono::steady_clock::now() + limit;
  for (;;) {
    e.evict_idle_keys();
    auto s = e.status();
    bool zero = s.host.in_use == 0;
    for (auto& v : s.vram) zero = zero && v.in_use == 0;
    if (zero) return true;
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// Polls `pred` every 10 ms until it holds (true) or `limit` has passed (false).
template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

}  // namespace cuzk::test
