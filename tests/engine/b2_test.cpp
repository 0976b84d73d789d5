// B2 (the G2 MSM) on the host, in the engine, on CPU devices (zk/groth16/b2_plan.hpp):
// - a key whose points are only on its devices (a synthetic key made on the device; a .params key
//   in file form) reserves the host copy of its B2 points from the host budget with the key when B2
//   may run on the host, hands it to load_key, and returns it when evicted: the budget goes back to
//   zero; a key whose own spans hold its points, or b2 = "device", reserves nothing for it;
// - a device's B2 plan reaches the key's status (mode, predictions, rates, proofs) and the event
//   line is written once per key and device, and again only when the plan changes (a CPU backend
//   plays a GPU's plans: a probe, then the model's choice).
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cube_circuit.hpp"
#include "engine/engine.hpp"
#include "fixture.hpp"
#include "zk/groth16/b2_plan.hpp"
#include "zk/groth16/backend_registry.hpp"
#include "zk/groth16/cpu_backend.hpp"
#include "zk/groth16/pce_compact.hpp"
#include "zk/groth16/synthetic_srs.hpp"

using namespace cuzk;
using namespace std::chrono_literals;

namespace {

// A CPU backend that plays a GPU's B2 plans: the first proof a probe (split, no model), every later
// one the model's "host" with its predictions and rates; load_key records whether it was given a
// host copy of the key's B2 points.
class b2_fake final : public zk::groth16::cpu_backend {
 public:
  std::string name() const override { return "b2fake"; }
  std::unique_ptr<zk::groth16::resident_key> load_key(const zk::groth16::key_points& key,
                                                      const zk::groth16::constraint_evaluator*, bool) override {
    ++loads;
    if (key.b2_host) ++loads_with_copy;
    return nullptr;
  }
  zk::groth16::proof_sums prove_sums(const zk::groth16::key_points& key, zk::groth16::staged_inputs& in,
                                     zk::groth16::prove_timings* t) override {
    auto sums = cpu_backend::prove_sums(key, in, t);
    if (t) {
      const bool probe = proofs++ == 0;
      const std::size_t n = key.b2.size();
      t->b2_points = n;
      t->b2_mode = probe ? "split" : "host";
      t->b2_host_points = probe ? n / 2 : n;
      t->b2_predicted = probe ? 0 : 0.004;
      t->b2_predicted_device = probe ? 0 : 0.006;
      t->b2_predicted_host = probe ? 0 : 0.004;
      t->b2_device_rate = probe ? 0 : 2e6;
      t->b2_host_rate = probe ? 0 : 1e6;
      t->b2_host = 0.001;
      t->main_lane = 0.003;
      t->b2_plan = probe ? "auto: no rates yet, probing" : "auto chose host: test rates";
    }
    return sums;
  }
  static inline std::atomic<int> proofs{0}, loads{0}, loads_with_copy{0};
};

void register_b2_fake() {
  zk::groth16::register_backend(
      "b2fake", [](int, const zk::groth16::backend_settings&) { return std::unique_ptr<zk::groth16::backend>(new b2_fake); },
      [] { return 1; }, {}, [](int) { return std::uint64_t{1} << 30; });
}

const engine::key_status* find_key(const engine::status_report& s, const std::string& path) {
  for (auto& k : s.key_store.keys)
    if (k.path == path) return &k;
  return nullptr;
}

}  // namespace

TEST_CASE("B2 on the host: a key whose points are only on the devices reserves its host B2 copy with the key, evict returns it",
          "[engine][b2]") {
  test::recorded pce;
  const auto on_device = zk::groth16::synthetic_key_path({9, false, pce.path});
  const auto on_host = zk::groth16::synthetic_key_path({9, true, pce.path});
  const zk::groth16::pce_compact compact =
      zk::groth16::pce_compact::open(pce.path, zk::groth16::pce_compact::stored_key(pce.path));
  const auto kp = zk::groth16::points_of(zk::groth16::synthetic_key(compact, 9, false, on_device));
  REQUIRE_FALSE(kp.points_on_host());
  const std::uint64_t copy = zk::groth16::b2_host_points::bytes(kp.b2.size());
  REQUIRE(copy == 192 * kp.b2.size());
  REQUIRE(copy > 0);
  std::uint64_t without_copy = 0;
  for (const char* mode : {"device", "host", "split", "auto"}) {
    INFO("b2 = " << mode);
    const bool host = std::string(mode) != "device";
    auto c = test::small_config();
    c.b2 = mode;
    auto e = engine::engine::start(c);
    auto k = e.preload_key(on_device);
    if (!host) without_copy = k.bytes;
    REQUIRE(without_copy > 0);
    CHECK(k.bytes == without_copy + (host ? copy : 0));
    // Its points in its own spans (generated on the host): no copy.
    CHECK(e.preload_key(on_host).bytes == without_copy);
    auto s = e.status();
    const auto* kd = find_key(s, on_device);
    const auto* kh = find_key(s, on_host);
    REQUIRE(kd);
    REQUIRE(kh);
    CHECK(kd->b2_host_bytes == (host ? copy : 0));
    CHECK(kd->bytes == k.bytes);
    CHECK(kh->b2_host_bytes == 0);
    CHECK(s.host.in_use == kd->bytes + kh->bytes);
    CHECK(s.key_store.reserved_bytes == s.host.in_use);
    CHECK(e.evict_key(on_device));
    s = e.status();
    CHECK(s.host.in_use == kh->bytes);  // the copy went with its key
    CHECK(e.evict_key(on_host));
    CHECK(e.status().host.in_use == 0);
    // Loaded again (hot, then resident on the CPU device), the same grant; and back to zero.
    CHECK(e.preload_key(on_device).bytes == k.bytes);
    CHECK(e.make_resident(on_device) == 0);  // a CPU backend keeps nothing on the device
    CHECK(test::budgets_drain(e));
  }
}

TEST_CASE("B2 on the host: the device gets the key's host copy at load_key, a key with its points on the host gets none",
          "[engine][b2]") {
  register_b2_fake();
  test::recorded pce;
  const auto on_device = zk::groth16::synthetic_key_path({9, false, pce.path});
  auto c = test::small_config();
  c.devices = {"b2fake"};
  c.b2 = "auto";
  auto e = engine::engine::start(c);
  b2_fake::loads = 0;
  b2_fake::loads_with_copy = 0;
  e.make_resident(on_device);
  CHECK(b2_fake::loads == 1);
  CHECK(b2_fake::loads_with_copy == 1);
  e.make_resident(test::sample_zkey());
  CHECK(b2_fake::loads == 2);
  CHECK(b2_fake::loads_with_copy == 1);
  CHECK(test::budgets_drain(e));
}

TEST_CASE("a device's B2 plan reaches the key's status, the event line is written once per key and device, and when the plan changes",
          "[engine][b2]") {
  register_b2_fake();
  std::mutex mu;
  std::vector<std::string> lines;
  auto c = test::small_config();
  c.devices = {"b2fake"};
  c.b2 = "auto";
  c.filecoin.on_event = [&](const std::string& line) {
    std::lock_guard lock(mu);
    if (line.rfind("B2 plan", 0) == 0) lines.push_back(line);
  };
  b2_fake::proofs = 0;
  const auto path = test::sample_zkey();
  const std::size_t nb = zk::groth16::points_of(zk::io::zkey::load(path)).b2.size();
  {
    auto e = engine::engine::start(c);
    std::mt19937_64 rng(11);
    // The plan arrives at the key store by message: the status has it once the proofs' plans are in.
    auto plan_after = [&](std::uint64_t proofs) {
      for (int i = 0; i < 1000; ++i) {
        auto s = e.status();
        if (const auto* k = find_key(s, path); k && !k->b2_plans.empty() && k->b2_plans[0].proofs == proofs)
          return k->b2_plans;
        std::this_thread::sleep_for(5ms);
      }
      return std::vector<msg::b2_plan_status>{};
    };
    auto r = e.await(e.submit(test::sample_request(rng, 3)), 60s);
    REQUIRE(r);
    REQUIRE(r->state == engine::job_state::succeeded);
    auto plans = plan_after(3);
    REQUIRE(plans.size() == 1);
    CHECK(plans[0].device == 0);
    CHECK(plans[0].mode == "host");
    CHECK(plans[0].points == nb);
    CHECK(plans[0].host_points == nb);
    CHECK(plans[0].predicted_ms == Approx(4));
    CHECK(plans[0].predicted_device_ms == Approx(6));
    CHECK(plans[0].predicted_host_ms == Approx(4));
    CHECK(plans[0].device_rate == 2e6);
    CHECK(plans[0].host_rate == 1e6);
    CHECK(plans[0].host_ms == Approx(1));
    CHECK(plans[0].main_lane_ms == Approx(3));
    CHECK(plans[0].why == "auto chose host: test rates");
    {
      std::lock_guard lock(mu);
      REQUIRE(lines.size() == 2);  // the probe, then the model's choice
      CHECK_THAT(lines[0], Catch::StartsWith("B2 plan for " + path + " on device 0: split, "));
      CHECK_THAT(lines[0], Catch::EndsWith("auto: no rates yet, probing"));
      CHECK_THAT(lines[1], Catch::StartsWith("B2 plan for " + path + " on device 0: host, " + std::to_string(nb) + " of " +
                                             std::to_string(nb) + " points on the host (100.0%); predicted 4.0 ms"));
    }
    // The same plan again: counted, not logged.
    r = e.await(e.submit(test::sample_request(rng, 2)), 60s);
    REQUIRE(r);
    plans = plan_after(5);
    REQUIRE(plans.size() == 1);
    CHECK(plans[0].mode == "host");
    {
      std::lock_guard lock(mu);
      CHECK(lines.size() == 2);
    }
    // The plan's figures are in each partition's stage list too.
    CHECK(std::find(r->partition_timings[0].stage_names.begin(), r->partition_timings[0].stage_names.end(),
                    "B2 host share (%)") != r->partition_timings[0].stage_names.end());
    CHECK(test::budgets_drain(e));
  }
}
