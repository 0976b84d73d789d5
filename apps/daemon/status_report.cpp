#include "status_report.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <system_error>

namespace cuzk::daemon {

namespace fs = std::filesystem;

namespace {

std::string tier_name(pb::SRSStatus::Tier t) {
  return t == pb::SRSStatus::HOT ? "hot" : t == pb::SRSStatus::WARM ? "warm" : "cold";
}

}  // namespace

key_file key_files::read(const std::string& path) {
  std::error_code ec;
  auto bytes = fs::file_size(path, ec);
  return {canonical_path(path), ec ? 0 : std::uint64_t(bytes)};
}

std::map<std::string, key_file> key_files::of(const std::vector<engine::key_status>& keys) {
  std::lock_guard lock(mu_);
  std::map<std::string, key_file> out;
  for (auto& k : keys) {
    auto it = known_.find(k.path);
    if (it != known_.end()) {
      out.emplace(k.path, it->second);
      continue;
    }
    // A file that cannot be read now (0 bytes) is not kept: the next status looks again.
    auto f = probe_(k.path);
    if (f.bytes) known_.emplace(k.path, f);
    out.emplace(k.path, std::move(f));
  }
  return out;
}

pb::GetStatusResponse status_of(const status_snapshot& in) {
  pb::GetStatusResponse s;
  const daemon_info& info = in.info;
  s.set_pid(info.pid);
  s.set_version(info.version);
  s.set_build_id(info.build_id);
  s.set_config_hash(info.config_hash);
  s.set_start_time_unix_ms(std::uint64_t(info.start_unix_ms));
  s.set_uptime_seconds(std::uint64_t((in.now_unix_ms - info.start_unix_ms) / 1000));
  const engine::status_report& es = in.engine;
  const auto& live = in.live;
  for (std::size_t i = 0; i < es.scheduler.devices.size(); ++i) {
    const auto& d = es.scheduler.devices[i];
    auto* dev = s.add_gpus();
    dev->set_ordinal(std::uint32_t(i));
    dev->set_name(d.name);
    dev->set_kind(d.name.rfind("cuda", 0) == 0 ? "cuda" : "cpu");
    dev->set_busy_seconds(double(d.busy_us) / 1e6);
    dev->set_partitions_done(d.proofs);
    dev->set_alive(true);
    dev->set_node("local");
    if (auto it = live.find(d.current_job); d.current_job && it != live.end()) {
      dev->set_current_job_id(it->second.first);
      dev->set_current_proof_kind(it->second.second);
    }
    if (i < es.vram.size()) {
      dev->set_vram_total_bytes(es.vram[i].capacity);
      dev->set_vram_free_bytes(engine::free_bytes(es.vram[i]));
      dev->set_vram_budget_bytes(es.vram[i].capacity);
      dev->set_vram_reserved_bytes(es.vram[i].in_use);
    }
    for (auto& m : es.key_store.devices)
      if (m.device == i) {
        dev->set_vram_resident_bytes(m.resident_bytes);
        if (i < es.vram.size()) dev->set_vram_staged_bytes(engine::staged_bytes(es.vram[i], m));
        dev->set_resident_keys(m.keys);
        dev->set_resident_loads(m.loads);
        dev->set_resident_evictions(m.evictions);
      }
  }
  s.set_pinned_memory_bytes(es.host.in_use);
  s.set_pinned_memory_limit_bytes(es.host.capacity);
  auto add_budget = [&](const engine::budget_status& b) {
    auto* out = s.add_budgets();
    out->set_name(b.name);
    out->set_limit_bytes(b.capacity);
    out->set_reserved_bytes(b.in_use);
    out->set_peak_bytes(b.peak);
    out->set_waiting(b.queued);
  };
  add_budget(es.host);
  for (auto& v : es.vram) add_budget(v);
  // The key store's keys are by zkey path: match them to the catalog's circuits by path or by the
  // canonical paths taken before (a key the store has never seen is cold).
  auto file_of = [&](const engine::key_status& key) -> const key_file* {
    auto it = in.key_files.find(key.path);
    return it == in.key_files.end() ? nullptr : &it->second;
  };
  auto same_file = [&](const engine::key_status& key, const circuit_catalog::circuit& c) {
    if (key.path == c.path) return true;
    auto* f = file_of(key);
    return f && !c.canonical.empty() && f->canonical == c.canonical;
  };
  auto tier = [](engine::key_tier t) {
    return t == engine::key_tier::hot ? pb::SRSStatus::HOT : t == engine::key_tier::warm ? pb::SRSStatus::WARM
                                                                                          : pb::SRSStatus::COLD;
  };
  // A key's B2 fields: the host copy's bytes and each device's latest plan.
  auto b2_of = [](const engine::key_status& key, pb::SRSStatus* k) {
    k->set_b2_host_bytes(key.b2_host_bytes);
    for (auto& p : key.b2_plans) {
      auto* b = k->add_b2_plans();
      b->set_device(p.device);
      b->set_mode(p.mode);
      b->set_points(p.points);
      b->set_host_points(p.host_points);
      b->set_predicted_ms(p.predicted_ms);
      b->set_predicted_device_ms(p.predicted_device_ms);
      b->set_predicted_host_ms(p.predicted_host_ms);
      b->set_device_rate(p.device_rate);
      b->set_host_rate(p.host_rate);
      b->set_device_ms(p.device_ms);
      b->set_host_ms(p.host_ms);
      b->set_main_lane_ms(p.main_lane_ms);
      b->set_proofs(p.proofs);
      b->set_why(p.why);
    }
  };
  for (auto& [name, c] : in.circuits) {
    auto* k = s.add_loaded_srs();
    k->set_circuit_id(name);
    k->set_tier(pb::SRSStatus::COLD);
    k->set_file_bytes(c.file_bytes);
    for (auto& key : es.key_store.keys)
      if (key.path == name || same_file(key, c)) {
        k->set_tier(tier(key.tier));
        k->set_size_bytes(key.bytes + key.buffers_held_bytes);  // its kept sets' held grants too
        k->set_ref_count(key.leases);
        for (auto d : key.resident_on) k->add_resident_on(d);
        for (auto& p : key.placement_on) k->add_placement_on(p);
        b2_of(key, k);
        break;
      }
  }
  // Filecoin parameters the key store has seen (they are not in the keys directory's catalog).
  for (auto& key : es.key_store.keys) {
    auto name = fs::path(key.path).filename().string();
    if (name.rfind("v28-", 0) != 0) continue;
    auto* k = s.add_loaded_srs();
    k->set_circuit_id(fs::path(name).stem().string());
    k->set_tier(tier(key.tier));
    k->set_size_bytes(key.bytes + key.buffers_held_bytes);  // its kept sets' held grants too
    k->set_ref_count(key.leases);
    for (auto d : key.resident_on) k->add_resident_on(d);
    for (auto& p : key.placement_on) k->add_placement_on(p);
    b2_of(key, k);
    if (auto* f = file_of(key)) k->set_file_bytes(f->bytes);
  }
  // Jobs by proof kind, as Curio reads them for back-pressure (pending + in_progress).
  std::map<engine::job_id, std::string> kinds;
  for (auto& [id, jk] : live) kinds[id] = jk.second;
  struct counts {
    std::uint32_t pending = 0, running = 0, partitions = 0;
  };
  std::map<std::string, counts> by_kind;
  std::uint64_t running = 0;
  for (auto& j : es.intake.jobs) {
    auto it = kinds.find(j.job);
    auto& c = by_kind[it == kinds.end() ? "circom" : it->second];
    if (j.state == engine::job_state::queued) {
      ++c.pending;
      c.partitions += j.partitions;
    }
    if (j.state == engine::job_state::running) ++c.running;
    if (j.state == engine::job_state::running || j.state == engine::job_state::queued) ++running;
  }
  for (const char* k : {"winning", "wpost", "porep", "circom"}) {
    auto* q = s.add_queues();
    q->set_proof_kind(k);
    q->set_pending(by_kind[k].pending);
    q->set_in_progress(by_kind[k].running);
    q->set_partitions_queued(by_kind[k].partitions);
  }
  s.set_total_proofs_completed(in.completed);
  s.set_total_proofs_failed(in.failed);
  s.set_jobs_running(running);
  s.set_retries(es.scheduler.retries);
  s.set_faults(es.supervisor.faults.size());
  s.set_cluster_role(es.cluster_role);
  auto seconds_ago = [&](std::uint64_t us) { return double(es.taken_us - std::min(es.taken_us, us)) / 1e6; };
  for (auto& n : es.registrar.nodes) {
    auto* out = s.add_nodes();
    out->set_id(n.id);
    out->set_name(n.name);
    out->set_build(n.build);
    out->set_alive(n.alive);
    out->set_lost_reason(n.lost_reason);
    out->set_slots(n.slots);
    for (auto& d : n.devices) out->add_devices(d);
    for (auto& k : n.keys) {
      out->add_circuits(k.name);
      out->add_fingerprints(k.fingerprint);
      out->add_proof_kinds(k.kind);
    }
    if (auto* load = es.load_of(n.id); load && n.alive) {
      out->set_busy(load->busy);
      out->set_partitions_done(load->proofs);
      out->set_failures(load->failures);
      out->set_busy_seconds(double(load->busy_us) / 1e6);
    }
    out->set_joined_seconds_ago(seconds_ago(n.joined_us));
    out->set_last_seen_seconds_ago(seconds_ago(n.last_seen_us));
  }
  s.set_node_joins(es.registrar.joins);
  s.set_node_refusals(es.registrar.refused);
  s.set_node_losses(es.registrar.lost);
  s.set_stale_results(es.scheduler.stale_results);
  s.set_host_waits(es.scheduler.host_waits);
  s.set_host_waits_served_home(es.scheduler.waits_served_home);
  for (auto& r : es.registrar.refusals) s.add_refusals(r);
  for (auto& w : es.scheduler.waiting) {
    auto* out = s.add_waiting_for_node();
    auto it = live.find(w.job);
    out->set_job_id(it != live.end() ? it->second.first : std::to_string(w.job));
    out->set_proof_kind(it != live.end() ? it->second.second : "circom");
    out->set_reason(w.reason);
  }
  if (es.coordinator) {
    auto* c = s.mutable_coordinator();
    c->set_address(es.coordinator->coordinator);
    c->set_state(es.coordinator->state);
    c->set_detail(es.coordinator->detail);
    c->set_node_id(es.coordinator->node_id);
    c->set_joins(es.coordinator->joins);
    c->set_tasks(es.coordinator->tasks);
    c->set_failures(es.coordinator->failures);
  }
  return s;
}

std::string prometheus_text(const pb::GetStatusResponse& s) {
  std::ostringstream m;
  auto metric = [&](const char* name, const char* help, const char* type) {
    m << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n";
  };
  metric("cuzk_up", "1 while the daemon serves", "gauge");
  m << "cuzk_up{version=\"" << s.version() << "\",build_id=\"" << s.build_id() << "\"} 1\n";
  metric("cuzk_uptime_seconds", "Seconds since the daemon started", "gauge");
  m << "cuzk_uptime_seconds " << s.uptime_seconds() << "\n";
  metric("cuzk_jobs_completed_total", "Jobs finished with verified proofs", "counter");
  m << "cuzk_jobs_completed_total " << s.total_proofs_completed() << "\n";
  metric("cuzk_jobs_failed_total", "Jobs that failed or were cancelled", "counter");
  m << "cuzk_jobs_failed_total " << s.total_proofs_failed() << "\n";
  metric("cuzk_jobs_active", "Jobs queued or running", "gauge");
  m << "cuzk_jobs_active " << s.jobs_running() << "\n";
  metric("cuzk_partition_retries_total", "Partitions re-queued after a fault", "counter");
  m << "cuzk_partition_retries_total " << s.retries() << "\n";
  metric("cuzk_faults_total", "Worker faults seen by the supervisor", "counter");
  m << "cuzk_faults_total " << s.faults() << "\n";
  metric("cuzk_host_waits", "Partitions waiting in the host budget's queue for a grant", "gauge");
  m << "cuzk_host_waits " << s.host_waits() << "\n";
  metric("cuzk_host_waits_served_home_total", "Host waits served by a grant coming home to their key's kept buffers",
         "counter");
  m << "cuzk_host_waits_served_home_total " << s.host_waits_served_home() << "\n";
  metric("cuzk_partitions_queued", "Partitions waiting, by proof kind", "gauge");
  for (auto& q : s.queues()) m << "cuzk_partitions_queued{proof_kind=\"" << q.proof_kind() << "\"} " << q.partitions_queued() << "\n";
  metric("cuzk_jobs_queued", "Jobs waiting, by proof kind", "gauge");
  for (auto& q : s.queues()) m << "cuzk_jobs_queued{proof_kind=\"" << q.proof_kind() << "\"} " << q.pending() << "\n";
  metric("cuzk_jobs_running", "Jobs running, by proof kind", "gauge");
  for (auto& q : s.queues()) m << "cuzk_jobs_running{proof_kind=\"" << q.proof_kind() << "\"} " << q.in_progress() << "\n";
  metric("cuzk_budget_reserved_bytes", "Bytes reserved from each memory budget", "gauge");
  for (auto& b : s.budgets()) m << "cuzk_budget_reserved_bytes{budget=\"" << b.name() << "\"} " << b.reserved_bytes() << "\n";
  metric("cuzk_budget_limit_bytes", "Size of each memory budget", "gauge");
  for (auto& b : s.budgets()) m << "cuzk_budget_limit_bytes{budget=\"" << b.name() << "\"} " << b.limit_bytes() << "\n";
  metric("cuzk_key_tier", "1 for each circuit's current key tier (cold, warm, hot)", "gauge");
  for (auto& k : s.loaded_srs())
    for (const char* t : {"cold", "warm", "hot"})
      m << "cuzk_key_tier{circuit=\"" << k.circuit_id() << "\",tier=\"" << t << "\"} " << (tier_name(k.tier()) == t ? 1 : 0) << "\n";
  metric("cuzk_key_bytes", "Host bytes the engine holds for each circuit's key (its evaluator)", "gauge");
  for (auto& k : s.loaded_srs()) m << "cuzk_key_bytes{circuit=\"" << k.circuit_id() << "\"} " << k.size_bytes() << "\n";
  metric("cuzk_key_leases", "Partitions holding each circuit's key now", "gauge");
  for (auto& k : s.loaded_srs()) m << "cuzk_key_leases{circuit=\"" << k.circuit_id() << "\"} " << k.ref_count() << "\n";
  metric("cuzk_device_busy_seconds_total", "Seconds each device spent proving", "counter");
  for (auto& d : s.gpus()) m << "cuzk_device_busy_seconds_total{device=\"" << d.name() << "\"} " << d.busy_seconds() << "\n";
  metric("cuzk_device_partitions_total", "Partitions each device proved", "counter");
  for (auto& d : s.gpus()) m << "cuzk_device_partitions_total{device=\"" << d.name() << "\"} " << d.partitions_done() << "\n";
  metric("cuzk_device_resident_bytes", "VRAM budget granted to the keys resident on each device", "gauge");
  for (auto& d : s.gpus()) m << "cuzk_device_resident_bytes{device=\"" << d.name() << "\"} " << d.vram_resident_bytes() << "\n";
  metric("cuzk_device_staged_bytes", "VRAM budget granted to the partitions staged on each device", "gauge");
  for (auto& d : s.gpus()) m << "cuzk_device_staged_bytes{device=\"" << d.name() << "\"} " << d.vram_staged_bytes() << "\n";
  metric("cuzk_device_resident_evictions_total", "Resident keys dropped from each device", "counter");
  for (auto& d : s.gpus())
    m << "cuzk_device_resident_evictions_total{device=\"" << d.name() << "\"} " << d.resident_evictions() << "\n";
  if (s.cluster_role() == "coordinator") {
    metric("cuzk_cluster_node_up", "1 while a worker node is a member, 0 once lost", "gauge");
    for (auto& n : s.nodes())
      m << "cuzk_cluster_node_up{node=\"" << n.name() << "\",id=\"" << n.id() << "\"} " << (n.alive() ? 1 : 0) << "\n";
    metric("cuzk_cluster_node_busy_slots", "Partitions in flight on each node", "gauge");
    for (auto& n : s.nodes())
      if (n.alive()) m << "cuzk_cluster_node_busy_slots{node=\"" << n.name() << "\"} " << n.busy() << "\n";
    metric("cuzk_cluster_node_slots", "Partitions each node takes at once", "gauge");
    for (auto& n : s.nodes())
      if (n.alive()) m << "cuzk_cluster_node_slots{node=\"" << n.name() << "\"} " << n.slots() << "\n";
    metric("cuzk_cluster_node_partitions_total", "Partitions each node proved", "counter");
    for (auto& n : s.nodes())
      if (n.alive()) m << "cuzk_cluster_node_partitions_total{node=\"" << n.name() << "\"} " << n.partitions_done() << "\n";
    metric("cuzk_cluster_node_last_seen_seconds", "Seconds since each node's last heartbeat", "gauge");
    for (auto& n : s.nodes())
      if (n.alive()) m << "cuzk_cluster_node_last_seen_seconds{node=\"" << n.name() << "\"} " << n.last_seen_seconds_ago() << "\n";
    metric("cuzk_cluster_joins_total", "Nodes admitted", "counter");
    m << "cuzk_cluster_joins_total " << s.node_joins() << "\n";
    metric("cuzk_cluster_refusals_total", "Join attempts refused (wrong secret, other build)", "counter");
    m << "cuzk_cluster_refusals_total " << s.node_refusals() << "\n";
    metric("cuzk_cluster_losses_total", "Nodes lost (connection closed or heartbeat timeout)", "counter");
    m << "cuzk_cluster_losses_total " << s.node_losses() << "\n";
    metric("cuzk_cluster_stale_results_total", "Answers of abandoned attempts, dropped", "counter");
    m << "cuzk_cluster_stale_results_total " << s.stale_results() << "\n";
  } else if (s.cluster_role() == "worker") {
    metric("cuzk_cluster_joined", "1 while this worker is a member of its coordinator", "gauge");
    m << "cuzk_cluster_joined{coordinator=\"" << s.coordinator().address() << "\"} "
      << (s.coordinator().state() == "joined" ? 1 : 0) << "\n";
    metric("cuzk_cluster_tasks_total", "Partitions the coordinator sent here", "counter");
    m << "cuzk_cluster_tasks_total " << s.coordinator().tasks() << "\n";
  }
  return m.str();
}

std::string status_json_text(const pb::GetStatusResponse& s) {
  nlohmann::ordered_json j;
  j["pid"] = s.pid();
  j["version"] = s.version();
  j["build_id"] = s.build_id();
  j["config_hash"] = s.config_hash();
  j["start_time_unix_ms"] = s.start_time_unix_ms();
  j["uptime_seconds"] = s.uptime_seconds();
  j["jobs"] = {{"completed", s.total_proofs_completed()}, {"failed", s.total_proofs_failed()}, {"active", s.jobs_running()},
               {"retries", s.retries()}, {"faults", s.faults()}};
  j["host_waits"] = {{"waiting", s.host_waits()}, {"served_home", s.host_waits_served_home()}};
  for (auto& d : s.gpus())
    j["devices"].push_back({{"name", d.name()}, {"kind", d.kind()}, {"busy_seconds", d.busy_seconds()},
                            {"partitions", d.partitions_done()}, {"vram_budget_bytes", d.vram_budget_bytes()},
                            {"vram_reserved_bytes", d.vram_reserved_bytes()}, {"vram_resident_bytes", d.vram_resident_bytes()},
                            {"vram_staged_bytes", d.vram_staged_bytes()}, {"vram_free_bytes", d.vram_free_bytes()},
                            {"resident_keys", d.resident_keys()}, {"resident_loads", d.resident_loads()},
                            {"resident_evictions", d.resident_evictions()}, {"node", d.node()}});
  for (auto& k : s.loaded_srs()) {
    nlohmann::ordered_json plans = nlohmann::ordered_json::array();
    for (auto& p : k.b2_plans())
      plans.push_back({{"device", p.device()}, {"mode", p.mode()}, {"points", p.points()}, {"host_points", p.host_points()},
                       {"predicted_ms", p.predicted_ms()}, {"predicted_device_ms", p.predicted_device_ms()},
                       {"predicted_host_ms", p.predicted_host_ms()}, {"device_rate", p.device_rate()},
                       {"host_rate", p.host_rate()}, {"device_ms", p.device_ms()}, {"host_ms", p.host_ms()},
                       {"main_lane_ms", p.main_lane_ms()}, {"proofs", p.proofs()}, {"why", p.why()}});
    j["keys"].push_back({{"circuit", k.circuit_id()}, {"tier", tier_name(k.tier())}, {"bytes", k.size_bytes()},
                         {"leases", k.ref_count()}, {"file_bytes", k.file_bytes()},
                         {"resident_on", std::vector<std::uint32_t>(k.resident_on().begin(), k.resident_on().end())},
                         {"placement_on", std::vector<std::string>(k.placement_on().begin(), k.placement_on().end())},
                         {"b2_host_bytes", k.b2_host_bytes()}, {"b2_plans", std::move(plans)}});
  }
  for (auto& q : s.queues())
    j["queues"][q.proof_kind()] = {{"pending", q.pending()}, {"in_progress", q.in_progress()},
                                   {"partitions_queued", q.partitions_queued()}};
  for (auto& b : s.budgets())
    j["budgets"].push_back({{"name", b.name()}, {"limit_bytes", b.limit_bytes()},
                            {"reserved_bytes", b.reserved_bytes()}, {"peak_bytes", b.peak_bytes()},
                            {"waiting", b.waiting()}});
  auto& cl = j["cluster"];
  cl["role"] = s.cluster_role();
  if (s.cluster_role() == "coordinator") {
    cl["nodes"] = nlohmann::ordered_json::array();
    for (auto& n : s.nodes())
      cl["nodes"].push_back({{"id", n.id()}, {"name", n.name()}, {"alive", n.alive()},
                             {"lost_reason", n.lost_reason()}, {"slots", n.slots()}, {"busy", n.busy()},
                             {"devices", std::vector<std::string>(n.devices().begin(), n.devices().end())},
                             {"circuits", std::vector<std::string>(n.circuits().begin(), n.circuits().end())},
                             {"fingerprints", std::vector<std::string>(n.fingerprints().begin(), n.fingerprints().end())},
                             {"proof_kinds", std::vector<std::string>(n.proof_kinds().begin(), n.proof_kinds().end())},
                             {"partitions", n.partitions_done()}, {"failures", n.failures()},
                             {"busy_seconds", n.busy_seconds()}, {"last_seen_seconds_ago", n.last_seen_seconds_ago()},
                             {"joined_seconds_ago", n.joined_seconds_ago()}, {"build", n.build()}});
    cl["waiting_for_node"] = nlohmann::ordered_json::array();
    for (auto& w : s.waiting_for_node())
      cl["waiting_for_node"].push_back({{"job_id", w.job_id()}, {"proof_kind", w.proof_kind()}, {"reason", w.reason()}});
    cl["joins"] = s.node_joins();
    cl["refusals"] = s.node_refusals();
    cl["losses"] = s.node_losses();
    cl["stale_results"] = s.stale_results();
    cl["recent_refusals"] = std::vector<std::string>(s.refusals().begin(), s.refusals().end());
  } else if (s.cluster_role() == "worker") {
    const auto& c = s.coordinator();
    cl["coordinator"] = {{"address", c.address()}, {"state", c.state()}, {"detail", c.detail()},
                         {"node_id", c.node_id()}, {"joins", c.joins()}, {"tasks", c.tasks()},
                         {"failures", c.failures()}};
  }
  return j.dump(1);
}

}  // namespace cuzk::daemon
