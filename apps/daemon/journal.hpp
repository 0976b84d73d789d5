// The daemon's job journal: accepted jobs survive a kill -9 and run again after a restart; finished
// results stay awaitable until they expire. SQLite (WAL) is the store: one row per job.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace cuzk::daemon {

struct journal_job {
  std::string id;          // the daemon's job id, stable across restarts
  std::string request_id;  // the client's idempotency key ("" if none)
  std::string circuit;
  int priority = 2;
  std::uint32_t partitions = 0;
  std::string state = "accepted";  // accepted | completed | failed | cancelled
  std::int64_t submitted_ms = 0, finished_ms = 0;
  std::string error;
  std::string result;       // serialized cuzk.v1.AwaitProofResponse once finished
  std::string witness_dir;  // where the partitions' .wtns files are kept until the job ends
};

class journal {
 public:
  explicit journal(const std::string& path);  // creates the schema; throws std::runtime_error
  ~journal();
  journal(const journal&) = delete;
  journal& operator=(const journal&) = delete;

  void insert(const journal_job& job);
  std::optional<journal_job> find(const std::string& id);
  std::optional<std::string> find_by_request_id(const std::string& request_id);
  void finish(const std::string& id, const std::string& state, const std::string& result, const std::string& error,
              std::int64_t finished_ms);
  std::vector<journal_job> unfinished();
  // Deletes finished jobs older than the cutoff; returns their witness directories for removal.
  std::vector<std::string> expire(std::int64_t finished_before_ms);

 private:
  void exec(const char* sql);
  std::mutex mu_;
  sqlite3* db_ = nullptr;
  std::string path_;
};

}  // namespace cuzk::daemon
