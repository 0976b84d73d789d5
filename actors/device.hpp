// A device (actors/device.cpp), one per GPU or CPU backend: proves one partition at a time from
// the inputs its stager placed there and the key's points resident there (a lease of the key
// store's resident tier); for the key store it sizes and makes those resident points.
#pragma once

#include <cstdint>
#include <string>

#include "actors/settings.hpp"
#include "caf/replies_to.hpp"
#include "caf/typed_actor.hpp"
#include "messages/common.hpp"
#include "zk/groth16/backend_registry.hpp"

namespace cuzk::msg {

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
  // The backend's stages in order ("H/NTT", "MSM A", ..., "B2 (G2)") and their milliseconds.
  std::vector<std::string> stage_names;
  std::vector<double> stage_ms;
  b2_plan_status b2;  // a GPU backend's B2 plan for this proof (mode empty: none); proofs unset
  bool operator==(const device_result&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, b2_plan_status& x) {
  return f(caf::meta::type_name("b2_plan_status"), x.device, x.mode, x.points, x.host_points, x.predicted_ms,
           x.predicted_device_ms, x.predicted_host_ms, x.device_rate, x.host_rate, x.device_ms, x.host_ms,
           x.main_lane_ms, x.proofs, x.why);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, device_result& x) {
  return f(caf::meta::type_name("device_result"), x.task, x.output, x.started_us, x.elapsed_us,
           x.stage_names, x.stage_ms, x.b2);
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

// A device: proves partitions; for the key store, sizes (describe) and makes (load) a key's
// resident points on its backend (bool: with shifted sets, where the backend has them).
using device_actor = caf::typed_actor<                            //
    caf::replies_to<prove_request>::with<device_result>,          //
    caf::replies_to<describe_atom, key_handle, bool>::with<std::uint64_t>,  //
    caf::replies_to<load_atom, key_handle, bool>::with<resident_handle>,    //
    caf::replies_to<fail_alloc_atom, std::uint32_t>::with<std::uint32_t>,  // -> failures now pending
    caf::replies_to<status_atom>::with<device_status>>;

}  // namespace cuzk::msg

namespace cuzk::actors {

device_actor spawn_device(caf::actor_system& sys, std::uint32_t slot, std::string backend,
                          zk::groth16::backend_settings settings, fault_settings faults, std::uint64_t generation);

}  // namespace cuzk::actors
