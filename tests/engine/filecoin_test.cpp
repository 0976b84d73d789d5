// Filecoin jobs through the engine (CPU backend, or $CUZK_FIL_DEVICE=cuda) with fil-oracle's 2 KiB fixtures: WindowPoSt,
// WinningPoSt and PoRep C2 proofs (written to $CUZK_FIL_OUT for tests/engine/filecoin_engine.sh to
// hand to `fil-oracle verify-post` / `verify-seal`), a WinningPoSt overtaking queued WindowPoSt jobs (from the jobs' device
// start times), cancel and evict returning every budget to zero, and bad input (one line naming the
// field, never a proof); [filecoin-cluster]: those jobs and SnapDeals updates proved by worker
// nodes, a node's proof of another job's partition refused by the coordinator (the partition proved
// on the other node), and a SnapDeals job refused where no node offers the update params. Hidden ([.]): they
// need $CUZK_FIL_FIXTURES (tests/oracle/fixtures.sh's OUTDIR: params/, window/, winning/) and, for
// SnapDeals, $CUZK_FIL_SNAP_FIXTURES (tests/oracle/snap_fixtures.sh's), which that script provides.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <unistd.h>

#include "engine/engine.hpp"
#include "fixture.hpp"
#include "fil/partition.hpp"
#include "fil/types.hpp"
#include "zk/io/bellperson.hpp"

using namespace cuzk;
using namespace std::chrono_literals;

namespace {

double ms(std::uint64_t us) { return double(us) / 1000.0; }

std::string fixtures() {
  const char* d = std::getenv("CUZK_FIL_FIXTURES");
  if (!d || !*d) FAIL("CUZK_FIL_FIXTURES is not set (run tests/engine/filecoin_engine.sh)");
  return d;
}

std::vector<std::uint8_t> read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  REQUIRE(in);
  return {std::istreambuf_iterator<char>(in), {}};
}

// fil-oracle's post.json (window/ or winning/) as the engine's request.
engine::filecoin_request post_request(const std::string& kind) {
  const auto dir = std::filesystem::path(fixtures()) / kind;
  std::ifstream f(dir / "post.json");
  REQUIRE(f);
  const auto j = nlohmann::json::parse(f);
  engine::filecoin_request r;
  r.input.kind = kind == "winning" ? fil::proof_kind::winning_post : fil::proof_kind::window_post_partition;
  r.input.registered_proof = j.at("registered_proof").get<std::string>();
  r.input.miner_id = j.at("miner_id").get<std::uint64_t>();
  r.input.randomness = fil::domain_from_hex(j.at("randomness").get<std::string>(), "randomness");
  for (const auto& s : j.at("sectors")) r.input.vanilla_proofs.push_back(read_bytes(dir / s.at("vanilla").get<std::string>()));
  r.sector_size = j.at("sector_size").get<std::uint64_t>();
  return r;
}

// An oracle-sealed 2 KiB sector's C2 request (sector-N/c1.json: Curio's wrapper; miner 1000).
// Damages a recorded evaluator file in place (its layout: docs/formats.md) the way a disk or a
// person would while a key maps it: one aux signal of A becomes its neighbour (another wire: a
// wrong a = A·w, every count and offset still valid).
void flip_a_signal(const std::filesystem::path& file) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  std::uint8_t h[256];
  f.read(reinterpret_cast<char*>(h), sizeof h);
  auto u64 = [&](int at) {
    std::uint64_t v;
    std::memcpy(&v, h + at, 8);
    return v;
  };
  const std::uint64_t n_aux = u64(24), rows = u64(32), n_coeffs = u64(40), entries_a = u64(48);
  auto align = [](std::uint64_t x) { return (x + 63) & ~std::uint64_t{63}; };
  const std::uint64_t a_lens = align(256 + n_coeffs * 32), a_blocks = align(a_lens + rows * 2);
  const std::uint64_t a_signals = align(a_blocks + (rows + 4095) / 4096 * 8);
  for (std::uint64_t k = entries_a / 2; k < entries_a; ++k) {
    std::uint32_t sig;
    f.seekg(std::streamoff(a_signals + 4 * k));
    f.read(reinterpret_cast<char*>(&sig), 4);
    if ((sig & 0x80000000u) || (sig ^ 1u) >= n_aux) continue;
    sig ^= 1u;
    f.seekp(std::streamoff(a_signals + 4 * k));
    f.write(reinterpret_cast<const char*>(&sig), 4);
    return;
  }
  FAIL("no aux signal to flip");
}

// fil-oracle's 2 KiB SnapDeals update (tests/oracle/snap_fixtures.sh's OUTDIR/update: update.json, the
// bincode PartitionProof Curio sends) from $CUZK_FIL_SNAP_FIXTURES, or nullopt where it is unset.
std::optional<engine::filecoin_request> snap_request() {
  const char* d = std::getenv("CUZK_FIL_SNAP_FIXTURES");
  if (!d || !*d) return std::nullopt;
  const auto dir = std::filesystem::path(d) / "update";
  std::ifstream f(dir / "update.json");
  REQUIRE(f);
  const auto j = nlohmann::json::parse(f);
  engine::filecoin_request r;
  r.input.kind = fil::proof_kind::snap_deals_update;
  r.input.registered_proof = j.at("registered_proof").get<std::string>();
  r.input.comm_r_old = fil::domain_from_hex(j.at("comm_r_old").get<std::string>(), "comm_r_old");
  r.input.comm_r_new = fil::domain_from_hex(j.at("comm_r_new").get<std::string>(), "comm_r_new");
  r.input.comm_d_new = fil::domain_from_hex(j.at("comm_d_new").get<std::string>(), "comm_d_new");
  for (const auto& v : j.at("vanilla")) r.input.vanilla_proofs.push_back(read_bytes(dir / v.get<std::string>()));
  r.sector_size = j.at("sector_size").get<std::uint64_t>();
  return r;
}

engine::filecoin_request porep_request(int sector) {
  const auto dir = std::filesystem::path(fixtures()) / ("sector-" + std::to_string(sector));
  engine::filecoin_request r;
  r.input.kind = fil::proof_kind::porep_seal_commit;
  r.input.registered_proof = "StackedDrg2KiBV1_1";
  r.input.miner_id = 1000;
  r.input.sector_number = std::uint64_t(sector);
  r.input.c1 = read_bytes(dir / "c1.json");
  r.sector_size = 2048;
  return r;
}

// The device backend: cpu, or $CUZK_FIL_DEVICE (cuda: a GPU, its own VRAM budget; a PoRep
// partition then stages its witness alone and the GPU evaluates a, b, c).
std::string fil_device() {
  const char* d = std::getenv("CUZK_FIL_DEVICE");
  return d && *d ? d : "cpu";
}

engine::config fil_config(unsigned synthesizers) {
  engine::config c;
  c.host_budget = "8GiB";
  c.device_budget = fil_device() == "cpu" ? "2GiB" : "auto";
  c.synthesizers = synthesizers;
  c.devices = {fil_device()};
  c.device_synthesis = true;  // on a GPU: a, b, c there from the witness
  c.scheduler_threads = 4;
  c.filecoin.param_cache = (std::filesystem::path(fixtures()) / "params").string();
  return c;
}

void write_out(const std::string& name, const std::vector<std::uint8_t>& bytes) {
  const char* out = std::getenv("CUZK_FIL_OUT");
  if (!out || !*out) return;
  std::ofstream f(std::filesystem::path(out) / name, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(f);
}

std::string submit_error(engine::engine& e, const engine::filecoin_request& r) {
  try {
    e.submit(r);
  } catch (const engine::engine_error& err) {
    return err.what();
  }
  return "";
}

}  // namespace

TEST_CASE("Filecoin PoSt jobs: the engine's proofs, one per partition, verified before release", "[.][filecoin]") {
  auto e = engine::engine::start(fil_config(2));
  for (const std::string kind : {"window", "winning"}) {
    auto req = post_request(kind);
    req.request_id = "post-" + kind;
    auto id = e.submit(req);
    auto r = e.await(id, 10min);
    REQUIRE(r);
    INFO(kind << ": " << (r->reasons.empty() ? std::string() : r->reasons.front()));
    REQUIRE(r->state == engine::job_state::succeeded);
    REQUIRE(r->partitions.size() == 1);
    REQUIRE(r->compressed.size() == 192);
    REQUIRE(r->timings.device_start_us > 0);
    write_out(kind + ".bin", r->compressed);
    std::printf("engine 2 KiB %s PoSt (ms): queue %.1f, key load %.1f, synthesis %.1f, device %.1f, total %.1f\n",
                kind.c_str(), ms(r->timings.queue_us), ms(r->timings.key_us), ms(r->timings.synthesis_us), ms(r->timings.device_us),
                ms(r->timings.total_us));
  }
  // Both keys went through the key store by their parameter-cache paths.
  auto s = e.status();
  unsigned params_keys = 0;
  for (auto& k : s.key_store.keys)
    if (k.path.ends_with(".params") && k.tier == engine::key_tier::hot) ++params_keys;
  REQUIRE(params_keys == 2);
  REQUIRE(test::budgets_drain(e, 10s));
}

TEST_CASE("Filecoin PoRep C2 jobs: both 2 KiB sectors' proofs, the compact evaluator recorded once, shared",
          "[.][filecoin][filecoin-porep]") {
  // An evaluator directory of its own: the first load records the circuit's compact evaluator there.
  const auto dir = std::filesystem::temp_directory_path() / ("cuzk-engine-pce-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto cfg = fil_config(1);
  cfg.filecoin.evaluator_dir = dir.string();
  cfg.synthesizer_threads = 2;
  std::string params;
  {
    auto e = engine::engine::start(cfg);
    params = e.filecoin_params_path(fil::proof_kind::porep_seal_commit, "StackedDrg2KiBV1_1");
    const auto id1 = e.submit(porep_request(1));
    const auto id2 = e.submit(porep_request(2));
    for (const auto& [id, sector] : {std::pair{id1, 1}, std::pair{id2, 2}}) {
      auto r = e.await(id, 30min);
      REQUIRE(r);
      INFO((r->reasons.empty() ? std::string() : r->reasons.front()));
      REQUIRE(r->state == engine::job_state::succeeded);
      REQUIRE(r->compressed.size() == 192);  // one partition at 2 KiB
      write_out("porep-" + std::to_string(sector) + ".bin", r->compressed);
      std::printf("engine 2 KiB PoRep C2 sector %d (ms): queue %.1f, key load %.1f, synthesis %.1f, device %.1f, "
                  "total %.1f\n", sector, ms(r->timings.queue_us), ms(r->timings.key_us), ms(r->timings.synthesis_us),
                  ms(r->timings.device_us), ms(r->timings.total_us));
      for (const auto& pt : r->partition_timings) {
        std::printf("  partition %u: synthesis %.1f ms, device wait %.1f ms, device %.1f ms\n", pt.partition,
                    ms(pt.synth_end_unix_us - pt.synth_start_unix_us), ms(pt.device_start_unix_us - pt.synth_end_unix_us),
                    ms(pt.device_end_unix_us - pt.device_start_unix_us));
        // Which path it took: a, b, c on the GPU from the witness alone, or on the host.
        const auto& n = pt.stage_names;
        const bool on_device = std::find(n.begin(), n.end(), "a/b/c (device)") != n.end();
        CHECK(on_device == (fil_device() != "cpu"));
        CHECK((std::find(n.begin(), n.end(), "C1 + witness + a/b/c") != n.end()) == !on_device);
      }
    }
    // One key load, one recording, for both jobs.
    const auto s = e.status();
    REQUIRE(s.key_store.evaluator_records == 1);
    REQUIRE(s.key_store.loads == 1);
    const auto file = dir / (std::filesystem::path(params).stem().string() + ".cuzk-pce");
    REQUIRE(std::filesystem::is_regular_file(file));

    // The evaluator damaged under the hot key: changed, then truncated. Each job still succeeds
    // (its proof verified here, and by fil-oracle for sector 1), the damage taken as the daemon's
    // fault: the evaluator recorded again, the request not marked bad input.
    int records = 1;
    for (const bool truncate : {false, true}) {
      INFO((truncate ? "truncated" : "a signal changed"));
      if (truncate) std::filesystem::resize_file(file, std::filesystem::file_size(file) / 2);
      else flip_a_signal(file);
      auto r = e.await(e.submit(porep_request(1)), 30min);
      REQUIRE(r);
      INFO((r->reasons.empty() ? std::string() : r->reasons.front()));
      REQUIRE(r->state == engine::job_state::succeeded);
      CHECK(!r->bad_input);
      REQUIRE(r->compressed.size() == 192);
      write_out(truncate ? "porep-1-truncated.bin" : "porep-1-changed.bin", r->compressed);
      CHECK(e.status().key_store.evaluator_records == ++records);
    }
    REQUIRE(test::budgets_drain(e, 10s));  // the kept buffers go with the evicted key
  }
  {
    // Another engine maps the recorded file: nothing recorded.
    auto e = engine::engine::start(cfg);
    auto k = e.preload_key(params);
    REQUIRE(k.tier == engine::key_tier::hot);
    REQUIRE(e.status().key_store.evaluator_records == 0);
    REQUIRE(test::budgets_drain(e, 10s));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("Filecoin: a WinningPoSt overtakes queued WindowPoSt partitions", "[.][filecoin]") {
  // One synthesizer, one device: at most one partition synthesizing, one staged and one proving
  // when the WinningPoSt arrives; every other WindowPoSt job must start on the device after it.
  auto e = engine::engine::start(fil_config(1));
  auto window = post_request("window");
  auto winning = post_request("winning");
  e.preload_key(e.filecoin_params_path(window.input.kind, window.input.registered_proof));
  e.preload_key(e.filecoin_params_path(winning.input.kind, winning.input.registered_proof));
  constexpr int queued = 8;
  std::vector<engine::job_id> windows;
  for (int i = 0; i < queued; ++i) windows.push_back(e.submit(window));
  const auto win_id = e.submit(winning);
  auto win = e.await(win_id, 10min);
  REQUIRE(win);
  REQUIRE(win->state == engine::job_state::succeeded);
  int before = 0;
  for (auto id : windows) {
    auto r = e.await(id, 10min);
    REQUIRE(r);
    REQUIRE(r->state == engine::job_state::succeeded);
    REQUIRE(r->timings.device_start_us > 0);
    if (r->timings.device_start_us < win->timings.device_start_us) ++before;
  }
  INFO("WindowPoSt jobs on the device before the WinningPoSt: " << before);
  REQUIRE(before <= 3);
}

TEST_CASE("Filecoin: cancel and evict return every budget to zero, preload makes a key hot", "[.][filecoin]") {
  auto e = engine::engine::start(fil_config(2));
  auto window = post_request("window");
  const auto path = e.filecoin_params_path(window.input.kind, window.input.registered_proof);
  auto k = e.preload_key(path);
  REQUIRE(k.tier == engine::key_tier::hot);
  REQUIRE(k.bytes > 0);
  REQUIRE(e.status().host.in_use >= k.bytes);
  std::vector<engine::job_id> ids;
  for (int i = 0; i < 6; ++i) ids.push_back(e.submit(window));
  unsigned canceled = 0;
  for (auto id : ids) canceled += e.cancel(id) ? 1 : 0;
  REQUIRE(canceled > 0);
  for (auto id : ids) {
    auto r = e.await(id, 10min);
    REQUIRE(r);
    REQUIRE((r->state == engine::job_state::canceled || r->state == engine::job_state::succeeded));
  }
  // A canceled partition's worker may still hold its lease until its computation ends.
  bool evicted = false;
  for (auto until = std::chrono::steady_clock::now() + 30s; !evicted && std::chrono::steady_clock::now() < until;
       std::this_thread::sleep_for(10ms))
    evicted = e.evict_key(path);
  REQUIRE(evicted);
  REQUIRE_FALSE(e.evict_key(path));  // not hot any more
  for (auto& key : e.status().key_store.keys)
    if (key.path == path) REQUIRE(key.tier == engine::key_tier::cold);
  REQUIRE(test::budgets_drain(e, 10s));
}

TEST_CASE("Filecoin: bad input is refused with one line naming the field, never a proof", "[.][filecoin]") {
  auto e = engine::engine::start(fil_config(1));
  auto window = post_request("window");

  SECTION("randomness of another proof: the leaves are not the challenged ones") {
    auto r = window;
    r.input.randomness[0] ^= 1;
    auto msg = submit_error(e, r);
    INFO(msg);
    REQUIRE(msg.starts_with("bad_input: vanilla_proofs[0] (sector 1)"));
    REQUIRE(msg.find("challenge") != std::string::npos);
  }
  SECTION("a leaf that does not match its path: the job fails in synthesis, naming sector and challenge") {
    auto r = window;
    // The first inclusion proof's leaf: bincode layout (fil/io/post_bincode.hpp) sector_id 8 |
    // comm_r 32 | sectors 8 | inclusion_proofs 8 | variant 4 | root 32 | leaf 32.
    r.input.vanilla_proofs[0][8 + 32 + 8 + 8 + 4 + 32] ^= 1;
    auto id = e.submit(r);
    auto res = e.await(id, 10min);
    REQUIRE(res);
    REQUIRE(res->state == engine::job_state::failed);
    REQUIRE(res->compressed.empty());
    REQUIRE(res->reasons.size() == 1);  // bad input is not retried
    INFO(res->reasons[0]);
    REQUIRE(res->reasons[0].find("bad_input: vanilla_proofs[0] (sector 1): challenge 0") != std::string::npos);
  }
  SECTION("a truncated vanilla proof") {
    auto r = window;
    r.input.vanilla_proofs[1].resize(100);
    auto msg = submit_error(e, r);
    INFO(msg);
    REQUIRE(msg.starts_with("bad_input: vanilla_proofs[1]"));
  }
  SECTION("randomness that is not a field element") {
    auto r = window;
    r.input.randomness[31] = 0xff;
    REQUIRE(submit_error(e, r).starts_with("bad_input: randomness"));
  }
  SECTION("a registered proof of another kind or size") {
    auto r = window;
    r.input.registered_proof = "StackedDrgWinning2KiBV1";
    REQUIRE(submit_error(e, r).starts_with("bad_input: registered_proof"));
    r = window;
    r.sector_size = 8 << 20;
    REQUIRE(submit_error(e, r).starts_with("bad_input: sector_size"));
  }
  SECTION("PoRep without a C1, a C1 of another miner; SnapDeals naming a seal proof") {
    auto r = window;
    r.input.kind = fil::proof_kind::porep_seal_commit;
    r.input.registered_proof = "StackedDrg2KiBV1_1";
    r.input.vanilla_proofs.clear();
    REQUIRE(submit_error(e, r).starts_with("bad_input: vanilla_proof: empty"));
    auto p = porep_request(1);
    p.input.miner_id = 1001;
    auto msg = submit_error(e, p);
    INFO(msg);
    REQUIRE(msg.starts_with("bad_input: vanilla_proof: Phase1Out.replica_id is not that of miner 1001"));
    p = porep_request(1);
    p.input.c1.resize(p.input.c1.size() / 2);
    REQUIRE(submit_error(e, p).starts_with("bad_input: vanilla_proof"));
    r.input.kind = fil::proof_kind::snap_deals_update;
    REQUIRE(submit_error(e, r).starts_with("bad_input: registered_proof: 'StackedDrg2KiBV1_1' is not a registered update proof"));
  }
  SECTION("a parameter cache without the file: the error names the path it looked for") {
    auto dir = std::filesystem::temp_directory_path() / "cuzk-empty-param-cache";
    std::filesystem::create_directories(dir);
    auto c = fil_config(1);
    c.filecoin.param_cache = dir.string();
    auto e2 = engine::engine::start(c);
    auto msg = submit_error(e2, window);
    INFO(msg);
    REQUIRE(msg.starts_with("not_found: " + (dir / "v28-proof-of-spacetime-fallback").string()));
  }
  REQUIRE(test::budgets_drain(e, 10s));
}

namespace {

// A coordinator_only engine on loopback, or a worker of it: its own evaluator directory (no two
// engines record one file at once), the fixtures' parameter cache.
engine::config fil_cluster_config(std::uint16_t join_port, const std::string& name,
                                  const std::filesystem::path& evaluators) {
  auto c = fil_config(1);
  c.step_timeout = 10min;
  c.cluster.secret = "fil";
  c.cluster.heartbeat = 100ms;
  c.cluster.node_timeout = 2s;
  if (join_port == 0) {
    c.cluster.listen = "127.0.0.1:0";
    c.cluster.coordinator_only = true;
  } else {
    c.cluster.join = "127.0.0.1:" + std::to_string(join_port);
    c.cluster.node_name = name;
    c.cluster.slots = 2;
    c.filecoin.evaluator_dir = (evaluators / name).string();
    std::filesystem::create_directories(evaluators / name);
  }
  return c;
}

std::size_t nodes_up(engine::engine& e) {
  std::size_t n = 0;
  for (auto& node : e.status().registrar.nodes) n += node.alive;
  return n;
}

}  // namespace

TEST_CASE("Filecoin jobs through a cluster: nodes offer their params, prove partitions, one stops mid-way",
          "[.][filecoin-cluster]") {
  const auto evaluators = std::filesystem::temp_directory_path() / ("cuzk-fil-cluster-" + std::to_string(::getpid()));
  std::filesystem::remove_all(evaluators);
  auto coord = engine::engine::start(fil_cluster_config(0, "", evaluators));
  const auto port = coord.cluster_port();
  auto w1 = std::make_unique<engine::engine>(engine::engine::start(fil_cluster_config(port, "w1", evaluators)));
  auto w2 = engine::engine::start(fil_cluster_config(port, "w2", evaluators));
  REQUIRE(test::eventually([&] { return nodes_up(coord) == 2; }, 60s));

  // Each node offers every params file of the cache (PoRep, PoSt and, where the SnapDeals fixtures
  // were made into the same cache, update params) by name and parameters.json digest.
  std::size_t in_cache = 0;
  for (const auto& f : std::filesystem::directory_iterator(std::filesystem::path(fixtures()) / "params")) {
    const auto c = f.path().extension() == ".params" ? fil::circuit_for_params(f.path().string()) : std::nullopt;
    in_cache += c && c->implemented();
  }
  REQUIRE(in_cache >= 3);
  auto window = post_request("window");
  auto winning = post_request("winning");
  const auto window_params = coord.filecoin_params_path(window.input.kind, window.input.registered_proof);
  const auto digest = zk::io::parameters_json_digest(window_params);
  for (auto& n : coord.status().registrar.nodes) {
    std::size_t params = 0;
    bool window_offered = false;
    for (auto& k : n.keys) {
      if (k.kind == "circom") continue;
      ++params;
      if (k.name == std::filesystem::path(window_params).filename().string())
        window_offered = k.fingerprint == digest && k.kind == "WindowPoSt";
    }
    CHECK(params == in_cache);
    CHECK(window_offered);
  }

  // Two SnapDeals updates of the sector (where the fixtures were given) first, one to each node;
  // once w1 holds one, two PoRep sectors, three WindowPoSt and a WinningPoSt, and w1 stops: its
  // update partition is proved again on w2 (its inputs sent there with it).
  std::vector<std::pair<engine::job_id, std::string>> jobs;
  const auto snap = snap_request();
  if (snap) {
    REQUIRE(in_cache >= 4);  // the update params, beside PoRep's and PoSt's
    for (int i = 1; i <= 2; ++i) jobs.emplace_back(coord.submit(*snap), "snap-" + std::to_string(i));
  }
  auto w1_busy = [&] {
    auto s = coord.status();
    for (auto& n : s.registrar.nodes)
      if (auto* load = s.load_of(n.id); n.name == "w1" && load && load->busy > 0) return true;
    return false;
  };
  if (snap) REQUIRE(test::eventually(w1_busy, 120s));
  jobs.emplace_back(coord.submit(porep_request(1)), "porep-1");
  jobs.emplace_back(coord.submit(porep_request(2)), "porep-2");
  for (int i = 0; i < 3; ++i) jobs.emplace_back(coord.submit(window), i == 0 ? "window" : "");
  jobs.emplace_back(coord.submit(winning), "winning");
  REQUIRE(test::eventually(w1_busy, 120s));
  w1->shutdown();
  bool snap_requeued = false;
  for (auto& [id, name] : jobs) {
    auto r = coord.await(id, 20min);
    REQUIRE(r);
    INFO(name << ": " << (r->reasons.empty() ? std::string() : r->reasons.back()));
    REQUIRE(r->state == engine::job_state::succeeded);
    REQUIRE(r->compressed.size() == 192);
    if (!name.empty()) write_out(name + ".bin", r->compressed);
    if (name.starts_with("snap-"))
      for (auto& why : r->reasons) snap_requeued |= why.find("node w1") != std::string::npos;
  }
  if (snap) CHECK(snap_requeued);  // the update partition w1 held when it stopped
  auto s = coord.status();
  REQUIRE(s.registrar.lost >= 1);         // w1
  REQUIRE(s.scheduler.devices.empty());  // every partition was proved on a node
  // The inputs went to w2 once per job at most, and w2 dropped them as the jobs ended.
  auto link = w2.status().coordinator;
  REQUIRE(link);
  CHECK(link->payloads_received <= jobs.size());
  REQUIRE(test::eventually([&] { return w2.status().coordinator->payloads_held == 0; }));
  w1.reset();
  std::filesystem::remove_all(evaluators);
}

TEST_CASE("Filecoin: a node answering with a proof of another job's partition is refused, the partition proved elsewhere",
          "[.][filecoin-cluster]") {
  const auto evaluators = std::filesystem::temp_directory_path() / ("cuzk-fil-refused-" + std::to_string(::getpid()));
  std::filesystem::remove_all(evaluators);
  std::mutex mu;
  std::vector<std::string> events;
  auto cc = fil_cluster_config(0, "", evaluators);
  cc.cluster.on_event = [&](const std::string& line) {
    std::lock_guard lock(mu);
    events.push_back(line);
  };
  auto coord = engine::engine::start(cc);
  // Once `other` is set, the first node to answer a partition sends `other` in place of its proof,
  // and goes on doing so: a valid proof of another statement, as a node fed another job's partition
  // would send. The partition must go to the other node.
  struct swap_state {
    std::mutex mu;
    std::optional<zk::groth16::proof> other;
    std::string by;
  };
  auto swap = std::make_shared<swap_state>();
  auto node = [&](const std::string& name) {
    auto c = fil_cluster_config(coord.cluster_port(), name, evaluators);
    c.cluster.on_answer = [swap, name](std::uint64_t, std::uint32_t, zk::groth16::proof& p) {
      std::lock_guard lock(swap->mu);
      if (!swap->other || (!swap->by.empty() && swap->by != name)) return;
      p = *swap->other;
      swap->by = name;
    };
    return engine::engine::start(c);
  };
  auto w1 = node("w1");
  auto w2 = node("w2");
  REQUIRE(test::eventually([&] { return nodes_up(coord) == 2; }, 60s));

  const auto sector1 = coord.await(coord.submit(porep_request(1)), 20min);
  REQUIRE(sector1);
  REQUIRE(sector1->state == engine::job_state::succeeded);
  REQUIRE(sector1->partitions.size() == 1);
  {
    std::lock_guard lock(swap->mu);
    swap->other = sector1->partitions[0].proof;
  }
  const auto id = coord.submit(porep_request(2));
  const auto r = coord.await(id, 20min);
  REQUIRE(r);
  INFO((r->reasons.empty() ? std::string() : r->reasons.back()));
  REQUIRE(r->state == engine::job_state::succeeded);
  std::string by;
  {
    std::lock_guard lock(swap->mu);
    by = swap->by;
  }
  REQUIRE(!by.empty());  // a node did answer sector 2's partition with sector 1's proof
  REQUIRE(r->partitions.size() == 1);
  CHECK(r->partitions[0].proof != sector1->partitions[0].proof);
  write_out("porep-2-refused.bin", r->compressed);  // filecoin_engine.sh hands it to fil-oracle verify-seal

  // Refused on that node (the job's reasons name it), counted there, proved on the other one.
  bool named = false;
  for (auto& why : r->reasons) named |= why.find("node " + by + ": proof_invalid") != std::string::npos;
  CHECK(named);
  auto s = coord.status();
  REQUIRE(s.registrar.nodes.size() == 2);
  for (auto& n : s.registrar.nodes) {
    const auto* load = s.load_of(n.id);
    REQUIRE(load);
    CHECK(load->refused == (n.name == by ? 1u : 0u));
  }
  std::size_t lines = 0;
  {
    std::lock_guard lock(mu);
    for (auto& l : events)
      lines += l == "cluster: node " + by + " answered job " + std::to_string(id) +
                        " partition 0 with a proof that does not verify against its public inputs: refused, proved "
                        "elsewhere";
  }
  CHECK(lines == 1);
  w1.shutdown();
  w2.shutdown();
  coord.shutdown();
  std::filesystem::remove_all(evaluators);
}

TEST_CASE("Filecoin: a coordinator whose nodes lack the update params refuses a SnapDeals job at submit, naming them",
          "[.][filecoin-cluster]") {
  const auto snap = snap_request();
  if (!snap) FAIL("CUZK_FIL_SNAP_FIXTURES is not set (run tests/engine/filecoin_engine.sh ... cluster)");
  const auto tmp = std::filesystem::temp_directory_path() / ("cuzk-fil-snap-missing-" + std::to_string(::getpid()));
  std::filesystem::remove_all(tmp);
  // The worker's parameter cache: every file of the fixtures' but the update params and vk.
  const auto circuit = fil::resolve_update_circuit(snap->input.registered_proof);
  const auto params = std::filesystem::path(fixtures()) / "params";
  std::filesystem::create_directories(tmp / "cache");
  std::size_t linked = 0;
  for (const auto& f : std::filesystem::directory_iterator(params)) {
    const auto name = f.path().filename().string();
    if (name == circuit.params_file() || name == circuit.vk_file() || name.starts_with(".")) continue;
    std::filesystem::create_symlink(f.path(), tmp / "cache" / name);
    ++linked;
  }
  REQUIRE(linked > 0);
  auto coord = engine::engine::start(fil_cluster_config(0, "", tmp));
  REQUIRE(std::filesystem::is_regular_file(params / circuit.params_file()));  // the coordinator has them
  auto wc = fil_cluster_config(coord.cluster_port(), "w", tmp);
  wc.filecoin.param_cache = (tmp / "cache").string();
  auto w = engine::engine::start(wc);
  REQUIRE(test::eventually([&] { return nodes_up(coord) == 1; }, 60s));
  std::size_t offered = 0;
  for (auto& n : coord.status().registrar.nodes)
    for (auto& k : n.keys) offered += k.kind != "circom";
  REQUIRE(offered > 0);  // it offers the PoRep and PoSt params, not the update's

  const auto digest = zk::io::parameters_json_digest((params / circuit.params_file()).string());
  REQUIRE(submit_error(coord, *snap) ==
          "failed_precondition: no place can prove " + circuit.params_file() +
              ": this engine has no local devices (cluster coordinator_only) and none of its 1 joined node(s) offers "
              "that params file (parameters.json digest " + digest + ")");
  CHECK(coord.status().intake.accepted == 0);
  CHECK(coord.status().intake.rejected == 1);
  w.shutdown();
  coord.shutdown();
  std::filesystem::remove_all(tmp);
}
