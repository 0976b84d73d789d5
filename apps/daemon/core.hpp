// The daemon's job layer, between the transports (gRPC, HTTP status) and the engine: daemon job ids
// that survive restarts, the journal, request validation and result encoding (core.cpp). Transports
// translate; this validates and delegates; the engine proves. Beside it, each in its own file: the
// circuit catalog (circuit_catalog.hpp), the reports (status_report.hpp: core::status takes their
// snapshot), the operator's SRS and chaos requests (core_admin.cpp).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "config/config.hpp"
#include "cuzk/v1/proving.pb.h"
#include "engine/engine.hpp"
#include "circuit_catalog.hpp"
#include "fil_request.hpp"
#include "journal.hpp"
#include "request_error.hpp"
#include "status_report.hpp"

namespace cuzk::daemon {

namespace pb = ::cuzk::v1;

class witness_spool;

// The engine's settings that the daemon's keys set (memory, gpus, synthesis, scheduler, filecoin,
// cluster); core::start adds the devices, the circuits, the build and the callbacks.
engine::config engine_settings(const config::daemon_config& cfg);

class core {
 public:
  core(const config::daemon_config& cfg, daemon_info info);
  ~core();

  // Starts the engine and re-queues the journal's unfinished jobs (the one start path calls this).
  void start();
  // Refuses new jobs, waits up to `grace` for running ones, stops the engine; unfinished jobs stay
  // in the journal and run again at the next start. False when the engine did not stop in time
  // (the caller then exits without destroying it).
  bool drain_and_stop(std::chrono::milliseconds grace);

  // `spool`: where the request's witnesses were streamed while it was parsed (the service's raw
  // parse); without one, the witnesses are the request's bytes.
  pb::SubmitProofResponse submit(const pb::SubmitProofRequest& req, witness_spool* spool = nullptr);
  // A request of `received` bytes, charged to the host budget before it is parsed: gRPC's buffer
  // and the message parsed from it (2x; witnesses go to files as they are read, so a circom
  // request costs less). Held until it is submitted (the token goes). A request larger than the
  // budget is refused, one that does not fit now waits (request_wait): RESOURCE_EXHAUSTED.
  std::shared_ptr<const void> charge_request(std::uint64_t received);
  // Where requests' witnesses are spooled while they arrive (private; emptied at start).
  std::filesystem::path incoming_dir() const;
  // The job's answer, delivered once to `done`: when the job finishes, at `deadline` (status
  // TIMEOUT), when the daemon drains (TIMEOUT, stage "daemon shutting down"), or at once when it has
  // finished already. `done` runs on the completion thread or inline, and must not block. Returns
  // a handle for cancel_await; request_error NOT_FOUND for an unknown job.
  using await_fn = std::function<void(pb::AwaitProofResponse)>;
  std::uint64_t await_async(const std::string& job_id, std::chrono::steady_clock::time_point deadline, await_fn done);
  // The client went away: true when the waiter was still pending (then `done` is never called).
  bool cancel_await(std::uint64_t handle);
  // Blocking form of await_async (tests, tools).
  pb::AwaitProofResponse await(const std::string& job_id, std::chrono::milliseconds timeout);
  pb::CancelProofResponse cancel(const std::string& job_id);
  // The reports (status_report.hpp) on one snapshot of the engine and of this daemon's jobs.
  pb::GetStatusResponse status();
  std::string prometheus_metrics();
  std::string status_json();
  // A circom circuit name, or Filecoin parameters by Curio's circuit id or file name (these and
  // chaos: core_admin.cpp).
  pb::PreloadSrsResponse preload(const std::string& circuit);
  pb::EvictSrsResponse evict(const std::string& circuit);
  pb::ChaosResponse chaos(const pb::ChaosRequest& req);

  const config::daemon_config& config() const { return cfg_; }
  // A worker whose coordinator refused it (wrong secret, another build): the daemon exits non-zero.
  std::optional<std::string> refused() const;

 private:
  struct job {
    std::string id;
    engine::job_id engine_id = 0;
    std::uint32_t partitions = 0;
    std::int64_t submitted_ms = 0;
    std::int64_t accepted_ms = 0;  // when this daemon's engine accepted it (after a restart: the re-queue)
    std::string kind = "circom";  // the status queues' proof kind (fil_request.hpp kind_name)
    bool finished = false;
    pb::AwaitProofResponse result;
  };

  // A job the engine answered (or lost: nullopt), queued for the completion thread.
  struct finished_job {
    std::shared_ptr<job> j;
    std::optional<engine::job_outcome> result;
    std::string why;
  };
  struct waiter {
    std::string job_id;
    std::chrono::steady_clock::time_point deadline;
    await_fn done;
  };

  pb::SubmitProofResponse submit_fil(const pb::SubmitProofRequest& req);
  // SubmitProofResponse.queue_position: the engine's unfinished jobs that come before this one in
  // its order (priority, then arrival), running ones included; 0: nothing ahead of it.
  std::uint32_t queue_position(engine::job_id id);
  std::string new_job_id();
  // Opens the journal (a damaged one goes aside) and returns its unfinished rows.
  std::vector<journal_job> open_journal();
  // Where a job's witnesses are kept: derived from its id (never read back from the journal).
  std::filesystem::path witness_dir(const std::string& job_id) const;
  std::filesystem::path witness_file(const std::string& job_id, std::uint32_t partition) const;
  // A new job's journal row (its id, directory and submission time).
  journal_job new_row(const std::string& request_id, std::string circuit, int priority,
                      std::uint32_t partitions);
  // What every kind of submission ends with: the job's directory and files (write_files) and its
  // journal row, after which it is accepted (a failure before leaves no trace: UNAVAILABLE), then
  // the engine's job (start); a refusal there finishes the row as failed and is rethrown.
  pb::SubmitProofResponse accept(const journal_job& row, const std::function<void(const std::filesystem::path&)>& write_files,
                                 const std::function<std::shared_ptr<job>()>& start);
  // A circom job: its witnesses are the files in its directory, 0.wtns .. N-1.wtns.
  std::shared_ptr<job> launch(const journal_job& row);
  // Filecoin jobs: journaled with circuit "filecoin.KIND" and their request in the job's directory.
  static constexpr const char* kFilecoinPrefix = "filecoin.";
  // `charge`: the host budget's grant for the job's inputs (charge_inputs); null: charged here.
  std::shared_ptr<job> launch_fil(const journal_job& row, fil_request checked, std::shared_ptr<const void> charge = nullptr);
  // A Filecoin job's inputs (its vanilla proofs or C1, and the C1 parsed) charged to the host
  // budget; the engine keeps the grant with them until the job lets go.
  std::shared_ptr<const void> charge_inputs(const fil_request& checked);
  fil_request read_fil_request(const std::string& job_id);
  // Registers an engine job as the daemon's (status, completion).
  std::shared_ptr<job> track(const journal_job& row, engine::job_id engine_id, std::string kind);
  // The completion thread: the one thread that journals finished jobs, answers waiters (finished,
  // timed out, draining) and expires old results every result_ttl / 4 (at most a minute apart).
  void completion_loop();
  void complete(finished_job f);
  pb::AwaitProofResponse encode_result(const job& j, const engine::job_outcome& r);
  pb::AwaitProofResponse pending_answer(const std::string& job_id, std::uint32_t partitions) const;
  void expire_results();


  config::daemon_config cfg_;
  daemon_info info_;
  circuit_catalog catalog_;
  key_files key_files_;  // the engine's key files, read once per key (status reads no disk)
  std::unique_ptr<journal> journal_;
  std::optional<engine::engine> engine_;
  // The engine's local devices, comma-separated (SubmitProofResponse.assigned_gpu): partitions are
  // placed on them as they free up, so a job is assigned to this set, not to one of them.
  std::string device_names_;

  std::mutex mu_;
  std::condition_variable done_cv_;  // a job finished (drain waits on it)
  std::condition_variable wake_;     // the completion thread has work: a finished job, a waiter, a stop
  // Jobs running, and finished ones whose result the journal could not keep.
  std::map<std::string, std::shared_ptr<job>> jobs_;
  std::vector<finished_job> finished_;
  std::map<std::uint64_t, waiter> waiters_;
  std::set<std::string> submitting_;  // request ids being submitted now
  std::condition_variable submit_cv_;
  std::uint64_t next_waiter_ = 0;
  bool waiters_changed_ = false;  // a waiter came since the completion thread computed its wake-up
  bool stop_completion_ = false;
  std::thread completion_;
  std::atomic<bool> draining_{false};
  std::atomic<bool> stopped_{false};  // the engine is shut down: jobs it drops stay in the journal
  std::uint64_t next_seq_ = 0;
  std::uint64_t completed_ = 0, failed_ = 0;
  mutable std::mutex refused_mu_;
  std::optional<std::string> refused_;
};

}  // namespace cuzk::daemon
