// What the engine reports, as plain structs: a job's outcome and each actor's status. The actors
// produce these types and the engine facade (engine/engine.hpp) hands them to its callers as they
// are, so there is one type per report and no copy of it on either side.
//
// The trick that keeps the facade CAF-free: this header includes no CAF header. The CAF `inspect`
// functions of these structs sit beside the actor that produces each one (actors/<actor>.hpp;
// job_timings and partition_output in messages/common.hpp, key_offer in messages/cluster.hpp):
// CAF finds them by argument-dependent lookup where it serializes a message, which only actor code
// does. Times ending in _us are microseconds; stamps are on the engine's steady clock
// (actors::now_us(), comparable within one engine) unless the name says unix.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "zk/groth16/types.hpp"

namespace cuzk::msg {

using job_id = std::uint64_t;

// Declared low to high so that a larger value is more urgent.
enum class priority : std::uint8_t { low = 0, normal = 1, high = 2, critical = 3 };
enum class job_state : std::uint8_t { queued = 0, running = 1, succeeded = 2, failed = 3, canceled = 4 };

// The supervised roles; `slot` numbers instances of a role (synthesizer 3, device 0, ...).
enum class role : std::uint8_t {
  host_budget = 0, vram_budget, key_store, synthesizer, device, assembler, scheduler, intake, remote_synthesizer,
  stager
};

// A proving key as the key store holds it: cold (not loaded), warm (zkey parsed), hot (evaluator
// built, ready to prove); the tier above hot, resident on a device, is key_status::resident_on.
enum class key_tier : std::uint8_t { cold = 0, warm = 1, hot = 2 };

// Their names (status, logs): enum value -> name, "unknown" outside the enum.
template <class Enum, std::size_t N>
const char* name_of(Enum x, const char* const (&names)[N]) {
  const auto i = static_cast<std::size_t>(x);
  return i < N ? names[i] : "unknown";
}
inline const char* to_string(job_state s) {
  static constexpr const char* names[] = {"queued", "running", "succeeded", "failed", "canceled"};
  return name_of(s, names);
}
inline const char* to_string(role r) {
  static constexpr const char* names[] = {"host_budget", "vram_budget", "key_store", "synthesizer",        "device",
                                          "assembler",   "scheduler",   "intake",    "remote_synthesizer", "stager"};
  return name_of(r, names);
}
inline const char* to_string(key_tier t) {
  static constexpr const char* names[] = {"cold", "warm", "hot"};
  return name_of(t, names);
}

// ---- a job's outcome (the scheduler) ------------------------------------------------------------

// queue: submit to first dispatch; key: waiting for the key (max over partitions); synthesis and
// device: summed over the job's partitions; total: submit to finish. device_start: when its first
// partition began on a local device (steady clock: comparable between jobs), 0 if none.
struct job_timings {
  std::uint64_t queue_us = 0, key_us = 0, synthesis_us = 0, device_us = 0, total_us = 0, device_start_us = 0;
  bool operator==(const job_timings&) const = default;
};

struct partition_output {
  zk::groth16::proof proof;
  std::vector<zk::bigint<4>> publics;
  bool operator==(const partition_output&) const = default;
};

// One partition's stages in its latest attempt, in unix microseconds (0: the stage did not run in
// this engine, e.g. proved by a cluster node): which synthesizer ("synth:N") and device ("cpu:0",
// "cuda:1") it ran on, for timelines and for checking priorities from outside.
struct partition_timing {
  std::uint32_t partition = 0;
  std::string synthesizer, device;
  std::uint64_t synth_start_unix_us = 0, synth_end_unix_us = 0, device_start_unix_us = 0, device_end_unix_us = 0;
  // Stage times inside them, in order, milliseconds: the synthesizer's ("witness" or "C1 + witness",
  // "a/b/c"), then the device's ("a/b/c (device)" for a witness-only partition, "H/NTT", "MSM A",
  // "MSM B1", "MSM L", "MSM H", "B2 (G2)", "assemble").
  std::vector<std::string> stage_names;
  std::vector<double> stage_ms;
  // Between synthesis and the device: when its stager's answer came (the inputs on the device,
  // ready) and when the scheduler sent it to the device. A dispatch before the previous partition's
  // device_end on the same device waited in the device's mailbox (engine_settings::device_depth).
  std::uint64_t staged_unix_us = 0, dispatch_unix_us = 0;
  // Synthesized with the synthesizers' pool to itself: no other synthesis ran beside it, the devices
  // having fewer partitions ahead than engine_settings::alone_below.
  bool synth_alone = false;
  bool operator==(const partition_timing&) const = default;
};

struct job_outcome {
  job_id job = 0;
  job_state state = job_state::queued;
  std::vector<partition_output> partitions;  // in partition order; empty unless succeeded
  std::vector<std::uint8_t> compressed;      // 192 bytes per partition, concatenated
  std::vector<std::string> reasons;          // why attempts failed (also for a success after retries)
  job_timings timings;
  std::uint32_t attempts = 0;                // dispatches over all partitions
  bool bad_input = false;                    // failed because of its input: retrying cannot help
  std::vector<partition_timing> partition_timings;  // in partition order
  // A synthetic bench's job (a synthetic key, NOT A SETUP: zk/groth16/synthetic_srs.hpp): its proofs
  // were NOT verified and never verify; only their timings mean anything.
  bool unverified = false;
  bool operator==(const job_outcome&) const = default;
};

// ---- the intake's jobs --------------------------------------------------------------------------

struct job_report {
  job_id job = 0;
  std::string request_id;
  job_state state = job_state::queued;
  priority prio = priority::normal;
  std::uint32_t partitions = 0, attempts = 0;
  job_timings timings;
  std::vector<std::string> reasons;
  bool operator==(const job_report&) const = default;
};

struct intake_status {
  std::vector<job_report> jobs;  // every job it still has a record of
  std::uint64_t accepted = 0, rejected = 0, duplicates = 0, succeeded = 0, failed = 0, canceled = 0;
  bool operator==(const intake_status&) const = default;
};

// ---- a memory budget (host, or one device's VRAM) ------------------------------------------------

struct budget_status {
  std::string name;
  std::uint64_t capacity = 0, in_use = 0, peak = 0, queued_bytes = 0;
  std::uint32_t queued = 0, reservations = 0;
  std::uint64_t reclaimed_total = 0;  // bytes taken back from holders that died
  std::uint64_t held_bytes = 0;       // of in_use: grants a live reservation token guards
  bool operator==(const budget_status&) const = default;
};

// ---- the scheduler's devices and cluster nodes ---------------------------------------------------

// gaps: partitions that were already staged when the previous one ended on the device (or already
// waiting in its mailbox); gap_us: the device's idle time before them (previous end to this start,
// as the device measures it). ahead: partitions sent to the device while it was still proving the
// previous one (engine_settings::device_depth 2), so it started them without waiting for the
// scheduler.
// current_job: the job whose partition the device is proving now, else the job of the partition
// staged next on it (0: none).
struct device_usage {
  std::string name;
  std::uint64_t busy_us = 0, proofs = 0;
  std::uint64_t gaps = 0, gap_us = 0, gap_max_us = 0;
  job_id current_job = 0;
  std::uint64_t ahead = 0;
  bool operator==(const device_usage&) const = default;
};

// The scheduler's view of a cluster node: how much of its capacity it uses.
struct node_load {
  std::uint64_t id = 0;
  std::uint32_t busy = 0;
  std::uint64_t proofs = 0, failures = 0, busy_us = 0;
  // Its proofs refused (failures too): they did not verify against their partition's public inputs,
  // which the coordinator computes from the job's input.
  std::uint64_t refused = 0;
  bool operator==(const node_load&) const = default;
};

// A job that no place can prove now: this engine has no local devices (a coordinator_only one)
// and no joined node offers its key; it runs when such a node joins.
struct job_wait {
  job_id job = 0;
  std::string reason;  // "waiting for a node holding v28-...params (digest ...)"
  bool operator==(const job_wait&) const = default;
};

struct scheduler_status {
  std::vector<device_usage> devices;
  std::uint64_t retries = 0, tasks_queued = 0, tasks_running = 0;
  std::vector<node_load> nodes;
  std::uint64_t stale_results = 0;  // answers of abandoned attempts (a node thought dead, a late worker)
  // Partitions waiting in the host budget's queue now, and waits that a grant coming home to the
  // key's kept buffers served (their queued request withdrawn).
  std::uint64_t host_waits = 0, waits_served_home = 0;
  // Partitions synthesized and waiting for a device's stager (none free, or every device holding
  // engine_settings' backend.staged_partitions of its partitions).
  std::uint64_t device_waits = 0;
  std::vector<job_wait> waiting;  // jobs waiting for a node (see job_wait)
  bool operator==(const scheduler_status&) const = default;
};

// ---- the supervisor ------------------------------------------------------------------------------

struct fault_record {
  role who = role::synthesizer;
  std::uint32_t slot = 0;
  std::string reason;
  std::uint64_t at_us = 0;  // since the engine started
  bool operator==(const fault_record&) const = default;
};

struct supervisor_status {
  std::vector<fault_record> faults;
  std::uint64_t respawns = 0;
  bool operator==(const supervisor_status&) const = default;
};

// ---- the key store -------------------------------------------------------------------------------

// A device's B2 plan for a key (zk/groth16/b2_plan.hpp), from its latest proof of the key: where B2
// ran, the cost model's predictions and the rates it planned with (points per second: after a key's
// first proofs the measured ones, which [gpus] b2_device_rate / b2_host_rate can be seeded with), and
// that proof's measured times. predicted_*: 0 without a model (a probe, a forced mode without rates).
struct b2_plan_status {
  std::uint32_t device = 0;
  std::string mode;  // device | host | split
  std::uint64_t points = 0, host_points = 0;
  double predicted_ms = 0, predicted_device_ms = 0, predicted_host_ms = 0;
  double device_rate = 0, host_rate = 0;
  double device_ms = 0, host_ms = 0, main_lane_ms = 0;  // B2's device part, its host part, the main lane
  std::uint64_t proofs = 0;  // proofs of the key with a plan on that device
  std::string why;           // the model's line
  bool operator==(const b2_plan_status&) const = default;
};

struct key_status {
  std::string path;  // the zkey or .params file
  key_tier tier = key_tier::cold;
  std::uint32_t leases = 0;  // partitions holding it now
  std::uint64_t bytes = 0;   // what it has reserved from the host budget (the evaluator)
  std::vector<std::uint32_t> resident_on;  // devices holding its points (the tier above hot)
  std::vector<std::string> placement_on;   // per device of resident_on: resident, partly resident, streamed
  // Its kept partition buffers (a PoRep or synthetic key's): vectors taken with their memory from the
  // ones kept, and taken fresh (allocated anew); 0 and 0 for keys without.
  std::uint64_t buffers_reused = 0, buffers_fresh = 0;
  // Partition grants its buffers hold (each keeps one idle set beyond the reserved ones; in the host
  // budget, not in the key's bytes), their bytes, and the grants its partitions have out (each comes
  // back to the buffers when its partition's set does).
  std::uint64_t buffers_held_grants = 0, buffers_held_bytes = 0, buffers_grants_out = 0;
  // Of bytes: the host copy of its B2 points (reserved with the key, filled by its first proof with
  // B2 on the host); 0 when B2 reads the key's own points or stays on the devices.
  std::uint64_t b2_host_bytes = 0;
  std::vector<b2_plan_status> b2_plans;  // per device that proved it on a GPU backend with a B2 plan
  bool operator==(const key_status&) const = default;
};

// The resident tier on one device: the grants of the keys resident there, and its history. What
// else that device's VRAM budget holds is staged partitions (staged_bytes below).
struct residency_status {
  std::uint32_t device = 0;
  std::uint64_t resident_bytes = 0;
  std::uint32_t keys = 0;
  std::uint64_t loads = 0, evictions = 0;
  bool operator==(const residency_status&) const = default;
};

struct key_store_status {
  std::vector<key_status> keys;  // every key it has seen (an evicted one is cold)
  std::uint64_t loads = 0, evaluator_builds = 0, evictions = 0, reserved_bytes = 0;
  std::uint64_t evaluator_records = 0;  // PoRep evaluator files recorded (absent or stale at a load)
  std::vector<residency_status> devices;
  bool operator==(const key_store_status&) const = default;
};

// A device's VRAM budget holds the keys resident there and the partitions staged there: the
// staged bytes are what the budget has granted beyond the residency's grants.
inline std::uint64_t staged_bytes(const budget_status& vram, const residency_status& r) {
  return vram.in_use > r.resident_bytes ? vram.in_use - r.resident_bytes : 0;
}
inline std::uint64_t free_bytes(const budget_status& b) { return b.capacity > b.in_use ? b.capacity - b.in_use : 0; }

// ---- a cluster: the coordinator's registrar, a worker's agent -------------------------------------

// A circuit a node can prove: its name there and its key's fingerprint (zkey_header::fingerprint),
// or a Filecoin parameter file of its param cache: the file's name and its parameters.json digest.
// kind: what it proves ("circom", or a Filecoin kind: "PoRep C2", "WindowPoSt", "WinningPoSt").
struct key_offer {
  std::string name, fingerprint, kind;
  bool operator==(const key_offer&) const = default;
};

struct node_info {
  std::uint64_t id = 0;
  std::string name, build;
  bool alive = false;
  std::string lost_reason;  // when !alive
  std::uint32_t slots = 0;
  std::vector<std::string> devices;
  std::vector<key_offer> keys;
  std::uint64_t joined_us = 0, last_seen_us = 0;  // steady clock
  bool operator==(const node_info&) const = default;
};

struct registrar_status {
  std::vector<node_info> nodes;  // current, then the most recently lost
  std::uint64_t joins = 0, refused = 0, lost = 0;
  std::vector<std::string> refusals;  // the latest, one line each
  bool operator==(const registrar_status&) const = default;
};

// What a worker's agent knows of its coordinator.
struct agent_status {
  std::string coordinator;  // HOST:PORT
  std::string state;        // connecting | joining | joined | refused
  std::string detail;       // the last error or refusal
  std::uint64_t node_id = 0, joins = 0, tasks = 0, failures = 0;
  // Filecoin jobs' inputs received (one per job that sent partitions here) and held now.
  std::uint64_t payloads_received = 0, payloads_held = 0;
  bool operator==(const agent_status&) const = default;
};

}  // namespace cuzk::msg
