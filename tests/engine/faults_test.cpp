// Fault injection, seeded and printed (CUZK_FAULT_SEED=<n> reruns a seed): workers killed with
// exit_reason::kill at random points hundreds of times per run, synthesizers that throw, device
// kernels and allocations that fail. Afterwards every accepted job has exactly one outcome:
// verifying proofs, or failure after max_attempts with the reasons; budgets are back to zero; the
// engine shuts down in bounded time.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "engine/engine.hpp"
#include "fixture.hpp"
#include "zk/groth16/verifier.hpp"

using namespace cuzk;
using namespace std::chrono_literals;

namespace {

std::uint64_t fault_seed() {
  if (const char* s = std::getenv("CUZK_FAULT_SEED")) return std::strtoull(s, nullptr, 10);
  return std::random_device{}();
}

}  // namespace

TEST_CASE("fault injection: kills and throwing synthesis and failing devices and no job lost or answered twice",
          "[engine][faults]") {
  const auto seed = fault_seed();
  std::cout << "fault injection seed: " << seed << " (rerun with CUZK_FAULT_SEED=" << seed << ")" << std::endl;
  INFO("fault injection seed " << seed);
  std::mt19937_64 rng(seed);
  auto key = zk::io::zkey::load(test::sample_zkey());

  engine::config c;
  c.host_budget = "256MiB";
  c.device_budget = "64MiB";
  c.synthesizers = 3;
  c.devices = {"cpu", "cpu"};
  c.scheduler_threads = 4;
  c.max_attempts = 4;
  c.step_timeout = 20s;
  c.faults = {0.05, 0.03, 0.03, seed};
  auto e = engine::engine::start(c);

  const unsigned target_kills = 300;
  std::atomic<bool> stop_killing{false};
  std::atomic<unsigned> kills{0};
  std::thread killer([&, killer_seed = seed ^ 0xabcdef] {
    std::mt19937_64 krng(killer_seed);
    const engine::role roles[] = {engine::role::synthesizer, engine::role::device,
                                         engine::role::assembler,   engine::role::host_budget,
                                         engine::role::vram_budget, engine::role::stager};
    while (!stop_killing) {
      std::this_thread::sleep_for(std::chrono::microseconds(krng() % 3000));
      auto who = roles[krng() % 6];
      unsigned slot = who == engine::role::synthesizer ? krng() % 3
                      : (who == engine::role::device || who == engine::role::vram_budget ||
                         who == engine::role::stager)
                          ? krng() % 2
                          : 0;
      if (e.kill_worker(who, slot)) ++kills;
    }
  });

  std::vector<std::pair<engine::job_id, std::size_t>> jobs;
  const engine::priority prios[] = {engine::priority::low, engine::priority::normal, engine::priority::high,
                                    engine::priority::critical};
  // Keep jobs flowing until the killer has done its hundreds of kills.
  while (kills < target_kills) {
    for (int i = 0; i < 4; ++i) {
      engine::request r;
      r.circuit = test::sample_zkey();
      r.prio = prios[rng() % 4];
      std::size_t n = 1 + rng() % 4;
      for (std::size_t p = 0; p < n; ++p) r.partitions.push_back({"", test::random_sample_witness(rng)});
      jobs.emplace_back(e.submit(r), n);
    }
    std::this_thread::sleep_for(20ms);
    if (jobs.size() > 4000) break;
  }
  stop_killing = true;
  killer.join();

  std::size_t ok = 0, failed = 0;
  for (auto [id, n] : jobs) {
    auto r = e.await(id, 120s);
    INFO("job " << id);
    REQUIRE(r);  // not lost
    if (r->state == engine::job_state::succeeded) {
      ++ok;
      REQUIRE(r->partitions.size() == n);
      REQUIRE(r->compressed.size() == 192 * n);
      for (auto& p : r->partitions) REQUIRE(zk::groth16::verify(key.vk, p.publics, p.proof));
    } else {
      ++failed;
      REQUIRE(r->state == engine::job_state::failed);
      REQUIRE(r->reasons.size() >= c.max_attempts);  // K attempts of one partition at least
      REQUIRE(r->partitions.empty());
    }
    // Asking again gives the same single outcome.
    auto again = e.await(id, 1s);
    REQUIRE(again);
    REQUIRE(again->state == r->state);
  }
  auto s = e.status();
  std::cout << "fault injection: " << jobs.size() << " jobs (" << ok << " succeeded, " << failed << " failed), "
            << kills << " kills, " << s.scheduler.retries << " retries, " << s.supervisor.respawns << " respawns, " << s.supervisor.faults.size()
            << " faults recorded" << std::endl;
  REQUIRE(kills >= target_kills);
  REQUIRE(s.intake.accepted == jobs.size());
  REQUIRE(s.intake.succeeded + s.intake.failed == jobs.size());  // each job answered once
  REQUIRE(s.supervisor.respawns >= kills);
  REQUIRE(ok > 0);

  // Budgets back to zero (hot keys dropped first: they are reservations too).
  auto until = std::chrono::steady_clock::now() + 10s;
  for (;;) {
    e.evict_idle_keys();
    s = e.status();
    bool zero = s.host.in_use == 0 && s.host.reservations == 0;
    for (auto& v : s.vram) zero = zero && v.in_use == 0 && v.reservations == 0;
    if (zero) break;
    INFO("host in use " << s.host.in_use << ", vram0 " << s.vram[0].in_use << ", vram1 " << s.vram[1].in_use);
    REQUIRE(std::chrono::steady_clock::now() < until);
    std::this_thread::sleep_for(10ms);
  }
  REQUIRE(s.host.peak <= s.host.capacity);

  auto t0 = std::chrono::steady_clock::now();
  e.shutdown();
  REQUIRE(std::chrono::steady_clock::now() - t0 < 10s);
}
