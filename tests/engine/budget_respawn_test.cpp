// Budgets killed mid-job, again and again: the replacement inherits the grants still outstanding
// (the supervisor hands it the slot's ledger), so the accounting never under-counts memory that is
// held (held <= in_use), never exceeds the capacity across respawns (peak is the slot's, not the
// incarnation's), and returns to zero once the jobs end.
#include <catch2/catch.hpp>

#include <atomic>
#include <iostream>
#include <sstream>
#include <thread>

#include "actors/actors.hpp"
#include "actors/budget.hpp"
#include "actors/key_store.hpp"
#include "caf/all.hpp"
#include "engine/engine.hpp"
#include "fixture.hpp"
#include "zk/groth16/pce.hpp"
#include "zk/groth16/verifier.hpp"

using namespace cuzk;
using namespace std::chrono_literals;

TEST_CASE("killed host and VRAM budgets: accounting covers held memory, stays within capacity, returns to zero",
          "[engine][faults][budget]") {
  auto key = zk::io::zkey::load(test::sample_zkey());
  const std::uint64_t evaluator = zk::groth16::constraint_evaluator::estimate_bytes(key);
  const std::uint64_t fr_bytes = sizeof(zk::bls12_381::fr);
  const std::uint64_t synthesis = 3ull * key.domain_size * fr_bytes;
  const std::uint64_t device = 4ull * key.domain_size * fr_bytes + key.n_vars * fr_bytes;

  engine::config c;
  // Tight budgets, so that they decide what runs: the key and two syntheses on the host, one
  // partition at a time per device.
  c.host_budget = std::to_string(evaluator + 2 * synthesis + synthesis / 2);
  c.device_budget = std::to_string(device + device / 2);
  c.synthesizers = 3;
  c.devices = {"cpu", "cpu"};
  c.scheduler_threads = 4;
  c.max_attempts = 8;
  c.step_timeout = 20s;
  auto e = engine::engine::start(c);

  // Samples every budget's accounting while the kills go on (no REQUIRE off the main thread).
  std::atomic<bool> done{false};
  std::atomic<unsigned> samples{0}, violations{0};
  std::string first_violation;
  std::mutex vmu;
  auto check = [&](const engine::budget_status& b) {
    if (b.held_bytes <= b.in_use && b.in_use <= b.capacity && b.peak <= b.capacity) return;
    std::lock_guard lock(vmu);
    if (violations++ == 0) {
      std::ostringstream os;
      os << b.name << ": held " << b.held_bytes << ", in use " << b.in_use << ", peak " << b.peak << ", capacity "
         << b.capacity;
      first_violation = os.str();
    }
  };
  std::thread sampler([&] {
    while (!done) {
      auto s = e.status();
      check(s.host);
      for (auto& v : s.vram) check(v);
      ++samples;
    }
  });

  const unsigned target_kills = 120;
  std::atomic<unsigned> kills{0};
  std::thread killer([&] {
    std::mt19937_64 krng(7);
    while (kills < target_kills) {
      std::this_thread::sleep_for(std::chrono::microseconds(1000 + krng() % 4000));
      bool host = krng() % 2 == 0;
      if (e.kill_worker(host ? engine::role::host_budget : engine::role::vram_budget,
                        host ? 0 : unsigned(krng() % 2)))
        ++kills;
    }
  });

  std::mt19937_64 rng(99);
  std::vector<std::pair<engine::job_id, std::size_t>> jobs;
  while (kills < target_kills && jobs.size() < 2000) {
    for (int i = 0; i < 3; ++i) {
      engine::request r;
      r.circuit = test::sample_zkey();
      std::size_t n = 1 + rng() % 3;
      for (std::size_t p = 0; p < n; ++p) r.partitions.push_back({"", test::random_sample_witness(rng)});
      jobs.emplace_back(e.submit(r), n);
    }
    std::this_thread::sleep_for(15ms);
  }
  killer.join();

  std::size_t ok = 0, failed = 0;
  for (auto [id, n] : jobs) {
    auto r = e.await(id, 120s);
    INFO("job " << id);
    REQUIRE(r);
    if (r->state == engine::job_state::succeeded) {
      ++ok;
      REQUIRE(r->partitions.size() == n);
      for (auto& p : r->partitions) REQUIRE(zk::groth16::verify(key.vk, p.publics, p.proof));
    } else {
      ++failed;
      REQUIRE(r->state == engine::job_state::failed);
      REQUIRE(r->reasons.size() >= c.max_attempts);
    }
  }
  done = true;
  sampler.join();

  auto s = e.status();
  std::cout << "budget respawns: " << jobs.size() << " jobs (" << ok << " succeeded, " << failed << " failed), "
            << kills << " budget kills, " << s.scheduler.retries << " retries, " << samples << " samples; host peak "
            << s.host.peak << " of " << s.host.capacity << std::endl;
  INFO("first violation: " << first_violation);
  REQUIRE(violations == 0);
  REQUIRE(samples > 10);
  REQUIRE(kills >= target_kills);
  REQUIRE(s.supervisor.respawns >= kills);
  REQUIRE(ok > 0);
  REQUIRE(s.host.peak >= evaluator + synthesis);  // the budget was really used

  // Every budget back to zero, nothing held (hot keys dropped first: they are reservations too).
  auto until = std::chrono::steady_clock::now() + 10s;
  for (;;) {
    e.evict_idle_keys();
    s = e.status();
    bool zero = s.host.in_use == 0 && s.host.reservations == 0 && s.host.held_bytes == 0;
    for (auto& v : s.vram) zero = zero && v.in_use == 0 && v.reservations == 0 && v.held_bytes == 0;
    if (zero) break;
    INFO("host in use " << s.host.in_use << " (" << s.host.reservations << " grants), vram0 " << s.vram[0].in_use
                        << ", vram1 " << s.vram[1].in_use);
    REQUIRE(std::chrono::steady_clock::now() < until);
    std::this_thread::sleep_for(10ms);
  }
}

// The key store asks the host budget for a key's room; a budget that died under that request (the
// supervisor replaces it) must not read as the key store dying. The store answers worker_failed
// naming the budget, not CAF's request_receiver_down: the scheduler takes that for the store itself
// being gone and sent the live store nothing more (a fault-injection run stalled so, every job
// queued, after the host budget was killed during the first key's load).
TEST_CASE("a key store whose host budget died under a key's load answers worker_failed and not receiver down",
          "[engine][faults][budget]") {
  caf::actor_system_config cfg;
  msg::register_messages(cfg);
  caf::actor_system sys{cfg};
  auto budget = actors::spawn_budget(sys, "host", std::uint64_t{1} << 30);
  caf::scoped_actor self{sys};
  self->send_exit(budget, caf::exit_reason::kill);
  self->wait_for(budget);
  auto store = actors::spawn_key_store(sys, budget, 0);
  caf::error got;
  self->request(store, caf::infinite, msg::acquire_atom::value, test::sample_zkey())
      .receive([&](msg::key_handle&) { FAIL("a key was made hot without its host budget"); },
               [&](caf::error& e) { got = std::move(e); });
  INFO(msg::describe(got));
  CHECK(got.category() == caf::atom("cuzk"));
  CHECK(static_cast<msg::errc>(got.code()) == msg::errc::worker_failed);
  CHECK_THAT(msg::describe(got), Catch::Contains("host budget"));
  // The store itself lives on and answers.
  bool answered = false;
  self->request(store, caf::infinite, msg::status_atom::value)
      .receive([&](msg::key_store_status&) { answered = true; }, [&](caf::error& e) { FAIL(msg::describe(e)); });
  CHECK(answered);
  self->send_exit(store, caf::exit_reason::user_shutdown);
}
