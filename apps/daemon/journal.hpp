// The daemon's job journal: accepted jobs survive a kill -9 and run again after a restart; finished
// results stay awaitable until they expire. SQLite (WAL) is the store: one row per job.
//
// The file is data, not trust: every field read back is checked (a row that fails is reported by
// `problem` and quarantined by the caller, the others recover), paths are never read from it (a
// job's witness directory is derived from its id, and ids are checked to be plain names), and a
// file SQLite reports as damaged is moved aside whole (journal_damaged) so that a restart comes up.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <stdexcept>
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
  std::string witness_dir;  // informational: the daemon derives the directory from the id
  std::string problem;      // set by reads: why this row cannot be trusted ("" when it can)
};

// A circuit name: letters, digits, '_', '-', '.', not starting with '.' (a key file's stem).
bool valid_circuit_name(const std::string& name);

// A job id as the daemon makes them (hex start time, '-', sequence): a plain file name.
bool valid_job_id(const std::string& id);

// The journal file cannot be read (SQLite: damaged, not a database).
class journal_damaged : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class journal {
 public:
  // Opens or creates the journal (never through a symlink); throws journal_damaged or
  // std::runtime_error. Every write below throws std::runtime_error naming the file and the
  // reason (disk full, I/O error), and leaves the journal usable.
  explicit journal(const std::string& path);
  // Moves a damaged journal file (and its -wal, -shm) aside to PATH.damaged-<ms>; returns the new name.
  static std::string move_aside(const std::string& path, std::int64_t now_ms);
  ~journal();
  journal(const journal&) = delete;
  journal& operator=(const journal&) = delete;

  void insert(const journal_job& job);
  std::optional<journal_job> find(const std::string& id);
  std::optional<std::string> find_by_request_id(const std::string& request_id);
  void finish(const std::string& id, const std::string& state, const std::string& result, const std::string& error,
              std::int64_t finished_ms);
  std::vector<journal_job> unfinished();
  // A row that failed its checks: state 'quarantined', kept for a person to look at (it expires
  // like a finished job, result_ttl after now_ms).
  void quarantine(const std::string& id, const std::string& why, std::int64_t now_ms);
  // Deletes finished jobs older than the cutoff; returns their (valid) ids, whose witness
  // directories the caller removes.
  std::vector<std::string> expire(std::int64_t finished_before_ms);
  // Fault injection (chaos): the next `n` writes fail as a full disk would.
  void fail_next_writes(unsigned n);

 private:
  void open_schema();
  void exec(const char* sql);
  void injected_fault(const char* what);  // throws while fail_next_writes is pending (mu_ held)
  unsigned fail_writes_ = 0;
  std::mutex mu_;
  sqlite3* db_ = nullptr;
  std::string path_;
};

}  // namespace cuzk::daemon
