#include "journal.hpp"

#include <sqlite3.h>

#include <cctype>
#include <cstdio>
#include <stdexcept>

namespace cuzk::daemon {

namespace {

// RAII for one prepared statement.
class statement {
 public:
  statement(sqlite3* db, const char* sql, const std::string& where) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &st_, nullptr) != SQLITE_OK) fail(db, where);
  }
  ~statement() { sqlite3_finalize(st_); }
  statement& text(int i, const std::string& v) {
    sqlite3_bind_text(st_, i, v.data(), int(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  statement& blob(int i, const std::string& v) {
    sqlite3_bind_blob(st_, i, v.data(), int(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  statement& integer(int i, std::int64_t v) {
    sqlite3_bind_int64(st_, i, v);
    return *this;
  }
  bool step(const std::string& where) {
    int rc = sqlite3_step(st_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(db_, where);
  }
  [[noreturn]] static void fail(sqlite3* db, const std::string& where) {
    int code = sqlite3_errcode(db) & 0xff;
    std::string msg = where + ": " + sqlite3_errmsg(db);
    if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB) throw journal_damaged(msg);
    throw std::runtime_error(msg);
  }
  std::string col_text(int i) {
    auto* p = reinterpret_cast<const char*>(sqlite3_column_blob(st_, i));
    return p ? std::string(p, std::size_t(sqlite3_column_bytes(st_, i))) : std::string();
  }
  std::int64_t col_int(int i) { return sqlite3_column_int64(st_, i); }

 private:
  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
};

constexpr const char* kColumns =
    "id, request_id, circuit, priority, partitions, state, submitted_ms, finished_ms, error, result, witness_dir";

}  // namespace

bool valid_circuit_name(const std::string& n) {
  if (n.empty() || n.size() > 128 || n[0] == '.') return false;
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  return true;
}

namespace {

// Every field is checked against what the daemon writes; the first mismatch is the row's problem.
journal_job read_row(statement& s) {
  journal_job j;
  j.id = s.col_text(0);
  j.request_id = s.col_text(1);
  j.circuit = s.col_text(2);
  const std::int64_t priority = s.col_int(3), partitions = s.col_int(4);
  j.state = s.col_text(5);
  j.submitted_ms = s.col_int(6);
  j.finished_ms = s.col_int(7);
  j.error = s.col_text(8);
  j.result = s.col_text(9);
  j.witness_dir = s.col_text(10);
  auto bad = [&](const std::string& why) {
    if (j.problem.empty()) j.problem = why;
  };
  if (!valid_job_id(j.id)) bad("id is not a job id");
  if (j.request_id.size() > 256) bad("request_id is longer than 256 bytes");
  if (!valid_circuit_name(j.circuit)) bad("circuit is not a circuit name");
  if (priority < 0 || priority > 4) bad("priority " + std::to_string(priority) + " is not a priority (0-4)");
  if (partitions < 1 || partitions > (std::int64_t{1} << 20))
    bad("partitions " + std::to_string(partitions) + " is out of range");
  if (j.submitted_ms < 0 || j.finished_ms < 0) bad("a negative time");
  j.priority = int(priority);
  j.partitions = j.problem.empty() ? std::uint32_t(partitions) : 0;
  return j;
}

}  // namespace

bool valid_job_id(const std::string& id) {
  if (id.empty() || id.size() > 64 || id.front() == '-') return false;
  for (char c : id)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == '-')) return false;
  return true;
}

std::string journal::move_aside(const std::string& path, std::int64_t now_ms) {
  std::string to = path + ".damaged-" + std::to_string(now_ms);
  if (std::rename(path.c_str(), to.c_str()) != 0) throw std::runtime_error(path + ": cannot move the damaged journal aside");
  for (const char* ext : {"-wal", "-shm"}) std::rename((path + ext).c_str(), (to + ext).c_str());
  return to;
}

journal::journal(const std::string& path) : path_(path) {
  int rc = sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    if ((rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB)
      throw journal_damaged(path + ": the job journal is damaged: " + msg);
    throw std::runtime_error(path + ": cannot open the job journal: " + msg);
  }
  sqlite3_busy_timeout(db_, 5000);
  try {
    open_schema();
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

void journal::open_schema() {
  {
    // Every page is read once at open (the journal is small: results expire), so that damage is
    // found here, where the file can still go aside, and not by a write in the middle of a job.
    statement check(db_, "PRAGMA quick_check", path_);
    if (check.step(path_) && check.col_text(0) != "ok")
      throw journal_damaged(path_ + ": the job journal is damaged: " + check.col_text(0));
  }
  exec("PRAGMA journal_mode=WAL");
  exec("PRAGMA synchronous=NORMAL");
  exec(
      "CREATE TABLE IF NOT EXISTS jobs ("
      " id TEXT PRIMARY KEY, request_id TEXT NOT NULL, circuit TEXT NOT NULL, priority INTEGER NOT NULL,"
      " partitions INTEGER NOT NULL, state TEXT NOT NULL, submitted_ms INTEGER NOT NULL,"
      " finished_ms INTEGER NOT NULL DEFAULT 0, error TEXT NOT NULL DEFAULT '', result BLOB,"
      " witness_dir TEXT NOT NULL DEFAULT '')");
  exec("CREATE INDEX IF NOT EXISTS jobs_request_id ON jobs(request_id) WHERE request_id != ''");
  exec("CREATE INDEX IF NOT EXISTS jobs_state ON jobs(state)");
  // Results are serialized cuzk.v1.AwaitProofResponse. Format 2 renumbered it for the Curio
  // contract; results kept by an earlier build would read wrongly, so they are dropped (the job's
  // state and error stay; awaiting it says why).
  int format = 0;
  {
    statement v(db_, "PRAGMA user_version", path_);
    if (v.step(path_)) format = int(v.col_int(0));
  }
  if (format < 2) {
    exec("UPDATE jobs SET result = NULL, error = CASE WHEN error = '' THEN"
         " 'the result was kept by an earlier cuzk build in another format; prove again' ELSE error END"
         " WHERE result IS NOT NULL");
    exec("PRAGMA user_version = 2");
  }
}

journal::~journal() {
  if (db_) sqlite3_close(db_);
}

void journal::exec(const char* sql) {
  char* err = nullptr;
  if (int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &err); rc != SQLITE_OK) {
    std::string msg = path_ + ": " + (err ? err : "unknown error");
    sqlite3_free(err);
    if ((rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB) throw journal_damaged(msg);
    throw std::runtime_error(msg);
  }
}

void journal::fail_next_writes(unsigned n) {
  std::lock_guard lock(mu_);
  fail_writes_ = n;
}

void journal::injected_fault(const char* what) {
  if (fail_writes_ == 0) return;
  --fail_writes_;
  throw std::runtime_error(path_ + ": " + what + ": database or disk is full (injected by chaos)");
}

void journal::insert(const journal_job& j) {
  std::lock_guard lock(mu_);
  injected_fault("insert");
  statement s(db_,
              "INSERT INTO jobs (id, request_id, circuit, priority, partitions, state, submitted_ms, witness_dir)"
              " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
              path_);
  s.text(1, j.id).text(2, j.request_id).text(3, j.circuit).integer(4, j.priority).integer(5, j.partitions);
  s.text(6, j.state).integer(7, j.submitted_ms).text(8, j.witness_dir);
  s.step(path_);
}

std::optional<journal_job> journal::find(const std::string& id) {
  std::lock_guard lock(mu_);
  statement s(db_, (std::string("SELECT ") + kColumns + " FROM jobs WHERE id = ?").c_str(), path_);
  s.text(1, id);
  if (!s.step(path_)) return std::nullopt;
  return read_row(s);
}

std::optional<std::string> journal::find_by_request_id(const std::string& request_id) {
  std::lock_guard lock(mu_);
  statement s(db_, "SELECT id FROM jobs WHERE request_id = ? ORDER BY submitted_ms LIMIT 1", path_);
  s.text(1, request_id);
  if (!s.step(path_)) return std::nullopt;
  return s.col_text(0);
}

void journal::finish(const std::string& id, const std::string& state, const std::string& result,
                     const std::string& error, std::int64_t finished_ms) {
  std::lock_guard lock(mu_);
  injected_fault("finish");
  statement s(db_,
              "UPDATE jobs SET state = ?, result = ?, error = ?, finished_ms = ? WHERE id = ? AND state = 'accepted'",
              path_);
  s.text(1, state).blob(2, result).text(3, error).integer(4, finished_ms).text(5, id);
  s.step(path_);
}

std::vector<journal_job> journal::unfinished() {
  std::lock_guard lock(mu_);
  statement s(db_,
              (std::string("SELECT ") + kColumns + " FROM jobs WHERE state = 'accepted' ORDER BY submitted_ms").c_str(),
              path_);
  std::vector<journal_job> out;
  while (s.step(path_)) out.push_back(read_row(s));
  return out;
}

void journal::quarantine(const std::string& id, const std::string& why, std::int64_t now_ms) {
  std::lock_guard lock(mu_);
  injected_fault("quarantine");
  statement s(db_, "UPDATE jobs SET state = 'quarantined', error = ?, finished_ms = ? WHERE id = ? AND state = 'accepted'",
              path_);
  s.text(1, "quarantined: " + why).integer(2, now_ms).text(3, id);
  s.step(path_);
}

std::vector<std::string> journal::expire(std::int64_t finished_before_ms) {
  std::lock_guard lock(mu_);
  injected_fault("expire");
  std::vector<std::string> ids;
  {
    statement s(db_, "SELECT id FROM jobs WHERE state != 'accepted' AND finished_ms < ?", path_);
    s.integer(1, finished_before_ms);
    while (s.step(path_))
      if (auto id = s.col_text(0); valid_job_id(id)) ids.push_back(id);
  }
  statement d(db_, "DELETE FROM jobs WHERE state != 'accepted' AND finished_ms < ?", path_);
  d.integer(1, finished_before_ms);
  d.step(path_);
  return ids;
}

}  // namespace cuzk::daemon
