// The daemon's job layer, between the transports (gRPC, HTTP status) and the engine: daemon job ids
// that survive restarts, the journal, the circuit catalog, request validation and result encoding.
// Transports translate; this validates and delegates; the engine proves.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "config/config.hpp"
#include "cuzk/v1/proving.pb.h"
#include "engine/engine.hpp"
#include "journal.hpp"

namespace cuzk::daemon {

namespace pb = ::cuzk::v1;

// A request the daemon refuses; `code` is a gRPC status code (grpc::StatusCode values).
class request_error : public std::runtime_error {
 public:
  request_error(int code, const std::string& what) : std::runtime_error(what), code(code) {}
  int code;
};

// NAME.zkey files in the keys directory. Only the header is read here (nVars for witness checks);
// the engine's key store loads and validates the whole key.
class circuit_catalog {
 public:
  struct circuit {
    std::string path;
    std::uint32_t n_vars = 0, n_public = 0, domain_size = 0;
    std::uint64_t file_bytes = 0;
  };
  explicit circuit_catalog(std::string dir);
  // Rescans the directory; returns the names found.
  std::map<std::string, circuit> scan();
  // The circuit called `name`, rescanning once if it is new; request_error NOT_FOUND otherwise.
  circuit find(const std::string& name);
  std::map<std::string, std::string> paths();
  // The circuits found by the last scan (no I/O: status and metrics scrapes call this).
  std::map<std::string, circuit> known();

 private:
  std::mutex mu_;
  std::string dir_;
  std::map<std::string, circuit> known_;
};

struct daemon_info {
  std::uint32_t pid = 0;
  std::string version, build_id, config_hash;
  std::int64_t start_unix_ms = 0;
};

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

  pb::SubmitProofResponse submit(const pb::SubmitProofRequest& req);
  pb::AwaitProofResponse await(const std::string& job_id, std::chrono::milliseconds timeout);
  pb::CancelProofResponse cancel(const std::string& job_id);
  pb::GetStatusResponse status();
  std::string prometheus_metrics();
  std::string status_json();
  pb::PreloadKeyResponse preload(const std::string& circuit);
  pb::EvictKeyResponse evict(const std::string& circuit);
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
    bool finished = false;
    pb::AwaitProofResponse result;
  };

  std::string new_job_id();
  std::shared_ptr<job> launch(const journal_job& row, std::vector<engine::witness_input> witnesses);
  void watch(std::shared_ptr<job> j);
  pb::AwaitProofResponse encode_result(const job& j, const engine::job_result& r);
  void expire_results();

  config::daemon_config cfg_;
  daemon_info info_;
  circuit_catalog catalog_;
  std::unique_ptr<journal> journal_;
  std::optional<engine::engine> engine_;

  std::mutex mu_;
  std::condition_variable done_cv_;
  std::map<std::string, std::shared_ptr<job>> jobs_;
  std::vector<std::thread> watchers_;
  std::atomic<bool> draining_{false};
  std::atomic<bool> stopped_{false};  // the engine is shut down: watchers leave their jobs to the journal
  std::uint64_t next_seq_ = 0;
  std::uint64_t completed_ = 0, failed_ = 0;
  mutable std::mutex refused_mu_;
  std::optional<std::string> refused_;
};

}  // namespace cuzk::daemon
