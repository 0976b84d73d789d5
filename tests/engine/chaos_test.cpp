// Runtime chaos hooks of the engine: engine::fail_next_allocations makes a device's next N
// allocations fail through the same path as the seeded device_alloc_fail faults; the partitions
// that hit them are retried (attempt + 1), and a job succeeds with verifying proofs while N stays
// below max_attempts.
#include <catch2/catch.hpp>

#include <thread>

#include "engine/engine.hpp"
#include "fixture.hpp"
#include "zk/groth16/verifier.hpp"

using namespace cuzk;
using namespace std::chrono_literals;

namespace {

std::size_t count_alloc_failures(const engine::job_outcome& r) {
  std::size_t n = 0;
  for (auto& why : r.reasons)
    if (why.find("device 0 allocation failed") != std::string::npos) ++n;
  return n;
}

}  // namespace

TEST_CASE("fail_next_allocations: the failed partitions are retried and the job's proofs verify", "[engine][chaos]") {
  std::mt19937_64 rng(41);
  auto key = zk::io::zkey::load(test::sample_zkey());
  auto c = test::small_config();  // max_attempts: the default 3
  auto e = engine::engine::start(c);
  REQUIRE_FALSE(e.fail_next_allocations(1, 1));  // one device only

  SECTION("count below max_attempts: the job succeeds after exactly `count` retries") {
    const unsigned count = 2;  // < max_attempts: even if one partition takes both, its third attempt runs
    REQUIRE(e.fail_next_allocations(0, count));
    auto id = e.submit(test::sample_request(rng, 3));
    auto r = e.await(id, 60s);
    REQUIRE(r);
    INFO("reasons: " << r->reasons.size());
    REQUIRE(r->state == engine::job_state::succeeded);
    REQUIRE(r->partitions.size() == 3);
    for (auto& p : r->partitions) REQUIRE(zk::groth16::verify(key.vk, p.publics, p.proof));
    REQUIRE(r->attempts == 3 + count);
    REQUIRE(r->reasons.size() == count);
    REQUIRE(count_alloc_failures(*r) == count);
    auto s = e.status();
    REQUIRE(s.scheduler.retries == count);
    REQUIRE(s.supervisor.faults.empty());  // no worker died: the device answered with an error
    REQUIRE(s.supervisor.respawns == 0);
    // The counter is spent: the next job runs without failures.
    auto r2 = e.await(e.submit(test::sample_request(rng, 2)), 60s);
    REQUIRE(r2);
    REQUIRE(r2->state == engine::job_state::succeeded);
    REQUIRE(r2->attempts == 2);
    REQUIRE(e.status().scheduler.retries == count);
  }

  SECTION("count equal to max_attempts on a one-partition job: the job fails with every reason") {
    REQUIRE(e.fail_next_allocations(0, c.max_attempts));
    auto r = e.await(e.submit(test::sample_request(rng, 1)), 60s);
    REQUIRE(r);
    REQUIRE(r->state == engine::job_state::failed);
    REQUIRE(r->attempts == c.max_attempts);
    REQUIRE(count_alloc_failures(*r) == c.max_attempts);
    REQUIRE(r->partitions.empty());
    auto ok = e.await(e.submit(test::sample_request(rng, 1)), 60s);  // and the device still proves
    REQUIRE(ok);
    REQUIRE(ok->state == engine::job_state::succeeded);
    REQUIRE(zk::groth16::verify(key.vk, ok->partitions[0].publics, ok->partitions[0].proof));
  }

  // Every reservation went back (hot keys dropped first).
  auto until = std::chrono::steady_clock::now() + 5s;
  for (;;) {
    e.evict_idle_keys();
    auto s = e.status();
    if (s.host.in_use == 0 && s.vram[0].in_use == 0) break;
    REQUIRE(std::chrono::steady_clock::now() < until);
    std::this_thread::sleep_for(5ms);
  }
}

// A witness that does not satisfy the circuit yields a proof that fails verification.
// The scheduler confirms it once (a device computing wrongly would not fail twice alike), then
// fails the job as bad input instead of spending max_attempts on it.
TEST_CASE("an unsatisfiable witness fails the job as bad input after one confirming attempt", "[engine][chaos]") {
  std::mt19937_64 rng(43);
  auto c = test::small_config();
  c.max_attempts = 5;  // the bad witness must not use them up
  auto e = engine::engine::start(c);
  auto req = test::sample_request(rng, 1);
  auto bad = std::make_shared<zk::io::witness>(*req.partitions[0].data);
  // t = (sq + a)*(d + 1) is the last wire: t + 1 breaks that constraint and no other.
  auto t = zk::bls12_381::fr::from_canonical(bad->values.back()) + zk::bls12_381::fr::one();
  bad->values.back() = t.to_canonical();
  req.partitions[0].data = bad;
  auto r = e.await(e.submit(req), 60s);
  REQUIRE(r);
  REQUIRE(r->state == engine::job_state::failed);
  REQUIRE(r->bad_input);
  REQUIRE(r->attempts == 2);
  REQUIRE(r->reasons.size() == 2);
  REQUIRE(r->reasons[1].find("does not satisfy the circuit") != std::string::npos);
  REQUIRE(e.status().scheduler.retries == 1);
  // The engine proves on: a good witness after the bad one.
  auto ok = e.await(e.submit(test::sample_request(rng, 1)), 60s);
  REQUIRE(ok);
  REQUIRE(ok->state == engine::job_state::succeeded);
  REQUIRE_FALSE(ok->bad_input);
}
