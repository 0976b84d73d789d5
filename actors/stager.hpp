// A device's stager (actors/stager.cpp): uploads the next partition's inputs while the device
// proves the current one.
#pragma once

#include <cstdint>
#include <string>

#include "actors/settings.hpp"
#include "caf/replies_to.hpp"
#include "caf/typed_actor.hpp"
#include "messages/common.hpp"
#include "zk/groth16/backend.hpp"

namespace cuzk::msg {

// To a device's stager: upload this partition (the VRAM grant is already held).
struct stage_request {
  task_ref task;
  key_handle key;
  synthesis_handle synthesis;
  witness_handle witness;
  keepalive device_reservation;
  resident_handle resident;  // the key on this device (a copy of the partition's lease), or empty
  bool operator==(const stage_request& o) const {
    return task == o.task && key == o.key && synthesis == o.synthesis && witness == o.witness;
  }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, stage_request& x) {
  return f(caf::meta::type_name("stage_request"), x.task, x.key, x.synthesis, x.witness, x.device_reservation,
           x.resident);
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

// One per device, on its own thread: places a partition's inputs on the device (its own upload
// stream and pinned buffers) while the device computes the previous partition.
using stager_actor = caf::typed_actor<caf::replies_to<stage_request>::with<stage_result>>;

}  // namespace cuzk::msg

namespace cuzk::actors {

// The stager of device `slot`, for that device's backend; spawned detached (uploads block).
stager_actor spawn_stager(caf::actor_system& sys, std::uint32_t slot, std::string backend);

// Which way a partition goes onto device `device` (one formula for the scheduler's VRAM grant and the
// stager's path): its witness alone when its synthesis is witness-only (no a, b, c: synthesizers
// make it so when every device evaluates them, engine_settings::device_synthesis) and the key
// resident there holds the key's device evaluator (resident_key::synthesizes); a, b, c and the
// witness otherwise (evaluated on the host by the stager first when the synthesis has none).
bool stages_witness_only(const key_handle& key, const zk::groth16::synthesis& syn, const resident_handle& resident,
                         std::uint32_t device);
// Whether the key resident there makes the key's partitions stage their witness only (the part of
// stages_witness_only that does not depend on the partition: its synthesis is witness-only whenever
// key_handle::device_witness_bytes is set, the scheduler asks for it so).
bool resident_synthesizes(const key_handle& key, const resident_handle& resident, std::uint32_t device);
// The VRAM grant of one staged partition on that path: exactly its device's staging slot
// (zk::groth16::staged_bytes, set in the key's handle at its load).
std::uint64_t staging_grant_bytes(const key_handle& key, bool witness_only);

// The reserve step of staging (backend::reserve_staging): the slots a device makes when `key` goes
// resident there as `resident`, before its first partition: `staged_partitions` of them
// (backend_settings::staged_partitions, the engine's config::staged_partitions: by default
// max(2, device_depth), at depth 2 one proving, one waiting in the device's mailbox, the next
// staged as it is proved), each one
// staged partition's grant on the path its partitions take. No slots (count 0) for a key that is
// not resident there or a device with no depth given.
using staging_reserve = zk::groth16::staging_slots;
staging_reserve staging_reserve_for(const key_handle& key, const resident_handle& resident, std::uint32_t device,
                                    unsigned staged_partitions);

}  // namespace cuzk::actors
