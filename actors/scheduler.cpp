// Scheduler: owns every accepted job's partitions and moves each through the pipeline (key lease,
// host grant, synthesis, resident key, VRAM grant, staging, proof, assembly), local devices and
// cluster nodes alike. Priority picks, per partition, the next synthesizer and the next device;
// the budgets bound concurrency. Every dispatch has a (ticket, step), so a stale answer is dropped
// and retries are idempotent; a failed step re-queues up to max_attempts, bad input fails at once,
// and an invalid proof gets one confirming attempt before it is the witness's fault (unless its
// key's evaluator file is found damaged: the daemon's fault, retried on the key loaded again). It
// answers intake's job_ticket with the job's outcome, exactly once, plus cancel and status.
// docs/architecture.md "The partition pipeline" describes each stage.
#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <set>
#include <tuple>

#include "actors/scheduler.hpp"
#include "actors/assembler.hpp"
#include "actors/budget.hpp"
#include "actors/device.hpp"
#include "actors/key_store.hpp"
#include "actors/node_agent.hpp"
#include "actors/stager.hpp"
#include "actors/synthesizer.hpp"
#include "caf/all.hpp"
#include "zk/groth16/pce.hpp"
#include "zk/groth16/pce_compact.hpp"

namespace cuzk::actors {

namespace {

// A partition's stages in its latest attempt on the steady clock (now_us()); the outcome reports
// them in unix time (partition_timing).
struct stage_stamps {
  std::string synthesizer, device;
  std::uint64_t synth_start = 0, synth_end = 0, device_start = 0, device_end = 0;
  std::uint64_t staged = 0, dispatch = 0;  // the stager's answer; the prove request sent
  std::vector<std::string> stage_names;  // the synthesizer's stages, "staging", then the device's
  std::vector<double> stage_ms;
  bool synth_alone = false;  // synthesized with the pool to itself (engine_settings::alone_below)
};

struct slot_t {
  caf::actor handle;
  bool alive = true;
  std::uint64_t ticket = 0;  // the dispatch it is busy with; 0 = idle
  // Devices: dispatches sent behind `ticket`, waiting in the device's mailbox, oldest first (at most
  // device_depth - 1); the device answers in this order.
  std::deque<std::uint64_t> waiting{};
  std::uint64_t busy_us = 0, proofs = 0;
  std::uint64_t ahead = 0;  // dispatches sent while the device was busy (they waited in its mailbox)
  // Devices: the end of the last partition (device clock), whether the next one was already
  // waiting then (its gap is the engine's, not a lack of work), and the gaps so measured.
  std::uint64_t last_end_us = 0;
  bool follows = false;
  std::uint64_t gaps = 0, gap_us = 0, gap_max_us = 0;
  std::size_t in_flight() const { return (ticket ? 1 : 0) + waiting.size(); }
  bool holds(std::uint64_t t) const {
    return t && (ticket == t || std::find(waiting.begin(), waiting.end(), t) != waiting.end());
  }
  // Its answer for `t` came (or the attempt was abandoned): the next one waiting becomes current.
  void release(std::uint64_t t) {
    if (!t) return;
    if (ticket == t) {
      ticket = 0;
      if (!waiting.empty()) {
        ticket = waiting.front();
        waiting.pop_front();
      }
    } else if (auto it = std::find(waiting.begin(), waiting.end(), t); it != waiting.end()) {
      waiting.erase(it);
    }
  }
};

enum class stage { queued, keying, reserving, synthesizing, device_wait, device_resident, device_reserving, staging,
                   staged, proving, remote, proved, assembling, assembled };

struct node_slot {
  std::string name;
  node_agent_actor agent;
  std::uint32_t slots = 0;
  std::set<std::uint64_t> tickets;  // dispatches in flight there
  std::set<std::string> keys;       // fingerprints it offered
  std::set<job_id> payloads;        // Filecoin jobs whose inputs it was sent (once per node and job)
  std::uint64_t proofs = 0, failures = 0, busy_us = 0;
  std::uint64_t refused = 0;  // its proofs that did not verify against their partition's public inputs
  std::uint32_t free() const { return tickets.size() < slots ? slots - static_cast<std::uint32_t>(tickets.size()) : 0; }
};

struct task_t {
  std::uint32_t index = 0, attempt = 0;
  stage st = stage::queued;
  std::uint64_t ticket = 0, step = 0;
  int synth = -1, device = -1;
  bool back_to_back = false;  // dispatched to its device the moment the previous partition ended
  std::uint64_t node = 0;  // stage::remote: the node proving it
  std::uint64_t proved_by = 0;  // the node whose proof is being assembled (0: proved here)
  std::set<std::uint64_t> refused_by;  // nodes whose proof of it was refused: it goes elsewhere
  key_handle key;
  resident_handle resident;  // the key's points on its device, leased until the device is done
  keepalive host_reservation;
  synthesis_handle synthesis;
  staged_handle staged;
  witness_handle witness;
  partition_output output;
  std::uint32_t invalid_proofs = 0;  // attempts whose proof failed verification
  stage_stamps timing;               // the stages of its latest attempt, reported with the outcome
                                     // (synthesis: from taking its synthesizer to the answer)
};

struct job_t {
  job_id id = 0;
  job_spec spec;
  std::uint64_t seq = 0, t_submit = 0;
  bool dispatched = false;
  enum class described { no, pending, yes, failed } described = described::no;
  key_summary summary;  // the key's fingerprint and verifying key (remote partitions need both)
  caf::typed_response_promise<job_outcome> promise;
  std::vector<task_t> tasks;
  std::vector<std::string> reasons;
  job_timings timings;
  std::uint32_t attempts = 0;
};

using order_key = std::tuple<int, std::uint64_t, job_id, std::uint32_t>;  // (-priority, seq, job, index)

// One step of a partition's attempt (a request to a worker), as its answer names it: the answer
// still counts while the partition's ticket and step are unchanged. A new step makes the answers
// to earlier ones stale.
struct step_ref {
  job_id job = 0;
  std::uint32_t index = 0;
  std::uint64_t ticket = 0, step = 0;
};
// A partition waiting in the host budget's queue: its step, and the budget and holder its request
// named (for the cancel that withdraws it).
struct host_wait {
  step_ref at;
  budget_actor budget;
  caf::actor_addr holder;
};

struct scheduler_state {
  scheduler_state() = default;  // not an aggregate: CAF would construct it from the actor pointer
  engine_settings settings;
  key_store_actor key_store;
  budget_actor host_budget;
  assembler_actor assembler;
  bool key_store_alive = true, host_alive = true, assembler_alive = true;
  // Kept buffers of the keys whose partitions reserved host memory (reserve_host): their held
  // grants go back when the oldest waiting partition waits for the host budget (serve_waiters).
  std::vector<std::weak_ptr<zk::groth16::partition_buffers>> kept_buffers;
  // Partitions waiting in the host budget's queue, by their request's tag (the budget's order among
  // ours): a grant coming home to the key's buffers may serve them first (serve_waiters).
  std::map<std::uint64_t, host_wait> host_waits;
  std::uint64_t next_wait_tag = 1, waits_served_home = 0;
  std::vector<slot_t> synths, devices, stagers;  // stagers[d] stages for devices[d]
  std::vector<std::set<order_key>> staged;       // per device: partitions staged there, waiting
  std::vector<budget_actor> vram;
  std::vector<bool> vram_alive;
  std::map<job_id, job_t> jobs;
  std::set<order_key> queue, device_queue;
  std::map<std::uint64_t, node_slot> nodes;
  std::uint64_t next_ticket = 1, next_seq = 0, retries = 0, stale = 0;
};

using sched_ptr = scheduler_actor::stateful_pointer<scheduler_state>;

// "cpu:0", "cpu:1" for unnumbered backends; a backend named with its ordinal ("cuda:1") as is.
std::string device_label(const engine_settings& s, std::size_t d) {
  if (d >= s.devices.size()) return "device" + std::to_string(d);
  const auto& name = s.devices[d];
  return name.find(':') == std::string::npos ? name + ":" + std::to_string(d) : name;
}

order_key order_of(const job_t& j, std::uint32_t index) {
  return {-static_cast<int>(j.spec.prio), j.seq, j.id, index};
}

bool is_bad_input(const caf::error& e) {
  return e.category() == caf::atom("cuzk") && static_cast<errc>(e.code()) == errc::bad_input;
}

bool retryable(const caf::error& e) {
  if (e.category() != caf::atom("cuzk")) return true;
  auto c = static_cast<errc>(e.code());
  return c != errc::bad_input && c != errc::over_budget && c != errc::invalid_request;
}

step_ref next_step(job_id job, task_t& t, stage now) {
  t.st = now;
  return {job, t.index, t.ticket, ++t.step};
}

// The partition an answer belongs to, or null when its attempt was abandoned.
task_t* current(sched_ptr self, const step_ref& at) {
  auto it = self->state.jobs.find(at.job);
  if (it == self->state.jobs.end() || at.index >= it->second.tasks.size()) return nullptr;
  auto& t = it->second.tasks[at.index];
  return t.ticket == at.ticket && t.step == at.step ? &t : nullptr;
}

// A worker of `slots` did not answer because it is gone: its slot takes nothing until the
// supervisor's replacement arrives (only that worker, not a replacement already in its slot).
void mark_gone(std::vector<slot_t>& slots, int i, const caf::actor& worker, const caf::error& e) {
  if (receiver_down(e) && i >= 0 && static_cast<std::size_t>(i) < slots.size() && slots[i].handle == worker)
    slots[i].alive = false;
}

void release_slot(std::vector<slot_t>& slots, int i, std::uint64_t ticket) {
  if (i >= 0 && static_cast<std::size_t>(i) < slots.size()) slots[i].release(ticket);
}

void pump(sched_ptr self);
// A partition waiting in the host budget's queue that is abandoned: its request is withdrawn.
void withdraw_host_wait(sched_ptr self, job_id job, std::uint32_t index);

// Frees whatever worker slot a dispatch held (its answer came back, or the attempt was abandoned).
void release_ticket(sched_ptr self, std::uint64_t ticket) {
  for (auto* slots : {&self->state.synths, &self->state.devices, &self->state.stagers})
    for (auto& s : *slots) s.release(ticket);
  for (auto& [id, n] : self->state.nodes) n.tickets.erase(ticket);
}

void end_job(sched_ptr self, job_t& j, job_outcome out) {
  auto& st = self->state;
  for (auto& t : j.tasks) {
    st.queue.erase(order_of(j, t.index));
    st.device_queue.erase(order_of(j, t.index));
    if (t.device >= 0 && static_cast<std::size_t>(t.device) < st.staged.size())
      st.staged[t.device].erase(order_of(j, t.index));
    // Slots only waiting (for a key or a reservation) are free now; a worker that is computing
    // stays busy until its answer, which is then dropped.
    if (t.st == stage::reserving) withdraw_host_wait(self, j.id, t.index);
    if (t.ticket && (t.st == stage::keying || t.st == stage::reserving || t.st == stage::device_resident ||
                     t.st == stage::device_reserving))
      release_ticket(self, t.ticket);
  }
  if (out.state != job_state::succeeded && st.assembler_alive)
    self->send(st.assembler, forget_atom::value, j.id);
  for (auto& [id, n] : st.nodes)  // the nodes drop the job's inputs
    if (n.payloads.erase(j.id)) self->send(n.agent, forget_atom::value, j.id);
  out.job = j.id;
  // Steady stamps to unix ones, by the clocks' offset now (0 stays 0: the stage did not run here).
  const auto unix_now = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
  const auto steady_now = now_us();
  auto unix_us = [&](std::uint64_t steady) { return steady ? unix_now - (steady_now - steady) : 0; };
  for (auto& t : j.tasks)
    out.partition_timings.push_back(partition_timing{t.index, t.timing.synthesizer, t.timing.device,
                                                     unix_us(t.timing.synth_start), unix_us(t.timing.synth_end),
                                                     unix_us(t.timing.device_start), unix_us(t.timing.device_end),
                                                     t.timing.stage_names, t.timing.stage_ms,
                                                     unix_us(t.timing.staged), unix_us(t.timing.dispatch),
                                                     t.timing.synth_alone});
  out.reasons = j.reasons;
  out.attempts = j.attempts;
  j.timings.total_us = now_us() - j.t_submit;
  out.timings = j.timings;
  j.promise.deliver(std::move(out));
  st.jobs.erase(j.id);  // drops every buffer and lease the job still held
}

// bad_input: the job ends now, as the input's fault (job_outcome::bad_input).
void fail_attempt(sched_ptr self, job_t& j, task_t& t, const std::string& reason, bool can_retry,
                  bool bad_input = false) {
  auto& st = self->state;
  j.reasons.push_back("partition " + std::to_string(t.index) + " attempt " + std::to_string(t.attempt) + ": " +
                      reason);
  release_slot(st.synths, t.synth, t.ticket);
  release_slot(st.devices, t.device, t.ticket);
  release_slot(st.stagers, t.device, t.ticket);
  if (t.device >= 0 && static_cast<std::size_t>(t.device) < st.staged.size())
    st.staged[t.device].erase(order_of(j, t.index));
  if (t.st == stage::remote) release_ticket(self, t.ticket);
  if (t.st == stage::reserving) withdraw_host_wait(self, j.id, t.index);
  t.ticket = 0;
  ++t.step;
  t.synth = t.device = -1;
  t.node = t.proved_by = 0;
  t.key = {};
  t.resident = {};
  t.host_reservation = {};
  t.synthesis = {};
  t.staged = {};
  t.witness = {};
  st.device_queue.erase(order_of(j, t.index));
  if (bad_input || !can_retry || t.attempt >= st.settings.max_attempts) {
    job_outcome out;
    out.state = job_state::failed;
    out.bad_input = bad_input;
    end_job(self, j, std::move(out));
    return;
  }
  ++st.retries;
  t.st = stage::queued;
  st.queue.insert(order_of(j, t.index));
}

// A step's request failed: retry the partition. (The caller has marked a worker that is gone, so
// that nothing is dispatched to it until the supervisor's replacement arrives.)
void step_failed(sched_ptr self, const step_ref& at, const char* what, const caf::error& e) {
  if (auto* t = current(self, at)) {
    auto& j = self->state.jobs.at(at.job);
    // A key that is unusable is the daemon's problem, not the request's.
    bool input_fault = is_bad_input(e) && std::string_view(what) != "key store";
    fail_attempt(self, j, *t, std::string(what) + ": " + describe(e), retryable(e), input_fault);
  } else {
    release_ticket(self, at.ticket);
  }
  pump(self);
}

const std::string& fingerprint_of(const job_t& j);
bool proves_locally(const scheduler_state& st);

// A node's proof does not verify against the partition's public inputs computed here (it proved
// another statement, or nothing valid): counted against the node, one line naming it, and the
// partition goes to another place (never that node again), or the job fails when none is left.
void refuse_node_proof(sched_ptr self, job_t& j, task_t& t, const std::string& why) {
  auto& st = self->state;
  const auto node_id = t.proved_by;
  std::string name = std::to_string(node_id);
  if (auto it = st.nodes.find(node_id); it != st.nodes.end()) {
    ++it->second.refused;
    ++it->second.failures;
    name = it->second.name;
  }
  t.refused_by.insert(node_id);
  bool elsewhere = proves_locally(st);
  for (auto& [id, n] : st.nodes) elsewhere |= !t.refused_by.count(id) && n.keys.count(fingerprint_of(j));
  const std::string nowhere = "no other place can prove it (every node offering its key was refused)";
  if (st.settings.on_cluster_event)
    st.settings.on_cluster_event("cluster: node " + name + " answered job " + std::to_string(j.id) + " partition " +
                                 std::to_string(t.index) +
                                 " with a proof that does not verify against its public inputs: refused, " +
                                 (elsewhere ? "proved elsewhere" : nowhere));
  fail_attempt(self, j, t, "node " + name + ": " + why + (elsewhere ? "" : "; " + nowhere), elsewhere);
}

void assemble(sched_ptr self, job_t& j, task_t& t) {
  auto& st = self->state;
  t.st = stage::proved;
  if (!st.assembler_alive) return;  // re-sent when the supervisor has replaced it
  const auto at = next_step(j.id, t, stage::assembling);
  auto target = st.assembler;
  verifier_handle vk = j.summary.vk;
  if (t.key.ptr && t.key.ptr->zkey)  // a local proof: the lease's key (aliasing: the lease keeps it alive)
    vk.ptr = std::shared_ptr<const zk::groth16::verifying_key>(t.key.ptr, &t.key.ptr->zkey->vk);
  assemble_request req{task_ref{at.job, at.index, t.attempt, at.ticket}, static_cast<std::uint32_t>(j.tasks.size()),
                       std::move(vk), t.output};
  if (t.proved_by) {  // a node's proof: checked against this partition's input as held here
    const auto& src = j.spec.partitions[t.index];
    req.statement.data = src.data;
    req.statement.fil = src.fil;
  }
  req.synthetic_key = t.key.ptr && t.key.ptr->zkey && t.key.ptr->zkey->synthetic;
  req.synthetic_bench = j.spec.synthetic_bench;
  const bool unverified = req.synthetic_key && req.synthetic_bench;
  self->request(target, st.settings.step_timeout, std::move(req))
      .then(
          [self, at, unverified](assembly_ack& ack) {
            auto* t = current(self, at);
            if (!t) return;
            t->st = stage::assembled;
            if (!ack.complete) return;
            job_outcome out;
            out.state = job_state::succeeded;
            out.unverified = unverified;
            out.partitions = std::move(ack.partitions);
            out.compressed = std::move(ack.compressed);
            end_job(self, self->state.jobs.at(at.job), std::move(out));
          },
          [self, at, target](caf::error& e) {
            auto* t = current(self, at);
            if (!t) return;
            auto& st = self->state;
            auto& j = st.jobs.at(at.job);
            if (t->proved_by && e.category() == caf::atom("cuzk") && static_cast<errc>(e.code()) == errc::proof_invalid) {
              refuse_node_proof(self, j, *t, describe(e));
              pump(self);
              return;
            }
            if (is_bad_input(e)) {  // the partition's public inputs cannot be computed from the job's input
              fail_attempt(self, j, *t, "assembler: " + describe(e), false, true);
              pump(self);
              return;
            }
            if (e.category() == caf::atom("cuzk") && static_cast<errc>(e.code()) == errc::proof_invalid) {
              // The key's mapped evaluator file first (failures only: a digest of the file): a
              // damaged one is the daemon's fault, never the request's. The key store drops the
              // key at its next lease, the evaluator is recorded again, the partition runs again.
              const auto* ev = t->key.ptr && t->key.ptr->evaluator ? t->key.ptr->evaluator->compact() : nullptr;
              if (ev && !ev->intact()) {
                fail_attempt(self, j, *t,
                             "assembler: " + describe(e) +
                                 "; the key's evaluator file is damaged (changed or truncated under its mapping): "
                                 "dropped, recorded again",
                             true, false);
                pump(self);
                return;
              }
              bool twice = ++t->invalid_proofs >= 2;
              fail_attempt(self, j, *t,
                           "assembler: " + describe(e) +
                               (twice ? "; the witness does not satisfy the circuit (its proof failed verification twice)"
                                      : ""),
                           !twice, twice);
              pump(self);
              return;
            }
            // The assembler is gone or slow: keep the proof and send it again (to its successor).
            if (receiver_down(e) && target == st.assembler) st.assembler_alive = false;
            assemble(self, j, *t);
          });
}

// Device d proves a partition its stager has placed there.
void prove(sched_ptr self, job_t& j, task_t& t, int d) {
  auto& st = self->state;
  auto& slot = st.devices[d];
  // Sent while the device proves another: it waits in the device's mailbox (device_depth).
  t.back_to_back = slot.follows || slot.ticket;
  if (slot.ticket) {
    slot.waiting.push_back(t.ticket);
    ++slot.ahead;
  } else {
    slot.ticket = t.ticket;
  }
  const auto at = next_step(j.id, t, stage::proving);
  auto dev = caf::actor_cast<device_actor>(st.devices[d].handle);
  prove_request preq;
  preq.task = task_ref{at.job, at.index, t.attempt, at.ticket};
  preq.key = t.key;
  preq.resident = std::move(t.resident);  // the device drops the lease when done
  preq.staged = std::move(t.staged);  // the device becomes the only holder
  preq.witness = t.witness;
  preq.fixed_randomness = j.spec.fixed_randomness;
  preq.randomness = j.spec.randomness;
  t.timing.dispatch = now_us();
  // The step timeout of a request sent ahead includes its wait behind the one the device proves.
  self->request(dev, st.settings.step_timeout, std::move(preq))
      .then(
          [self, at, d](device_result& r) {
            auto& st = self->state;
            if (static_cast<std::size_t>(d) < st.devices.size() && st.devices[d].holds(at.ticket)) {
              auto& dev = st.devices[d];
              dev.busy_us += r.elapsed_us;  // the device's own time (a request sent ahead also waited)
              ++dev.proofs;
              auto* t = current(self, at);
              if (t && t->back_to_back && dev.last_end_us && r.started_us >= dev.last_end_us) {
                auto gap = r.started_us - dev.last_end_us;
                ++dev.gaps;
                dev.gap_us += gap;
                dev.gap_max_us = std::max(dev.gap_max_us, gap);
              }
              dev.last_end_us = r.started_us + r.elapsed_us;
              dev.follows = !st.staged[d].empty();  // read by prove() when pump dispatches it below
            }
            release_slot(st.devices, d, at.ticket);
            if (auto* t = current(self, at)) {
              auto& j = st.jobs.at(at.job);
              j.timings.device_us += r.elapsed_us;
              if (!j.timings.device_start_us || r.started_us < j.timings.device_start_us)
                j.timings.device_start_us = r.started_us;
              t->timing.device = device_label(st.settings, d);
              t->timing.device_start = r.started_us;
              t->timing.device_end = r.started_us + r.elapsed_us;
              t->timing.stage_names.insert(t->timing.stage_names.end(), r.stage_names.begin(), r.stage_names.end());
              t->timing.stage_ms.insert(t->timing.stage_ms.end(), r.stage_ms.begin(), r.stage_ms.end());
              // A GPU's B2 plan for the key: the key store keeps it for the status and logs what is new.
              if (!r.b2.mode.empty() && st.key_store_alive)
                self->send(st.key_store, b2_plan_atom::value, t->key.path, std::move(r.b2));
              t->output = std::move(r.output);
              t->synth = t->device = -1;
              t->witness = {};  // proved (B2's host part included): a kept set goes home now, not at the job's end
              assemble(self, j, *t);
            }
            pump(self);
          },
          [self, at, d, dev](caf::error& e) {
            auto& st = self->state;
            if (static_cast<std::size_t>(d) < st.devices.size()) st.devices[d].follows = false;
            release_slot(st.devices, d, at.ticket);
            mark_gone(st.devices, d, caf::actor_cast<caf::actor>(dev), e);
            step_failed(self, at, "device", e);
          });
}

void reserve_and_stage(sched_ptr self, job_t& j, task_t& t, int d);

// Device d's stager takes a synthesized partition: the key's points on that device first (the key
// store's resident tier: a lease, made under a grant from the device's VRAM budget), then VRAM
// for the inputs, then the upload; the partition then waits in the device's staged queue.
void stage_for(sched_ptr self, job_t& j, task_t& t, int d) {
  auto& st = self->state;
  t.device = d;
  st.stagers[d].ticket = t.ticket;
  const auto at = next_step(j.id, t, stage::device_resident);
  auto store = st.key_store;
  self->request(store, caf::infinite, acquire_atom::value, t.key, static_cast<std::uint32_t>(d))
      .then(
          [self, at, d](resident_handle& h) {
            auto* t = current(self, at);
            if (!t) {
              release_slot(self->state.stagers, d, at.ticket);
              pump(self);
              return;
            }
            t->resident = std::move(h);
            reserve_and_stage(self, self->state.jobs.at(at.job), *t, d);
          },
          [self, at, d, store](caf::error& e) {
            release_slot(self->state.stagers, d, at.ticket);
            if (receiver_down(e) && self->state.key_store == store) self->state.key_store_alive = false;
            step_failed(self, at, "key store (resident)", e);
          });
}

void reserve_and_stage(sched_ptr self, job_t& j, task_t& t, int d) {
  auto& st = self->state;
  const auto at = next_step(j.id, t, stage::device_reserving);
  auto budget = st.vram[d];
  auto stg = caf::actor_cast<stager_actor>(st.stagers[d].handle);
  // The witness alone when the device evaluates a, b, c (its resident key holds the evaluator).
  const bool witness_only = t.synthesis.ptr && stages_witness_only(t.key, *t.synthesis.ptr, t.resident, std::uint32_t(d));
  reserve_request req{staging_grant_bytes(t.key, witness_only), caf::actor_cast<caf::actor_addr>(stg),
                      "partition " + std::to_string(at.index) + " of job " + std::to_string(at.job)};
  self->request(budget, caf::infinite, std::move(req))
      .then(
          [self, at, d, budget, stg](reservation& grant) {
            auto token = make_reservation_token(budget, grant);
            auto* t = current(self, at);
            if (!t) {
              release_slot(self->state.stagers, d, at.ticket);
              pump(self);
              return;
            }
            const auto at2 = next_step(at.job, *t, stage::staging);
            stage_request sreq;
            sreq.task = task_ref{at2.job, at2.index, t->attempt, at2.ticket};
            sreq.key = t->key;
            sreq.synthesis = std::move(t->synthesis);  // the stager becomes the only holder
            sreq.witness = t->witness;
            sreq.device_reservation = std::move(token);
            sreq.resident = t->resident;
            self->request(stg, self->state.settings.step_timeout, std::move(sreq))
                .then(
                    [self, at2, d](stage_result& r) {
                      auto& st = self->state;
                      release_slot(st.stagers, d, at2.ticket);
                      if (auto* t = current(self, at2)) {
                        auto& j = st.jobs.at(at2.job);
                        t->staged = std::move(r.staged);
                        t->st = stage::staged;
                        t->timing.staged = now_us();
                        t->timing.stage_names.emplace_back("staging");
                        t->timing.stage_ms.push_back(double(r.elapsed_us) / 1000);
                        st.staged[d].insert(order_of(j, at2.index));
                      }
                      pump(self);
                    },
                    [self, at2, d, stg](caf::error& e) {
                      auto& st = self->state;
                      release_slot(st.stagers, d, at2.ticket);
                      mark_gone(st.stagers, d, caf::actor_cast<caf::actor>(stg), e);
                      step_failed(self, at2, "stager", e);
                    });
          },
          [self, at, d, budget](caf::error& e) {
            release_slot(self->state.stagers, d, at.ticket);
            if (receiver_down(e) && static_cast<std::size_t>(d) < self->state.vram_alive.size() &&
                self->state.vram[d] == budget)
              self->state.vram_alive[d] = false;
            step_failed(self, at, "vram budget", e);
          });
}

// `p` holding a copy of `grant`: when the last copy of the result goes, p's object goes first, then
// the grant copy (a kept set's grant goes home after the part of the set that p is).
template <class T>
std::shared_ptr<T> with_grant(std::shared_ptr<T> p, const keepalive& grant) {
  struct both {
    keepalive grant;       // destroyed second
    std::shared_ptr<T> p;  // destroyed first
  };
  auto* raw = p.get();
  return std::shared_ptr<T>(std::make_shared<both>(both{grant, std::move(p)}), raw);
}

void synthesize(sched_ptr self, job_t& j, task_t& t) {
  auto& st = self->state;
  const auto at = next_step(j.id, t, stage::synthesizing);
  int s = t.synth;
  auto worker = caf::actor_cast<synthesizer_actor>(st.synths[s].handle);
  synth_request req{task_ref{at.job, at.index, t.attempt, at.ticket}, t.key, j.spec.partitions[at.index]};
  req.witness_only = st.settings.device_synthesis && t.key.device_witness_bytes > 0;
  if (st.settings.ordered_synthesis)  // the job's priority first (critical = 3), then the dispatch order
    req.pool_rank = 1 + (std::uint64_t(3 - std::min(3, int(j.spec.prio))) << 58) +
                    (at.ticket & ((std::uint64_t{1} << 58) - 1));
  auto t0 = now_us();
  // The answer's handlers hold a copy of the partition's host grant: a partition abandoned while its
  // synthesizer computes (a cancelled job, a retried attempt) keeps its grant out until the answer,
  // so that the grant goes home (to the budget, or to the key's buffers) after the set it covers,
  // not while a synthesizer still fills that set.
  self->request(worker, st.settings.step_timeout, std::move(req))
      .then(
          [self, at, s, t0, grant = t.host_reservation](synth_result& r) {
            auto& st = self->state;
            if (static_cast<std::size_t>(s) < st.synths.size() && st.synths[s].ticket == at.ticket)
              st.synths[s].busy_us += now_us() - t0;
            release_slot(st.synths, s, at.ticket);
            auto* t = current(self, at);
            if (!t) {  // abandoned: its set goes back now, its grant with these handlers, after it
              r.synthesis = {};
              r.witness = {};
            } else {
              auto& j = st.jobs.at(at.job);
              j.timings.synthesis_us += r.elapsed_us;
              t->timing.synth_end = now_us();
              t->timing.stage_names = r.stage_names;
              t->timing.stage_ms = r.stage_ms;
              t->synthesis = std::move(r.synthesis);
              t->witness = std::move(r.witness);
              if (t->key.ptr && t->key.ptr->buffers && t->witness.ptr) {
                // A key's kept set: its grant goes home once the witness and a, b, c have both gone
                // back (partition_buffers.hpp: the buffers then hold the grant and keep the set under
                // it; the circuit's values went back when the synthesis ended).
                t->witness.ptr = with_grant(std::move(t->witness.ptr), t->host_reservation);
                if (t->synthesis.ptr) t->synthesis.ptr = with_grant(std::move(t->synthesis.ptr), t->host_reservation);
                t->host_reservation = {};
              } else {
                t->synthesis.reservation = std::move(t->host_reservation);  // accounts for these buffers
              }
              t->st = stage::device_wait;
              st.device_queue.insert(order_of(j, at.index));
            }
            pump(self);
          },
          [self, at, s, worker, grant = t.host_reservation](caf::error& e) {
            auto& st = self->state;
            release_slot(st.synths, s, at.ticket);
            mark_gone(st.synths, s, caf::actor_cast<caf::actor>(worker), e);
            step_failed(self, at, "synthesizer", e);
          });
}

// The reserve step: a partition's host grant for its synthesis. A key with kept buffers first offers
// a grant they hold (a previous partition's, handed over with its set): no request to the host
// budget then. A grant from the budget is adopted by the buffers, so that it comes back to them with
// this partition's set. While none of ours waits, the budget is asked without waiting; refused (or
// behind partitions that wait), the partition waits in the budget's FIFO (a request with a tag, in
// host_waits) and, if its key has kept buffers, for a grant of its key's coming home too: the
// buffers call back (on_grant_home: a tick to this actor, no timer) and serve_waiters serves the
// waiting partitions in the budget's order. The oldest takes a held grant of its key when there is
// one, and its queued request is withdrawn (a grant the budget sent meanwhile goes back as it
// arrives); else it waits for the budget, and the idle sets that keys keep under held grants are
// freed and their grants given back, so the budget's FIFO, not whichever key's grants come home,
// decides who goes next: a key cycling its own grants cannot starve another key's waiting
// partition, and a key's queued request does not wait for a grant that goes to its buffers instead.
void serve_waiters(sched_ptr self);

// The oldest waiting partition waits for the budget: every key's held grants go back to it, their
// idle sets freed (its own key holds none it could take: none, or too small).
void release_held_grants(sched_ptr self) {
  std::erase_if(self->state.kept_buffers, [](const std::weak_ptr<zk::groth16::partition_buffers>& w) {
    auto b = w.lock();
    if (!b) return true;
    b->release_held();
    return false;
  });
}

// Takes the wait `it` out of host_waits and its request out of the budget's queue.
void withdraw(sched_ptr self, std::map<std::uint64_t, host_wait>::iterator it) {
  auto& w = it->second;
  if (w.budget) self->send(w.budget, cancel_atom::value, w.holder, it->first);
  self->state.host_waits.erase(it);
}

void withdraw_host_wait(sched_ptr self, job_id job, std::uint32_t index) {
  auto& waits = self->state.host_waits;
  for (auto it = waits.begin(); it != waits.end(); ++it)
    if (it->second.at.job == job && it->second.at.index == index) return withdraw(self, it);
}

// The budget granted the partition at `at`.
void host_granted(sched_ptr self, step_ref at, keepalive token, std::uint64_t grant_bytes) {
  auto* t = current(self, at);
  if (!t) {  // abandoned: the token returns the grant
    release_ticket(self, at.ticket);
    pump(self);
    return;
  }
  if (auto bufs = t->key.ptr ? t->key.ptr->buffers : nullptr) token.ptr = bufs->adopt(std::move(token.ptr), grant_bytes);
  t->host_reservation = std::move(token);
  synthesize(self, self->state.jobs.at(at.job), *t);
}

void take_home_grant_or_ask(sched_ptr self, step_ref at, bool refused);

void ask_host_budget(sched_ptr self, step_ref at, bool no_wait) {
  auto* t = current(self, at);
  if (!t) return;
  auto& st = self->state;
  auto budget = st.host_budget;
  auto holder = caf::actor_cast<caf::actor_addr>(st.synths[t->synth].handle);
  const std::uint64_t tag = no_wait ? 0 : st.next_wait_tag++;
  if (tag) st.host_waits.emplace(tag, host_wait{at, budget, holder});
  reserve_request req{t->key.synthesis_bytes, holder,
                      "synthesis of partition " + std::to_string(at.index) + " of job " + std::to_string(at.job),
                      no_wait, tag};
  self->request(budget, caf::infinite, std::move(req))
      .then(
          [self, at, budget, tag](reservation& grant) {
            auto token = make_reservation_token(budget, grant);
            if (tag) {
              auto it = self->state.host_waits.find(tag);
              if (it == self->state.host_waits.end()) return;  // withdrawn: the token returns the grant
              self->state.host_waits.erase(it);
            }
            host_granted(self, at, std::move(token), grant.bytes);
            serve_waiters(self);  // the next one in the queue may be served by a held grant
          },
          [self, at, budget, tag](caf::error& e) {
            auto& st = self->state;
            if (tag) {
              auto it = st.host_waits.find(tag);
              if (it == st.host_waits.end()) return;  // withdrawn (errc::withdrawn, or the budget died since)
              st.host_waits.erase(it);
            } else if (e.category() == caf::atom("cuzk") && static_cast<errc>(e.code()) == errc::over_budget) {
              take_home_grant_or_ask(self, at, true);
              return;
            }
            if (receiver_down(e) && st.host_budget == budget) st.host_alive = false;
            step_failed(self, at, "host budget", e);
          });
}

// The partition at `at` (reserving): a held grant of its key, else the budget (see above). While
// partitions wait, it queues behind them (serve_waiters gives held grants out in their order).
void take_home_grant_or_ask(sched_ptr self, step_ref at, bool refused) {
  auto& st = self->state;
  auto* t = current(self, at);
  if (!t) return;
  if (!st.host_waits.empty()) {
    refused = true;
  } else if (auto bufs = t->key.ptr ? t->key.ptr->buffers : nullptr) {
    if (auto held = bufs->take_grant(t->key.synthesis_bytes)) {
      t->host_reservation = keepalive{std::move(held)};
      synthesize(self, st.jobs.at(at.job), *t);
      return;
    }
  }
  ask_host_budget(self, at, !refused);
  if (refused) serve_waiters(self);  // if it is the oldest, the keys' held grants go back now
}

void serve_waiters(sched_ptr self) {
  auto& st = self->state;
  while (!st.host_waits.empty()) {
    auto it = st.host_waits.begin();
    const auto at = it->second.at;
    auto* t = current(self, at);
    if (!t) {  // abandoned without being withdrawn
      withdraw(self, it);
      continue;
    }
    auto bufs = t->key.ptr ? t->key.ptr->buffers : nullptr;
    if (bufs) {
      if (auto held = bufs->take_grant(t->key.synthesis_bytes)) {
        withdraw(self, it);
        ++st.waits_served_home;
        t->host_reservation = keepalive{std::move(held)};
        synthesize(self, st.jobs.at(at.job), *t);
        continue;
      }
    }
    release_held_grants(self);  // the oldest waits for the budget: the keys' held grants go to it
    return;
  }
}

void reserve_host(sched_ptr self, job_t& j, task_t& t) {
  auto& st = self->state;
  const auto at = next_step(j.id, t, stage::reserving);
  if (auto bufs = t.key.ptr ? t.key.ptr->buffers : nullptr;
      bufs && std::none_of(st.kept_buffers.begin(), st.kept_buffers.end(),
                           [&](const std::weak_ptr<zk::groth16::partition_buffers>& w) { return w.lock() == bufs; })) {
    st.kept_buffers.push_back(bufs);
    // A grant coming home wakes this actor (from the thread that let go of it): serve_waiters.
    bufs->on_grant_home([me = self->address()] {
      if (auto s = caf::actor_cast<caf::actor>(me)) caf::anon_send(s, tick_atom::value);
    });
  }
  take_home_grant_or_ask(self, at, false);
}

void mark_dispatched(sched_ptr self, job_t& j, task_t& t) {
  t.ticket = self->state.next_ticket++;
  ++t.attempt;
  ++j.attempts;
  if (!j.dispatched) {
    j.dispatched = true;
    j.timings.queue_us = now_us() - j.t_submit;
  }
}

void start(sched_ptr self, job_t& j, task_t& t, int s, bool alone = false) {
  auto& st = self->state;
  mark_dispatched(self, j, t);
  t.synth = s;
  st.synths[s].ticket = t.ticket;
  // The synthesizer is the partition's from here (key lease and host reservation included) to the
  // end of its synthesis: that span is its synthesis in the timings, so a partition dispatched
  // before another at.job arrived never looks as if it had still been queued then.
  t.timing = stage_stamps{};
  t.timing.synthesizer = "synth:" + std::to_string(s);
  t.timing.synth_start = now_us();
  t.timing.synth_alone = alone;
  const auto at = next_step(j.id, t, stage::keying);
  auto t0 = now_us();
  auto store = st.key_store;
  self->request(store, caf::infinite, acquire_atom::value, j.spec.circuit)
      .then(
          [self, at, t0](key_handle& k) {
            auto* t = current(self, at);
            if (!t) {
              release_ticket(self, at.ticket);
              pump(self);
              return;
            }
            auto& j = self->state.jobs.at(at.job);
            j.timings.key_us = std::max(j.timings.key_us, now_us() - t0);
            t->key = std::move(k);
            reserve_host(self, j, *t);
          },
          [self, at, store](caf::error& e) {
            if (receiver_down(e) && self->state.key_store == store) self->state.key_store_alive = false;
            step_failed(self, at, "key store", e);
          });
}

bool travels(const witness_source& w);
const std::string& fingerprint_of(const job_t& j);

// A whole partition to a node: the witness travels (a Filecoin partition: its job's inputs, once
// per node and job), the key does not.
void prove_remote(sched_ptr self, job_t& j, task_t& t, std::uint64_t node_id) {
  auto& st = self->state;
  auto& node = st.nodes.at(node_id);
  mark_dispatched(self, j, t);
  t.timing = stage_stamps{};  // proved there: no local stage times
  t.node = node_id;
  node.tickets.insert(t.ticket);
  const auto at = next_step(j.id, t, stage::remote);
  const auto& src = j.spec.partitions[at.index];
  node_task req;
  req.task = task_ref{at.job, at.index, t.attempt, at.ticket};
  req.fingerprint = fingerprint_of(j);
  req.witness = src.data;
  req.fixed_randomness = j.spec.fixed_randomness;
  req.randomness = j.spec.randomness;
  req.prio = j.spec.prio;
  if (src.fil.ptr) {
    req.fil.partition = src.fil.partition;
    if (node.payloads.insert(j.id).second) req.fil.ptr = src.fil.ptr;
  }
  auto t0 = now_us();
  self->request(node.agent, st.settings.step_timeout, std::move(req))
      .then(
          [self, at, node_id, t0](node_result& r) {
            auto& st = self->state;
            if (auto it = st.nodes.find(node_id); it != st.nodes.end() && it->second.tickets.erase(at.ticket)) {
              it->second.busy_us += now_us() - t0;
              ++it->second.proofs;
            }
            auto* t = current(self, at);
            if (!t) {
              ++st.stale;  // its attempt was abandoned (the node was declared lost, the at.job ended)
              pump(self);
              return;
            }
            auto& j = st.jobs.at(at.job);
            j.timings.synthesis_us += r.synthesis_us;
            j.timings.device_us += r.device_us;
            t->output = partition_output{std::move(r.proof), {}};  // the assembler computes its public inputs
            t->node = 0;
            t->proved_by = node_id;
            assemble(self, j, *t);
            pump(self);
          },
          [self, at, node_id](caf::error& e) {
            auto& st = self->state;
            std::string name = "node " + std::to_string(node_id);
            if (auto it = st.nodes.find(node_id); it != st.nodes.end()) {
              it->second.tickets.erase(at.ticket);
              ++it->second.failures;
              it->second.payloads.erase(at.job);  // it may not hold them: the next attempt sends them again
              name = "node " + it->second.name;
            }
            step_failed(self, at, name.c_str(), e);
          });
}

// Reads the at.job's key header once (fingerprint, verifying key), when nodes could take its work.
void describe_key(sched_ptr self, job_t& j) {
  auto& st = self->state;
  if (j.described != job_t::described::no || !st.key_store_alive) return;
  j.described = job_t::described::pending;
  auto job = j.id;
  auto store = st.key_store;
  self->request(store, st.settings.step_timeout, describe_atom::value, j.spec.circuit)
      .then(
          [self, job](key_summary& s) {
            auto it = self->state.jobs.find(job);
            if (it == self->state.jobs.end()) return;
            it->second.summary = std::move(s);
            it->second.described = job_t::described::yes;
            pump(self);
          },
          [self, job, store](caf::error& e) {
            auto& st = self->state;
            if (receiver_down(e) && st.key_store == store) st.key_store_alive = false;
            auto it = st.jobs.find(job);
            if (it == st.jobs.end()) return;
            // A broken key fails the job; anything else is tried again at the next pump.
            if (!retryable(e)) {
              it->second.reasons.push_back("key: " + describe(e));
              job_outcome out;
              out.state = job_state::failed;
              end_job(self, it->second, std::move(out));
            } else {
              it->second.described = job_t::described::no;
            }
            pump(self);
          });
}

// A partition a node can take: a witness in memory, or a Filecoin partition (its job's inputs).
bool travels(const witness_source& w) { return w.data.ptr || w.fil.ptr; }

// What nodes are matched on: a Filecoin job's params digest, else the key header's fingerprint.
const std::string& fingerprint_of(const job_t& j) {
  return j.spec.key_fingerprint.empty() ? j.summary.fingerprint : j.spec.key_fingerprint;
}

// The node with the most free slots that offered this job's key, or 0.
std::uint64_t best_node(sched_ptr self, const job_t& j, std::uint32_t index, std::uint32_t& free) {
  free = 0;
  if (j.described != job_t::described::yes || !travels(j.spec.partitions[index])) return 0;
  std::uint64_t best = 0;
  const auto& refused = j.tasks[index].refused_by;
  for (auto& [id, n] : self->state.nodes)
    if (n.free() > free && n.keys.count(fingerprint_of(j)) && !refused.count(id)) {
      free = n.free();
      best = id;
    }
  return best;
}

// This engine proves partitions itself: it has devices and synthesizers (a coordinator_only one has
// neither, and sends everything to its nodes).
bool proves_locally(const scheduler_state& st) {
  return !st.devices.empty() && std::any_of(st.synths.begin(), st.synths.end(), [](const slot_t& s) { return bool(s.handle); });
}

// "" when some place can prove the key `fingerprint` of `circuit` now, else what is missing.
std::string placement_missing(const scheduler_state& st, const std::string& circuit, const std::string& fingerprint,
                              bool params) {
  if (proves_locally(st)) return {};
  for (auto& [id, n] : st.nodes)
    if (n.keys.count(fingerprint)) return {};
  const auto name = circuit.substr(circuit.find_last_of('/') + 1);
  std::string line = "no place can prove " + name + ": this engine has no local devices (cluster coordinator_only) and ";
  line += st.nodes.empty() ? std::string("no node has joined")
                           : "none of its " + std::to_string(st.nodes.size()) + " joined node(s) offers ";
  if (!st.nodes.empty()) line += params ? "that params file (parameters.json digest " + fingerprint + ")"
                                        : "that key (fingerprint " + fingerprint + ")";
  return line;
}

// Latency before throughput when the devices are short of work (engine_settings::alone_below): the
// local synthesizers share one pool (synthesizer_threads 0), so a partition started beside another
// is ready later than one alone. While fewer than alone_below partitions per device are
// synthesized and not yet proved, at most one local synthesis runs: the first partition of an idle
// engine (the device waits for it) has the pool to itself, and with more, the next ones while the
// device proves those. With that many ahead every free synthesizer starts, sharing the pool as
// before. With 1 (the default) a synthesizer is held back only while the devices have nothing at
// all, which never holds back a steady state (a synthesis that ends gives the devices work); with
// 2 or more, a partition alone that takes longer than a proof keeps the devices short and the
// synthesizers one at a time for good.
// Synthesizers with pools of their own (synthesizer_threads > 0) share nothing and are not held
// back. Answers how many syntheses may start now, at most `free`; `alone` when the one allowed
// runs alone.
std::uint32_t local_starts_allowed(const scheduler_state& st, std::uint32_t free, bool& alone) {
  alone = false;
  if (st.settings.alone_below == 0 || st.settings.synthesizer_threads > 0 || free == 0) return free;
  const std::size_t enough = std::size_t(st.settings.alone_below) * std::max<std::size_t>(1, st.devices.size());
  std::size_t ahead = 0;  // synthesized, not yet proved
  for (auto& [id, j] : st.jobs)
    for (auto& t : j.tasks)
      if (t.st >= stage::device_wait && t.st <= stage::proving && ++ahead >= enough) return free;
  const std::size_t local = std::min<std::size_t>(st.settings.synthesizers, st.synths.size());
  for (std::size_t s = 0; s < local; ++s)
    if (st.synths[s].ticket) return 0;  // one is synthesizing alone
  alone = true;
  return 1;
}

void pump(sched_ptr self) {
  auto& st = self->state;
  auto local_free = [&]() -> std::uint32_t {
    if (!st.key_store_alive || !st.host_alive) return 0;
    std::uint32_t n = 0;
    for (auto& slot : st.synths)
      if (slot.handle && slot.alive && !slot.ticket) ++n;
    return n;
  };
  auto node_free = [&] {
    for (auto& [id, n] : st.nodes)
      if (n.free()) return true;
    return false;
  };
  // Queued partitions in priority order, each to whichever place has the most free capacity. A
  // partition that cannot go anywhere yet (no node has its key) does not hold back the others.
  std::vector<order_key> placed;
  bool alone = false;
  std::uint32_t free_here = local_starts_allowed(st, local_free(), alone);
  bool nodes_free = node_free();
  for (auto& key : st.queue) {
    if (free_here == 0 && !nodes_free) break;
    auto [prio, seq, job, index] = key;
    auto& j = st.jobs.at(job);
    if (nodes_free && j.described == job_t::described::no && travels(j.spec.partitions[index])) describe_key(self, j);
    std::uint32_t free_there = 0;
    auto node = nodes_free ? best_node(self, j, index, free_there) : 0;
    if (node && free_there > free_here) {
      placed.push_back(key);
      prove_remote(self, j, j.tasks[index], node);
      nodes_free = node_free();
    } else if (free_here > 0) {
      for (std::size_t s = 0; s < st.synths.size(); ++s) {
        auto& slot = st.synths[s];
        if (!slot.handle || !slot.alive || slot.ticket) continue;
        placed.push_back(key);
        start(self, j, j.tasks[index], static_cast<int>(s), alone && s < st.settings.synthesizers);
        break;
      }
      free_here = local_starts_allowed(st, local_free(), alone);
    }
  }
  for (auto& key : placed) st.queue.erase(key);
  // Each device takes its staged partitions, up to device_depth requests at once (the ones beyond
  // the first wait in its mailbox).
  const std::size_t depth = std::max(1u, st.settings.device_depth);
  for (std::size_t d = 0; d < st.devices.size(); ++d) {
    auto& dev = st.devices[d];
    while (dev.handle && dev.alive && dev.in_flight() < depth && !st.staged[d].empty()) {
      auto [prio, seq, job, index] = *st.staged[d].begin();
      st.staged[d].erase(st.staged[d].begin());
      auto& j = st.jobs.at(job);
      prove(self, j, j.tasks[index], static_cast<int>(d));
    }
    dev.follows = false;  // only the dispatch right after an end counts as back to back
  }
  // Then the stagers stage the next partitions (one ahead per device): idle devices first, and
  // among those the one that has proved least, so a partition does not queue behind a busy device
  // while another has nothing to do, and equal devices share the work.
  if (st.device_queue.empty()) return;
  std::vector<std::size_t> order(st.devices.size());
  for (std::size_t d = 0; d < order.size(); ++d) order[d] = d;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    auto& a = st.devices[x];
    auto& b = st.devices[y];
    return std::make_pair(a.in_flight(), a.proofs) < std::make_pair(b.in_flight(), b.proofs);
  });
  for (auto d : order) {
    if (st.device_queue.empty()) break;
    auto& dev = st.devices[d];
    auto& stg = st.stagers[d];
    if (!st.staged[d].empty()) continue;
    // A device's partitions holding a staging slot (staging, staged and waiting, in the device)
    // are at most backend.staged_partitions: the slots its reserve step made and the room the key
    // store admitted its resident key with. With one staged or staging it is skipped here or
    // below, so the ones in the device count (0: not given; the steps here bound them to
    // device_depth + 1, the most the engine allows; its default is max(2, device_depth)).
    if (const unsigned slots = st.settings.backend.staged_partitions; slots && dev.in_flight() >= slots) continue;
    if (!stg.handle || !stg.alive || stg.ticket || !st.vram_alive[d] || !dev.handle || !dev.alive ||
        !st.key_store_alive)
      continue;
    auto [prio, seq, job, index] = *st.device_queue.begin();
    st.device_queue.erase(st.device_queue.begin());
    auto& j = st.jobs.at(job);
    stage_for(self, j, j.tasks[index], static_cast<int>(d));
  }
}

// The partition a worker slot was busy with, if any.
std::pair<job_t*, task_t*> holder_of(sched_ptr self, std::uint64_t ticket) {
  if (!ticket) return {nullptr, nullptr};
  for (auto& [id, j] : self->state.jobs)
    for (auto& t : j.tasks)
      if (t.ticket == ticket) return {&j, &t};
  return {nullptr, nullptr};
}

// Fails every partition in `which` stage(s); they are queued again with attempt + 1.
template <class Pred>
void fail_where(sched_ptr self, Pred pred, const std::string& reason) {
  std::vector<std::pair<job_id, std::uint32_t>> hit;
  for (auto& [id, j] : self->state.jobs)
    for (auto& t : j.tasks)
      if (pred(t)) hit.emplace_back(id, t.index);
  for (auto [id, index] : hit) {
    auto it = self->state.jobs.find(id);
    if (it != self->state.jobs.end()) fail_attempt(self, it->second, it->second.tasks[index], reason, true);
  }
}

// A worker's replacement takes its slot (keeping the slot's counters); the partition the dead one
// held, if any, is retried.
void replace_worker(sched_ptr self, std::vector<slot_t>& slots, const worker_replaced& r, const std::string& why) {
  if (r.slot >= slots.size()) return;
  std::vector<std::uint64_t> held(slots[r.slot].waiting.begin(), slots[r.slot].waiting.end());
  held.insert(held.begin(), slots[r.slot].ticket);
  auto& slot = slots[r.slot];
  slot.handle = r.fresh;
  slot.alive = bool(r.fresh);
  slot.ticket = 0;
  slot.waiting.clear();
  slot.last_end_us = 0;
  slot.follows = false;
  for (auto ticket : held)
    if (auto [j, t] = holder_of(self, ticket); t) fail_attempt(self, *j, *t, why, true);
}

void on_replaced(sched_ptr self, worker_replaced& r) {
  auto& st = self->state;
  std::string why = std::string(to_string(r.who)) + " " + std::to_string(r.slot) + " died (" + r.reason + ")";
  switch (r.who) {
    case role::synthesizer:
    case role::remote_synthesizer:
      replace_worker(self, st.synths, r, why);
      break;
    case role::device:
      replace_worker(self, st.devices, r, why);
      break;
    case role::stager:
      replace_worker(self, st.stagers, r, why);
      break;
    case role::vram_budget:
      if (r.slot < st.vram.size()) {
        st.vram[r.slot] = caf::actor_cast<budget_actor>(r.fresh);
        st.vram_alive[r.slot] = bool(r.fresh);
        int d = static_cast<int>(r.slot);
        fail_where(self, [d](const task_t& t) { return t.st == stage::device_reserving && t.device == d; }, why);
      }
      break;
    case role::host_budget:
      st.host_budget = caf::actor_cast<budget_actor>(r.fresh);
      st.host_alive = bool(r.fresh);
      fail_where(self, [](const task_t& t) { return t.st == stage::reserving; }, why);
      break;
    case role::key_store:
      st.key_store = caf::actor_cast<key_store_actor>(r.fresh);
      st.key_store_alive = bool(r.fresh);
      fail_where(self, [](const task_t& t) { return t.st == stage::device_resident; }, why);
      fail_where(self, [](const task_t& t) { return t.st == stage::keying; }, why);
      break;
    case role::assembler: {
      st.assembler = caf::actor_cast<assembler_actor>(r.fresh);
      st.assembler_alive = bool(r.fresh);
      // The new assembler knows nothing: send it every proof of the unfinished jobs again.
      std::vector<std::pair<job_id, std::uint32_t>> resend;
      for (auto& [id, j] : st.jobs)
        for (auto& t : j.tasks)
          if (t.st == stage::proved || t.st == stage::assembling || t.st == stage::assembled)
            resend.emplace_back(id, t.index);
      for (auto [id, index] : resend) {
        auto& j = st.jobs.at(id);
        assemble(self, j, j.tasks[index]);
      }
      break;
    }
    default:
      break;
  }
  pump(self);
}

scheduler_actor::behavior_type scheduler(sched_ptr self, scheduler_setup setup) {
  auto& st = self->state;
  st.settings = std::move(setup.settings);
  st.key_store = caf::actor_cast<key_store_actor>(setup.workers.key_store);
  st.host_budget = caf::actor_cast<budget_actor>(setup.workers.host_budget);
  st.assembler = caf::actor_cast<assembler_actor>(setup.workers.assembler);
  for (auto& s : setup.workers.synthesizers) st.synths.push_back(slot_t{s, bool(s)});
  for (auto& d : setup.workers.devices) st.devices.push_back(slot_t{d, bool(d)});
  for (std::size_t d = 0; d < st.devices.size(); ++d) {
    caf::actor a = d < setup.workers.stagers.size() ? setup.workers.stagers[d] : caf::actor{};
    st.stagers.push_back(slot_t{a, bool(a)});
  }
  st.staged.resize(st.devices.size());
  for (auto& v : setup.workers.vram_budgets) {
    st.vram.push_back(caf::actor_cast<budget_actor>(v));
    st.vram_alive.push_back(bool(v));
  }
  return {
      [self](job_ticket& ticket) -> caf::result<job_outcome> {
        auto& st = self->state;
        auto rp = self->make_response_promise<job_outcome>();
        auto id = ticket.job;
        auto& j = st.jobs[id];
        j.id = id;
        j.spec = std::move(ticket.spec);
        j.seq = st.next_seq++;
        j.t_submit = now_us();
        j.promise = rp;
        j.tasks.resize(j.spec.partitions.size());
        for (std::uint32_t i = 0; i < j.tasks.size(); ++i) {
          j.tasks[i].index = i;
          st.queue.insert(order_of(j, i));
        }
        if (!proves_locally(st)) describe_key(self, j);  // its nodes are matched on the key's fingerprint
        pump(self);
        return rp;
      },
      [self](place_atom, std::string& circuit, std::string& fingerprint) -> caf::result<std::string> {
        auto& st = self->state;
        if (proves_locally(st)) return std::string();
        if (!fingerprint.empty()) return placement_missing(st, circuit, fingerprint, true);
        // A zkey: its fingerprint from its header (the key store reads it once per path).
        auto rp = self->make_response_promise<std::string>();
        self->request(st.key_store, st.settings.step_timeout, describe_atom::value, circuit)
            .then([self, rp, circuit](key_summary& s) mutable {
                    rp.deliver(placement_missing(self->state, circuit, s.fingerprint, false));
                  },
                  [rp](caf::error& e) mutable { rp.deliver(std::move(e)); });
        return rp;
      },
      [self](cancel_atom, job_id id) {
        auto it = self->state.jobs.find(id);
        if (it == self->state.jobs.end()) return;
        job_outcome out;
        out.state = job_state::canceled;
        end_job(self, it->second, std::move(out));
        pump(self);
      },
      [self](worker_replaced& r) { on_replaced(self, r); },
      [self](tick_atom) { serve_waiters(self); },
      [self](node_joined& n) {
        auto& slot = self->state.nodes[n.id];
        slot.name = n.name;
        slot.agent = caf::actor_cast<node_agent_actor>(n.agent);
        slot.slots = n.slots;
        slot.keys = std::set<std::string>(n.fingerprints.begin(), n.fingerprints.end());
        pump(self);
      },
      [self](node_lost_atom, std::uint64_t id, const std::string& reason) {
        auto it = self->state.nodes.find(id);
        if (it == self->state.nodes.end()) return;
        std::string why = "node " + it->second.name + " lost (" + reason + ")";
        self->state.nodes.erase(it);
        fail_where(self, [id](const task_t& t) { return t.st == stage::remote && t.node == id; }, why);
        pump(self);
      },
      [self](status_atom) -> scheduler_status {
        auto& st = self->state;
        scheduler_status s;
        for (std::size_t d = 0; d < st.devices.size(); ++d) {
          s.devices.push_back(device_usage{device_label(st.settings, d),
                                           st.devices[d].busy_us, st.devices[d].proofs, st.devices[d].gaps,
                                           st.devices[d].gap_us, st.devices[d].gap_max_us});
          s.devices.back().ahead = st.devices[d].ahead;
          // The job it proves now (its oldest request), else the one staged next on it.
          auto [pj, pt] = holder_of(self, st.devices[d].ticket);
          job_id proving = pj && pt->st == stage::proving ? pj->id : 0;
          if (!proving && d < st.staged.size() && !st.staged[d].empty()) proving = std::get<2>(*st.staged[d].begin());
          s.devices.back().current_job = proving;
        }
        s.retries = st.retries;
        s.tasks_queued = st.queue.size();
        for (auto& [id, j] : st.jobs)
          for (auto& t : j.tasks)
            if (t.st != stage::queued && t.st != stage::assembled) ++s.tasks_running;
        for (auto& [id, n] : st.nodes)
          s.nodes.push_back(node_load{id, static_cast<std::uint32_t>(n.tickets.size()), n.proofs, n.failures, n.busy_us,
                                      n.refused});
        s.stale_results = st.stale;
        s.host_waits = st.host_waits.size();
        s.waits_served_home = st.waits_served_home;
        s.device_waits = st.device_queue.size();
        if (!proves_locally(st))
          for (auto& [id, j] : st.jobs) {
            if (std::none_of(j.tasks.begin(), j.tasks.end(), [](const task_t& t) { return t.st == stage::queued; }))
              continue;
            const bool params = !j.spec.key_fingerprint.empty();
            if (!params && j.described != job_t::described::yes) continue;  // its key not read yet
            auto missing = placement_missing(st, j.spec.circuit, fingerprint_of(j), params);
            if (missing.empty()) continue;
            const auto name = j.spec.circuit.substr(j.spec.circuit.find_last_of('/') + 1);
            s.waiting.push_back(job_wait{id, "waiting for a node holding " + name + " (" +
                                                 (params ? "parameters.json digest " : "fingerprint ") +
                                                 fingerprint_of(j) + ")"});
          }
        return s;
      },
  };
}

}  // namespace

scheduler_actor spawn_scheduler(caf::actor_system& sys, scheduler_setup setup) {
  return sys.spawn(scheduler, std::move(setup));
}

}  // namespace cuzk::actors
