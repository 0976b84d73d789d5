// The scheduler (actors/scheduler.cpp): every accepted job's partitions through the pipeline (key,
// host grant, synthesis, residency, VRAM grant, staging, proof, assembly), priorities, retries and
// cancellation; cluster nodes join it (node_joined) as remote capacity.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "actors/settings.hpp"
#include "actors/supervisor.hpp"
#include "caf/actor.hpp"
#include "caf/replies_to.hpp"
#include "caf/typed_actor.hpp"
#include "messages/common.hpp"

namespace cuzk::msg {

struct job_spec {
  std::string request_id;  // the client's id: submitting it again returns the same job
  std::string circuit;     // zkey path (names are resolved by intake)
  priority prio = priority::normal;
  std::vector<witness_source> partitions;
  bool fixed_randomness = false;  // tests: every partition uses `randomness`
  zk::groth16::randomness randomness{};
  // The caller runs a synthetic bench: a synthetic key (zk/groth16/synthetic_srs.hpp, NOT A SETUP)
  // is accepted and its proofs are released unverified. Without it a synthetic key is refused.
  bool synthetic_bench = false;
  // What cluster nodes are matched on: a Filecoin job's params file by its parameters.json digest
  // (the engine facade fills it in on a coordinator); empty: the key header's fingerprint (a zkey).
  std::string key_fingerprint;
  bool operator==(const job_spec& o) const {
    return request_id == o.request_id && circuit == o.circuit && prio == o.prio && partitions == o.partitions &&
           fixed_randomness == o.fixed_randomness && randomness.r == o.randomness.r && randomness.s == o.randomness.s &&
           synthetic_bench == o.synthetic_bench && key_fingerprint == o.key_fingerprint;
  }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, job_spec& x) {
  return f(caf::meta::type_name("job_spec"), x.request_id, x.circuit, x.prio, x.partitions, x.fixed_randomness,
           x.randomness, x.synthetic_bench, x.key_fingerprint);
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

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, partition_timing& x) {
  return f(caf::meta::type_name("partition_timing"), x.partition, x.synthesizer, x.device,
           x.synth_start_unix_us, x.synth_end_unix_us, x.device_start_unix_us, x.device_end_unix_us, x.stage_names,
           x.stage_ms, x.staged_unix_us, x.dispatch_unix_us, x.synth_alone);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, job_outcome& x) {
  return f(caf::meta::type_name("job_outcome"), x.job, x.state, x.partitions, x.compressed, x.reasons, x.timings,
           x.attempts, x.bad_input, x.partition_timings, x.unverified);
}

// Registrar -> scheduler: a node joined (or rejoined under a new id).
struct node_joined {
  std::uint64_t id = 0;
  std::string name;
  caf::actor agent;
  std::uint32_t slots = 0;
  std::vector<std::string> fingerprints;
  bool operator==(const node_joined&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_joined& x) {
  return f(caf::meta::type_name("node_joined"), x.id, x.name, x.agent, x.slots, x.fingerprints);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, device_usage& x) {
  return f(caf::meta::type_name("device_usage"), x.name, x.busy_us, x.proofs, x.gaps, x.gap_us, x.gap_max_us,
           x.current_job, x.ahead);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_load& x) {
  return f(caf::meta::type_name("node_load"), x.id, x.busy, x.proofs, x.failures, x.busy_us, x.refused);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, job_wait& x) {
  return f(caf::meta::type_name("job_wait"), x.job, x.reason);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, scheduler_status& x) {
  return f(caf::meta::type_name("scheduler_status"), x.devices, x.retries, x.tasks_queued, x.tasks_running, x.nodes,
           x.stale_results, x.host_waits, x.waits_served_home, x.device_waits, x.waiting);
}

// Answers a job_ticket when the job ends (succeeded, failed or canceled). place_atom (a circuit
// path, the job's key_fingerprint) answers "" when some place can prove that key now (local devices,
// or a joined node offering it), else one line naming what is missing.
using scheduler_actor = caf::typed_actor<                         //
    caf::replies_to<job_ticket>::with<job_outcome>,               //
    caf::replies_to<place_atom, std::string, std::string>::with<std::string>,  //
    caf::reacts_to<cancel_atom, job_id>,                          //
    caf::reacts_to<worker_replaced>,                              //
    caf::reacts_to<tick_atom>,                                    // a grant came home to a key's kept buffers
    caf::reacts_to<node_joined>,                                  //
    caf::reacts_to<node_lost_atom, std::uint64_t, std::string>,   //
    caf::replies_to<status_atom>::with<scheduler_status>>;

}  // namespace cuzk::msg

namespace cuzk::actors {

struct scheduler_setup {
  engine_settings settings;
  roster workers;  // synthesizers, devices, budgets, key store, assembler
};
scheduler_actor spawn_scheduler(caf::actor_system& sys, scheduler_setup setup);

}  // namespace cuzk::actors
