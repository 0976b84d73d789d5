// Intake (actors/intake.cpp): validates requests, assigns job ids (idempotent on the client's
// request id), hands jobs to the scheduler and answers await / cancel / status.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "actors/scheduler.hpp"
#include "actors/settings.hpp"
#include "caf/replies_to.hpp"
#include "caf/typed_actor.hpp"
#include "messages/common.hpp"

namespace cuzk::msg {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, job_report& x) {
  return f(caf::meta::type_name("job_report"), x.job, x.request_id, x.state, x.prio, x.partitions, x.attempts,
           x.timings, x.reasons);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, intake_status& x) {
  return f(caf::meta::type_name("intake_status"), x.jobs, x.accepted, x.rejected, x.duplicates, x.succeeded,
           x.failed, x.canceled);
}

using intake_actor = caf::typed_actor<                            //
    caf::replies_to<job_spec>::with<job_id>,                      //
    caf::replies_to<await_atom, job_id>::with<job_outcome>,       //
    caf::replies_to<cancel_atom, job_id>::with<bool>,             //
    caf::reacts_to<forget_atom, job_id>,                          // a finished job's record is no longer needed
    caf::replies_to<status_atom>::with<intake_status>>;

}  // namespace cuzk::msg

namespace cuzk::actors {

intake_actor spawn_intake(caf::actor_system& sys, scheduler_actor scheduler, engine_settings settings);

}  // namespace cuzk::actors
