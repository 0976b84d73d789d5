// The engine facade: one actor system, the supervisor that builds every actor, and blocking
// requests (scoped actors) for the caller's threads. Nothing here touches engine state directly.
#include "engine/engine.hpp"
#include "engine/capped_door.hpp"
#include "engine/cluster_tls.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <mutex>
#include <shared_mutex>
#include <thread>

#include "actors/actors.hpp"
#include "caf/all.hpp"
#include "caf/io/all.hpp"
#include "caf/openssl/manager.hpp"
#include "zk/error.hpp"
#include "zk/groth16/backend_registry.hpp"
#include "zk/groth16/synthetic_srs.hpp"
#include "zk/io/bellperson.hpp"
#include "zk/io/binfile.hpp"
#include "zk/io/json_bounded.hpp"
#include "zk/io/zkey.hpp"

namespace cuzk::engine {

namespace {

bool is_timeout(const caf::error& e) {
  return e.category() == caf::atom("system") && e.code() == static_cast<std::uint8_t>(caf::sec::request_timeout);
}

// parameters.json: {"v28-....params": {"cid": ..., "digest": "...", "sector_size": ...}, ...}
std::shared_ptr<const std::map<std::string, std::string>> read_param_digests(const std::string& path) {
  nlohmann::json j;
  try {
    j = zk::io::read_json_file(path, std::uint64_t{16} << 20, "parameters.json");
  } catch (const std::exception& e) {
    throw engine_error(std::string("config: filecoin parameters_json: ") + e.what() + " (needed by verify_params)");
  }
  if (!j.is_object()) throw engine_error("config: filecoin parameters_json: " + path + ": not an object of files");
  auto out = std::make_shared<std::map<std::string, std::string>>();
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it.value().is_object() || !it.value().contains("digest") || !it.value()["digest"].is_string())
      throw engine_error("config: filecoin parameters_json: " + path + ": " + it.key() + ": no \"digest\" string");
    (*out)[it.key()] = it.value()["digest"].get<std::string>();
  }
  return out;
}

// "HOST:PORT" or "[V6]:PORT".
std::pair<std::string, std::uint16_t> parse_endpoint(const std::string& text, const char* key) {
  auto colon = text.rfind(':');
  auto bad = [&] { return engine_error(std::string("config: cluster ") + key + " '" + text + "': expected HOST:PORT"); };
  if (colon == std::string::npos || colon == 0) throw bad();
  std::string host = text.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  std::size_t used = 0;
  unsigned long port = 0;
  try {
    port = std::stoul(text.substr(colon + 1), &used);
  } catch (const std::exception&) {
    throw bad();
  }
  if (used != text.size() - colon - 1 || port > 65535) throw bad();
  return {host, static_cast<std::uint16_t>(port)};
}

std::string default_node_name() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) std::snprintf(host, sizeof host, "node");
  return std::string(host) + "-" + std::to_string(getpid());
}

}  // namespace

// CAF 0.17's actor_system constructor and its scoped actors leave a reference to the system's
// logger in the calling thread's thread-local storage, and ~actor_system waits for the logger's
// destructor: a system destroyed on another thread than every one that touched it (the daemon
// stops the engine on a helper thread, after gRPC threads asked for status) waited forever.
void forget_logger() { caf::logger::set_current_actor_system(nullptr); }

// Nodes of another wire protocol cannot understand each other: the default build string.
// 2: SnapDeals commitments in a Filecoin job; 3: a node's result is its proof alone (no public inputs).
constexpr const char* wire_protocol = "cuzk-wire/3";

struct engine::impl {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  caf::actor supervisor;
  msg::roster roster;  // intake and scheduler never change; the rest is asked for when needed
  actors::engine_settings settings;
  filecoin_config filecoin;
  msg::registrar_actor registrar;  // coordinator
  msg::node_agent_actor agent;     // worker
  std::uint16_t cluster_port = 0;
  std::shared_ptr<door_counters> door = std::make_shared<door_counters>();
  // A cluster's Filecoin keys are matched by their parameters.json digest: the digests listed in
  // the parameter cache's parameters.json, and those computed here for files it does not list.
  std::shared_ptr<const std::map<std::string, std::string>> listed_digests;
  std::mutex digests_mu;
  std::map<std::string, std::string> computed_digests;  // path -> digest
  // Calls from other threads (a status scrape, a late submit) may race shutdown: each holds the
  // lock shared while it uses the actor system; shutdown refuses new calls, then takes it exclusively.
  std::shared_mutex lifetime;
  std::atomic<bool> closing{false};
  bool stopped = false;

  // Held by every public call for its duration; engine_error once shutdown has begun.
  std::shared_lock<std::shared_mutex> enter() {
    std::shared_lock guard(lifetime);
    if (closing || stopped) throw engine_error("shutting_down: engine stopped");
    return guard;
  }

  // One blocking request; `on_value` runs on the answer. Returns the error, if any.
  template <class F, class Handle, class... Ts>
  caf::error ask(const Handle& to, std::chrono::milliseconds timeout, F on_value, Ts&&... xs) {
    if (stopped) return msg::make_error(msg::errc::shutting_down, "engine stopped");
    if (!to) return msg::make_error(msg::errc::worker_failed, "no such actor");
    caf::error err;
    {
      caf::scoped_actor self{*sys};
      self->request(to, timeout, std::forward<Ts>(xs)...).receive(on_value, [&](caf::error& e) { err = e; });
    }
    forget_logger();
    return err;
  }

  // What both submit paths end with: fixed randomness (tests), then one request to intake.
  job_id submit(msg::job_spec spec, const std::optional<zk::groth16::randomness>& fixed) {
    if (fixed) {
      spec.fixed_randomness = true;
      spec.randomness = *fixed;
    }
    job_id id = 0;
    auto err = ask(roster.intake, std::chrono::seconds(30), [&](msg::job_id x) { id = x; }, std::move(spec));
    if (err) throw engine_error(msg::describe(err));
    return id;
  }

  msg::roster current_roster() {
    msg::roster r;
    ask(supervisor, std::chrono::seconds(10), [&](msg::roster& x) { r = std::move(x); }, msg::roster_atom::value);
    return r;
  }

  void shutdown() {
    if (closing.exchange(true)) {
      std::unique_lock wait_for_it(lifetime);  // a concurrent shutdown: return once it is done
      return;
    }
    std::unique_lock exclusive(lifetime);
    if (stopped || !sys) return;
    if (registrar) {
      sys->middleman().unpublish(registrar, cluster_port);
      caf::anon_send_exit(registrar, caf::exit_reason::user_shutdown);
      registrar = nullptr;
    }
    if (agent) {
      caf::anon_send_exit(agent, caf::exit_reason::user_shutdown);
      agent = nullptr;
    }
    ask(supervisor, std::chrono::seconds(10), [](bool) {}, msg::shutdown_atom::value);
    stopped = true;
    // Detached actors' threads wait until the last handle to them is gone.
    roster = {};
    supervisor = nullptr;
    sys.reset();  // waits for every actor: the supervisor stopped all of them
  }

  ~impl() { shutdown(); }

  // A params file's parameters.json digest: as listed, else computed once (BLAKE2b over the file).
  std::string params_digest(const std::string& path) {
    const auto name = std::filesystem::path(path).filename().string();
    if (listed_digests)
      if (auto it = listed_digests->find(name); it != listed_digests->end()) return it->second;
    std::lock_guard lock(digests_mu);
    auto& d = computed_digests[path];
    if (d.empty()) {
      if (filecoin.on_event) filecoin.on_event("cluster: computing the digest of " + path + " (not in parameters.json)");
      d = zk::io::parameters_json_digest(path);
    }
    return d;
  }

  actors::cluster_settings cluster_settings(const cluster_config& cl) const {
    actors::cluster_settings cs;
    cs.secret = cl.secret;
    cs.build = cl.build.empty() ? std::string(wire_protocol) : cl.build;
    cs.heartbeat = std::max(cl.heartbeat, std::chrono::milliseconds(10));
    cs.node_timeout = std::max(cl.node_timeout, 2 * cs.heartbeat);
    cs.on_event = cl.on_event;
    return cs;
  }

  void start_cluster(const config& c) {
    const auto& cl = c.cluster;
    if (!cl.listen.empty()) {
      auto [host, port] = parse_endpoint(cl.listen, "listen");
      // Not middleman().publish: its doorman lets any peer announce a 4 GiB payload, and keeps
      // connections that never join (capped_door.hpp).
      door_limits limits{cl.max_message_bytes, cl.max_peers, cl.handshake_timeout};
      auto capped = make_capped_door(limits, door, !cl.tls_cert.empty());
      auto cs = cluster_settings(cl);
      cs.admitted = [capped](std::vector<caf::node_id> members) { sweep_door(capped, std::move(members)); };
      registrar = actors::spawn_registrar(*sys, std::move(cs), caf::actor_cast<msg::scheduler_actor>(roster.scheduler));
      auto bound = publish_capped(*sys, caf::actor_cast<caf::strong_actor_ptr>(registrar),
                                  sys->message_types(caf::detail::type_list<msg::registrar_actor>{}), port, host,
                                  capped);
      if (!bound) {
        caf::anon_send_exit(registrar, caf::exit_reason::user_shutdown);
        registrar = nullptr;
        shutdown();
        throw engine_error("config: cluster listen '" + cl.listen + "': " + sys->render(bound.error()));
      }
      cluster_port = *bound;
      return;
    }
    auto [host, port] = parse_endpoint(cl.join, "join");
    actors::node_agent_settings ns;
    ns.cluster = cluster_settings(cl);
    ns.host = host;
    ns.port = port;
    ns.name = cl.node_name.empty() ? default_node_name() : cl.node_name;
    ns.devices = settings.devices;
    ns.slots = cl.slots ? cl.slots : std::max<std::uint32_t>(1, 2 * static_cast<std::uint32_t>(settings.devices.size()));
    ns.task_timeout = settings.step_timeout * 4;
    ns.on_refused = cl.on_refused;
    if (cl.on_answer)
      ns.on_answer = [f = cl.on_answer](msg::node_result& r) { f(r.task.job, r.task.index, r.proof); };
    ns.tls = !cl.tls_cert.empty();
    // The keys this node offers, by fingerprint: the coordinator sends a circuit's work only to
    // nodes whose key for it has the same fingerprint as its own.
    for (auto& [name, path] : c.circuits) {
      try {
        auto h = zk::io::zkey_header::read(path);
        ns.keys.push_back(msg::key_offer{name, h.fingerprint, "circom"});
        ns.key_paths[h.fingerprint] = path;
      } catch (const std::exception& e) {
        if (cl.on_event) cl.on_event(std::string("cluster: not offering ") + name + ": " + e.what());
      }
    }
    // And each Filecoin parameter file of the parameter cache, by its parameters.json digest: the
    // coordinator sends a Filecoin job only to nodes holding the file its own digest names.
    if (!c.filecoin.param_cache.empty()) {
      std::error_code ec;
      std::vector<std::string> files;
      for (auto& e : std::filesystem::directory_iterator(c.filecoin.param_cache, ec))
        if (e.path().extension() == ".params" && e.is_regular_file(ec)) files.push_back(e.path().string());
      std::sort(files.begin(), files.end());
      for (auto& path : files) {
        auto circuit = fil::circuit_for_params(path);
        if (!circuit || !circuit->implemented()) continue;
        try {
          auto digest = params_digest(path);
          ns.keys.push_back(msg::key_offer{std::filesystem::path(path).filename().string(), digest,
                                           fil::to_string(circuit->kind)});
          ns.key_paths[digest] = path;
        } catch (const std::exception& e) {
          if (cl.on_event) cl.on_event(std::string("cluster: not offering ") + path + ": " + e.what());
        }
      }
    }
    agent = actors::spawn_node_agent(*sys, std::move(ns), caf::actor_cast<msg::intake_actor>(roster.intake));
  }
};

engine::engine(std::unique_ptr<impl> p) : p_(std::move(p)) {}
engine::engine(engine&&) noexcept = default;
engine& engine::operator=(engine&&) noexcept = default;
engine::~engine() {
  if (p_) p_->shutdown();
}

engine engine::start(const config& c) {
  zk::io::guard_mapped_files();  // a key truncated while mapped fails its jobs, not the process
  auto p = std::make_unique<impl>();
  auto& s = p->settings;
  s.host_budget_bytes = parse_budget(c.host_budget, c.host_margin_bytes);
  s.key_cache_bytes = parse_budget(c.key_cache);
  const auto& cl = c.cluster;
  const bool coordinator = !cl.listen.empty(), worker = !cl.join.empty();
  if (coordinator && worker) throw engine_error("config: cluster: a node is a coordinator (listen) or a worker (join), not both");
  if ((coordinator || worker) && cl.secret.empty()) throw engine_error("config: cluster secret: required to listen or join");
  if (coordinator || worker)
    if (auto problem = cluster_tls_problem(cl.tls_cert, cl.tls_key, cl.tls_ca); !problem.empty())
      throw engine_error("config: " + problem);
  if (cl.coordinator_only && !coordinator) throw engine_error("config: cluster coordinator_only needs cluster listen");
  if (c.devices.empty() && !cl.coordinator_only) throw engine_error("config: no devices");
  s.devices.clear();
  for (auto& d : cl.coordinator_only ? std::vector<std::string>{} : c.devices) {
    std::string name;
    try {
      name = zk::groth16::resolve_backend_name(d);
    } catch (const std::exception& e) {
      throw engine_error("config: device backend '" + d + "': " + e.what());
    }
    if (!zk::groth16::backend_available(name)) throw engine_error("config: backend '" + name + "' cannot run here");
    s.devices.push_back(name);
  }
  // Device synthesis when every device is a GPU (a backend with device memory): one kind of
  // synthesis result for all of them.
  s.device_synthesis = c.device_synthesis && !s.devices.empty() &&
                       std::all_of(s.devices.begin(), s.devices.end(),
                                   [](const std::string& d) { return zk::groth16::backend_device_memory(d) > 0; });
  std::uint64_t vram_limit = 0;
  if (c.vram_limit != "off") {
    try {
      vram_limit = parse_budget(c.vram_limit);
    } catch (const engine_error& e) {
      throw engine_error(std::string("config: vram_limit: ") + e.what() + " (or off)");
    }
  }
  if (c.device_budget == "auto") {
    // The smallest device decides (one budget size for every device).
    std::uint64_t smallest = 0;
    for (auto& d : s.devices) {
      std::uint64_t mem = zk::groth16::backend_device_memory(d), budget = 0;
      if (mem > 0 && vram_limit) mem = std::min(mem, vram_limit);
      // The whole device less the margin: resident keys (their points, shifted sets and proof
      // scratch) and staged partitions both take grants from it.
      if (mem > 0) budget = mem > c.vram_margin_bytes ? mem - c.vram_margin_bytes : 0;
      else budget = host_memory_limit() / 4;
      if (budget == 0) throw engine_error("config: device budget auto: device '" + d + "' reports no memory");
      smallest = smallest ? std::min(smallest, budget) : budget;
    }
    s.device_budget_bytes = smallest ? smallest : (std::uint64_t{1} << 30);
  } else {
    s.device_budget_bytes = parse_budget(c.device_budget);
  }
  {
    // Every device backend the engine makes (passed in, no process-wide setting). The shifted
    // sets are part of a resident key's grant, so they need leave nothing else free.
    zk::groth16::backend_settings bs;
    // The room a resident key's sets are planned in: this budget, less the partitions a device
    // holds staged at once (config::staged_partitions). The one number of the key store's
    // admission, the device's reserve step (its staging slots), the GPU's sets plan and the
    // scheduler's staging. The default, max(2, device_depth), is the one place it is computed: at
    // depth 2 one proving and one waiting in the mailbox, the next staged into the slot of the one
    // proved as soon as it ends (staging is far shorter than a proof); at depth 1 one proving, one
    // staged. A third slot at depth 2 (device_depth + 1,
    // the most allowed) only helps when staging a partition takes longer than a proof, and costs
    // the key's shifted sets a partition's room (4.17 GB at 32 GiB).
    bs.vram_budget_bytes = s.device_budget_bytes;
    bs.vram_limit_bytes = vram_limit;
    const unsigned depth = std::max(1u, c.device_depth);
    const unsigned most_staged = depth + 1;
    if (c.staged_partitions > most_staged)
      throw engine_error("config: staged_partitions: at most device_depth + 1 (" + std::to_string(most_staged) +
                         "), got " + std::to_string(c.staged_partitions));
    bs.staged_partitions = c.staged_partitions ? c.staged_partitions : std::max(2u, depth);
    if (c.shifted_bases == "auto") bs.shifted_bases_bytes = zk::groth16::backend_settings::as_much_as_fits;
    else if (c.shifted_bases != "off") {
      try {
        bs.shifted_bases_bytes = parse_budget(c.shifted_bases);
      } catch (const engine_error& e) {
        throw engine_error(std::string("config: shifted_bases: ") + e.what() + " (or off)");
      }
    }
    try {
      bs.b2 = zk::groth16::parse_b2_mode(c.b2);
    } catch (const std::invalid_argument& e) {
      throw engine_error(std::string("config: b2: ") + e.what());
    }
    bs.b2_host_threads = c.b2_host_threads;
    for (auto [name, v] : {std::pair{"b2_device_rate", c.b2_device_rate}, std::pair{"b2_host_rate", c.b2_host_rate}})
      if (!(v >= 0) || !std::isfinite(v))
        throw engine_error(std::string("config: ") + name + ": a non-negative number of points per second (0: measured)");
    if (!(c.b2_lane_share > 0 && c.b2_lane_share <= 1))
      throw engine_error("config: b2_lane_share: a share of B2's points in (0, 1], got " +
                         std::to_string(c.b2_lane_share));
    bs.b2_lane_share = c.b2_lane_share;
    bs.b2_device_s_per_point = zk::groth16::b2_s_per_point(c.b2_device_rate);
    bs.b2_host_s_per_point = zk::groth16::b2_s_per_point(c.b2_host_rate);
    // The threads synthesizing beside B2's host part: each synthesizer's own, or the shared pool.
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const unsigned synth = c.synthesizers ? c.synthesizers : cores;
    bs.host_busy_threads = c.synthesizer_threads ? std::min(cores, synth * c.synthesizer_threads) : cores;
    s.backend = bs;
  }
  s.synthesizers = c.synthesizers;
  s.device_depth = std::max(1u, c.device_depth);
  s.synthesizer_threads = c.synthesizer_threads;
  s.kept_partitions = std::max(1u, c.kept_partitions);
  s.alone_below = c.alone_below;
  s.ordered_synthesis = c.ordered_synthesis;
  if (s.synthesizers == 0 && c.remote_synthesizers.empty())
    s.synthesizers = std::max(1u, std::thread::hardware_concurrency());
  if (cl.coordinator_only) s.synthesizers = 0;
  for (auto& r : c.remote_synthesizers) s.remote_synthesizers.push_back({r.host, r.port});
  s.max_attempts = std::max(1u, c.max_attempts);
  s.max_active_jobs = c.max_active_jobs;
  s.max_partitions = c.max_partitions;
  s.step_timeout = c.step_timeout;
  s.circuits = c.circuits;
  s.faults = actors::fault_settings{c.faults.synth_throw, c.faults.device_kernel_fail, c.faults.device_alloc_fail,
                                    c.faults.seed};
  p->filecoin = c.filecoin;
  s.evaluator_dir = c.filecoin.evaluator_dir;
  s.record_threads = c.filecoin.record_threads;
  s.on_event = c.filecoin.on_event;
  s.on_cluster_event = c.cluster.on_event;
  if (c.filecoin.verify_params) {
    if (c.filecoin.param_cache.empty() && c.filecoin.parameters_json.empty())
      throw engine_error("config: filecoin verify_params: needs param_cache or parameters_json");
    s.param_digests = read_param_digests(c.filecoin.parameters_json.empty()
                                             ? (std::filesystem::path(c.filecoin.param_cache) / "parameters.json").string()
                                             : c.filecoin.parameters_json);
  }

  if ((coordinator || worker) && !c.filecoin.param_cache.empty()) {
    const auto json = c.filecoin.parameters_json.empty()
                          ? (std::filesystem::path(c.filecoin.param_cache) / "parameters.json").string()
                          : c.filecoin.parameters_json;
    std::error_code ec;
    if (s.param_digests) p->listed_digests = s.param_digests;
    else if (std::filesystem::is_regular_file(json, ec)) p->listed_digests = read_param_digests(json);
  }

  msg::register_messages(p->cfg);
  if (c.scheduler_threads) p->cfg.set("scheduler.max-threads", static_cast<std::size_t>(c.scheduler_threads));
  if (!c.remote_synthesizers.empty() || coordinator || worker) {
    p->cfg.load<caf::io::middleman>();
    // CAF's own keepalive under ours: a peer silent for the connection timeout is disconnected.
    p->cfg.set("middleman.heartbeat-interval", caf::timespan{cl.heartbeat});
    p->cfg.set("middleman.connection-timeout", caf::timespan{cl.node_timeout * 2});
  }
  if ((coordinator || worker) && !cl.tls_cert.empty()) {
    // CAF's OpenSSL module: with a certificate set it requires and checks one from every peer.
    // It reads the files at every connection: absolute paths, whatever the working directory.
    p->cfg.openssl_certificate = std::filesystem::absolute(cl.tls_cert).string();
    p->cfg.openssl_key = std::filesystem::absolute(cl.tls_key).string();
    p->cfg.openssl_cafile = std::filesystem::absolute(cl.tls_ca).string();
    p->cfg.load<caf::openssl::manager>();
  }
  p->sys = std::make_unique<caf::actor_system>(p->cfg);
  p->supervisor = actors::spawn_supervisor(*p->sys, s);
  p->roster = p->current_roster();
  if (!p->roster.intake) throw engine_error("engine: the supervisor did not start");
  if (coordinator || worker) p->start_cluster(c);
  forget_logger();
  return engine(std::move(p));
}

job_id engine::submit(const request& req) {
  auto guard = p_->enter();
  msg::job_spec spec;
  spec.request_id = req.request_id;
  spec.circuit = req.circuit;
  spec.prio = req.prio;
  spec.synthetic_bench = req.synthetic_bench;
  for (auto& w : req.partitions) {
    msg::witness_source src{w.path, msg::witness_handle{w.data}};
    // A coordinator's partitions may travel to nodes, which cannot read this machine's files.
    if (p_->registrar && !src.data.ptr && !src.path.empty()) {
      try {
        src.data.ptr = std::make_shared<const zk::io::witness>(zk::io::witness::load(src.path));
      } catch (const std::exception& e) {
        throw engine_error(std::string("bad_input: ") + e.what());
      }
    }
    spec.partitions.push_back(std::move(src));
  }
  return p_->submit(std::move(spec), req.randomness);
}

priority default_priority(fil::proof_kind kind) {
  switch (kind) {
    case fil::proof_kind::winning_post: return priority::critical;
    case fil::proof_kind::window_post_partition: return priority::high;
    default: return priority::normal;
  }
}

std::string engine::filecoin_params_path(fil::proof_kind kind, std::string_view registered_proof) const {
  const auto c = fil::resolve_circuit(kind, registered_proof);
  return std::filesystem::absolute(std::filesystem::path(p_->filecoin.param_cache) / c.params_file()).string();
}

job_id engine::submit(filecoin_request req) {
  auto guard = p_->enter();
  fil::circuit_ref c;
  std::shared_ptr<const fil::c1_output> c1;  // PoRep: read once here, for the synthesizers too
  try {
    c = fil::resolve_circuit(req.input.kind, req.input.registered_proof, req.sector_size);
    c1 = fil::check_job_input(c, req.input, std::move(req.c1));
  } catch (const fil::not_implemented& e) {
    throw engine_error(std::string("unimplemented: ") + e.what());
  } catch (const zk::input_error& e) {
    throw engine_error(std::string("bad_input: ") + e.what());
  }
  std::string path;
  if (!req.synthetic_key.empty()) {  // a synthetic bench: no parameter cache, a key NOT A SETUP
    try {
      const auto spec = zk::groth16::parse_synthetic_key_path(req.synthetic_key);
      std::error_code ec;
      if (!std::filesystem::is_regular_file(spec.evaluator, ec))
        throw engine_error("not_found: " + spec.evaluator + ": the synthetic key's recorded evaluator");
    } catch (const zk::input_error& e) {
      throw engine_error(std::string("bad_input: ") + e.what());
    }
    path = req.synthetic_key;
  } else {
    if (p_->filecoin.param_cache.empty())
      throw engine_error("failed_precondition: no Filecoin parameter cache configured ([filecoin] param_cache)");
    // Absolute: the key store's entries are by path, and the daemon's working directory is not ours.
    path = filecoin_params_path(req.input.kind, req.input.registered_proof);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
      throw engine_error("not_found: " + path + ": params file for " + c.describe() + " not found in the parameter cache");
  }
  msg::job_spec spec;
  spec.request_id = req.request_id;
  spec.synthetic_bench = !req.synthetic_key.empty();
  spec.circuit = path;
  spec.prio = req.prio.value_or(default_priority(req.input.kind));
  // A coordinator sends the job to nodes holding the same params file (name and digest).
  if (p_->registrar && req.synthetic_key.empty()) {
    try {
      spec.key_fingerprint = p_->params_digest(path);
    } catch (const std::exception& e) {
      throw engine_error(std::string("bad_input: ") + e.what());
    }
  }
  // The input, with its parsed C1 and the request's charge: all three go when the job lets go of it.
  struct held_input {
    fil::job_input in;
    std::shared_ptr<const void> charge;
    ~held_input() { actors::forget_porep_c1(&in); }
  };
  auto held = std::make_shared<held_input>();
  held->in = std::move(req.input);  // moved, not copied
  held->charge = std::move(req.charge);
  std::shared_ptr<const fil::job_input> input(held, &held->in);
  actors::share_porep_c1(input, std::move(c1));
  for (std::uint32_t i = 0; i < c.partitions(); ++i) {
    msg::witness_source src;
    src.fil = msg::fil_input_handle{input, i};
    spec.partitions.push_back(std::move(src));
  }
  return p_->submit(std::move(spec), req.randomness);
}

std::shared_ptr<const void> engine::charge_host(std::uint64_t bytes, const std::string& purpose,
                                                std::chrono::milliseconds wait) {
  const auto until = std::chrono::steady_clock::now() + wait;
  for (;;) {
    {
      auto guard = p_->enter();  // not held while sleeping: shutdown does not wait for a charge
      auto roster = p_->current_roster();
      msg::budget_status b;
      auto err = p_->ask(roster.host_budget, std::chrono::seconds(10), [&](msg::budget_status& x) { b = std::move(x); },
                         msg::status_atom::value);
      if (err) throw engine_error(msg::describe(err));
      if (bytes > b.capacity)
        throw engine_error("over_budget: " + purpose + " needs " + std::to_string(bytes) +
                           " bytes of host memory; the whole host budget is " + std::to_string(b.capacity) + " bytes");
      // no_wait: a queued request would hold up the grants of running jobs behind it.
      std::optional<msg::reservation> got;
      err = p_->ask(roster.host_budget, std::chrono::seconds(10), [&](msg::reservation& r) { got = r; },
                    msg::reserve_request{bytes, caf::actor_addr{}, purpose, true, 0});
      if (got) return actors::make_reservation_token(caf::actor_cast<msg::budget_actor>(roster.host_budget), *got).ptr;
      if (err && (err.category() != caf::atom("cuzk") || static_cast<msg::errc>(err.code()) != msg::errc::over_budget))
        throw engine_error(msg::describe(err));
      if (std::chrono::steady_clock::now() >= until)
        throw engine_error("over_budget: " + purpose + " needs " + std::to_string(bytes) + " bytes of host memory; " +
                           std::to_string(b.in_use) + " of the host budget's " + std::to_string(b.capacity) +
                           " bytes stayed in use for " +
                           std::to_string(std::chrono::duration_cast<std::chrono::seconds>(wait).count()) + " s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

key_status engine::preload_key(const std::string& path, std::chrono::milliseconds timeout) {
  auto guard = p_->enter();
  auto roster = p_->current_roster();
  key_status r;
  auto err = p_->ask(roster.key_store, timeout, [&](msg::key_handle& h) {
    r.path = h.path.empty() ? path : h.path;
    r.tier = key_tier::hot;
    r.bytes = h.ptr ? h.ptr->evaluator_bytes : 0;
  }, msg::acquire_atom::value, path);  // the lease ends here: the key stays hot, unleased
  if (err) throw engine_error(msg::describe(err));
  return r;
}

std::uint64_t engine::make_resident(const std::string& path, std::uint32_t device, std::chrono::milliseconds timeout) {
  auto guard = p_->enter();
  auto roster = p_->current_roster();
  msg::key_handle key;
  auto err = p_->ask(roster.key_store, timeout, [&](msg::key_handle& h) { key = std::move(h); }, msg::acquire_atom::value,
                     path);
  if (err) throw engine_error(msg::describe(err));
  std::uint64_t bytes = 0;
  err = p_->ask(roster.key_store, timeout, [&](msg::resident_handle& r) { bytes = r.ptr ? r.ptr->bytes : 0; },
                msg::acquire_atom::value, key, device);
  if (err) throw engine_error(msg::describe(err));
  return bytes;  // both leases end here: the key stays hot and resident, unleased
}

bool engine::evict_key(const std::string& path) {
  auto guard = p_->enter();
  auto roster = p_->current_roster();
  bool ok = false;
  auto err = p_->ask(roster.key_store, std::chrono::seconds(10), [&](bool x) { ok = x; }, msg::evict_atom::value, path);
  if (err) throw engine_error(msg::describe(err));
  return ok;
}

std::optional<job_outcome> engine::await(job_id id, std::chrono::milliseconds timeout) {
  auto guard = p_->enter();
  std::optional<job_outcome> out;
  auto err = p_->ask(p_->roster.intake, timeout, [&](msg::job_outcome& o) { out = std::move(o); },
                     msg::await_atom::value, id);
  if (err && !is_timeout(err)) throw engine_error(msg::describe(err));
  return out;
}

void engine::on_finished(job_id id, finished_fn done) {
  auto guard = p_->enter();
  auto intake = p_->roster.intake;
  // One event-based actor per pending job: it lives while its request is pending (no behaviour,
  // one awaited response) and ends with the answer; the intake's response promise is the wait.
  p_->sys->spawn([intake, id, done = std::move(done)](caf::event_based_actor* self) {
    self->request(intake, caf::infinite, msg::await_atom::value, id)
        .then([done](msg::job_outcome& o) { done(std::move(o), std::string()); },
              [done](caf::error& e) { done(std::nullopt, msg::describe(e)); });
  });
  forget_logger();
}

void engine::forget(job_id id) {
  auto guard = p_->enter();
  caf::anon_send(p_->roster.intake, msg::forget_atom::value, id);
}

bool engine::cancel(job_id id) {
  auto guard = p_->enter();
  bool ok = false;
  auto err = p_->ask(p_->roster.intake, std::chrono::seconds(10), [&](bool x) { ok = x; }, msg::cancel_atom::value, id);
  if (err) throw engine_error(msg::describe(err));
  return ok;
}

status_report engine::status() {
  auto guard = p_->enter();
  status_report r;
  auto t = std::chrono::seconds(10);
  auto roster = p_->current_roster();
  r.taken_us = actors::now_us();
  p_->ask(roster.intake, t, [&](msg::intake_status& s) { r.intake = std::move(s); }, msg::status_atom::value);
  p_->ask(roster.scheduler, t, [&](msg::scheduler_status& s) { r.scheduler = std::move(s); }, msg::status_atom::value);
  p_->ask(p_->supervisor, t, [&](msg::supervisor_status& s) { r.supervisor = std::move(s); }, msg::status_atom::value);
  p_->ask(roster.host_budget, t, [&](msg::budget_status& b) { r.host = std::move(b); }, msg::status_atom::value);
  for (auto& v : roster.vram_budgets)
    p_->ask(v, t, [&](msg::budget_status& b) { r.vram.push_back(std::move(b)); }, msg::status_atom::value);
  p_->ask(roster.key_store, t, [&](msg::key_store_status& k) { r.key_store = std::move(k); }, msg::status_atom::value);
  if (p_->registrar) {
    r.cluster_role = "coordinator";
    r.cluster_connections = std::uint32_t(std::max(0, p_->door->peers.load()));
    r.cluster_oversized = p_->door->refused_messages.load();
    r.cluster_turned_away = p_->door->refused_connections.load();
    r.cluster_handshake_timeouts = p_->door->handshake_timeouts.load();
    p_->ask(p_->registrar, t, [&](msg::registrar_status& s) { r.registrar = std::move(s); }, msg::status_atom::value);
  } else if (p_->agent) {
    r.cluster_role = "worker";
    p_->ask(p_->agent, t, [&](msg::agent_status& a) { r.coordinator = std::move(a); }, msg::status_atom::value);
  }
  return r;
}

void engine::shutdown() {
  if (p_) p_->shutdown();
}

bool engine::kill_worker(role who, unsigned slot) {
  auto guard = p_->enter();
  bool ok = false;
  p_->ask(p_->supervisor, std::chrono::seconds(10), [&](bool x) { ok = x; }, msg::kill_atom::value, who,
          static_cast<std::uint32_t>(slot));
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
  auto guard = p_->enter();
  auto roster = p_->current_roster();
  if (roster.key_store) caf::anon_send(caf::actor_cast<msg::key_store_actor>(roster.key_store), msg::evict_atom::value);
}

unsigned engine::synthesizer_count() const {
  return p_->settings.synthesizers + static_cast<unsigned>(p_->settings.remote_synthesizers.size());
}
unsigned engine::device_count() const { return static_cast<unsigned>(p_->settings.devices.size()); }
std::uint16_t engine::cluster_port() const { return p_->cluster_port; }

}  // namespace cuzk::engine
