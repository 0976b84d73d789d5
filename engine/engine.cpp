// The engine facade: one actor system, the supervisor that builds every actor, and blocking
// requests (scoped actors) for the caller's threads. Nothing here touches engine state directly.
#include "engine/engine.hpp"

#include <thread>

#include "actors/actors.hpp"
#include "caf/all.hpp"
#include "caf/io/all.hpp"
#include "zk/groth16/backend_registry.hpp"

namespace cuzk::engine {

const char* to_string(job_state s) {
  switch (s) {
    case job_state::queued: return "queued";
    case job_state::running: return "running";
    case job_state::succeeded: return "succeeded";
    case job_state::failed: return "failed";
    case job_state::canceled: return "canceled";
  }
  return "unknown";
}

const char* to_string(key_tier t) {
  switch (t) {
    case key_tier::cold: return "cold";
    case key_tier::warm: return "warm";
    case key_tier::hot: return "hot";
  }
  return "unknown";
}

const char* to_string(worker_role r) { return msg::to_string(static_cast<msg::role>(r)); }

namespace {

bool is_timeout(const caf::error& e) {
  return e.category() == caf::atom("system") && e.code() == static_cast<std::uint8_t>(caf::sec::request_timeout);
}

double ms(std::uint64_t us) { return static_cast<double>(us) / 1000.0; }

job_timings convert(const msg::job_timings& t) {
  return {ms(t.queue_us), ms(t.key_us), ms(t.synthesis_us), ms(t.device_us), ms(t.total_us)};
}

job_result convert(msg::job_outcome& o) {
  job_result r;
  r.id = o.job;
  r.state = static_cast<job_state>(o.state);
  r.reasons = std::move(o.reasons);
  r.attempts = o.attempts;
  r.timings = convert(o.timings);
  r.compressed = std::move(o.compressed);
  for (std::size_t i = 0; i < o.partitions.size(); ++i) {
    partition_proof p;
    p.proof = o.partitions[i].proof;
    p.public_inputs = std::move(o.partitions[i].publics);
    if (r.compressed.size() >= (i + 1) * 192)
      std::copy_n(r.compressed.begin() + static_cast<std::ptrdiff_t>(i * 192), 192, p.compressed.begin());
    r.partitions.push_back(std::move(p));
  }
  return r;
}

budget_usage convert(const msg::budget_status& b) {
  budget_usage u;
  u.name = b.name;
  u.capacity = b.capacity;
  u.in_use = b.in_use;
  u.peak = b.peak;
  u.queued_bytes = b.queued_bytes;
  u.reclaimed = b.reclaimed_total;
  u.reservations = b.reservations;
  u.queued = b.queued;
  u.held = b.held_bytes;
  return u;
}

}  // namespace

struct engine::impl {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  caf::actor supervisor;
  msg::roster roster;  // intake and scheduler never change; the rest is asked for when needed
  actors::engine_settings settings;
  bool stopped = false;

  // One blocking request; `on_value` runs on the answer. Returns the error, if any.
  template <class F, class Handle, class... Ts>
  caf::error ask(const Handle& to, std::chrono::milliseconds timeout, F on_value, Ts&&... xs) {
    if (stopped) return msg::make_error(msg::errc::shutting_down, "engine stopped");
    if (!to) return msg::make_error(msg::errc::worker_failed, "no such actor");
    caf::error err;
    caf::scoped_actor self{*sys};
    self->request(to, timeout, std::forward<Ts>(xs)...).receive(on_value, [&](caf::error& e) { err = e; });
    return err;
  }

  msg::roster current_roster() {
    msg::roster r;
    ask(supervisor, std::chrono::seconds(10), [&](msg::roster& x) { r = std::move(x); }, msg::roster_atom::value);
    return r;
  }

  void shutdown() {
    if (stopped || !sys) return;
    ask(supervisor, std::chrono::seconds(10), [](bool) {}, msg::shutdown_atom::value);
    stopped = true;
    // Detached actors' threads wait until the last handle to them is gone.
    roster = {};
    supervisor = nullptr;
    sys.reset();  // waits for every actor: the supervisor stopped all of them
  }

  ~impl() { shutdown(); }
};

engine::engine(std::unique_ptr<impl> p) : p_(std::move(p)) {}
engine::engine(engine&&) noexcept = default;
engine& engine::operator=(engine&&) noexcept = default;
engine::~engine() {
  if (p_) p_->shutdown();
}

engine engine::start(const config& c) {
  auto p = std::make_unique<impl>();
  auto& s = p->settings;
  s.host_budget_bytes = parse_budget(c.host_budget, c.host_margin_bytes);
  s.device_budget_bytes = parse_budget(c.device_budget);
  s.key_cache_bytes = parse_budget(c.key_cache);
  if (c.devices.empty()) throw engine_error("config: no devices");
  s.devices.clear();
  for (auto& d : c.devices) {
    std::string name;
    try {
      name = zk::groth16::resolve_backend_name(d);
    } catch (const std::exception& e) {
      throw engine_error("config: device backend '" + d + "': " + e.what());
    }
    if (!zk::groth16::backend_available(name)) throw engine_error("config: backend '" + name + "' cannot run here");
    s.devices.push_back(name);
  }
  s.synthesizers = c.synthesizers;
  if (s.synthesizers == 0 && c.remote_synthesizers.empty())
    s.synthesizers = std::max(1u, std::thread::hardware_concurrency());
  for (auto& r : c.remote_synthesizers) s.remote_synthesizers.push_back({r.host, r.port});
  s.max_attempts = std::max(1u, c.max_attempts);
  s.max_active_jobs = c.max_active_jobs;
  s.max_partitions = c.max_partitions;
  s.step_timeout = c.step_timeout;
  s.circuits = c.circuits;
  s.faults = actors::fault_settings{c.faults.synth_throw, c.faults.device_kernel_fail, c.faults.device_alloc_fail,
                                    c.faults.seed};

  msg::register_messages(p->cfg);
  if (c.scheduler_threads) p->cfg.set("scheduler.max-threads", static_cast<std::size_t>(c.scheduler_threads));
  if (!c.remote_synthesizers.empty()) p->cfg.load<caf::io::middleman>();
  p->sys = std::make_unique<caf::actor_system>(p->cfg);
  p->supervisor = actors::spawn_supervisor(*p->sys, s);
  p->roster = p->current_roster();
  if (!p->roster.intake) throw engine_error("engine: the supervisor did not start");
  return engine(std::move(p));
}

job_id engine::submit(const request& req) {
  msg::job_spec spec;
  spec.request_id = req.request_id;
  spec.circuit = req.circuit;
  spec.prio = static_cast<msg::priority>(req.prio);
  for (auto& w : req.partitions) spec.partitions.push_back(msg::witness_source{w.path, msg::witness_handle{w.data}});
  if (req.randomness) {
    spec.fixed_randomness = true;
    spec.randomness = *req.randomness;
  }
  job_id id = 0;
  auto err = p_->ask(p_->roster.intake, std::chrono::seconds(30), [&](msg::job_id x) { id = x; }, std::move(spec));
  if (err) throw engine_error(msg::describe(err));
  return id;
}

std::optional<job_result> engine::await(job_id id, std::chrono::milliseconds timeout) {
  std::optional<job_result> out;
  auto err = p_->ask(p_->roster.intake, timeout, [&](msg::job_outcome& o) { out = convert(o); },
                     msg::await_atom::value, id);
  if (err && !is_timeout(err)) throw engine_error(msg::describe(err));
  return out;
}

bool engine::cancel(job_id id) {
  bool ok = false;
  auto err = p_->ask(p_->roster.intake, std::chrono::seconds(10), [&](bool x) { ok = x; }, msg::cancel_atom::value, id);
  if (err) throw engine_error(msg::describe(err));
  return ok;
}

status_report engine::status() {
  status_report r;
  auto t = std::chrono::seconds(10);
  auto roster = p_->current_roster();
  p_->ask(roster.intake, t, [&](msg::intake_status& s) {
    r.accepted = s.accepted;
    r.rejected = s.rejected;
    r.duplicates = s.duplicates;
    r.succeeded = s.succeeded;
    r.failed = s.failed;
    r.canceled = s.canceled;
    for (auto& j : s.jobs)
      r.jobs.push_back(job_summary{j.job, j.request_id, static_cast<job_state>(j.state),
                                   static_cast<priority>(j.prio), j.partitions, j.attempts, convert(j.timings),
                                   j.reasons});
  }, msg::status_atom::value);
  p_->ask(roster.scheduler, t, [&](msg::scheduler_status& s) {
    r.retries = s.retries;
    r.tasks_queued = s.tasks_queued;
    r.tasks_running = s.tasks_running;
    for (auto& d : s.devices) r.devices.push_back(device_report{d.name, ms(d.busy_us), d.proofs});
  }, msg::status_atom::value);
  p_->ask(p_->supervisor, t, [&](msg::supervisor_status& s) {
    r.respawns = s.respawns;
    for (auto& f : s.faults)
      r.faults.push_back(fault_report{static_cast<worker_role>(f.who), f.slot, f.reason, ms(f.at_us)});
  }, msg::status_atom::value);
  p_->ask(roster.host_budget, t, [&](msg::budget_status& b) { r.host = convert(b); }, msg::status_atom::value);
  for (auto& v : roster.vram_budgets)
    p_->ask(v, t, [&](msg::budget_status& b) { r.vram.push_back(convert(b)); }, msg::status_atom::value);
  p_->ask(roster.key_store, t, [&](msg::key_store_status& k) {
    r.key_loads = k.loads;
    r.evaluator_builds = k.evaluator_builds;
    r.key_evictions = k.evictions;
    r.key_reserved_bytes = k.reserved_bytes;
    for (auto& key : k.keys)
      r.keys.push_back(key_report{key.path, static_cast<key_tier>(key.tier), key.leases, key.bytes});
  }, msg::status_atom::value);
  return r;
}

void engine::shutdown() {
  if (p_) p_->shutdown();
}

bool engine::kill_worker(worker_role who, unsigned slot) {
  bool ok = false;
  p_->ask(p_->supervisor, std::chrono::seconds(10), [&](bool x) { ok = x; }, msg::kill_atom::value,
          static_cast<msg::role>(who), static_cast<std::uint32_t>(slot));
  return ok;
}

bool engine::fail_next_allocations(unsigned device, unsigned count) {
  bool ok = false;
  auto err = p_->ask(p_->supervisor, std::chrono::seconds(30), [&](bool x) { ok = x; }, msg::fail_alloc_atom::value,
                     static_cast<std::uint32_t>(device), static_cast<std::uint32_t>(count));
  if (err) throw engine_error(msg::describe(err));
  return ok;
}

void engine::evict_idle_keys() {
  auto roster = p_->current_roster();
  if (roster.key_store) caf::anon_send(caf::actor_cast<msg::key_store_actor>(roster.key_store), msg::evict_atom::value);
}

unsigned engine::synthesizer_count() const {
  return p_->settings.synthesizers + static_cast<unsigned>(p_->settings.remote_synthesizers.size());
}
unsigned engine::device_count() const { return static_cast<unsigned>(p_->settings.devices.size()); }

}  // namespace cuzk::engine
