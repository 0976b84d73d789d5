// Compute backends by name, so that the command line and the engine can choose one ("cpu", "cuda",
// "auto") without depending on the libraries that implement them. The CPU backend is always
// registered; the CUDA library registers "cuda" from a static initializer when it is linked.
//
// A name may carry a device ordinal: "cuda:1" is the second GPU ("cuda" = "cuda:0"). Host
// backends accept any ordinal ("cpu:3"), which is how tests simulate several devices.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "zk/groth16/b2_plan.hpp"
#include "zk/groth16/backend.hpp"

namespace cuzk::zk::groth16 {

// Tuning a device backend honours (a host backend ignores it), passed to make_backend by whoever
// makes one (the engine from its configuration; `cuzk bench` from its flags): no process-wide
// setting.
struct backend_settings {
  static constexpr std::uint64_t as_much_as_fits = ~std::uint64_t{0};
  // Device bytes that precomputed shifted copies of resident key bases may take (0: none).
  std::uint64_t shifted_bases_bytes = 0;
  // Device bytes those copies must leave free (the memory the engine budgets for staged proofs).
  std::uint64_t keep_free_bytes = 0;
  // The device's VRAM budget (the engine's, which the resident keys' grants come from; 0: the
  // device's memory less the backend's margin) and the partitions staged on the device at once
  // beside a resident key (the engine's config::staged_partitions, by default max(2, device_depth):
  // one proving, one waiting in the device's mailbox, the next staged as it is proved; 0: the
  // backend's default):
  // the room the shifted sets are planned in.
  std::uint64_t vram_budget_bytes = 0;
  unsigned staged_partitions = 0;
  // The device memory this process may use (0: all of it): a big card behaving as a small one.
  std::uint64_t vram_limit_bytes = 0;
  // Where a proof's B2 runs and with how many host threads (b2_plan.hpp; cuda_options has the same
  // fields), and how many threads synthesize beside it.
  b2_mode b2 = b2_mode::device;
  double b2_split_share = 0;
  // The share of B2's points its device lane's scratch is sized for (cuda_options::b2_lane_share).
  double b2_lane_share = 1;
  unsigned b2_host_threads = 0, host_busy_threads = 0;
  // The cost model's seed rates (seconds per point; 0: measured by the first proof's probe).
  double b2_host_s_per_point = 0, b2_device_s_per_point = 0;
};

using backend_factory = std::function<std::unique_ptr<backend>(int ordinal, const backend_settings&)>;
// How many devices of this kind are present (a CUDA backend: visible GPUs). Empty = a host backend
// (always available, any ordinal).
using device_counter = std::function<int()>;
// A stager for the backend's device, independent of any backend object (the engine's stager actor
// owns one while the device actor owns the backend). Empty = host staging.
using stager_factory = std::function<std::unique_ptr<stager>(int ordinal)>;
// Bytes of memory the device has (a GPU's total). Empty = a host backend (0).
using memory_probe = std::function<std::uint64_t(int ordinal)>;

// Registers (or replaces) a backend. Safe to call from static initializers.
void register_backend(const std::string& name, backend_factory factory, device_counter devices = {},
                      stager_factory stager = {}, memory_probe memory = {});

// Registered names, in registration order ("cpu" first).
std::vector<std::string> registered_backends();

// A registered name (with or without an ordinal) whose device is present.
bool backend_available(const std::string& name);

// Devices of the named kind present here: a GPU count, or 1 for a host backend (0 if unknown).
int backend_device_count(const std::string& name);

// "auto": "cuda" when registered and available, else "cpu". Otherwise the name itself, checked.
// Throws std::invalid_argument for an unknown name or a malformed ordinal, std::runtime_error for
// a registered backend that cannot run here (no such device).
std::string resolve_backend_name(const std::string& name);
// make_backend(name): none of the optional tuning.
std::unique_ptr<backend> make_backend(const std::string& name);
std::unique_ptr<backend> make_backend(const std::string& name, const backend_settings& settings);
std::unique_ptr<stager> make_stager(const std::string& name);
std::uint64_t backend_device_memory(const std::string& name);

}  // namespace cuzk::zk::groth16
