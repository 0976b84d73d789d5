// What every actor of one engine is built from: the engine's settings (the supervisor builds and
// rebuilds the actors from them), seeded fault injection for tests, and the engine's clock.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "caf/fwd.hpp"
#include "messages/common.hpp"
#include "zk/groth16/backend_registry.hpp"

namespace cuzk::actors {

using namespace cuzk::msg;

// Seeded fault injection for tests: probabilities per operation.
struct fault_settings {
  double synth_throw = 0;         // a synthesizer throws instead of synthesizing
  double device_kernel_fail = 0;  // a backend call (h, an MSM) throws, as a failed kernel would
  double device_alloc_fail = 0;   // a device's allocation fails before it computes
  std::uint64_t seed = 0;
  bool any() const { return synth_throw > 0 || device_kernel_fail > 0 || device_alloc_fail > 0; }
};

struct remote_endpoint {
  std::string host;
  std::uint16_t port = 0;
};

// Everything the supervisor needs to build (and rebuild) the actors of one engine.
struct engine_settings {
  std::uint64_t host_budget_bytes = 0;
  std::vector<std::string> devices{"cpu"};  // backend names, one device actor each
  zk::groth16::backend_settings backend;    // the tuning every device backend is made with
  std::uint64_t device_budget_bytes = 0;    // per device: its VRAM budget (resident keys and staged partitions)
  // Every device evaluates a Filecoin key's a, b, c itself (a GPU, with the key's compact evaluator
  // resident): synthesizers then produce the witness only, the stagers upload only it.
  bool device_synthesis = false;
  // Prove requests a device holds at once: 2 = the one it proves and the next, sent as soon as that
  // one is staged and waiting in the device's mailbox, so the device starts it without a round trip
  // through the scheduler (and its stager stages the one after meanwhile); 1 = the next is sent when
  // the previous one's answer arrives.
  unsigned device_depth = 2;
  unsigned synthesizers = 1;
  // While fewer than alone_below partitions per device are on their way to a device or on one
  // (synthesized and waiting, staging, staged, proving), one local synthesis at a time on the
  // shared pool: the first partitions of an idle engine (and the next one of a device about to run
  // dry) get the pool to themselves and are ready in one partition's synthesis time instead of two
  // sharing the cores; with that many ahead, every free synthesizer starts as before (the steady
  // state). 1 (default): only while the devices have nothing, which never holds back a steady
  // state; 2-3 shorten an idle engine's first sector further when one partition alone is
  // synthesized faster than the device proves one, but lock the synthesizers into one at a time
  // when it is not; 0: off (every free synthesizer at once).
  unsigned alone_below = 1;
  // Local syntheses on the shared pool run their pool work ranked by their partition's place (job
  // priority, then dispatch order: zk::pool_rank): the first finishes as if alone (less the thread
  // of each one beside it) and the others use what it leaves. Off: they share the pool phase by
  // phase and finish together, late.
  bool ordered_synthesis = false;
  unsigned synthesizer_threads = 0;  // threads of each synthesizer's witness and a, b, c (0: the process pool)
  std::vector<remote_endpoint> remote_synthesizers;
  unsigned max_attempts = 3;
  std::size_t max_active_jobs = 1024;
  std::size_t max_partitions = 1024;
  std::uint64_t key_cache_bytes = 0;  // hot keys beyond this are evicted when unleased (0 = no limit)
  std::chrono::milliseconds step_timeout{120000};
  std::map<std::string, std::string> circuits;  // registered name -> zkey path
  fault_settings faults;
  // Filecoin [filecoin] verify_params: parameters.json's digests by file name; empty = not checked.
  std::shared_ptr<const std::map<std::string, std::string>> param_digests;
  // Filecoin [filecoin] evaluator_dir: where PoRep keys' compact evaluators are cached ("" : next to
  // each params file).
  std::string evaluator_dir;
  // [filecoin] record_threads and the engine's event lines (key_load_options).
  unsigned record_threads = 0;
  std::function<void(const std::string&)> on_event;
  // Cluster event lines of the scheduler (a node's proof refused): the engine's cluster on_event.
  std::function<void(const std::string&)> on_cluster_event;
  unsigned kept_partitions = 1;  // engine config kept_partitions (key_load_options)
};

std::uint64_t now_us();  // steady clock, microseconds

}  // namespace cuzk::actors
