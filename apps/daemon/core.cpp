#include "core.hpp"

#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <grpcpp/support/status_code_enum.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <filesystem>
#include <algorithm>
#include <future>
#include <fstream>
#include <random>
#include <sstream>

#include "fil_request.hpp"
#include "lifecycle.hpp"
#include "witness_spool.hpp"
#include "zk/error.hpp"
#include "zk/groth16/backend_registry.hpp"
#include "zk/io/snarkjs_json.hpp"
#include "zk/io/wtns.hpp"
#include "zk/io/zkey.hpp"

namespace cuzk::daemon {

namespace fs = std::filesystem;
using grpc::StatusCode;

namespace {

// One engine device per GPU: those [gpus] devices lists, or every visible GPU when it lists none
// ("cuda:0", "cuda:1", ...); the CPU backend is one device. A GPU that is not there fails the
// engine's start with the backend's one-line reason.
std::vector<std::string> device_names(const config::gpus_section& g) {
  std::string backend = g.backend;
  try {
    if (backend == "auto") backend = zk::groth16::resolve_backend_name("auto");
  } catch (const std::exception&) {
    backend = "cpu";
  }
  if (backend == "cpu") return {"cpu"};
  std::vector<std::string> out;
  if (g.devices.empty()) {
    int n = std::max(1, zk::groth16::backend_device_count(backend));
    for (int i = 0; i < n; ++i) out.push_back(backend + ":" + std::to_string(i));
  } else {
    for (int d : g.devices) out.push_back(backend + ":" + std::to_string(d));
  }
  return out;
}

std::string tier_name(pb::SRSStatus::Tier t) {
  return t == pb::SRSStatus::HOT ? "hot" : t == pb::SRSStatus::WARM ? "warm" : "cold";
}

std::int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

engine::priority to_engine(pb::Priority p) {
  switch (p) {
    case pb::LOW: return engine::priority::low;
    case pb::HIGH: return engine::priority::high;
    case pb::CRITICAL: return engine::priority::critical;
    default: return engine::priority::normal;
  }
}

// The key's header (sizes, verifying key; zk::io::zkey_header): full validation is the key
// store's, when the key is loaded.
circuit_catalog::circuit read_header(const std::string& path) {
  auto h = zk::io::zkey_header::read(path);
  circuit_catalog::circuit c;
  c.path = path;
  c.n_vars = h.n_vars;
  c.n_public = h.n_public;
  c.domain_size = h.domain_size;
  c.file_bytes = h.size_bytes;
  return c;
}

// Writes a file only this user can read (witnesses are private inputs), never through a symlink
// planted in its place: O_EXCL on the temporary name, then rename over the final one. `fill`
// writes to the descriptor and returns 0, or the errno of its failure.
template <class Fill>
void write_private(const fs::path& path, Fill&& fill) {
  fs::path tmp = path;
  tmp += ".tmp";
  ::unlink(tmp.c_str());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error(tmp.string() + ": cannot create: " + std::strerror(errno));
  if (int err = fill(fd); err != 0) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw std::runtime_error(tmp.string() + ": cannot write: " + std::strerror(err));
  }
  if (::close(fd) != 0) {
    ::unlink(tmp.c_str());
    throw std::runtime_error(tmp.string() + ": cannot write: " + std::strerror(errno));
  }
  fs::rename(tmp, path);
}

void write_bytes(const fs::path& path, const std::string& bytes) {
  write_private(path, [&](int fd) {
    std::size_t done = 0;
    while (done < bytes.size()) {
      auto w = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return w < 0 ? errno : ENOSPC;
      done += std::size_t(w);
    }
    return 0;
  });
}

// `msg`'s encoding, streamed to the file (no second copy of a large request in memory).
void write_message(const fs::path& path, const google::protobuf::Message& msg) {
  write_private(path, [&](int fd) {
    google::protobuf::io::FileOutputStream out(fd);
    if (msg.SerializeToZeroCopyStream(&out) && out.Flush()) return 0;
    return out.GetErrno() != 0 ? out.GetErrno() : EIO;
  });
}

// An engine's refusal of a submit as the gRPC status a client can act on: the engine's error class
// (the prefix of its line, msg::errc's names) picks the code, the rest of the line is the message.
// Both submit paths (circom and Filecoin) answer through this one table.
request_error refused_by_engine(const engine::engine_error& e) {
  static const std::pair<const char*, StatusCode> codes[] = {
      {"bad_input: ", StatusCode::INVALID_ARGUMENT},       {"invalid_request: ", StatusCode::INVALID_ARGUMENT},
      {"unimplemented: ", StatusCode::UNIMPLEMENTED},      {"not_found: ", StatusCode::NOT_FOUND},
      {"failed_precondition: ", StatusCode::FAILED_PRECONDITION}, {"shutting_down: ", StatusCode::UNAVAILABLE},
      {"queue_full: ", StatusCode::RESOURCE_EXHAUSTED},    {"over_budget: ", StatusCode::RESOURCE_EXHAUSTED}};
  const std::string what = e.what();
  for (auto [prefix, code] : codes)
    if (what.rfind(prefix, 0) == 0) return request_error(code, what.substr(std::strlen(prefix)));
  return request_error(StatusCode::INTERNAL, what);
}

}  // namespace

// ---- circuit catalog -----------------------------------------------------------------------------

circuit_catalog::circuit_catalog(std::string dir) : dir_(std::move(dir)) {}

std::map<std::string, circuit_catalog::circuit> circuit_catalog::scan() {
  std::map<std::string, circuit> found;
  std::error_code ec;
  for (auto& entry : fs::directory_iterator(dir_, ec)) {
    if (entry.path().extension() != ".zkey") continue;
    std::string name = entry.path().stem().string();
    if (!valid_circuit_name(name)) continue;
    try {
      found[name] = read_header(entry.path().string());
    } catch (const std::exception& e) {
      spdlog::warn("keys: skipping {}: {}", entry.path().string(), e.what());
    }
  }
  std::lock_guard lock(mu_);
  known_ = found;
  return found;
}

circuit_catalog::circuit circuit_catalog::find(const std::string& name) {
  if (!valid_circuit_name(name))
    throw request_error(StatusCode::INVALID_ARGUMENT,
                        "circuit: '" + name + "' is not a circuit name (letters, digits, '_', '-', '.')");
  {
    std::lock_guard lock(mu_);
    if (auto it = known_.find(name); it != known_.end()) return it->second;
  }
  auto now = scan();
  if (auto it = now.find(name); it != now.end()) return it->second;
  throw request_error(StatusCode::NOT_FOUND, "circuit: no key " + name + ".zkey in " + dir_);
}

std::map<std::string, circuit_catalog::circuit> circuit_catalog::known() {
  std::lock_guard lock(mu_);
  return known_;
}

std::map<std::string, std::string> circuit_catalog::paths() {
  std::lock_guard lock(mu_);
  std::map<std::string, std::string> out;
  for (auto& [n, c] : known_) out[n] = c.path;
  return out;
}

// ---- core ----------------------------------------------------------------------------------------

core::core(const config::daemon_config& cfg, daemon_info info)
    : cfg_(cfg), info_(std::move(info)), catalog_(fs::absolute(cfg.keys.dir).lexically_normal().string()) {}

core::~core() {
  draining_ = true;
  stopped_ = true;
  if (engine_) engine_->shutdown();  // no engine callback comes after this
  {
    std::lock_guard lock(mu_);
    stop_completion_ = true;
  }
  wake_.notify_all();
  if (completion_.joinable()) completion_.join();
}

void core::start() {
  auto pending = open_journal();
  // Witnesses of requests that a crash interrupted while they arrived: never accepted, gone.
  // (On failure, a full disk, submissions are refused with the reason; the daemon still starts.)
  try {
    make_private_dir(incoming_dir(), "daemon.state_dir");
    for (auto& e : fs::directory_iterator(incoming_dir())) fs::remove(e.path());
  } catch (const std::exception& e) {
    spdlog::warn("state: {}: {}", incoming_dir().string(), e.what());
  }
  auto circuits = catalog_.scan();
  spdlog::info("keys: {} circuit(s) in {}", circuits.size(), cfg_.keys.dir);

  engine::config ec;
  ec.host_budget = cfg_.memory.total_budget.automatic ? "auto" : std::to_string(cfg_.memory.total_budget.bytes);
  ec.host_margin_bytes = cfg_.memory.safety_margin.bytes;
  ec.vram_margin_bytes = cfg_.gpus.vram_safety_margin.bytes;
  ec.shifted_bases = cfg_.gpus.shifted_bases_off         ? "off"
                     : cfg_.gpus.shifted_bases.automatic ? "auto"
                                                         : std::to_string(cfg_.gpus.shifted_bases.bytes);
  ec.devices = device_names(cfg_.gpus);
  ec.b2 = cfg_.gpus.b2;
  ec.b2_host_threads = cfg_.gpus.b2_host_threads;
  ec.b2_device_rate = cfg_.gpus.b2_device_rate;
  ec.b2_host_rate = cfg_.gpus.b2_host_rate;
  ec.synthesizers = cfg_.synthesis.threads;
  ec.synthesizer_threads = cfg_.synthesis.pool_threads;
  ec.kept_partitions = cfg_.synthesis.kept_partitions;
  ec.alone_below = cfg_.synthesis.alone_below;
  ec.max_attempts = cfg_.scheduler.max_attempts;
  ec.step_timeout = cfg_.scheduler.step_timeout;
  ec.max_active_jobs = cfg_.scheduler.max_queued_jobs;
  ec.max_partitions = cfg_.scheduler.max_partitions;
  ec.filecoin.param_cache = cfg_.filecoin.param_cache;
  ec.filecoin.verify_params = cfg_.filecoin.verify_params;
  ec.filecoin.evaluator_dir = cfg_.filecoin.evaluator_dir;
  ec.filecoin.record_threads = cfg_.filecoin.record_threads;
  ec.filecoin.on_event = [](const std::string& line) { spdlog::info("{}", line); };
  for (auto& [name, c] : circuits) ec.circuits[name] = c.path;
  const auto& cl = cfg_.cluster;
  ec.cluster.listen = cl.listen;
  ec.cluster.join = cl.join;
  ec.cluster.secret = cl.secret;
  ec.cluster.build = std::string("cuzk ") + info_.version + " " + info_.build_id;
  ec.cluster.node_name = cl.name;
  ec.cluster.coordinator_only = cl.coordinator_only;
  ec.cluster.slots = cl.slots;
  ec.cluster.heartbeat = cl.heartbeat;
  ec.cluster.node_timeout = cl.node_timeout;
  ec.cluster.max_message_bytes = cl.max_message_bytes;
  ec.cluster.max_peers = cl.max_peers;
  ec.cluster.handshake_timeout = cl.handshake_timeout;
  ec.cluster.on_event = [](const std::string& line) {
    if (line.find("refused") != std::string::npos || line.find("lost") != std::string::npos) spdlog::warn("{}", line);
    else spdlog::info("{}", line);
  };
  ec.cluster.on_refused = [this](const std::string& why) {
    {
      std::lock_guard lock(refused_mu_);
      refused_ = why;
    }
    spdlog::error("cluster: the coordinator at {} refused this worker: {}", cfg_.cluster.join, why);
    ::kill(::getpid(), SIGTERM);  // the daemon's signal thread drains and exits non-zero
  };
  engine_.emplace(engine::engine::start(ec));
  for (auto& d : engine_->status().scheduler.devices) device_names_ += (device_names_.empty() ? "" : ",") + d.name;
  if (!cl.listen.empty())
    spdlog::info("cluster: coordinator{} accepting nodes on {} (port {})", cl.coordinator_only ? " (coordinator only)" : "",
                 cl.listen, engine_->cluster_port());
  else if (!cl.join.empty())
    spdlog::info("cluster: worker joining {}", cl.join);

  for (auto& name : cfg_.keys.preload) preload(name);
  completion_ = std::thread([this] { completion_loop(); });

  // Jobs accepted by an earlier run and not finished: run them again, exactly once. A row that
  // fails its checks is quarantined (kept, never run) and reported; the others recover.
  for (auto& row : pending) {
    std::string problem = row.problem;
    if (problem.empty() && row.partitions > cfg_.scheduler.max_partitions)
      problem = "partitions " + std::to_string(row.partitions) + " is more than scheduler.max_partitions";
    if (!problem.empty()) {
      spdlog::error("journal: job '{}' quarantined: {}", row.id, problem);
      try {
        journal_->quarantine(row.id, problem, unix_ms());
      } catch (const std::exception& e) {
        spdlog::error("journal: {}", e.what());
      }
      continue;
    }
    try {
      if (row.circuit.rfind(kFilecoinPrefix, 0) == 0) launch_fil(row, read_fil_request(row.id));
      else launch(row);
      spdlog::info("journal: re-queued job {} ({} partitions) from an earlier run", row.id, row.partitions);
    } catch (const std::exception& e) {
      spdlog::error("journal: job {} could not be re-queued: {}", row.id, e.what());
      try {
        journal_->finish(row.id, "failed", "", std::string("re-queue after restart: ") + e.what(), unix_ms());
      } catch (const std::exception& e2) {
        spdlog::error("journal: {}", e2.what());
      }
    }
  }
  expire_results();
}

std::vector<journal_job> core::open_journal() {
  const auto path = (fs::path(cfg_.daemon.state_dir) / "journal.sqlite").string();
  for (int attempt = 0;; ++attempt) {
    try {
      journal_ = std::make_unique<journal>(path);
      return journal_->unfinished();
    } catch (const journal_damaged& e) {
      // A damaged file would stop every start: it goes aside whole (for a person to look at), and
      // the daemon starts with an empty journal. Jobs accepted before are not re-run.
      journal_.reset();
      if (attempt > 0) throw;
      auto aside = journal::move_aside(path, unix_ms());
      spdlog::error("journal: {}; moved aside to {}; starting with an empty journal (jobs it held are not re-run)",
                    e.what(), aside);
    }
  }
}

std::optional<std::string> core::refused() const {
  std::lock_guard lock(refused_mu_);
  return refused_;
}

std::string core::new_job_id() {
  std::lock_guard lock(mu_);
  std::ostringstream id;
  id << std::hex << info_.start_unix_ms << "-" << std::dec << ++next_seq_;
  return id.str();
}

fs::path core::witness_dir(const std::string& job_id) const {
  return fs::path(cfg_.daemon.state_dir) / "jobs" / job_id;
}

fs::path core::witness_file(const std::string& job_id, std::uint32_t partition) const {
  return witness_dir(job_id) / (std::to_string(partition) + ".wtns");
}

journal_job core::new_row(const std::string& request_id, std::string circuit, int priority,
                          std::uint32_t partitions) {
  journal_job row;
  row.id = new_job_id();
  row.request_id = request_id;
  row.circuit = std::move(circuit);
  row.priority = priority;
  row.partitions = partitions;
  row.submitted_ms = unix_ms();
  row.witness_dir = witness_dir(row.id).string();
  return row;
}

pb::SubmitProofResponse core::accept(const journal_job& row, const std::function<void(const fs::path&)>& write_files,
                                     const std::function<std::shared_ptr<job>()>& start) {
  // A full disk or a failing journal refuses the job (UNAVAILABLE, the reason named); jobs already
  // accepted keep running and their results stay awaitable.
  try {
    make_private_dir(witness_dir(row.id), "daemon.state_dir");
    write_files(witness_dir(row.id));
    journal_->insert(row);  // accepted from here on: a crash after this line re-runs the job
  } catch (const std::exception& e) {
    std::error_code ec;
    fs::remove_all(witness_dir(row.id), ec);
    spdlog::error("submit: {}", e.what());
    throw request_error(StatusCode::UNAVAILABLE, std::string("cannot accept jobs now: ") + e.what());
  }
  engine::job_id launched = 0;
  try {
    launched = start()->engine_id;
  } catch (const request_error& e) {
    try {
      journal_->finish(row.id, "failed", "", e.what(), unix_ms());
    } catch (const std::exception& e2) {
      spdlog::error("submit: {}", e2.what());
    }
    throw;
  }
  pb::SubmitProofResponse resp;
  resp.set_job_id(row.id);
  resp.set_assigned_gpu(device_names_);
  resp.set_queue_position(queue_position(launched));
  return resp;
}

std::shared_ptr<core::job> core::launch(const journal_job& row) {
  engine::request req;
  req.request_id = row.id;  // the engine's idempotency key is the daemon's job id
  // The key by its absolute path in the keys directory: a bare name would be the engine's to
  // resolve, and one it does not know is a path relative to the working directory.
  req.circuit = catalog_.find(row.circuit).path;
  req.prio = to_engine(static_cast<pb::Priority>(row.priority));
  for (std::uint32_t k = 0; k < row.partitions; ++k) req.partitions.push_back({witness_file(row.id, k).string(), nullptr});
  engine::job_id id = 0;
  try {
    id = engine_->submit(req);
  } catch (const engine::engine_error& e) {
    throw refused_by_engine(e);
  }
  return track(row, id, "circom");
}

std::shared_ptr<core::job> core::track(const journal_job& row, engine::job_id engine_id, std::string kind) {
  auto j = std::make_shared<job>();
  j->id = row.id;
  j->partitions = row.partitions;
  j->submitted_ms = row.submitted_ms;
  j->engine_id = engine_id;
  j->accepted_ms = unix_ms();
  j->kind = std::move(kind);
  {
    std::lock_guard lock(mu_);
    jobs_[j->id] = j;
  }
  // The engine calls back on one of its threads; the completion thread does the rest.
  engine_->on_finished(j->engine_id, [this, j](std::optional<engine::job_outcome> r, const std::string& why) {
    {
      std::lock_guard lock(mu_);
      finished_.push_back({j, std::move(r), why});
    }
    wake_.notify_all();
  });
  return j;
}

void core::completion_loop() {
  const auto ttl = std::chrono::duration_cast<std::chrono::milliseconds>(cfg_.daemon.result_ttl);
  const auto expire_every = std::clamp(ttl / 4, std::chrono::milliseconds(100), std::chrono::milliseconds(60000));
  auto next_expiry = std::chrono::steady_clock::now() + expire_every;
  std::unique_lock lock(mu_);
  for (;;) {
    auto wake_at = next_expiry;
    for (auto& [h, w] : waiters_) wake_at = std::min(wake_at, w.deadline);
    wake_.wait_until(lock, wake_at, [&] {
      return stop_completion_ || !finished_.empty() || std::chrono::steady_clock::now() >= wake_at ||
             (draining_ && !waiters_.empty());
    });
    if (stop_completion_) return;
    auto batch = std::move(finished_);
    finished_.clear();
    // Waiters past their deadline, or all of them once the daemon drains: answered "not yet".
    std::vector<std::pair<await_fn, pb::AwaitProofResponse>> answers;
    auto now = std::chrono::steady_clock::now();
    for (auto it = waiters_.begin(); it != waiters_.end();) {
      if (draining_ || it->second.deadline <= now) {
        std::uint32_t parts = 0;
        if (auto j = jobs_.find(it->second.job_id); j != jobs_.end()) parts = j->second->partitions;
        answers.emplace_back(std::move(it->second.done), pending_answer(it->second.job_id, parts));
        it = waiters_.erase(it);
      } else {
        ++it;
      }
    }
    lock.unlock();
    for (auto& [done, answer] : answers) done(std::move(answer));
    for (auto& f : batch) complete(std::move(f));
    if (std::chrono::steady_clock::now() >= next_expiry) {
      expire_results();
      next_expiry = std::chrono::steady_clock::now() + expire_every;
    }
    lock.lock();
  }
}

void core::complete(finished_job f) {
  auto& j = f.j;
  if (!f.result) {
    // The engine stopped (the journal keeps the job for the next start) or lost the job.
    if (!draining_ && !stopped_) spdlog::error("job {}: the engine lost it: {}", j->id, f.why);
    return;
  }
  auto& r = *f.result;
  if (draining_ && r.state == engine::job_state::canceled) return;  // stopped by shutdown: run again later
  auto result = encode_result(*j, r);
  std::string state = result.status() == pb::AwaitProofResponse::COMPLETED   ? "completed"
                      : result.status() == pb::AwaitProofResponse::CANCELLED ? "cancelled"
                                                                               : "failed";
  bool journaled = true;
  try {
    journal_->finish(j->id, state, result.SerializeAsString(), result.error_message(), unix_ms());
  } catch (const std::exception& e) {
    journaled = false;  // the result stays in memory, awaitable until the daemon stops
    spdlog::error("job {}: {}", j->id, e.what());
  }
  std::error_code ec;
  if (journaled) fs::remove_all(witness_dir(j->id), ec);  // else the job runs again at the next start
  spdlog::info("job {}: {} ({} partitions, total {} ms)", j->id, state, j->partitions, result.total_ms());
  std::vector<await_fn> to_answer;
  {
    std::lock_guard lock(mu_);
    j->result = result;
    j->finished = true;
    (state == "completed" ? completed_ : failed_)++;
    for (auto it = waiters_.begin(); it != waiters_.end();) {
      if (it->second.job_id == j->id) {
        to_answer.push_back(std::move(it->second.done));
        it = waiters_.erase(it);
      } else {
        ++it;
      }
    }
    if (journaled) jobs_.erase(j->id);  // awaits read the journal from now on
  }
  done_cv_.notify_all();
  for (auto& done : to_answer) done(result);
  try {
    engine_->forget(j->engine_id);
  } catch (const std::exception&) {
  }
}

pb::AwaitProofResponse core::encode_result(const job& j, const engine::job_outcome& r) {
  pb::AwaitProofResponse out;
  out.set_job_id(j.id);
  out.set_partitions_total(j.partitions);
  switch (r.state) {
    case engine::job_state::succeeded: out.set_status(pb::AwaitProofResponse::COMPLETED); break;
    case engine::job_state::canceled: out.set_status(pb::AwaitProofResponse::CANCELLED); break;
    default: out.set_status(pb::AwaitProofResponse::FAILED); break;
  }
  if (r.state == engine::job_state::succeeded) {
    for (auto& p : r.partitions) {
      auto* pp = out.add_partitions();
      pp->set_proof_json(zk::io::snarkjs::dump(zk::io::snarkjs::proof_to_json(p.proof)));
      pp->set_public_json(zk::io::snarkjs::dump(zk::io::snarkjs::public_to_json(p.publics)));
    }
    out.set_proof(std::string(r.compressed.begin(), r.compressed.end()));
    out.set_partitions_done(std::uint32_t(r.partitions.size()));
  }
  std::string reasons;
  for (auto& s : r.reasons) reasons += (reasons.empty() ? "" : "; ") + s;
  if (r.state != engine::job_state::succeeded) out.set_error_message(reasons.empty() ? "job failed" : reasons);
  if (r.state == engine::job_state::failed && r.bad_input) out.set_invalid_input(true);
  out.set_stage(engine::to_string(r.state));
  out.set_queue_wait_ms(r.timings.queue_us / 1000);
  out.set_srs_load_ms(r.timings.key_us / 1000);
  out.set_synthesis_ms(r.timings.synthesis_us / 1000);
  out.set_gpu_compute_ms(r.timings.device_us / 1000);
  out.set_total_ms(r.timings.total_us / 1000);
  out.set_accepted_unix_ms(std::uint64_t(j.accepted_ms));
  for (auto& p : r.partition_timings) {
    auto* t = out.add_partition_timings();
    t->set_partition(p.partition);
    t->set_synthesizer(p.synthesizer);
    t->set_device(p.device);
    t->set_synth_start_ms(p.synth_start_unix_us / 1000);
    t->set_synth_end_ms(p.synth_end_unix_us / 1000);
    t->set_device_start_ms(p.device_start_unix_us / 1000);
    t->set_device_end_ms(p.device_end_unix_us / 1000);
  }
  return out;
}

fs::path core::incoming_dir() const { return fs::path(cfg_.daemon.state_dir) / "incoming"; }

pb::SubmitProofResponse core::submit(const pb::SubmitProofRequest& req, witness_spool* spool) {
  if (draining_) throw request_error(StatusCode::UNAVAILABLE, "the daemon is shutting down; submit again later");
  // One submission per request id at a time: a concurrent one with the same id waits here until the
  // first is journaled (or refused), then finds it. The check and the insert are one step.
  std::shared_ptr<void> release_id;
  if (!req.request_id().empty()) {
    std::unique_lock lock(mu_);
    submit_cv_.wait(lock, [&] { return !submitting_.count(req.request_id()); });
    submitting_.insert(req.request_id());
    release_id = std::shared_ptr<void>(nullptr, [this, id = req.request_id()](void*) {
      {
        std::lock_guard lock(mu_);
        submitting_.erase(id);
      }
      submit_cv_.notify_all();
    });
  }
  if (!req.request_id().empty()) {
    if (auto existing = journal_->find_by_request_id(req.request_id())) {
      pb::SubmitProofResponse resp;
      resp.set_job_id(*existing);
      resp.set_duplicate(true);
      return resp;
    }
  }
  if (req.proof_kind() != pb::PROOF_KIND_UNSPECIFIED) return submit_fil(req);
  if (req.circuit().empty())
    throw request_error(StatusCode::INVALID_ARGUMENT,
                        "proof_kind/circuit: neither is set (a Filecoin proof_kind, or a circom circuit name)");
  if (!pb::Priority_IsValid(req.priority()))
    throw request_error(StatusCode::INVALID_ARGUMENT, "priority: " + std::to_string(req.priority()) +
                                                          " is not a priority (LOW, NORMAL, HIGH, CRITICAL)");
  auto circuit = catalog_.find(req.circuit());
  const auto n = req.partitions_size();
  if (n == 0) throw request_error(StatusCode::INVALID_ARGUMENT, "partitions: at least one partition is required");
  if (std::uint32_t(n) > cfg_.scheduler.max_partitions)
    throw request_error(StatusCode::INVALID_ARGUMENT, "partitions: " + std::to_string(n) + " partitions, at most " +
                                                          std::to_string(cfg_.scheduler.max_partitions));

  // Every witness is checked against the key before the job is accepted: in place, storing
  // nothing (a spooled one in its file, a window at a time; else the request's bytes). The
  // engine reads the job's files.
  std::vector<std::optional<fs::path>> spooled(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) {
    const std::string& bytes = req.partitions(k).witness_wtns();
    std::string name = "partitions[" + std::to_string(k) + "].witness_wtns";
    if (spool) spooled[k] = spool->file_of(req.partitions(k));
    std::uint32_t values = 0;
    try {
      values = spooled[k] ? zk::io::witness::check_file(spooled[k]->string(), name)
                          : zk::io::witness::check({reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()}, name);
    } catch (const zk::input_error& e) {
      throw request_error(StatusCode::INVALID_ARGUMENT, e.what());
    }
    if (values != circuit.n_vars)
      throw request_error(StatusCode::INVALID_ARGUMENT,
                          name + ": witness has " + std::to_string(values) + " values, circuit " +
                              req.circuit() + " expects " + std::to_string(circuit.n_vars));
  }

  const auto row = new_row(req.request_id(), req.circuit(), req.priority(), std::uint32_t(n));
  return accept(
      row,
      [&](const fs::path&) {
        for (int k = 0; k < n; ++k) {
          auto to = witness_file(row.id, std::uint32_t(k));
          if (spooled[k]) spool->move(req.partitions(k), to);
          else write_bytes(to, req.partitions(k).witness_wtns());
        }
      },
      [&] { return launch(row); });
}

std::uint32_t core::queue_position(engine::job_id id) {
  engine::status_report es;
  try {
    es = engine_->status();
  } catch (const std::exception&) {
    return 0;  // the engine is stopping: the job is journaled, its position no longer matters
  }
  const auto& jobs = es.intake.jobs;
  auto me = std::find_if(jobs.begin(), jobs.end(), [&](const engine::job_report& j) { return j.job == id; });
  if (me == jobs.end()) return 0;  // already finished
  std::uint32_t ahead = 0;
  for (auto& j : jobs)
    if (j.job != id && (j.state == engine::job_state::queued || j.state == engine::job_state::running) &&
        (j.prio > me->prio || (j.prio == me->prio && j.job < id)))
      ++ahead;
  return ahead;
}

pb::SubmitProofResponse core::submit_fil(const pb::SubmitProofRequest& req) {
  // Everything is checked before anything is queued or journaled: a refusal leaves no trace.
  auto checked = check_fil_request(req, cfg_.filecoin.param_cache);
  const auto row = new_row(req.request_id(), kFilecoinPrefix + std::string(kind_name(checked.kind)), checked.priority,
                           checked.circuit.partitions());
  // The request itself is what a restart runs again (a private file, like witnesses).
  return accept(
      row, [&](const fs::path& dir) { write_message(dir / "request.pb", req); },
      [&] { return launch_fil(row, std::move(checked)); });
}

fil_request core::read_fil_request(const std::string& job_id) {
  const auto path = witness_dir(job_id) / "request.pb";
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  pb::SubmitProofRequest req;
  if (!in.good() && !in.eof()) throw std::runtime_error(path.string() + ": cannot read");
  if (bytes.empty() || !req.ParseFromString(bytes)) throw std::runtime_error(path.string() + ": not a SubmitProofRequest");
  return check_fil_request(req, cfg_.filecoin.param_cache);
}

std::shared_ptr<core::job> core::launch_fil(const journal_job& row, fil_request checked) {
  engine::filecoin_request req;
  req.request_id = row.id;  // the engine's idempotency key is the daemon's job id
  req.input = std::move(checked.input);  // the vanilla proofs: moved, not copied
  req.sector_size = checked.sector_size;
  if (checked.priority != pb::PRIORITY_UNSPECIFIED) req.prio = to_engine(checked.priority);
  engine::job_id id = 0;
  try {
    id = engine_->submit(std::move(req));
  } catch (const engine::engine_error& e) {
    throw refused_by_engine(e);
  }
  return track(row, id, kind_name(checked.kind));
}

pb::AwaitProofResponse core::pending_answer(const std::string& job_id, std::uint32_t partitions) const {
  pb::AwaitProofResponse out;
  out.set_job_id(job_id);
  out.set_status(pb::AwaitProofResponse::TIMEOUT);
  out.set_partitions_total(partitions);
  out.set_stage(draining_ ? "daemon shutting down" : "running");
  return out;
}

std::uint64_t core::await_async(const std::string& job_id, std::chrono::steady_clock::time_point deadline,
                                await_fn done) {
  std::unique_lock lock(mu_);
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) {
    lock.unlock();
    auto row = journal_->find(job_id);
    if (!row) throw request_error(StatusCode::NOT_FOUND, "job_id: no job " + job_id + " (unknown or expired)");
    pb::AwaitProofResponse out;
    if (row->state == "accepted") {  // journaled before this run and not re-queued (the start failed it)
      out.set_job_id(job_id);
      out.set_status(pb::AwaitProofResponse::TIMEOUT);
      out.set_stage("queued");
    } else if (row->result.empty() || !out.ParseFromString(row->result)) {
      out.Clear();
      out.set_job_id(job_id);
      out.set_status(row->state == "cancelled" ? pb::AwaitProofResponse::CANCELLED : pb::AwaitProofResponse::FAILED);
      out.set_error_message(row->error);
    }
    done(std::move(out));
    return 0;
  }
  auto& j = *it->second;
  if (j.finished || draining_ || deadline <= std::chrono::steady_clock::now()) {
    auto out = j.finished ? j.result : pending_answer(job_id, j.partitions);
    lock.unlock();
    done(std::move(out));
    return 0;
  }
  auto handle = ++next_waiter_;
  waiters_[handle] = waiter{job_id, deadline, std::move(done)};
  lock.unlock();
  wake_.notify_all();  // a nearer deadline, perhaps
  return handle;
}

bool core::cancel_await(std::uint64_t handle) {
  std::lock_guard lock(mu_);
  return waiters_.erase(handle) > 0;
}

pb::AwaitProofResponse core::await(const std::string& job_id, std::chrono::milliseconds timeout) {
  auto answer = std::make_shared<std::promise<pb::AwaitProofResponse>>();
  auto got = answer->get_future();
  auto deadline = timeout.count() == 0 ? std::chrono::steady_clock::time_point::max()
                                       : std::chrono::steady_clock::now() + timeout;
  await_async(job_id, deadline, [answer](pb::AwaitProofResponse r) { answer->set_value(std::move(r)); });
  return got.get();
}

pb::CancelProofResponse core::cancel(const std::string& job_id) {
  pb::CancelProofResponse out;
  std::shared_ptr<job> j;
  {
    std::lock_guard lock(mu_);
    if (auto it = jobs_.find(job_id); it != jobs_.end()) j = it->second;
  }
  if (!j) {
    if (!journal_->find(job_id)) throw request_error(StatusCode::NOT_FOUND, "job_id: no job " + job_id);
    out.set_found(true);
    return out;
  }
  out.set_found(true);
  out.set_was_running(engine_->cancel(j->engine_id));
  return out;
}

pb::GetStatusResponse core::status() {
  pb::GetStatusResponse s;
  s.set_pid(info_.pid);
  s.set_version(info_.version);
  s.set_build_id(info_.build_id);
  s.set_config_hash(info_.config_hash);
  s.set_start_time_unix_ms(std::uint64_t(info_.start_unix_ms));
  s.set_uptime_seconds(std::uint64_t((unix_ms() - info_.start_unix_ms) / 1000));
  auto es = engine_->status();
  // Engine job -> (daemon job id, proof kind), for the devices' current jobs and the queues.
  std::map<engine::job_id, std::pair<std::string, std::string>> live;
  {
    std::lock_guard lock(mu_);
    for (auto& [id, j] : jobs_)
      if (!j->finished) live[j->engine_id] = {j->id, j->kind};
  }
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
  // The key store's keys are by zkey path: match them to the catalog's circuits (a key the store
  // has never seen is cold).
  auto same_file = [](const std::string& a, const std::string& b) {
    if (a == b) return true;
    std::error_code ec1, ec2;
    auto ca = fs::weakly_canonical(a, ec1), cb = fs::weakly_canonical(b, ec2);
    return !ec1 && !ec2 && ca == cb;
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
  for (auto& [name, c] : catalog_.known()) {
    auto* k = s.add_loaded_srs();
    k->set_circuit_id(name);
    k->set_tier(pb::SRSStatus::COLD);
    k->set_file_bytes(c.file_bytes);
    for (auto& key : es.key_store.keys)
      if (key.path == name || same_file(key.path, c.path)) {
        k->set_tier(tier(key.tier));
        k->set_size_bytes(key.bytes + key.buffers_held_bytes);  // its kept sets' held grants too
        k->set_ref_count(key.leases);
        for (auto d : key.resident_on) k->add_resident_on(d);
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
    b2_of(key, k);
    std::error_code ec;
    k->set_file_bytes(fs::file_size(key.path, ec));
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
  {
    std::lock_guard lock(mu_);
    s.set_total_proofs_completed(completed_);
    s.set_total_proofs_failed(failed_);
  }
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
    for (auto& k : n.keys) out->add_circuits(k.name);
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
  for (auto& r : es.registrar.refusals) s.add_refusals(r);
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

std::string core::prometheus_metrics() {
  auto s = status();
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

std::string core::status_json() {
  auto s = status();
  nlohmann::ordered_json j;
  j["pid"] = s.pid();
  j["version"] = s.version();
  j["build_id"] = s.build_id();
  j["config_hash"] = s.config_hash();
  j["start_time_unix_ms"] = s.start_time_unix_ms();
  j["uptime_seconds"] = s.uptime_seconds();
  j["jobs"] = {{"completed", s.total_proofs_completed()}, {"failed", s.total_proofs_failed()}, {"active", s.jobs_running()},
               {"retries", s.retries()}, {"faults", s.faults()}};
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
                             {"partitions", n.partitions_done()}, {"failures", n.failures()},
                             {"busy_seconds", n.busy_seconds()}, {"last_seen_seconds_ago", n.last_seen_seconds_ago()},
                             {"joined_seconds_ago", n.joined_seconds_ago()}, {"build", n.build()}});
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

pb::PreloadSrsResponse core::preload(const std::string& circuit) {
  if (auto params = fil_params_for_circuit_id(circuit, cfg_.filecoin.param_cache)) {
    // Through the key store to the hot tier, under the host budget, like a zkey a job loads.
    pb::PreloadSrsResponse r;
    for (auto& k : engine_->status().key_store.keys)
      if (k.path == *params && k.tier == engine::key_tier::hot) r.set_already_loaded(true);
    auto t0 = std::chrono::steady_clock::now();
    try {
      engine_->preload_key(*params);
    } catch (const engine::engine_error& e) {
      throw request_error(StatusCode::FAILED_PRECONDITION, "circuit_id " + circuit + ": " + e.what());
    }
    r.set_load_time_ms(std::uint64_t(
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count()));
    spdlog::info("keys: preloaded {} ({}) in {} ms", circuit, *params, r.load_time_ms());
    return r;
  }
  auto c = catalog_.find(circuit);
  auto t0 = std::chrono::steady_clock::now();
  // Reading the whole file warms the page cache (the "warm" tier); the engine's key store parses and
  // pins it on first use.
  std::ifstream in(c.path, std::ios::binary);
  std::vector<char> buf(1 << 20);
  while (in.read(buf.data(), std::streamsize(buf.size())) || in.gcount() > 0) {
  }
  pb::PreloadSrsResponse r;
  r.set_load_time_ms(std::uint64_t(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count()));
  spdlog::info("keys: preloaded {} ({} bytes) in {} ms", circuit, c.file_bytes, r.load_time_ms());
  return r;
}

pb::EvictSrsResponse core::evict(const std::string& circuit) {
  if (auto params = fil_params_for_circuit_id(circuit, cfg_.filecoin.param_cache)) {
    pb::EvictSrsResponse r;
    std::uint64_t bytes = 0;
    for (auto& k : engine_->status().key_store.keys)
      if (k.path == *params) bytes = k.bytes;
    r.set_was_loaded(engine_->evict_key(*params));
    if (r.was_loaded()) r.set_freed_bytes(bytes);
    return r;
  }
  catalog_.find(circuit);
  engine_->evict_idle_keys();
  pb::EvictSrsResponse r;
  r.set_was_loaded(true);
  return r;
}

pb::ChaosResponse core::chaos(const pb::ChaosRequest& req) {
  if (!cfg_.chaos.enabled)
    throw request_error(StatusCode::PERMISSION_DENIED, "chaos: fault injection is off; set [chaos] enabled = true");
  static const std::map<std::string, engine::role> roles = {
      {"synthesizer", engine::role::synthesizer}, {"device", engine::role::device},
      {"assembler", engine::role::assembler},     {"budget", engine::role::host_budget},
      {"host-budget", engine::role::host_budget}, {"vram-budget", engine::role::vram_budget},
      {"key-store", engine::role::key_store},     {"scheduler", engine::role::scheduler},
      {"stager", engine::role::stager}};
  pb::ChaosResponse r;
  if (req.action() == "kill") {
    auto it = roles.find(req.actor());
    if (it == roles.end()) {
      std::string known;
      for (auto& [k, _] : roles) known += (known.empty() ? "" : ", ") + k;
      throw request_error(StatusCode::INVALID_ARGUMENT, "actor: unknown actor '" + req.actor() + "' (known: " + known + ")");
    }
    if (!engine_->kill_worker(it->second, req.index()))
      throw request_error(StatusCode::NOT_FOUND, "actor: no running " + req.actor() + " with index " +
                                                     std::to_string(req.index()));
    spdlog::warn("chaos: killed {} {}", req.actor(), req.index());
    r.set_done("killed " + req.actor() + " " + std::to_string(req.index()));
    return r;
  }
  if (req.action() == "fail-alloc") {
    if (req.count() == 0) throw request_error(StatusCode::INVALID_ARGUMENT, "count: must be at least 1");
    if (req.device() >= engine_->device_count())
      throw request_error(StatusCode::NOT_FOUND, "device: no device " + std::to_string(req.device()) + " (the daemon has " +
                                                     std::to_string(engine_->device_count()) + ")");
    if (!engine_->fail_next_allocations(req.device(), req.count()))
      throw request_error(StatusCode::UNAVAILABLE, "device: device " + std::to_string(req.device()) + " is not running");
    spdlog::warn("chaos: the next {} allocation(s) of device {} fail", req.count(), req.device());
    r.set_done("device " + std::to_string(req.device()) + ": the next " + std::to_string(req.count()) +
               " allocation(s) fail");
    return r;
  }
  if (req.action() == "journal-fail") {
    if (req.count() == 0) throw request_error(StatusCode::INVALID_ARGUMENT, "count: must be at least 1");
    journal_->fail_next_writes(req.count());
    spdlog::warn("chaos: the next {} journal write(s) fail", req.count());
    r.set_done("journal: the next " + std::to_string(req.count()) + " write(s) fail");
    return r;
  }
  throw request_error(StatusCode::UNIMPLEMENTED,
                      "action: '" + req.action() + "' is not supported (kill, fail-alloc, journal-fail)");
}

bool core::drain_and_stop(std::chrono::milliseconds grace) {
  draining_ = true;
  wake_.notify_all();  // waiters are answered "daemon shutting down"
  {
    auto deadline = std::chrono::steady_clock::now() + grace;
    std::unique_lock lock(mu_);
    done_cv_.wait_until(lock, deadline, [&] {
      for (auto& [id, j] : jobs_)
        if (!j->finished) return false;
      return true;
    });
  }
  stopped_ = true;
  // The engine's shutdown waits for every actor; it is bounded here so that a stuck actor cannot
  // keep the process alive: the journal already holds whatever did not finish.
  bool engine_stopped = true;
  if (engine_) {
    auto done = std::make_shared<std::promise<void>>();
    auto stopped = done->get_future();
    std::thread([this, done] {
      engine_->shutdown();
      done->set_value();
    }).detach();
    engine_stopped = stopped.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
    if (!engine_stopped) spdlog::warn("shutdown: the engine did not stop within 10 s; exiting without it");
  }
  std::size_t left = 0;
  {
    std::lock_guard lock(mu_);
    for (auto& [id, j] : jobs_)
      if (!j->finished) ++left;
  }
  spdlog::info("shutdown: {} job(s) left in the journal for the next start", left);
  return engine_stopped;
}

void core::expire_results() {
  auto cutoff = unix_ms() - std::chrono::duration_cast<std::chrono::milliseconds>(cfg_.daemon.result_ttl).count();
  try {
    for (auto& id : journal_->expire(cutoff)) {
      std::error_code ec;
      fs::remove_all(witness_dir(id), ec);
    }
  } catch (const std::exception& e) {
    spdlog::warn("journal: expiring old results: {}", e.what());
  }
}

}  // namespace cuzk::daemon
