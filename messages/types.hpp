// The engine's messages: plain structs with CAF `inspect` functions (CAF 0.17 style). Everything
// here is a value; the large buffers (witness, synthesis a/b/c, proving keys) travel in-process as
// shared_ptr<const T> handles and are never copied. Across processes a handle serializes its
// contents (witness, synthesis) or only its name (a proving key, which every node loads itself).
//
// No actor handles appear here, so this header is cheap to include; the messages that carry
// actor handles and the typed actor interfaces are in messages/interfaces.hpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fil/partition.hpp"
#include "messages/zk_inspect.hpp"
#include "zk/groth16/backend.hpp"
#include "zk/groth16/pce.hpp"
#include "zk/groth16/types.hpp"
#include "zk/io/wtns.hpp"
#include "zk/io/zkey.hpp"

namespace cuzk::msg {

using job_id = std::uint64_t;

// Declared low to high so that a larger value is more urgent.
enum class priority : std::uint8_t { low = 0, normal = 1, high = 2, critical = 3 };
enum class job_state : std::uint8_t { queued = 0, running = 1, succeeded = 2, failed = 3, canceled = 4 };

// ---- handles to large immutable buffers -------------------------------------------------------

// Keeps something alive (a budget reservation, a key lease) while a handle travels. Never
// serialized: what it guards is local to the process that made it.
struct keepalive {
  std::shared_ptr<const void> ptr;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, keepalive&) {
  return f(caf::meta::type_name("keepalive"));
}

// A proving key with its constraint evaluator, as the key store hands it out (a lease: the key
// store evicts only keys whose handle nobody else holds).
struct circuit_key {
  std::shared_ptr<const zk::io::zkey> zkey;
  std::shared_ptr<const zk::groth16::constraint_evaluator> evaluator;
  std::uint64_t evaluator_bytes = 0;
};

struct key_handle {
  std::string path;                   // the zkey file: the name every node resolves on its own
  std::uint64_t synthesis_bytes = 0;  // host bytes one partition's synthesis holds
  std::uint64_t device_bytes = 0;     // device bytes one partition's proof reserves
  std::shared_ptr<const circuit_key> ptr;  // in-process only
  bool operator==(const key_handle& o) const {
    return path == o.path && synthesis_bytes == o.synthesis_bytes && device_bytes == o.device_bytes;
  }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, key_handle& x) {
  return f(caf::meta::type_name("key_handle"), x.path, x.synthesis_bytes, x.device_bytes);
}

// A key's points on one device: the key store's tier above "hot". The device's backend made them
// (backend::load_key: for a GPU a device key holding the points, their shifted sets and the proof's
// scratch allowance), only after that device's VRAM budget granted `bytes`; the grant travels with
// them and returns when the last handle goes. In-process only. A handle is a lease: the key store
// evicts an entry only when nobody else holds it.
struct device_resident {
  std::shared_ptr<const zk::groth16::resident_key> key;  // null where the backend keeps nothing (a CPU)
  std::uint64_t bytes = 0;
  keepalive grant;
};

struct resident_handle {
  std::string path;
  std::uint32_t device = 0;
  std::shared_ptr<const device_resident> ptr;  // in-process only
  bool operator==(const resident_handle& o) const { return path == o.path && device == o.device && ptr == o.ptr; }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, resident_handle& x) {
  return f(caf::meta::type_name("resident_handle"), x.path, x.device);
}

// A verifying key, in-process only (the assembler checks every partition proof against it).
struct verifier_handle {
  std::shared_ptr<const zk::groth16::verifying_key> ptr;
  bool operator==(const verifier_handle& o) const { return ptr == o.ptr; }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, verifier_handle&) {
  return f(caf::meta::type_name("verifier_handle"));
}

// A key as its header describes it (zk::io::zkey_header): read without loading the key's points.
struct key_summary {
  std::string path, fingerprint;
  verifier_handle vk;
  bool operator==(const key_summary&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, key_summary& x) {
  return f(caf::meta::type_name("key_summary"), x.path, x.fingerprint, x.vk);
}

struct witness_handle {
  std::shared_ptr<const zk::io::witness> ptr;
  bool operator==(const witness_handle& o) const {
    if (!ptr || !o.ptr) return !ptr && !o.ptr;
    return ptr == o.ptr || ptr->values == o.ptr->values;
  }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, witness_handle& x) {
  bool present = false;
  std::vector<std::uint64_t> words;
  if constexpr (Inspector::reads_state) {
    present = bool(x.ptr);
    if (x.ptr) words = detail::to_words(x.ptr->values.data(), x.ptr->values.size());
  }
  auto load = caf::meta::load_callback([&]() -> caf::error {
    if (!present) {
      x.ptr.reset();
      return caf::none;
    }
    auto w = std::make_shared<zk::io::witness>();
    w->values.resize(words.size() / 4);
    if (!detail::from_words(words, w->values.data(), w->values.size()))
      return caf::make_error(caf::sec::invalid_argument);
    x.ptr = std::move(w);
    return caf::none;
  });
  return f(caf::meta::type_name("witness_handle"), present, words, load);
}

// A Filecoin partition's inputs (fil/partition.hpp): the job's vanilla proofs, shared by its
// partitions in-process, and which partition this is. The synthesizer computes the witness.
struct fil_input_handle {
  std::shared_ptr<const fil::job_input> ptr;
  std::uint32_t partition = 0;
  bool operator==(const fil_input_handle& o) const {
    if (!ptr || !o.ptr) return !ptr && !o.ptr && partition == o.partition;
    return partition == o.partition && (ptr == o.ptr || *ptr == *o.ptr);
  }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, fil_input_handle& x) {
  bool present = false;
  fil::job_input in;
  std::uint8_t kind = 0;
  std::vector<std::uint8_t> randomness;
  if constexpr (Inspector::reads_state) {
    present = bool(x.ptr);
    if (x.ptr) in = *x.ptr;
    kind = static_cast<std::uint8_t>(in.kind);
    randomness.assign(in.randomness.begin(), in.randomness.end());
  }
  auto load = caf::meta::load_callback([&]() -> caf::error {
    if (!present) {
      x.ptr.reset();
      return caf::none;
    }
    if (randomness.size() != in.randomness.size()) return caf::make_error(caf::sec::invalid_argument);
    in.kind = static_cast<fil::proof_kind>(kind);
    std::copy(randomness.begin(), randomness.end(), in.randomness.begin());
    x.ptr = std::make_shared<const fil::job_input>(std::move(in));
    return caf::none;
  });
  return f(caf::meta::type_name("fil_input_handle"), present, kind, in.registered_proof, in.miner_id,
           in.sector_number, randomness, in.partition_index, in.vanilla_proofs, in.c1, x.partition, load);
}

// A partition's witness: a file to load, values already in memory, or Filecoin vanilla proofs.
struct witness_source {
  std::string path;
  witness_handle data;
  fil_input_handle fil;
  bool operator==(const witness_source&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, witness_source& x) {
  return f(caf::meta::type_name("witness_source"), x.path, x.data, x.fil);
}

// a = A·w, b = B·w, c = a∘b of one partition. `reservation` is the host-budget grant that
// accounts for these bytes: it is released when the last holder of the handle lets go.
struct synthesis_handle {
  std::shared_ptr<const zk::groth16::synthesis> ptr;
  keepalive reservation;
  bool operator==(const synthesis_handle& o) const {
    if (!ptr || !o.ptr) return !ptr && !o.ptr;
    return ptr == o.ptr || (ptr->a == o.ptr->a && ptr->b == o.ptr->b && ptr->c == o.ptr->c);
  }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, synthesis_handle& x) {
  bool present = false;
  std::vector<std::uint64_t> a, b, c;
  if constexpr (Inspector::reads_state) {
    present = bool(x.ptr);
    if (x.ptr) {
      a = detail::to_words(x.ptr->a.data(), x.ptr->a.size());
      b = detail::to_words(x.ptr->b.data(), x.ptr->b.size());
      c = detail::to_words(x.ptr->c.data(), x.ptr->c.size());
    }
  }
  auto load = caf::meta::load_callback([&]() -> caf::error {
    x.reservation.ptr.reset();
    if (!present) {
      x.ptr.reset();
      return caf::none;
    }
    auto s = std::make_shared<zk::groth16::synthesis>();
    s->a.resize(a.size() / 4);
    s->b.resize(b.size() / 4);
    s->c.resize(c.size() / 4);
    if (!detail::from_words(a, s->a.data(), s->a.size()) || !detail::from_words(b, s->b.data(), s->b.size()) ||
        !detail::from_words(c, s->c.data(), s->c.size()))
      return caf::make_error(caf::sec::invalid_argument);
    x.ptr = std::move(s);
    return caf::none;
  });
  return f(caf::meta::type_name("synthesis_handle"), present, a, b, c, load);
}

// ---- jobs -------------------------------------------------------------------------------------

// One attempt at one partition. `ticket` is unique per dispatch: a late answer whose ticket is not
// the partition's current one belongs to an abandoned attempt and is dropped.
struct task_ref {
  job_id job = 0;
  std::uint32_t index = 0;
  std::uint32_t attempt = 0;
  std::uint64_t ticket = 0;
  bool operator==(const task_ref&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, task_ref& x) {
  return f(caf::meta::type_name("task_ref"), x.job, x.index, x.attempt, x.ticket);
}

struct job_spec {
  std::string request_id;  // the client's id: submitting it again returns the same job
  std::string circuit;     // zkey path (names are resolved by intake)
  priority prio = priority::normal;
  std::vector<witness_source> partitions;
  bool fixed_randomness = false;  // tests: every partition uses `randomness`
  zk::groth16::randomness randomness{};
  bool operator==(const job_spec& o) const {
    return request_id == o.request_id && circuit == o.circuit && prio == o.prio && partitions == o.partitions &&
           fixed_randomness == o.fixed_randomness && randomness.r == o.randomness.r && randomness.s == o.randomness.s;
  }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, job_spec& x) {
  return f(caf::meta::type_name("job_spec"), x.request_id, x.circuit, x.prio, x.partitions, x.fixed_randomness,
           x.randomness);
}

// What intake hands the scheduler: an accepted job.
struct job_ticket {
  job_id job = 0;
  job_spec spec;
  bool operator==(const job_ticket&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, job_ticket& x) {
  return f(caf::meta::type_name("job_ticket"), x.job, x.spec);
}

// Microseconds. queue: submit to first dispatch; key: waiting for the key (max over partitions);
// synthesis and device: summed over the job's partitions; total: submit to finish. device_start:
// when its first partition began on a local device (now_us(): comparable between jobs), 0 if none.
struct job_timings {
  std::uint64_t queue_us = 0, key_us = 0, synthesis_us = 0, device_us = 0, total_us = 0, device_start_us = 0;
  bool operator==(const job_timings&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, job_timings& x) {
  return f(caf::meta::type_name("job_timings"), x.queue_us, x.key_us, x.synthesis_us, x.device_us, x.total_us,
           x.device_start_us);
}

struct partition_output {
  zk::groth16::proof proof;
  std::vector<zk::bigint<4>> publics;
  bool operator==(const partition_output&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, partition_output& x) {
  return f(caf::meta::type_name("partition_output"), x.proof, x.publics);
}

// One partition's path through the pipeline, for timelines (now_us(), the scheduler's steady
// clock; 0: the stage did not run here, e.g. proved by a cluster node): the synthesizer and device
// of its last attempt ("synth:N", the device's label).
struct partition_timing {
  std::uint32_t partition = 0;
  std::string synthesizer, device;
  std::uint64_t synth_start_us = 0, synth_end_us = 0, device_start_us = 0, device_end_us = 0;
  bool operator==(const partition_timing&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, partition_timing& x) {
  return f(caf::meta::type_name("partition_timing"), x.partition, x.synthesizer, x.device, x.synth_start_us,
           x.synth_end_us, x.device_start_us, x.device_end_us);
}

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
  bool operator==(const job_outcome&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, job_outcome& x) {
  return f(caf::meta::type_name("job_outcome"), x.job, x.state, x.partitions, x.compressed, x.reasons, x.timings,
           x.attempts, x.bad_input, x.partition_timings);
}

// ---- budgets ----------------------------------------------------------------------------------

struct reservation {
  std::uint64_t id = 0;
  std::uint64_t bytes = 0;
  bool operator==(const reservation&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, reservation& x) {
  return f(caf::meta::type_name("reservation"), x.id, x.bytes);
}

struct budget_status {
  std::string name;
  std::uint64_t capacity = 0, in_use = 0, peak = 0, queued_bytes = 0;
  std::uint32_t queued = 0, reservations = 0;
  std::uint64_t granted_total = 0, reclaimed_total = 0;
  std::uint64_t held_bytes = 0;  // of in_use: grants a live reservation token guards
  bool operator==(const budget_status&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, budget_status& x) {
  return f(caf::meta::type_name("budget_status"), x.name, x.capacity, x.in_use, x.peak, x.queued_bytes, x.queued,
           x.reservations, x.granted_total, x.reclaimed_total, x.held_bytes);
}

// ---- workers ----------------------------------------------------------------------------------

struct synth_request {
  task_ref task;
  key_handle key;
  witness_source witness;
  bool operator==(const synth_request&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, synth_request& x) {
  return f(caf::meta::type_name("synth_request"), x.task, x.key, x.witness);
}

struct synth_result {
  task_ref task;
  synthesis_handle synthesis;
  witness_handle witness;  // loaded from the source's path when it named a file
  std::uint64_t elapsed_us = 0;
  bool operator==(const synth_result&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, synth_result& x) {
  return f(caf::meta::type_name("synth_result"), x.task, x.synthesis, x.witness, x.elapsed_us);
}

// A partition's inputs placed on a device by its stager (zk::groth16::staged_inputs: device memory
// for a GPU), in-process only. Whoever holds the last handle owns the memory, and the VRAM grant
// that accounts for it travels with it.
struct staged_handle {
  std::shared_ptr<zk::groth16::staged_inputs> ptr;
  keepalive device_reservation;
  bool operator==(const staged_handle& o) const { return ptr == o.ptr; }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, staged_handle&) {
  return f(caf::meta::type_name("staged_handle"));
}

// To a device's stager: upload this partition (the VRAM grant is already held).
struct stage_request {
  task_ref task;
  key_handle key;
  synthesis_handle synthesis;
  witness_handle witness;
  keepalive device_reservation;
  bool operator==(const stage_request& o) const {
    return task == o.task && key == o.key && synthesis == o.synthesis && witness == o.witness;
  }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, stage_request& x) {
  return f(caf::meta::type_name("stage_request"), x.task, x.key, x.synthesis, x.witness, x.device_reservation);
}

struct stage_result {
  task_ref task;
  staged_handle staged;
  std::uint64_t elapsed_us = 0;
  bool operator==(const stage_result&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, stage_result& x) {
  return f(caf::meta::type_name("stage_result"), x.task, x.staged, x.elapsed_us);
}

// To a device: prove one partition from the inputs its stager placed there (the staged handle
// carries the VRAM grant), on the key's points resident there (a lease of the key store's tier).
struct prove_request {
  task_ref task;
  key_handle key;
  resident_handle resident;
  staged_handle staged;
  witness_handle witness;
  bool fixed_randomness = false;
  zk::groth16::randomness randomness{};
  bool operator==(const prove_request& o) const {
    return task == o.task && key == o.key && resident == o.resident && staged == o.staged && witness == o.witness &&
           fixed_randomness == o.fixed_randomness && randomness.r == o.randomness.r && randomness.s == o.randomness.s;
  }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, prove_request& x) {
  return f(caf::meta::type_name("prove_request"), x.task, x.key, x.resident, x.staged, x.witness,
           x.fixed_randomness, x.randomness);
}

struct device_result {
  task_ref task;
  partition_output output;
  std::uint64_t started_us = 0;  // now_us() when the device began (same process as the scheduler)
  std::uint64_t elapsed_us = 0;
  bool operator==(const device_result&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, device_result& x) {
  return f(caf::meta::type_name("device_result"), x.task, x.output, x.started_us, x.elapsed_us);
}

struct device_status {
  std::string name, backend;
  std::uint64_t proofs = 0, failures = 0, busy_us = 0;
  bool operator==(const device_status&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, device_status& x) {
  return f(caf::meta::type_name("device_status"), x.name, x.backend, x.proofs, x.failures, x.busy_us);
}

struct assemble_request {
  task_ref task;
  std::uint32_t n_partitions = 0;
  verifier_handle vk;
  partition_output output;
  bool operator==(const assemble_request&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, assemble_request& x) {
  return f(caf::meta::type_name("assemble_request"), x.task, x.n_partitions, x.vk, x.output);
}

struct assembly_ack {
  task_ref task;
  bool complete = false;                     // all partitions verified: the job's proof follows
  std::vector<partition_output> partitions;  // when complete
  std::vector<std::uint8_t> compressed;      // when complete: 192 bytes per partition
  bool operator==(const assembly_ack&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, assembly_ack& x) {
  return f(caf::meta::type_name("assembly_ack"), x.task, x.complete, x.partitions, x.compressed);
}

// ---- status -----------------------------------------------------------------------------------

enum class key_tier : std::uint8_t { cold = 0, warm = 1, hot = 2 };

struct key_status {
  std::string path;
  key_tier tier = key_tier::cold;
  std::uint32_t leases = 0;
  std::uint64_t bytes = 0;
  std::vector<std::uint32_t> resident_on;  // devices holding its points (the tier above hot)
  bool operator==(const key_status&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, key_status& x) {
  return f(caf::meta::type_name("key_status"), x.path, x.tier, x.leases, x.bytes, x.resident_on);
}

// The resident tier on one device: the grants of the keys resident there, and its history.
struct residency_status {
  std::uint32_t device = 0;
  std::uint64_t resident_bytes = 0;
  std::uint32_t keys = 0, leased = 0, waiting = 0;
  std::uint64_t loads = 0, evictions = 0;
  bool operator==(const residency_status&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, residency_status& x) {
  return f(caf::meta::type_name("residency_status"), x.device, x.resident_bytes, x.keys, x.leased, x.waiting,
           x.loads, x.evictions);
}

struct key_store_status {
  std::vector<key_status> keys;
  std::uint64_t loads = 0, evaluator_builds = 0, evictions = 0, reserved_bytes = 0;
  std::vector<residency_status> devices;
  bool operator==(const key_store_status&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, key_store_status& x) {
  return f(caf::meta::type_name("key_store_status"), x.keys, x.loads, x.evaluator_builds, x.evictions,
           x.reserved_bytes, x.devices);
}

// gaps: partitions that were already staged when the previous one ended on the device; gap_us:
// the device's idle time before them (previous end to this start, as the device measures it).
// current_job: the job whose partition the device is proving now, else the job of the partition
// staged next on it (0: none).
struct device_usage {
  std::string name;
  std::uint64_t busy_us = 0, proofs = 0;
  std::uint64_t gaps = 0, gap_us = 0, gap_max_us = 0;
  job_id current_job = 0;
  bool operator==(const device_usage&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, device_usage& x) {
  return f(caf::meta::type_name("device_usage"), x.name, x.busy_us, x.proofs, x.gaps, x.gap_us, x.gap_max_us,
           x.current_job);
}

// The scheduler's view of a cluster node: how much of its capacity it uses.
struct node_load {
  std::uint64_t id = 0;
  std::uint32_t busy = 0;
  std::uint64_t proofs = 0, failures = 0, busy_us = 0;
  bool operator==(const node_load&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_load& x) {
  return f(caf::meta::type_name("node_load"), x.id, x.busy, x.proofs, x.failures, x.busy_us);
}

struct scheduler_status {
  std::vector<device_usage> devices;
  std::uint64_t retries = 0, tasks_queued = 0, tasks_running = 0, jobs_active = 0, synthesizers = 0;
  std::vector<node_load> nodes;
  std::uint64_t stale_results = 0;  // answers of abandoned attempts (a node thought dead, a late worker)
  bool operator==(const scheduler_status&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, scheduler_status& x) {
  return f(caf::meta::type_name("scheduler_status"), x.devices, x.retries, x.tasks_queued, x.tasks_running,
           x.jobs_active, x.synthesizers, x.nodes, x.stale_results);
}

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
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, job_report& x) {
  return f(caf::meta::type_name("job_report"), x.job, x.request_id, x.state, x.prio, x.partitions, x.attempts,
           x.timings, x.reasons);
}

struct intake_status {
  std::vector<job_report> jobs;
  std::uint64_t accepted = 0, rejected = 0, duplicates = 0, succeeded = 0, failed = 0, canceled = 0;
  bool operator==(const intake_status&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, intake_status& x) {
  return f(caf::meta::type_name("intake_status"), x.jobs, x.accepted, x.rejected, x.duplicates, x.succeeded,
           x.failed, x.canceled);
}

// The supervised roles; `slot` numbers instances of a role (synthesizer 3, device 0, ...).
enum class role : std::uint8_t {
  host_budget = 0, vram_budget, key_store, synthesizer, device, assembler, scheduler, intake, remote_synthesizer,
  stager
};
const char* to_string(role r);

struct fault_record {
  role who = role::synthesizer;
  std::uint32_t slot = 0;
  std::string reason;
  std::uint64_t at_us = 0;  // since the engine started
  bool operator==(const fault_record&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, fault_record& x) {
  return f(caf::meta::type_name("fault_record"), x.who, x.slot, x.reason, x.at_us);
}

struct supervisor_status {
  std::vector<fault_record> faults;
  std::uint64_t respawns = 0;
  bool operator==(const supervisor_status&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, supervisor_status& x) {
  return f(caf::meta::type_name("supervisor_status"), x.faults, x.respawns);
}

}  // namespace cuzk::msg
