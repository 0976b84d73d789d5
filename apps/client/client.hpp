// The daemon client's subcommands for `cuzk` (submit, await, status, cancel, preload, evict,
// metrics, chaos, fil submit) and the remote form of `cuzk prove`.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace cuzk::cli {

void register_client(CLI::App& app);
// `cuzk fil submit`: a Filecoin job (PoRep from a C1 output, PoSt from fil-oracle's post.json) sent to
// a daemon as Curio sends it; waits and writes DIR/proof.bin.
void register_fil_submit(CLI::App* fil);

// `cuzk prove --addr A --circuit NAME --witness W ... --out DIR`: prove through a daemon.
struct remote_prove_options {
  std::string addr, token, circuit, request_id, priority = "normal", out_dir;
  std::vector<std::string> witnesses;
  bool json = false;
};
bool remote_prove_requested(const remote_prove_options& r);
int run_remote_prove(const remote_prove_options& r);

// The gRPC target of a daemon address (unix:///path, HOST:PORT, [v6]:PORT).
std::string daemon_target(const std::string& addr);

// One line on the daemon answering GetStatus at `addr` within `timeout` ("cuzk-daemon pid P,
// version V, up S s, J jobs active"), or nullopt when none answers (`cuzk doctor`).
std::optional<std::string> daemon_summary(const std::string& addr, const std::string& token,
                                          std::chrono::milliseconds timeout);

// `cuzk bench fil`: Filecoin proofs against a daemon, as Curio sends them (bench_fil.cpp).
//   single  `count` proofs one after another (latency)
//   batch   `count` proofs submitted at once (a burst: queueing and overlap)
//   stress  `concurrency` proofs kept in flight for `duration_s` seconds (throughput)
// Writes OUT (JSON: per job its client times, the daemon's stage times and partition timings;
// proofs per hour, per-partition stage medians, each device's busy fraction) and OUT with .svg
// (the timeline, client/timeline_svg.hpp). Returns the exit status.
struct bench_fil_options {
  std::string addr, token, mode = "single", kind = "wpost", dir, c1, out = "bench-fil.json";
  std::uint64_t miner = 1000;
  unsigned count = 1, concurrency = 2;
  double duration_s = 60;
  // --shape: an in-process engine on a synthetic SRS of that shape (no daemon, no params)
  std::string shape, evaluator_dir, device = "cuda", shifted = "auto";
  bool device_synthesis = true;  // --shape: a, b, c on the GPU from the witness (engine::config::device_synthesis)
  std::string b2 = "device";     // --shape: where B2 runs (engine::config::b2)
  unsigned b2_host_threads = 0;  // --shape: its host part's threads (0: every core)
  unsigned partitions = 0, sectors = 1, synthesizers = 2, kept_partitions = 1, device_depth = 2;
  unsigned alone_below = 1;  // --alone-below (engine::config::alone_below)
  bool ordered_synthesis = false;  // --ordered-synthesis (engine::config::ordered_synthesis)
  unsigned staged_partitions = 0;  // --staged-partitions (engine::config::staged_partitions; 0: max(2, depth))
  double b2_lane_share = 1;        // --b2-lane-share (engine::config::b2_lane_share)
  std::string vram_limit = "off";  // --vram-limit (engine::config::vram_limit_bytes): a big card as a small one
  std::uint64_t seed = 1, sector = 1;
};
int run_bench_fil(const bench_fil_options& o);
// `cuzk bench fil --shape ...` (apps/cuzk/cmd_bench_shape.cpp: it embeds the engine).
int run_bench_fil_shape(const bench_fil_options& o);

}  // namespace cuzk::cli
