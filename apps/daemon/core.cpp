#include "core.hpp"

#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <grpcpp/support/status_code_enum.h>
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
#include <sstream>

#include "fil/memory_cost.hpp"
#include "fil_request.hpp"
#include "lifecycle.hpp"
#include "witness_spool.hpp"
#include "zk/error.hpp"
#include "zk/groth16/backend_registry.hpp"
#include "zk/io/snarkjs_json.hpp"
#include "zk/io/wtns.hpp"

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

// How long a request waits for host memory to free up before it is refused (RESOURCE_EXHAUSTED).
constexpr std::chrono::seconds request_wait{60};

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

// The daemon's keys as the engine's settings (core::start adds the devices, the circuits, the
// build and the callbacks).
engine::config engine_settings(const config::daemon_config& cfg) {
  engine::config ec;
  ec.host_budget = cfg.memory.total_budget.automatic ? "auto" : std::to_string(cfg.memory.total_budget.bytes);
  ec.host_margin_bytes = cfg.memory.safety_margin.bytes;
  ec.vram_margin_bytes = cfg.gpus.vram_safety_margin.bytes;
  ec.vram_limit = cfg.gpus.vram_limit.bytes ? std::to_string(cfg.gpus.vram_limit.bytes) : "off";
  ec.shifted_bases = cfg.gpus.shifted_bases_off         ? "off"
                     : cfg.gpus.shifted_bases.automatic ? "auto"
                                                        : std::to_string(cfg.gpus.shifted_bases.bytes);
  ec.b2 = cfg.gpus.b2;
  ec.b2_host_threads = cfg.gpus.b2_host_threads;
  ec.b2_device_rate = cfg.gpus.b2_device_rate;
  ec.b2_host_rate = cfg.gpus.b2_host_rate;
  ec.staged_partitions = cfg.gpus.staged_partitions;
  ec.b2_lane_share = cfg.gpus.b2_lane_share;
  ec.synthesizers = cfg.synthesis.threads;
  ec.synthesizer_threads = cfg.synthesis.pool_threads;
  ec.kept_partitions = cfg.synthesis.kept_partitions;
  ec.alone_below = cfg.synthesis.alone_below;
  ec.ordered_synthesis = cfg.synthesis.ordered;
  ec.max_attempts = cfg.scheduler.max_attempts;
  ec.step_timeout = cfg.scheduler.step_timeout;
  ec.max_active_jobs = cfg.scheduler.max_queued_jobs;
  ec.max_partitions = cfg.scheduler.max_partitions;
  ec.filecoin.param_cache = cfg.filecoin.param_cache;
  ec.filecoin.verify_params = cfg.filecoin.verify_params;
  ec.filecoin.evaluator_dir = cfg.filecoin.evaluator_dir;
  ec.filecoin.record_threads = cfg.filecoin.record_threads;
  ec.cluster.listen = cfg.cluster.listen;
  ec.cluster.join = cfg.cluster.join;
  ec.cluster.secret = cfg.cluster.secret;
  ec.cluster.node_name = cfg.cluster.name;
  ec.cluster.coordinator_only = cfg.cluster.coordinator_only;
  ec.cluster.slots = cfg.cluster.slots;
  ec.cluster.heartbeat = cfg.cluster.heartbeat;
  ec.cluster.node_timeout = cfg.cluster.node_timeout;
  ec.cluster.max_message_bytes = cfg.cluster.max_message_bytes;
  ec.cluster.max_peers = cfg.cluster.max_peers;
  ec.cluster.handshake_timeout = cfg.cluster.handshake_timeout;
  ec.cluster.tls_cert = cfg.cluster.tls_cert;
  ec.cluster.tls_key = cfg.cluster.tls_key;
  ec.cluster.tls_ca = cfg.cluster.tls_ca;
  return ec;
}

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

  engine::config ec = engine_settings(cfg_);
  ec.devices = device_names(cfg_.gpus);
  ec.filecoin.on_event = [](const std::string& line) { spdlog::info("{}", line); };
  for (auto& [name, c] : circuits) ec.circuits[name] = c.path;
  const auto& cl = cfg_.cluster;
  ec.cluster.build = std::string("cuzk ") + info_.version + " " + info_.build_id;
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
    // Every notification (a finished job, a new waiter, a drain) ends the wait and the next wake-up
    // is computed again: a waiter registered meanwhile may be due before the one computed here.
    auto wake_at = next_expiry;
    for (auto& [h, w] : waiters_) wake_at = std::min(wake_at, w.deadline);
    if (!stop_completion_ && finished_.empty() && !(draining_ && !waiters_.empty()) && !waiters_changed_)
      wake_.wait_until(lock, wake_at);
    waiters_changed_ = false;
    if (stop_completion_) return;
    auto batch = std::move(finished_);
    finished_.clear();
    // Finished jobs first: a waiter whose job finished before its deadline gets the result.
    lock.unlock();
    for (auto& f : batch) complete(std::move(f));
    lock.lock();
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

std::shared_ptr<const void> core::charge_request(std::uint64_t received) {
  try {
    return engine_->charge_host(2 * received, "a request of " + std::to_string(received) + " bytes (received and parsed)",
                                request_wait);
  } catch (const engine::engine_error& e) {
    throw refused_by_engine(e);
  }
}

std::shared_ptr<const void> core::charge_inputs(const fil_request& checked) {
  const std::uint64_t bytes = fil::memory_bytes(checked.input) + (checked.c1 ? fil::memory_bytes(*checked.c1) : 0);
  try {
    return engine_->charge_host(bytes, std::string(kind_name(checked.kind)) + " job's inputs", request_wait);
  } catch (const engine::engine_error& e) {
    throw refused_by_engine(e);
  }
}

pb::SubmitProofResponse core::submit_fil(const pb::SubmitProofRequest& req) {
  // Everything is checked before anything is queued or journaled: a refusal leaves no trace.
  auto checked = check_fil_request(req, cfg_.filecoin.param_cache);
  auto charge = charge_inputs(checked);
  const auto row = new_row(req.request_id(), kFilecoinPrefix + std::string(kind_name(checked.kind)), checked.priority,
                           checked.circuit.partitions());
  // The request itself is what a restart runs again (a private file, like witnesses).
  return accept(
      row, [&](const fs::path& dir) { write_message(dir / "request.pb", req); },
      [&] { return launch_fil(row, std::move(checked), std::move(charge)); });
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

std::shared_ptr<core::job> core::launch_fil(const journal_job& row, fil_request checked,
                                            std::shared_ptr<const void> charge) {
  engine::filecoin_request req;
  req.charge = charge ? std::move(charge) : charge_inputs(checked);
  req.request_id = row.id;  // the engine's idempotency key is the daemon's job id
  req.input = std::move(checked.input);  // the vanilla proofs: moved, not copied
  req.sector_size = checked.sector_size;
  req.c1 = std::move(checked.c1);  // PoRep: the C1 the check read, not read again
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
  waiters_changed_ = true;
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
  status_snapshot s;
  s.info = info_;
  s.now_unix_ms = unix_ms();
  s.engine = engine_->status();
  {
    std::lock_guard lock(mu_);
    for (auto& [id, j] : jobs_)
      if (!j->finished) s.live[j->engine_id] = {j->id, j->kind};
    s.completed = completed_;
    s.failed = failed_;
  }
  s.circuits = catalog_.known();
  s.key_files = key_files_.of(s.engine.key_store.keys);
  return status_of(s);
}

std::string core::prometheus_metrics() { return prometheus_text(status()); }

std::string core::status_json() { return status_json_text(status()); }

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
  // What the next start runs again: the journal's unfinished rows (a job that finished while the
  // journal could not record it, on a full disk, is among them), not the jobs still running.
  std::size_t left = 0;
  try {
    left = journal_->unfinished().size();
  } catch (const std::exception& e) {
    std::lock_guard lock(mu_);
    left = jobs_.size();  // those not recorded as finished
    spdlog::warn("shutdown: reading the journal: {}", e.what());
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
