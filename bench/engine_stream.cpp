// A stream of multi-partition jobs through the engine on one device: how busy the device is and
// how long it idles between consecutive partitions (the target: busy >= 95% once
// synthesis keeps up, gap < 1 ms).
//
//   engine_stream ZKEY WTNS [jobs=5] [partitions=10] [backends=auto] [synthesizers=0] [kill=DEVICE]
//
// backends: one device per comma-separated name ("cuda:0,cuda:1"; "cuda:0,cuda:0" simulates two
// devices on one GPU). kill=D kills device actor D (exit_reason::kill) once it has proved two
// partitions of the stream: its partitions must finish on the others, every proof verified.
//
//   engine_stream ZKEY WTNS evict [rounds=3] [partitions=3] [backend=cuda]
//
// evict: the key residency check under VRAM pressure. A second path to the same key (a hard link,
// or a copy) is a second key for the key store. One job sizes the key's resident grant R on the
// device; then an engine whose VRAM budget is R plus two staged partitions (so the two keys never
// fit together) proves jobs alternately on the two keys: each key is evicted from the device and
// made resident again every round. Every job must succeed without a retry, every proof verifies
// against the key's vk here, and the device's residency counters show every load and eviction.
//
// All jobs are submitted at once after one warm-up partition (key load, evaluator, resident
// bases). Busy fraction = the device's busy time / the wall time from submission to the last
// result (so it includes filling the pipeline: the first synthesis and upload); mean gap = (that
// wall time - busy time) / (partitions - 1). The steady-state gap is the engine's own figure: the
// device's idle time before each partition that was already staged when the previous one ended.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/engine.hpp"
#include "zk/groth16/verifier.hpp"
#include "zk/io/wtns.hpp"
#include "zk/io/zkey.hpp"

using namespace cuzk;
using clk = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

int evict_check(const std::string& zkey, std::shared_ptr<const zk::io::witness> w, int rounds, int parts,
                const std::string& backend) {
  namespace fs = std::filesystem;
  auto key = zk::io::zkey::load(zkey);
  const auto second = (fs::temp_directory_path() / ("engine_stream_evict_" + std::to_string(::getpid()) + ".zkey")).string();
  std::error_code ec;
  fs::create_hard_link(zkey, second, ec);
  if (ec) fs::copy_file(zkey, second, fs::copy_options::overwrite_existing);
  struct unlink_at_exit {
    std::string p;
    ~unlink_at_exit() {
      std::error_code e;
      fs::remove(p, e);
    }
  } cleanup{second};
  auto job = [&](const std::string& path) {
    engine::request r;
    r.circuit = path;
    for (int i = 0; i < parts; ++i) r.partitions.push_back({"", w});
    return r;
  };
  engine::config c;
  c.host_budget = "auto";
  c.devices = {backend};
  c.step_timeout = 600s;
  // 1. The key's resident grant on this device, under the default ("auto") VRAM budget.
  std::uint64_t resident = 0;
  {
    auto e = engine::engine::start(c);
    auto r = e.await(e.submit(job(zkey)), 3600s);
    if (!r || r->state != engine::job_state::succeeded) return std::puts("evict: sizing job failed"), 1;
    auto s = e.status();
    const auto& devices = s.key_store.devices;
    if (devices.empty() || devices[0].resident_bytes == 0) return std::puts("evict: the device keeps nothing resident"), 1;
    resident = devices[0].resident_bytes;
  }
  // 2. A budget where one key and two staged partitions fit, two keys do not.
  const std::uint64_t partition = 4 * std::uint64_t(key.domain_size) * 32 + std::uint64_t(key.n_vars) * 32;
  const std::uint64_t budget = resident + 2 * partition;
  if (budget >= 2 * resident) return std::puts("evict: the key is too small beside its partitions for this check"), 1;
  c.device_budget = std::to_string(budget);
  auto e = engine::engine::start(c);
  const auto vk = zk::groth16::prepare(key.vk);
  int proofs = 0, bad = 0;
  double ms[2] = {0, 0};
  for (int round = 0; round < rounds; ++round)
    for (int k = 0; k < 2; ++k) {
      auto t = clk::now();
      auto r = e.await(e.submit(job(k ? second : zkey)), 3600s);
      ms[k] += std::chrono::duration<double, std::milli>(clk::now() - t).count();
      if (!r || r->state != engine::job_state::succeeded || !r->reasons.empty()) {
        std::printf("evict: round %d key %d: job %s\n", round, k, r ? (r->reasons.empty() ? "failed" : r->reasons[0].c_str()) : "timed out");
        return 1;
      }
      for (auto& p : r->partitions) {
        ++proofs;
        if (!zk::groth16::verify(vk, p.publics, p.proof)) ++bad;
      }
    }
  auto s = e.status();
  const auto& m = s.key_store.devices.at(0);
  std::printf("circuit %s: domain 2^%u; device %s; resident grant %.3f GB, partition %.3f GB, VRAM budget %.3f GB\n",
              zkey.c_str(), key.log_domain, s.scheduler.devices.at(0).name.c_str(), resident / 1e9, partition / 1e9, budget / 1e9);
  std::printf("| rounds x keys x partitions | proofs verified | retries | resident loads | resident evictions | job ms (key 1, key 2) |\n");
  std::printf("| %d x 2 x %d | %d of %d | %llu | %llu | %llu | %.0f, %.0f |\n", rounds, parts, proofs - bad, proofs,
              static_cast<unsigned long long>(s.scheduler.retries), static_cast<unsigned long long>(m.loads),
              static_cast<unsigned long long>(m.evictions), ms[0] / rounds, ms[1] / rounds);
  const bool ok = bad == 0 && s.scheduler.retries == 0 && m.loads == std::uint64_t(2 * rounds) &&
                  m.evictions == std::uint64_t(2 * rounds - 1) && m.keys == 1;
  std::printf("evict: %s\n", ok ? "every job succeeded, every proof verified, each key evicted and loaded again every round"
                                 : "MISMATCH (counters or proofs above)");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 3 && std::string(argv[3]) == "evict") {
    auto w = std::make_shared<const zk::io::witness>(zk::io::witness::load(argv[2]));
    return evict_check(argv[1], w, argc > 4 ? std::atoi(argv[4]) : 3, argc > 5 ? std::atoi(argv[5]) : 3,
                       argc > 6 ? argv[6] : "cuda");
  }
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: engine_stream ZKEY WTNS [jobs=5] [partitions=10] [backends=auto] [synthesizers=0] [kill=D]\n"
                 "       engine_stream ZKEY WTNS evict [rounds=3] [partitions=3] [backend=cuda]\n");
    return 2;
  }
  const std::string zkey = argv[1];
  const int jobs = argc > 3 ? std::atoi(argv[3]) : 5, parts = argc > 4 ? std::atoi(argv[4]) : 10;
  const std::string backends = argc > 5 ? argv[5] : "auto";
  const unsigned synths = argc > 6 ? unsigned(std::atoi(argv[6])) : 0;
  const int kill_device = argc > 7 ? std::atoi(argv[7]) : -1;
  std::vector<std::string> devices;
  std::stringstream names(backends);
  for (std::string d; std::getline(names, d, ',');) devices.push_back(d);
  auto w = std::make_shared<const zk::io::witness>(zk::io::witness::load(argv[2]));
  auto header = zk::io::zkey_header::read(zkey);

  engine::config c;
  c.host_budget = "auto";
  c.device_budget = "64GiB";
  c.devices = devices;
  c.synthesizers = synths;
  c.step_timeout = 600s;
  auto e = engine::engine::start(c);
  auto job = [&](int n) {
    engine::request r;
    r.circuit = zkey;
    for (int i = 0; i < n; ++i) r.partitions.push_back({"", w});
    return r;
  };
  auto t_warm = clk::now();
  auto warm = e.await(e.submit(job(1)), 3600s);
  if (!warm || warm->state != engine::job_state::succeeded) return std::puts("warm-up job failed"), 1;
  double warm_ms = std::chrono::duration<double, std::milli>(clk::now() - t_warm).count();

  const auto before = e.status().scheduler.devices;
  auto s0 = before.at(0);
  const auto ms = [](std::uint64_t us) { return double(us) / 1000.0; };
  double busy0 = ms(s0.busy_us);
  auto t0 = clk::now();
  std::vector<engine::job_id> ids;
  for (int j = 0; j < jobs; ++j) ids.push_back(e.submit(job(parts)));
  std::atomic<bool> done{false};
  std::thread killer([&] {
    if (kill_device < 0 || std::size_t(kill_device) >= devices.size()) return;
    while (!done) {
      if (e.status().scheduler.devices.at(kill_device).proofs >= before.at(kill_device).proofs + 2) {
        bool killed = e.kill_worker(engine::role::device, unsigned(kill_device));
        std::printf("killed device actor %d after its second partition: %s\n", kill_device, killed ? "yes" : "no");
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  std::vector<double> job_ms;
  double synth_ms = 0, device_ms = 0;
  bool failed = false;
  for (auto id : ids) {
    auto r = e.await(id, 3600s);
    if (!r || r->state != engine::job_state::succeeded) {
      failed = true;
      break;
    }
    job_ms.push_back(ms(r->timings.total_us));
    synth_ms += ms(r->timings.synthesis_us);
    device_ms += ms(r->timings.device_us);
  }
  done = true;
  killer.join();
  if (failed) return std::puts("job failed"), 1;
  double wall = std::chrono::duration<double, std::milli>(clk::now() - t0).count();
  auto s = e.status();
  double busy = ms(s.scheduler.devices.at(0).busy_us) - busy0;
  const int total = jobs * parts;
  std::printf("circuit %s: %u wires, domain 2^%u; device %s; warm-up (key load + first partition) %.0f ms\n",
              zkey.c_str(), header.n_vars, header.log_domain, s.scheduler.devices.at(0).name.c_str(), warm_ms);
  std::printf("| jobs x partitions | wall ms | per partition ms | device busy | mean gap ms | synthesis ms/partition | device ms/partition |\n");
  std::printf("| %d x %d | %.0f | %.1f | %.1f%% | %.2f | %.1f | %.1f |\n", jobs, parts, wall, wall / total,
              100.0 * busy / wall, total > 1 ? (wall - busy) / (total - 1) : 0.0, synth_ms / total, device_ms / total);
  if (devices.size() > 1) {
    std::printf("| device | partitions | busy | back to back | gap mean ms | gap max ms |\n|---|---|---|---|---|---|\n");
    for (std::size_t i = 0; i < s.scheduler.devices.size(); ++i) {
      auto& x = s.scheduler.devices[i];
      auto n = x.gaps - before[i].gaps;
      std::printf("| %s | %llu | %.1f%% | %llu | %.3f | %.3f |\n", x.name.c_str(),
                  static_cast<unsigned long long>(x.proofs - before[i].proofs),
                  100.0 * ms(x.busy_us - before[i].busy_us) / wall, static_cast<unsigned long long>(n),
                  n ? ms(x.gap_us - before[i].gap_us) / double(n) : 0.0, ms(x.gap_max_us));
    }
    std::printf("faults recorded: %zu; retries: %llu; every job succeeded and every proof was verified\n",
                s.supervisor.faults.size(), static_cast<unsigned long long>(s.scheduler.retries));
  }
  auto& d = s.scheduler.devices.at(0);
  auto b2b = d.gaps - s0.gaps;
  double gap_total = ms(d.gap_us - s0.gap_us);
  std::printf("steady state: %llu of %d partitions started back to back (already staged); their gap: mean %.3f ms, "
              "max %.3f ms (max over the engine's life); busy over busy + those gaps %.2f%%\n",
              static_cast<unsigned long long>(b2b), total, b2b ? gap_total / double(b2b) : 0.0, ms(d.gap_max_us),
              b2b ? 100.0 * busy / (busy + gap_total) : 0.0);
  return 0;
}
