// The engine through its CAF-free facade, on the CPU device: proofs equal the direct prover's,
// the cold-key scenario that killed the Rust engine, priorities, cancellation, idempotency, limits.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>
#include <unistd.h>
#include <future>
#include <thread>

#include "engine/engine.hpp"
#include "fil/partition.hpp"
#include "fixture.hpp"
#include "zk/groth16/compressed_proof.hpp"
#include "zk/groth16/cpu_backend.hpp"
#include "zk/groth16/prover.hpp"
#include "zk/groth16/setup.hpp"
#include "zk/groth16/verifier.hpp"
#include "zk/io/bellperson.hpp"
#include "zk/io/r1cs.hpp"

using namespace cuzk;
using namespace std::chrono_literals;
using test::require_verifies;
using test::sample_request;
using test::small_config;
using test::budgets_drain;

namespace {

}  // namespace

TEST_CASE("engine proofs equal the direct prover's with the same randomness", "[engine]") {
  std::mt19937_64 rng(1);
  test::direct_prover direct;
  auto e = engine::engine::start(small_config());
  auto req = sample_request(rng, 4);
  req.partitions.push_back({test::sample_wtns(), nullptr});  // a witness file, too
  req.randomness = test::fixed_randomness(42);
  auto id = e.submit(req);
  auto r = e.await(id, 60s);
  REQUIRE(r);
  require_verifies(direct.key, *r, 5);
  auto file_witness = zk::io::witness::load(test::sample_wtns());
  for (std::size_t i = 0; i < 5; ++i) {
    const auto& w = i < 4 ? *req.partitions[i].data : file_witness;
    auto expected = direct.prove(w, *req.randomness);
    REQUIRE(r->partitions[i].proof == expected);
    REQUIRE(r->partitions[i].publics == zk::groth16::public_inputs(direct.key, w));
  }
  // A different r, s gives a different (still valid) proof: the randomness really is the job's.
  auto req2 = req;
  req2.randomness = test::fixed_randomness(43);
  auto r2 = e.await(e.submit(req2), 60s);
  REQUIRE(r2);
  require_verifies(direct.key, *r2, 5);
  REQUIRE(r2->partitions[0].proof != r->partitions[0].proof);

  auto s = e.status();
  REQUIRE(s.intake.succeeded == 2);
  REQUIRE(s.key_store.evaluator_builds == 1);  // the key stayed hot between the jobs
  REQUIRE(s.scheduler.devices.size() == 1);
  REQUIRE(s.scheduler.devices[0].proofs == 10);
  REQUIRE(s.scheduler.devices[0].busy_us > 0);
  REQUIRE(s.intake.jobs.size() == 2);
  REQUIRE(s.intake.jobs[0].timings.total_us > 0);
  REQUIRE(s.intake.jobs[0].timings.synthesis_us > 0);
  REQUIRE(s.intake.jobs[0].timings.device_us > 0);
  REQUIRE(budgets_drain(e));
}

TEST_CASE("several devices (cpu:0, cpu:1) share a job's partitions, each with its own stager", "[engine]") {
  std::mt19937_64 rng(17);
  auto c = small_config();
  c.devices = {"cpu:0", "cpu:1"};
  c.synthesizers = 4;
  auto e = engine::engine::start(c);
  test::direct_prover direct;
  auto req = sample_request(rng, 20);
  req.randomness = test::fixed_randomness(5);
  auto r = e.await(e.submit(req), 120s);
  REQUIRE(r);
  REQUIRE(r->state == engine::job_state::succeeded);
  require_verifies(direct.key, *r, 20);
  for (std::size_t i = 0; i < 20; ++i)
    REQUIRE(r->partitions[i].proof == direct.prove(*req.partitions[i].data, *req.randomness));
  auto s = e.status();
  REQUIRE(s.scheduler.devices.size() == 2);
  // A device holds one partition staged and one proving: the rest must go to the other.
  REQUIRE(s.scheduler.devices[0].proofs > 0);
  REQUIRE(s.scheduler.devices[1].proofs > 0);
  REQUIRE(s.scheduler.devices[0].proofs + s.scheduler.devices[1].proofs == 20);
  REQUIRE(s.scheduler.devices[0].gaps + s.scheduler.devices[1].gaps <= 20);
  REQUIRE(s.scheduler.devices[0].gap_max_us <= s.scheduler.devices[0].gap_us + 1e-9);
  // Per-partition stage times: which synthesizer and device, in order; one partition at a time on a
  // device; as many on each device as its own count says; idle devices name no current job.
  REQUIRE(r->partition_timings.size() == 20);
  std::map<std::string, std::vector<std::pair<std::uint64_t, std::uint64_t>>> on_device;
  for (std::uint32_t k = 0; k < 20; ++k) {
    const auto& p = r->partition_timings[k];
    REQUIRE(p.partition == k);
    REQUIRE(p.synthesizer.rfind("synth:", 0) == 0);
    REQUIRE(std::stoi(p.synthesizer.substr(6)) < 4);
    REQUIRE((p.device == "cpu:0" || p.device == "cpu:1"));
    REQUIRE(p.synth_start_unix_us > 1'700'000'000'000'000);  // unix microseconds (after 2023)
    REQUIRE(p.synth_start_unix_us <= p.synth_end_unix_us);
    REQUIRE(p.synth_end_unix_us <= p.device_start_unix_us);
    REQUIRE(p.device_start_unix_us <= p.device_end_unix_us);
    on_device[p.device].push_back({p.device_start_unix_us, p.device_end_unix_us});
  }
  for (std::size_t d = 0; d < 2; ++d) {
    auto& spans = on_device[s.scheduler.devices[d].name];
    REQUIRE(spans.size() == s.scheduler.devices[d].proofs);
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i) REQUIRE(spans[i - 1].second <= spans[i].first);
    REQUIRE(s.scheduler.devices[d].current_job == 0);
  }
  REQUIRE(budgets_drain(e));
}

namespace {

// A CPU backend that plays a GPU for the resident tier: load_key "holds" the key (counted bytes, no
// copy) and reports them, resident_bytes says the same; it records the settings it was made with.
struct fake_resident final : zk::groth16::resident_key {
  explicit fake_resident(std::uint64_t b) : b_(b) { ++alive; }
  ~fake_resident() override { --alive; }
  std::uint64_t bytes() const override { return b_; }
  std::string describe() const override { return "fake layout of " + std::to_string(b_) + " bytes"; }
  std::uint64_t b_;
  static inline std::atomic<int> alive{0};
};

std::uint64_t points_bytes(const zk::groth16::key_points& k) {
  return (k.a.size() + k.b1.size() + k.c.size() + k.h.size()) * sizeof(zk::groth16::g1_affine) +
         k.b2.size() * sizeof(zk::groth16::g2_affine);
}

class vram_fake final : public zk::groth16::cpu_backend {
 public:
  std::string name() const override { return "vramfake"; }
  std::unique_ptr<zk::groth16::resident_key> load_key(const zk::groth16::key_points& key,
                                                      const zk::groth16::constraint_evaluator*, bool) override {
    ++loads;
    return std::make_unique<fake_resident>(points_bytes(key));
  }
  std::uint64_t resident_bytes(const zk::groth16::key_points& key, bool,
                               const zk::groth16::constraint_evaluator*) const override {
    return points_bytes(key);
  }
  zk::groth16::proof_sums prove_sums(const zk::groth16::key_points& key, zk::groth16::staged_inputs& in,
                                     zk::groth16::prove_timings* t) override {
    // Every proof comes with its key resident here, made for this key.
    if (!key.resident || key.resident->bytes() != points_bytes(key)) ++without_resident;
    // ... and after the reserve step of its load: as many reserves as loads.
    if (reserves != loads || proof_reserves != loads) ++before_reserve;
    return cpu_backend::prove_sums(key, in, t);
  }
  // The reserve step's first half (a GPU's proof scratch), recorded: made for the key just loaded
  // (key_points::resident, this backend's), before that load's staging slots.
  std::uint64_t reserve_proof(const zk::groth16::key_points& key) override {
    if (!key.resident || key.resident->bytes() != points_bytes(key) || reserves != proof_reserves) ++proof_reserve_misses;
    ++proof_reserves;
    return 0;
  }
  // The reserve step (a GPU's staging slots), recorded: how many, of what size.
  unsigned reserve_staging(std::uint64_t bytes, unsigned count) override {
    last_reserve_bytes = bytes;
    last_reserve_count = count;
    ++reserves;
    return count;
  }
  static inline std::atomic<int> loads{0}, without_resident{0}, reserves{0}, before_reserve{0}, proof_reserves{0},
      proof_reserve_misses{0};
  static inline std::atomic<std::uint64_t> last_reserve_bytes{0};
  static inline std::atomic<unsigned> last_reserve_count{0};
  static inline std::atomic<std::uint64_t> last_shifted{0}, last_vram_budget{0};
  static inline std::atomic<unsigned> last_staged{0};
  static inline std::atomic<double> last_b2_lane_share{0};
};

void register_vram_fake() {
  zk::groth16::register_backend(
      "vramfake",
      [](int, const zk::groth16::backend_settings& s) {
        vram_fake::last_shifted = s.shifted_bases_bytes;
        vram_fake::last_vram_budget = s.vram_budget_bytes;
        vram_fake::last_staged = s.staged_partitions;
        vram_fake::last_b2_lane_share = s.b2_lane_share;
        return std::unique_ptr<zk::groth16::backend>(new vram_fake);
      },
      [] { return 1; }, {}, [](int) { return std::uint64_t{1} << 30; });
}

}  // namespace

TEST_CASE("the engine hands its shifted-bases setting to the backends it makes, auto VRAM budget is the device less the margin",
          "[engine]") {
  register_vram_fake();
  auto c = small_config();
  c.devices = {"vramfake"};
  c.device_budget = "auto";
  c.vram_margin_bytes = 1 << 20;
  c.shifted_bases = "3GiB";
  // The key store's line on each resident key's layout (a GPU key: its shifted sets made and why).
  std::mutex mu;
  std::vector<std::string> lines;
  c.filecoin.on_event = [&](const std::string& l) {
    std::lock_guard lock(mu);
    lines.push_back(l);
  };
  {
    auto e = engine::engine::start(c);
    std::mt19937_64 rng(3);
    REQUIRE(e.await(e.submit(sample_request(rng, 1)), 60s));
    REQUIRE(vram_fake::last_shifted == 3ull << 30);
    auto s = e.status();
    REQUIRE(s.vram.size() == 1);
    REQUIRE(s.vram[0].capacity == (1ull << 30) - (1ull << 20));  // no half for the keys: they take grants
    // The room the sets are planned in: this VRAM budget, beside the staged partitions (0: the
    // default, 2 at device_depth 2: one proving, one in the mailbox, the next staged as it is proved).
    REQUIRE(vram_fake::last_vram_budget == s.vram[0].capacity);
    REQUIRE(c.device_depth == 2);
    REQUIRE(c.staged_partitions == 0);
    REQUIRE(vram_fake::last_staged == 2);
    REQUIRE(vram_fake::last_b2_lane_share == 1);  // B2's lane at all its points
  }
  {
    std::lock_guard lock(mu);
    const auto n = std::count_if(lines.begin(), lines.end(), [](const std::string& l) {
      return l.find(" resident on device 0 (grant ") != std::string::npos && l.find("): fake layout of ") != std::string::npos;
    });
    REQUIRE(n == 1);
  }
  c.filecoin.on_event = nullptr;
  c.shifted_bases = "lots";
  REQUIRE_THROWS_WITH(engine::engine::start(c), Catch::Contains("shifted_bases"));
  c.shifted_bases = "3GiB";
  c.staged_partitions = c.device_depth + 2;  // more than the scheduler ever stages at once
  REQUIRE_THROWS_WITH(engine::engine::start(c),
                      Catch::StartsWith("config: staged_partitions: at most device_depth + 1 (3), got 4"));
  // At depth 1 the default is 2 as well (one proving, one staged), and 2 the most.
  c.device_depth = 1;
  c.staged_partitions = 3;
  REQUIRE_THROWS_WITH(engine::engine::start(c),
                      Catch::StartsWith("config: staged_partitions: at most device_depth + 1 (2), got 3"));
  c.staged_partitions = 0;
  {
    auto e = engine::engine::start(c);
    std::mt19937_64 rng(5);
    REQUIRE(e.await(e.submit(sample_request(rng, 1)), 60s));
    REQUIRE(vram_fake::last_staged == 2);
  }
  c.device_depth = 2;
  for (double bad : {0.0, -0.5, 1.5, std::nan("")}) {
    c.b2_lane_share = bad;
    try {
      engine::engine::start(c);
      FAIL("no error for " << bad);
    } catch (const engine::engine_error& e) {
      REQUIRE_THAT(std::string(e.what()), Catch::StartsWith("config: b2_lane_share: a share of B2's points in (0, 1]"));
    }
  }
  c.b2_lane_share = 0.5;
  {
    auto e = engine::engine::start(c);
    std::mt19937_64 rng(4);
    REQUIRE(e.await(e.submit(sample_request(rng, 1)), 60s));
    REQUIRE(vram_fake::last_b2_lane_share == 0.5);
  }
}

TEST_CASE("a resident key is evicted from the device under VRAM pressure and loaded again without failing a job",
          "[engine][resident]") {
  register_vram_fake();
  // Two keys (the sample key at two paths) whose points do not fit on the device together.
  auto dir = std::filesystem::temp_directory_path() / ("cuzk_resident_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto a = (dir / "a.zkey").string(), b = (dir / "b.zkey").string();
  std::filesystem::copy_file(test::sample_zkey(), a, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(test::sample_zkey(), b, std::filesystem::copy_options::overwrite_existing);
  auto key = zk::io::zkey::load(test::sample_zkey());
  const auto kb = points_bytes(zk::groth16::points_of(key));
  const std::uint64_t partition = zk::groth16::staged_bytes(key.domain_size, key.n_vars, false);
  auto c = small_config();
  c.devices = {"vramfake"};
  // One key and its staged partitions (the admission rule; 2, the default at device_depth 2); not
  // two keys.
  REQUIRE(c.device_depth == 2);
  const std::uint64_t budget = kb + 2 * partition;
  REQUIRE(budget < 2 * kb);
  c.device_budget = std::to_string(budget);
  vram_fake::loads = 0;
  vram_fake::without_resident = 0;
  vram_fake::reserves = 0;
  vram_fake::before_reserve = 0;
  vram_fake::proof_reserves = 0;
  vram_fake::proof_reserve_misses = 0;
  std::mt19937_64 rng(7);
  {
    auto e = engine::engine::start(c);
    auto job = [&](const std::string& path) {
      auto req = sample_request(rng, 3);
      req.circuit = path;
      auto r = e.await(e.submit(req), 60s);
      if (!r) {
        auto s = e.status();
        for (auto& j : s.intake.jobs) UNSCOPED_INFO("job " << j.job << " state " << int(j.state) << " attempts " << j.attempts);
        for (auto& v : s.vram) UNSCOPED_INFO("vram " << v.capacity << " in use " << v.in_use << " queued " << v.queued);
        for (auto& m : s.key_store.devices) UNSCOPED_INFO("resident " << m.resident_bytes << " keys " << m.keys << " loads " << m.loads);
        UNSCOPED_INFO("tasks queued " << s.scheduler.tasks_queued << " running " << s.scheduler.tasks_running << " kb " << kb << " partition " << partition);
      }
      REQUIRE(r);
      REQUIRE(r->state == engine::job_state::succeeded);
      REQUIRE(r->reasons.empty());  // no attempt failed
      require_verifies(key, *r, 3);
      return e.status();
    };
    auto s = job(a);
    REQUIRE(s.key_store.devices.size() == 1);
    REQUIRE(s.key_store.devices[0].resident_bytes == kb);
    REQUIRE(s.key_store.devices[0].keys == 1);
    REQUIRE(s.key_store.devices[0].loads == 1);
    // Only b's grant is out once the last staged grant is back: a's went back with its eviction.
    auto vram_settles_at = [&](std::uint64_t bytes) {
      for (int i = 0; i < 1000; ++i) {
        auto v = e.status();
        const auto& r = v.key_store.devices[0];
        if (v.vram[0].in_use == bytes && r.resident_bytes == bytes && engine::staged_bytes(v.vram[0], r) == 0) return true;
        std::this_thread::sleep_for(5ms);
      }
      return false;
    };
    REQUIRE(vram_settles_at(kb));
    s = job(b);  // a is evicted to make room for b
    REQUIRE(vram_settles_at(kb));
    REQUIRE(s.key_store.devices[0].evictions == 1);
    REQUIRE(s.key_store.devices[0].loads == 2);
    REQUIRE(s.key_store.devices[0].resident_bytes == kb);
    for (auto& k : s.key_store.keys) REQUIRE(k.resident_on == (k.path == b ? std::vector<std::uint32_t>{0} : std::vector<std::uint32_t>{}));
    s = job(a);  // and loaded again
    REQUIRE(s.key_store.devices[0].evictions == 2);
    REQUIRE(s.key_store.devices[0].loads == 3);
    const auto& r0 = s.key_store.devices[0];
    REQUIRE(engine::free_bytes(s.vram[0]) + r0.resident_bytes + engine::staged_bytes(s.vram[0], r0) == s.vram[0].capacity);
    REQUIRE(s.scheduler.retries == 0);
    REQUIRE(vram_fake::loads == 3);
    REQUIRE(vram_fake::without_resident == 0);
    // Each load reserved the device's staging slots before its key's first proof: 2 (the default
    // staged_partitions at depth 2) of one staged partition's grant (a, b, c and the witness: a zkey's synthesizers evaluate).
    REQUIRE(vram_fake::reserves == 3);
    REQUIRE(vram_fake::before_reserve == 0);
    // ... each after its proof's scratch, reserved for the key just made (backend::reserve_proof).
    REQUIRE(vram_fake::proof_reserves == 3);
    REQUIRE(vram_fake::proof_reserve_misses == 0);
    REQUIRE(vram_fake::last_reserve_bytes == partition);
    REQUIRE(vram_fake::last_reserve_count == 2);
    REQUIRE(vram_settles_at(kb));
    REQUIRE(budgets_drain(e));  // evicting the idle keys returns their grants
    REQUIRE(fake_resident::alive == 0);
    s = e.status();
    REQUIRE(s.key_store.devices[0].resident_bytes == 0);
    REQUIRE(s.key_store.devices[0].keys == 0);
    REQUIRE(s.key_store.devices[0].evictions == 3);
  }
  std::filesystem::remove_all(dir);
}

// The resident tier's admission rule (key_store.cpp, admission_bytes): a key goes resident with
// room beside it for config::staged_partitions of its staged partitions (by default 2 at depth 2; 3,
// device_depth + 1, the most), the room the GPU's sets plan leaves
// (backend_settings::staged_partitions), where the budget allows; one byte short of that it is
// still resident with room for one (depth one); short of that too, no residency: the job still
// succeeds, its proofs without a resident key (the device uploads the points per proof).
TEST_CASE("a key goes resident with room for its staged partitions (config::staged_partitions), or for "
          "one, or not at all",
          "[engine][resident][staging]") {
  register_vram_fake();
  auto key = zk::io::zkey::load(test::sample_zkey());
  const auto kb = points_bytes(zk::groth16::points_of(key));
  const std::uint64_t partition = zk::groth16::staged_bytes(key.domain_size, key.n_vars, false);
  auto c = small_config();
  c.devices = {"vramfake"};
  REQUIRE(c.device_depth == 2);
  // 0: the default, 2 at depth 2; 3 (device_depth + 1, the most): one number for the admission,
  // the reserve step's slots and the backend's settings (its sets plan's room).
  const unsigned staged = GENERATE(0u, 3u);
  c.staged_partitions = staged;
  const unsigned slots = staged ? staged : 2;
  const std::uint64_t rule = kb + slots * partition, one = kb + partition;
  std::mt19937_64 rng(11);
  for (const std::uint64_t budget : {rule, rule - 1, one, one - 1}) {
    INFO("staged_partitions " << staged << ", budget " << budget << " rule " << rule << " one " << one);
    c.device_budget = std::to_string(budget);
    vram_fake::loads = 0;
    vram_fake::without_resident = 0;
    vram_fake::reserves = 0;
    vram_fake::proof_reserves = 0;
    auto e = engine::engine::start(c);
    REQUIRE(e.status().vram[0].capacity == budget);
    auto r = e.await(e.submit(sample_request(rng, 2)), 60s);
    REQUIRE(r);
    REQUIRE(r->state == engine::job_state::succeeded);
    require_verifies(key, *r, 2);
    const auto s = e.status();
    if (budget >= one) {
      REQUIRE(s.key_store.devices[0].resident_bytes == kb);
      REQUIRE(vram_fake::loads == 1);
      REQUIRE(vram_fake::without_resident == 0);
      REQUIRE(vram_fake::reserves == 1);  // its reserve step (best effort on a real device)
      REQUIRE(vram_fake::proof_reserves == 1);
      REQUIRE(vram_fake::last_reserve_count == slots);
      REQUIRE(vram_fake::last_staged == slots);
    } else {
      REQUIRE(s.key_store.devices[0].resident_bytes == 0);
      REQUIRE(vram_fake::loads == 0);
      REQUIRE(vram_fake::without_resident == 2);
      REQUIRE(vram_fake::proof_reserves == 0);
    }
    REQUIRE(budgets_drain(e));
  }
}

TEST_CASE("a cold key with many partitions at once: evaluator built once and accounted memory within budget",
          "[engine]") {
  // The Rust engine's failure: the first proof built the constraint cache at full concurrency.
  std::mt19937_64 rng(2);
  auto key = zk::io::zkey::load(test::sample_zkey());
  const std::uint64_t evaluator = zk::groth16::constraint_evaluator::estimate_bytes(key);
  const std::uint64_t synthesis = 3ull * key.domain_size * sizeof(zk::bls12_381::fr);
  auto c = small_config();
  c.synthesizers = 8;  // far more than the budget lets run at once
  c.host_budget = std::to_string(evaluator + 2 * synthesis + synthesis / 2);
  auto e = engine::engine::start(c);
  std::vector<engine::job_id> ids;
  for (int j = 0; j < 3; ++j) ids.push_back(e.submit(sample_request(rng, 10)));
  for (auto id : ids) {
    auto r = e.await(id, 60s);
    REQUIRE(r);
    require_verifies(key, *r, 10);
  }
  auto s = e.status();
  INFO("host capacity " << s.host.capacity << " peak " << s.host.peak);
  REQUIRE(s.key_store.evaluator_builds == 1);
  REQUIRE(s.key_store.loads == 1);
  REQUIRE(s.host.peak <= s.host.capacity);
  REQUIRE(s.host.peak >= evaluator + synthesis);  // the budget was really used, and really limited
  REQUIRE(budgets_drain(e));
}

TEST_CASE("a reservation larger than the budget fails the job with a reason and without retries", "[engine]") {
  std::mt19937_64 rng(3);
  auto c = small_config();
  c.host_budget = "1KiB";
  auto e = engine::engine::start(c);
  auto r = e.await(e.submit(sample_request(rng, 2)), 30s);
  REQUIRE(r);
  REQUIRE(r->state == engine::job_state::failed);
  REQUIRE_FALSE(r->reasons.empty());
  REQUIRE(r->reasons[0].find("over_budget") != std::string::npos);
}

TEST_CASE("a missing zkey fails the job (bad input and no retries) and other jobs are untouched", "[engine]") {
  std::mt19937_64 rng(4);
  auto e = engine::engine::start(small_config());
  auto bad = sample_request(rng, 3);
  bad.circuit = "/nonexistent/circuit.zkey";
  auto bad_id = e.submit(bad);
  auto good_id = e.submit(sample_request(rng, 2));
  auto r = e.await(bad_id, 30s);
  REQUIRE(r);
  REQUIRE(r->state == engine::job_state::failed);
  REQUIRE(r->reasons.size() == 1);
  REQUIRE(r->reasons[0].find("bad_input") != std::string::npos);
  auto g = e.await(good_id, 30s);
  REQUIRE(g);
  REQUIRE(g->state == engine::job_state::succeeded);
}

TEST_CASE("request validation and idempotent request ids and registered names and queue limit", "[engine]") {
  std::mt19937_64 rng(5);
  auto c = small_config();
  c.synthesizers = 1;
  c.max_active_jobs = 2;
  c.circuits["sample"] = test::sample_zkey();
  auto e = engine::engine::start(c);
  engine::request empty;
  empty.circuit = "sample";
  REQUIRE_THROWS_AS(e.submit(empty), engine::engine_error);

  auto a = sample_request(rng, 40, engine::priority::low);
  a.circuit = "sample";
  a.request_id = "client-1";
  auto id1 = e.submit(a);
  auto id2 = e.submit(a);
  REQUIRE(id1 == id2);
  auto id3 = e.submit(sample_request(rng, 40, engine::priority::low));
  REQUIRE_THROWS_WITH(e.submit(sample_request(rng, 1)), Catch::Contains("queue_full"));
  REQUIRE(e.cancel(id3));
  auto r1 = e.await(id1, 60s);
  REQUIRE(r1);
  REQUIRE(r1->state == engine::job_state::succeeded);
  REQUIRE_FALSE(e.cancel(id1));  // finished
  REQUIRE_FALSE(e.cancel(12345));  // unknown
  REQUIRE_THROWS_AS(e.await(12345, 1s), engine::engine_error);
  auto s = e.status();
  REQUIRE(s.intake.duplicates == 1);
  REQUIRE(s.intake.accepted == 2);
  REQUIRE(s.intake.rejected == 2);
}

TEST_CASE("priorities decide at partition granularity", "[engine]") {
  std::mt19937_64 rng(6);
  auto c = small_config();
  c.synthesizers = 1;
  auto e = engine::engine::start(c);
  // Warm the key so that the jobs below compete only for the synthesizer and the device.
  REQUIRE(e.await(e.submit(sample_request(rng, 1)), 30s));
  auto low = e.submit(sample_request(rng, 40, engine::priority::low));
  auto normal = e.submit(sample_request(rng, 20, engine::priority::normal));
  auto critical = e.submit(sample_request(rng, 3, engine::priority::critical));
  auto rc = e.await(critical, 60s);
  REQUIRE(rc);
  REQUIRE(rc->state == engine::job_state::succeeded);
  // The critical job overtook the 60 partitions queued before it.
  REQUIRE_FALSE(e.await(low, 0ms));
  REQUIRE_FALSE(e.await(normal, 0ms));
  auto rn = e.await(normal, 60s);
  REQUIRE(rn);
  REQUIRE_FALSE(e.await(low, 0ms));  // normal before low
  auto rl = e.await(low, 60s);
  REQUIRE(rl);
  REQUIRE(rl->state == engine::job_state::succeeded);
  REQUIRE(rc->timings.total_us < rl->timings.total_us);
}

TEST_CASE("cancellation drops queued partitions and returns reservations and discards running results", "[engine]") {
  std::mt19937_64 rng(7);
  auto c = small_config();
  c.synthesizers = 2;
  auto e = engine::engine::start(c);
  auto key = zk::io::zkey::load(test::sample_zkey());
  std::vector<engine::job_id> canceled;
  for (int i = 0; i < 5; ++i) canceled.push_back(e.submit(sample_request(rng, 30)));
  auto kept = e.submit(sample_request(rng, 4));
  std::this_thread::sleep_for(5ms);  // let some partitions start
  for (auto id : canceled) e.cancel(id);
  for (auto id : canceled) {
    auto r = e.await(id, 30s);
    REQUIRE(r);
    // A job can have finished before its cancel arrived; otherwise it is canceled, without proofs.
    if (r->state != engine::job_state::succeeded) {
      REQUIRE(r->state == engine::job_state::canceled);
      REQUIRE(r->partitions.empty());
    }
  }
  auto rk = e.await(kept, 60s);
  REQUIRE(rk);
  require_verifies(key, *rk, 4);
  auto s = e.status();
  REQUIRE(s.intake.canceled + s.intake.succeeded == 6);
  REQUIRE(s.intake.canceled >= 4);
  REQUIRE(budgets_drain(e));
  REQUIRE(s.scheduler.tasks_queued == 0);
}

TEST_CASE("status reports each key's tier, leases and bytes: hot after a proof, cold after eviction", "[engine]") {
  std::mt19937_64 rng(23);
  auto key = zk::io::zkey::load(test::sample_zkey());
  auto e = engine::engine::start(small_config());
  REQUIRE(e.status().key_store.keys.empty());  // nothing loaded yet
  auto r = e.await(e.submit(sample_request(rng, 2)), 60s);
  REQUIRE(r);
  require_verifies(key, *r, 2);
  auto s = e.status();
  REQUIRE(s.key_store.keys.size() == 1);
  REQUIRE(s.key_store.keys[0].path == test::sample_zkey());
  REQUIRE(s.key_store.keys[0].tier == engine::key_tier::hot);
  REQUIRE(std::string(engine::to_string(s.key_store.keys[0].tier)) == "hot");
  REQUIRE(s.key_store.keys[0].bytes == zk::groth16::constraint_evaluator::estimate_bytes(key));
  REQUIRE(s.key_store.keys[0].bytes == s.key_store.reserved_bytes);
  REQUIRE(s.key_store.keys[0].leases == 0);  // the job is over
  e.evict_idle_keys();
  auto until = std::chrono::steady_clock::now() + 5s;
  for (;;) {
    s = e.status();
    REQUIRE(s.key_store.keys.size() == 1);
    if (s.key_store.keys[0].tier == engine::key_tier::cold) break;
    REQUIRE(std::chrono::steady_clock::now() < until);
    std::this_thread::sleep_for(5ms);
  }
  REQUIRE(s.key_store.keys[0].bytes == 0);
  REQUIRE(s.key_store.evictions == 1);
}

TEST_CASE("an engine used from several threads stops promptly from yet another thread", "[engine]") {
  // The daemon starts the engine on its main thread, serves status and await from gRPC threads and
  // stops it on a helper thread. CAF 0.17 left logger references in those threads' storage and
  // ~actor_system waited for them forever.
  auto e = std::make_unique<engine::engine>(engine::engine::start(small_config()));
  std::mt19937_64 rng(31);
  std::thread([&] {
    auto r = e->await(e->submit(sample_request(rng, 2)), 60s);
    REQUIRE(r);
    REQUIRE(r->state == engine::job_state::succeeded);
    (void)e->status();
  }).join();
  auto stopped = std::async(std::launch::async, [&] { e->shutdown(); });
  bool prompt = stopped.wait_for(20s) == std::future_status::ready;
  if (!prompt) {
    FAIL_CHECK("engine shutdown from another thread did not return within 20 s");
    std::_Exit(1);  // the stuck thread would hang the test binary's exit too
  }
  REQUIRE_THROWS_WITH(e->status(), Catch::Contains("shutting_down"));
}

TEST_CASE("on_finished delivers each result once without a waiting thread, forget drops the record", "[engine]") {
  std::mt19937_64 rng(7);
  test::direct_prover direct;
  auto e = engine::engine::start(small_config());
  constexpr int kJobs = 20;
  std::vector<std::promise<engine::job_outcome>> results(kJobs);
  std::atomic<int> calls{0};
  std::vector<engine::job_id> ids;
  for (int i = 0; i < kJobs; ++i) {
    ids.push_back(e.submit(sample_request(rng, 1)));
    e.on_finished(ids.back(), [&, i](std::optional<engine::job_outcome> r, const std::string& why) {
      ++calls;
      if (r) results[i].set_value(std::move(*r));
      else results[i].set_exception(std::make_exception_ptr(std::runtime_error(why)));
    });
  }
  for (int i = 0; i < kJobs; ++i) {
    auto f = results[i].get_future();
    REQUIRE(f.wait_for(60s) == std::future_status::ready);
    auto r = f.get();
    REQUIRE(r.state == engine::job_state::succeeded);
    require_verifies(direct.key, r, 1);
  }
  REQUIRE(calls == kJobs);
  // A job already finished is answered at once; after forget the engine no longer knows it.
  std::promise<bool> again;
  e.on_finished(ids[0], [&](std::optional<engine::job_outcome> r, const std::string&) { again.set_value(bool(r)); });
  REQUIRE(again.get_future().get());
  e.forget(ids[0]);
  REQUIRE(e.status().intake.jobs.size() == std::size_t(kJobs - 1) + 0);
  std::promise<std::string> gone;
  e.on_finished(ids[0], [&](std::optional<engine::job_outcome> r, const std::string& why) { gone.set_value(r ? "" : why); });
  REQUIRE(gone.get_future().get().find("unknown") != std::string::npos);
}

namespace {

// A CPU backend whose first proof waits until the test opens its gate: the device stays busy for
// as long as the test needs, whatever the machine's speed, so what the scheduler does meanwhile
// is fixed by the protocol alone.
class gated_cpu final : public zk::groth16::cpu_backend {
 public:
  std::string name() const override { return "gatedcpu"; }
  zk::groth16::proof_sums prove_sums(const zk::groth16::key_points& key, zk::groth16::staged_inputs& in,
                                     zk::groth16::prove_timings* t) override {
    if (!first_taken.exchange(true)) {
      held = true;
      while (!open) std::this_thread::sleep_for(1ms);
    }
    return cpu_backend::prove_sums(key, in, t);
  }
  static void reset() {
    first_taken = false;
    held = false;
    open = false;
  }
  static inline std::atomic<bool> first_taken{false}, held{false}, open{false};
};

void register_gated_cpu() {
  zk::groth16::register_backend("gatedcpu", [](int, const zk::groth16::backend_settings&) {
    return std::unique_ptr<zk::groth16::backend>(new gated_cpu);
  });
}

// Device 0's partitions in the order it proved them.
std::vector<engine::partition_timing> by_device_start(const engine::job_outcome& r) {
  auto v = r.partition_timings;
  std::sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.device_start_unix_us < b.device_start_unix_us; });
  return v;
}

}  // namespace

TEST_CASE("a device holds the next partition in its mailbox while it proves one (device_depth 2), depth 1 waits for "
          "the answer",
          "[engine][pipeline]") {
  register_gated_cpu();
  test::direct_prover direct;
  for (unsigned depth : {2u, 1u}) {
    CAPTURE(depth);
    gated_cpu::reset();
    auto c = small_config();
    c.devices = {"gatedcpu"};
    c.device_depth = depth;
    auto e = engine::engine::start(c);
    std::mt19937_64 rng(depth);
    auto req = sample_request(rng, 4);
    req.randomness = test::fixed_randomness(9);
    auto id = e.submit(req);
    // While the first proof is held, the next partitions are synthesized and staged (the VRAM budget
    // grants the held one's and the next one's inputs); with depth 2 the next one is sent at once.
    REQUIRE(test::eventually(
        [&] {
          auto s = e.status();
          return gated_cpu::held && s.vram.size() == 1 && s.vram[0].reservations >= 2 &&
                 (depth == 1 || s.scheduler.devices[0].ahead >= 1);
        },
        60s));
    auto held = e.status();
    REQUIRE(held.scheduler.devices[0].proofs == 0);  // nothing came back: the first is still held
    gated_cpu::open = true;
    auto r = e.await(id, 60s);
    REQUIRE(r);
    require_verifies(direct.key, *r, 4);
    for (std::size_t i = 0; i < 4; ++i) REQUIRE(r->partitions[i].proof == direct.prove(*req.partitions[i].data, *req.randomness));
    auto order = by_device_start(*r);
    for (std::size_t i = 0; i < order.size(); ++i) {
      REQUIRE(order[i].staged_unix_us > 0);
      REQUIRE(order[i].staged_unix_us <= order[i].dispatch_unix_us);
      REQUIRE(order[i].dispatch_unix_us <= order[i].device_start_unix_us);
      if (i) REQUIRE(order[i - 1].device_end_unix_us <= order[i].device_start_unix_us);  // one at a time
      REQUIRE(std::count(order[i].stage_names.begin(), order[i].stage_names.end(), "staging") == 1);
    }
    auto s = e.status();
    const auto& dev = s.scheduler.devices[0];
    REQUIRE(dev.proofs == 4);
    if (depth == 2) {
      // The second partition was in the device's mailbox before the first ended: the device went on
      // without the scheduler, and the scheduler counts that start as back to back.
      REQUIRE(order[1].dispatch_unix_us < order[0].device_end_unix_us);
      REQUIRE(dev.ahead >= 1);
      REQUIRE(dev.gaps >= 1);
    } else {
      // Every partition is sent after the answer for the previous one: none waits at the device.
      for (std::size_t i = 1; i < order.size(); ++i) REQUIRE(order[i].dispatch_unix_us >= order[i - 1].device_end_unix_us);
      REQUIRE(dev.ahead == 0);
    }
    REQUIRE(dev.gap_max_us <= dev.gap_us);
    REQUIRE(budgets_drain(e));
  }
}

// config::staged_partitions: at depth 2 the default (2) stages the third partition only once the
// first is proved (its slot free again), so no more than two of a device's partitions hold a
// staging slot at once; 3 (device_depth + 1) stages a third while the device proves one and holds
// the next in its mailbox.
TEST_CASE("a device's partitions holding staging slots are at most staged_partitions (default 2 at device_depth 2)",
          "[engine][pipeline][staging]") {
  register_gated_cpu();
  test::direct_prover direct;
  for (unsigned staged : {0u, 3u}) {
    CAPTURE(staged);
    gated_cpu::reset();
    auto c = small_config();
    c.devices = {"gatedcpu"};
    REQUIRE(c.device_depth == 2);
    c.staged_partitions = staged;
    auto e = engine::engine::start(c);
    std::mt19937_64 rng(20 + staged);
    auto req = sample_request(rng, 4);
    req.randomness = test::fixed_randomness(9);
    auto id = e.submit(req);
    // While the first proof is held: the next one waits in the device's mailbox, and then either a
    // third is staged (3 slots) or it waits for a device, synthesized, its staging not started (2).
    REQUIRE(test::eventually(
        [&] {
          auto s = e.status();
          const bool third = staged == 3 ? s.vram[0].reservations >= 3
                                         : s.vram[0].reservations >= 2 && s.scheduler.device_waits >= 1;
          return gated_cpu::held && s.vram.size() == 1 && s.scheduler.devices[0].ahead >= 1 && third;
        },
        60s));
    auto held = e.status();
    REQUIRE(held.scheduler.devices[0].proofs == 0);
    if (staged == 0) {
      REQUIRE(held.vram[0].reservations == 2);
      REQUIRE(held.vram[0].queued == 0);  // not even asked for
    }
    gated_cpu::open = true;
    auto r = e.await(id, 60s);
    REQUIRE(r);
    require_verifies(direct.key, *r, 4);
    for (std::size_t i = 0; i < 4; ++i)
      REQUIRE(r->partitions[i].proof == direct.prove(*req.partitions[i].data, *req.randomness));
    auto order = by_device_start(*r);
    REQUIRE(order.size() == 4);
    if (staged == 0) {
      // Each partition from the third on was staged after the one two before it had left the device.
      for (std::size_t i = 2; i < order.size(); ++i)
        REQUIRE(order[i].staged_unix_us >= order[i - 2].device_end_unix_us);
    } else {
      REQUIRE(order[2].staged_unix_us < order[0].device_end_unix_us);  // staged while the first was held
    }
    REQUIRE(budgets_drain(e));
  }
}

TEST_CASE("an idle engine's first partitions synthesize alone (alone_below), with enough ahead the synthesizers share the "
          "pool as before",
          "[engine][first]") {
  register_gated_cpu();
  test::direct_prover direct;
  for (unsigned below : {3u, 2u, 1u, 0u}) {
    CAPTURE(below);
    auto c = small_config();  // two synthesizers on the shared process pool
    c.devices = {"gatedcpu"};
    c.alone_below = below;
    auto e = engine::engine::start(c);
    std::mt19937_64 rng(30 + below);
    for (int round = 0; round < 2; ++round) {  // the engine is idle again before the second job
      CAPTURE(round);
      gated_cpu::reset();
      auto req = sample_request(rng, 5);
      req.randomness = test::fixed_randomness(11);
      auto id = e.submit(req);
      // The device holds the first proof until every partition has left the queue: the partitions
      // ahead of the synthesizers do not drain meanwhile, so which synthesis starts beside which
      // follows from the rule alone.
      bool started = false;
      for (int i = 0; i < 6000 && !started; ++i) {
        started = gated_cpu::held && e.status().scheduler.tasks_queued == 0;
        if (!started) std::this_thread::sleep_for(10ms);
      }
      REQUIRE(started);
      gated_cpu::open = true;
      auto r = e.await(id, 60s);
      REQUIRE(r);
      require_verifies(direct.key, *r, 5);
      for (std::size_t i = 0; i < 5; ++i)
        REQUIRE(r->partitions[i].proof == direct.prove(*req.partitions[i].data, *req.randomness));
      auto p = r->partition_timings;
      REQUIRE(p.size() == 5);
      std::sort(p.begin(), p.end(), [](auto& a, auto& b) { return a.partition < b.partition; });
      for (auto& t : p) REQUIRE(t.synth_start_unix_us <= t.synth_end_unix_us);
      // Partitions 0 .. below-1 ran alone, each started when the one before it was synthesized;
      // then two started together on the two synthesizers, each before the other ended (shared).
      const std::size_t solo = below;
      for (std::size_t i = 0; i < p.size(); ++i) {
        CAPTURE(i);
        REQUIRE(p[i].synth_alone == (i < solo));
        if (i >= 1 && i <= solo) REQUIRE(p[i].synth_start_unix_us >= p[i - 1].synth_end_unix_us);
      }
      const auto& x = p[solo];
      const auto& y = p[solo + 1];
      REQUIRE(x.synthesizer != y.synthesizer);
      REQUIRE(y.synth_start_unix_us <= x.synth_end_unix_us);
      REQUIRE(x.synth_start_unix_us <= y.synth_end_unix_us);
      if (solo) REQUIRE(y.synth_start_unix_us >= p[solo - 1].synth_end_unix_us);
      REQUIRE(budgets_drain(e));
      auto s = e.status();
      REQUIRE(s.scheduler.tasks_running == 0);
      REQUIRE(s.scheduler.tasks_queued == 0);
    }
  }
}

TEST_CASE("a Filecoin params file of another circuit is refused naming the file, the engine serving on", "[engine][fil]") {
  // The key store loads with fil::load_circuit_key, the loader `cuzk fil c2/post` use: the same line,
  // for a PoSt key (its R1CS recorded) and a PoRep key (its compact evaluator recorded beside it).
  const auto dir = std::filesystem::temp_directory_path() / ("cuzk-other-params-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all);  // an evaluator directory: closed to others
  const auto sample = zk::io::r1cs::load(test::fixture("sample.r1cs"));
  const auto made = zk::groth16::setup(sample, zk::groth16::toxic_waste_from_seed(9), zk::io::key_convention::bellperson);
  auto c = small_config();
  c.filecoin.param_cache = dir.string();
  auto e = engine::engine::start(c);
  for (const auto& circuit : {fil::resolve_circuit(fil::proof_kind::window_post_partition, "StackedDrgWindow2KiBV1_2"),
                              fil::resolve_circuit(fil::proof_kind::porep_seal_commit, "StackedDrg2KiBV1_1")}) {
    INFO(circuit.describe());
    const std::string path = (dir / circuit.params_file()).string();
    REQUIRE(e.filecoin_params_path(circuit.kind, std::string(circuit.seal ? circuit.seal->name : circuit.post->name)) == path);
    zk::io::write_bellperson_params(path, made);
    std::string why;
    try {
      e.preload_key(path);
    } catch (const engine::engine_error& err) {
      why = err.what();
    }
    CHECK_THAT(why, Catch::StartsWith("bad_input: " + path + ": vk.ic has " + std::to_string(sample.n_public() + 1) +
                                      ", the circuit needs ") &&
                        Catch::EndsWith(" (a key for another circuit?)"));
  }
  REQUIRE(budgets_drain(e));
  CHECK(e.preload_key(test::sample_zkey()).tier == engine::key_tier::hot);  // serving on
  std::filesystem::remove_all(dir);
}
