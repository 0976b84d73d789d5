// Intake: the engine's front door. Validates requests, assigns job ids (idempotent on the client's
// request id: the same id returns the same job and submits nothing), enforces the limit on active
// jobs, hands accepted jobs to the scheduler and keeps their outcomes for await / status.
// Every job's outcome is recorded once; awaiting a finished job answers from the record.
#include <map>
#include <optional>

#include "actors/intake.hpp"
#include "zk/groth16/synthetic_srs.hpp"
#include "caf/all.hpp"

namespace cuzk::actors {

namespace {

struct job_record {
  std::string request_id;
  job_state state = job_state::running;
  priority prio = priority::normal;
  std::uint32_t partitions = 0;
  job_outcome outcome;
  std::vector<caf::typed_response_promise<job_outcome>> awaiters;
  bool finished() const { return state != job_state::running && state != job_state::queued; }
};

struct intake_state {
  intake_state() = default;  // not an aggregate: CAF would construct it from the actor pointer
  scheduler_actor scheduler;
  engine_settings settings;
  std::map<job_id, job_record> jobs;
  std::map<std::string, job_id> by_request_id;
  job_id next_id = 1;
  std::size_t active = 0;
  std::uint64_t accepted = 0, rejected = 0, duplicates = 0, succeeded = 0, failed = 0, canceled = 0;
};

using intake_ptr = intake_actor::stateful_pointer<intake_state>;

void record(intake_ptr self, job_id id, job_outcome out) {
  auto& st = self->state;
  auto it = st.jobs.find(id);
  if (it == st.jobs.end() || it->second.finished()) return;  // answered already: never twice
  auto& r = it->second;
  r.state = out.state;
  out.job = id;
  r.outcome = std::move(out);
  --st.active;
  if (r.state == job_state::succeeded) ++st.succeeded;
  else if (r.state == job_state::canceled) ++st.canceled;
  else ++st.failed;
  for (auto& a : r.awaiters) a.deliver(r.outcome);
  r.awaiters.clear();
}

caf::error validate(const intake_state& st, job_spec& spec) {
  if (spec.circuit.empty()) return make_error(errc::invalid_request, "request: no circuit");
  if (auto it = st.settings.circuits.find(spec.circuit); it != st.settings.circuits.end())
    spec.circuit = it->second;
  if (zk::groth16::is_synthetic_key_path(spec.circuit) && !spec.synthetic_bench)
    return make_error(errc::invalid_request, "request: " + spec.circuit +
                                                 " is a synthetic key (NOT A SETUP: its proofs never verify); only a "
                                                 "synthetic bench may prove with it");
  if (spec.partitions.empty()) return make_error(errc::invalid_request, "request: no partitions");
  if (spec.partitions.size() > st.settings.max_partitions)
    return make_error(errc::invalid_request, "request: " + std::to_string(spec.partitions.size()) +
                                                 " partitions, at most " +
                                                 std::to_string(st.settings.max_partitions));
  for (std::size_t i = 0; i < spec.partitions.size(); ++i) {
    auto& w = spec.partitions[i];
    if (w.path.empty() && !w.data.ptr && !w.fil.ptr)
      return make_error(errc::invalid_request, "request: partition " + std::to_string(i) + " has no witness");
  }
  return caf::none;
}

// The engine proves nothing itself (no devices, or no synthesizer: a coordinator_only engine):
// a job is accepted only when a joined node can take it (the scheduler's place_atom).
bool proves_locally(const engine_settings& s) {
  return !s.devices.empty() && (s.synthesizers > 0 || !s.remote_synthesizers.empty());
}

// Checked and (where nothing proves locally) placeable: the job gets its id and goes to the scheduler.
job_id accept(intake_ptr self, job_spec spec) {
  auto& st = self->state;
  auto id = st.next_id++;
  auto& r = st.jobs[id];
  r.request_id = spec.request_id;
  r.prio = spec.prio;
  r.partitions = static_cast<std::uint32_t>(spec.partitions.size());
  if (!spec.request_id.empty()) st.by_request_id[spec.request_id] = id;
  ++st.active;
  ++st.accepted;
  self->request(st.scheduler, caf::infinite, job_ticket{id, std::move(spec)})
      .then([self, id](job_outcome& out) { record(self, id, std::move(out)); },
            [self, id](caf::error& e) {
              job_outcome out;
              out.state = job_state::failed;
              out.reasons.push_back("scheduler: " + describe(e));
              record(self, id, std::move(out));
            });
  return id;
}

// A request id seen before (a duplicate submit) answers its job.
std::optional<job_id> known(intake_ptr self, const job_spec& spec) {
  auto& st = self->state;
  if (spec.request_id.empty()) return std::nullopt;
  auto it = st.by_request_id.find(spec.request_id);
  if (it == st.by_request_id.end()) return std::nullopt;
  ++st.duplicates;
  return it->second;
}

caf::error over_limit(intake_ptr self) {
  auto& st = self->state;
  if (st.active < st.settings.max_active_jobs) return caf::none;
  ++st.rejected;
  return make_error(errc::queue_full, "intake: " + std::to_string(st.active) + " jobs active, limit " +
                                          std::to_string(st.settings.max_active_jobs));
}

intake_actor::behavior_type intake(intake_ptr self, scheduler_actor scheduler, engine_settings settings) {
  self->state.scheduler = std::move(scheduler);
  self->state.settings = std::move(settings);
  return {
      [self](job_spec& spec) -> caf::result<job_id> {
        auto& st = self->state;
        if (auto id = known(self, spec)) return *id;
        if (auto err = validate(st, spec)) {
          ++st.rejected;
          return err;
        }
        if (auto err = over_limit(self)) return err;
        if (proves_locally(st.settings)) return accept(self, std::move(spec));
        // Refused now rather than accepted to hang: the scheduler knows the nodes and their keys.
        auto rp = self->make_response_promise<job_id>();
        auto circuit = spec.circuit, fingerprint = spec.key_fingerprint;
        self->request(st.scheduler, st.settings.step_timeout, place_atom::value, std::move(circuit),
                      std::move(fingerprint))
            .then(
                [self, rp, spec = std::move(spec)](std::string& missing) mutable {
                  auto& st = self->state;
                  if (auto id = known(self, spec)) {  // the same request id came meanwhile
                    rp.deliver(*id);
                  } else if (!missing.empty()) {
                    ++st.rejected;
                    rp.deliver(make_error(errc::failed_precondition, missing));
                  } else if (auto err = over_limit(self)) {
                    rp.deliver(std::move(err));
                  } else {
                    rp.deliver(accept(self, std::move(spec)));
                  }
                },
                [self, rp](caf::error& e) mutable {
                  ++self->state.rejected;
                  rp.deliver(std::move(e));
                });
        return rp;
      },
      [self](await_atom, job_id id) -> caf::result<job_outcome> {
        auto it = self->state.jobs.find(id);
        if (it == self->state.jobs.end())
          return make_error(errc::unknown_job, "job " + std::to_string(id) + " is unknown");
        if (it->second.finished()) return it->second.outcome;
        auto rp = self->make_response_promise<job_outcome>();
        it->second.awaiters.push_back(rp);
        return rp;
      },
      [self](cancel_atom, job_id id) -> bool {
        auto it = self->state.jobs.find(id);
        if (it == self->state.jobs.end() || it->second.finished()) return false;
        self->send(self->state.scheduler, cancel_atom::value, id);
        return true;
      },
      [self](forget_atom, job_id id) {
        auto& st = self->state;
        auto it = st.jobs.find(id);
        if (it == st.jobs.end() || !it->second.finished()) return;
        if (auto r = st.by_request_id.find(it->second.request_id); r != st.by_request_id.end() && r->second == id)
          st.by_request_id.erase(r);
        st.jobs.erase(it);
      },
      [self](status_atom) -> intake_status {
        auto& st = self->state;
        intake_status s;
        s.accepted = st.accepted;
        s.rejected = st.rejected;
        s.duplicates = st.duplicates;
        s.succeeded = st.succeeded;
        s.failed = st.failed;
        s.canceled = st.canceled;
        for (auto& [id, r] : st.jobs) {
          job_report j;
          j.job = id;
          j.request_id = r.request_id;
          j.state = r.state;
          j.prio = r.prio;
          j.partitions = r.partitions;
          j.attempts = r.outcome.attempts;
          j.timings = r.outcome.timings;
          j.reasons = r.outcome.reasons;
          s.jobs.push_back(std::move(j));
        }
        return s;
      },
  };
}

}  // namespace

intake_actor spawn_intake(caf::actor_system& sys, scheduler_actor scheduler, engine_settings settings) {
  return sys.spawn(intake, std::move(scheduler), std::move(settings));
}

}  // namespace cuzk::actors
