// A stream of multi-partition jobs through the engine on one device: how busy the device is and
// how long it idles between consecutive partitions (issue 4's H200 benchmark: busy >= 95% once
// synthesis keeps up, gap < 1 ms).
//
//   engine_stream ZKEY WTNS [jobs=5] [partitions=10] [backends=auto] [synthesizers=0] [kill=DEVICE]
//
// backends: one device per comma-separated name ("cuda:0,cuda:1"; "cuda:0,cuda:0" simulates two
// devices on one GPU). kill=D kills device actor D (exit_reason::kill) once it has proved two
// partitions of the stream: its partitions must finish on the others, every proof verified.
//
// All jobs are submitted at once after one warm-up partition (key load, evaluator, resident
// bases). Busy fraction = the device's busy time / the wall time from submission to the last
// result (so it includes filling the pipeline: the first synthesis and upload); mean gap = (that
// wall time - busy time) / (partitions - 1). The steady-state gap is the engine's own figure: the
// device's idle time before each partition that was already staged when the previous one ended.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <sstream>
#include <thread>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "zk/io/wtns.hpp"
#include "zk/io/zkey.hpp"

using namespace cuzk;
using clk = std::chrono::steady_clock;
using namespace std::chrono_literals;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: engine_stream ZKEY WTNS [jobs=5] [partitions=10] [backends=auto] [synthesizers=0] [kill=D]\n");
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

  const auto before = e.status().devices;
  auto s0 = before.at(0);
  double busy0 = s0.busy_ms;
  auto t0 = clk::now();
  std::vector<engine::job_id> ids;
  for (int j = 0; j < jobs; ++j) ids.push_back(e.submit(job(parts)));
  std::atomic<bool> done{false};
  std::thread killer([&] {
    if (kill_device < 0 || std::size_t(kill_device) >= devices.size()) return;
    while (!done) {
      if (e.status().devices.at(kill_device).proofs >= before.at(kill_device).proofs + 2) {
        bool killed = e.kill_worker(engine::worker_role::device, unsigned(kill_device));
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
    job_ms.push_back(r->timings.total);
    synth_ms += r->timings.synthesis;
    device_ms += r->timings.device;
  }
  done = true;
  killer.join();
  if (failed) return std::puts("job failed"), 1;
  double wall = std::chrono::duration<double, std::milli>(clk::now() - t0).count();
  auto s = e.status();
  double busy = s.devices.at(0).busy_ms - busy0;
  const int total = jobs * parts;
  std::printf("circuit %s: %u wires, domain 2^%u; device %s; warm-up (key load + first partition) %.0f ms\n",
              zkey.c_str(), header.n_vars, header.log_domain, s.devices.at(0).name.c_str(), warm_ms);
  std::printf("| jobs x partitions | wall ms | per partition ms | device busy | mean gap ms | synthesis ms/partition | device ms/partition |\n");
  std::printf("| %d x %d | %.0f | %.1f | %.1f%% | %.2f | %.1f | %.1f |\n", jobs, parts, wall, wall / total,
              100.0 * busy / wall, total > 1 ? (wall - busy) / (total - 1) : 0.0, synth_ms / total, device_ms / total);
  if (devices.size() > 1) {
    std::printf("| device | partitions | busy | back to back | gap mean ms | gap max ms |\n|---|---|---|---|---|---|\n");
    for (std::size_t i = 0; i < s.devices.size(); ++i) {
      auto& x = s.devices[i];
      auto n = x.back_to_back - before[i].back_to_back;
      std::printf("| %s | %llu | %.1f%% | %llu | %.3f | %.3f |\n", x.name.c_str(),
                  static_cast<unsigned long long>(x.proofs - before[i].proofs),
                  100.0 * (x.busy_ms - before[i].busy_ms) / wall, static_cast<unsigned long long>(n),
                  n ? (x.gap_ms_total - before[i].gap_ms_total) / double(n) : 0.0, x.gap_ms_max);
    }
    std::printf("faults recorded: %zu; retries: %llu; every job succeeded and every proof was verified\n",
                s.faults.size(), static_cast<unsigned long long>(s.retries));
  }
  auto& d = s.devices.at(0);
  auto b2b = d.back_to_back - s0.back_to_back;
  double gap_total = d.gap_ms_total - s0.gap_ms_total;
  std::printf("steady state: %llu of %d partitions started back to back (already staged); their gap: mean %.3f ms, "
              "max %.3f ms (max over the engine's life); busy over busy + those gaps %.2f%%\n",
              static_cast<unsigned long long>(b2b), total, b2b ? gap_total / double(b2b) : 0.0, d.gap_ms_max,
              b2b ? 100.0 * busy / (busy + gap_total) : 0.0);
  return 0;
}
