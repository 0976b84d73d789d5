#include "journal.hpp"

#include <sqlite3.h>

#include <stdexcept>

namespace cuzk::daemon {

namespace {

// RAII for one prepared statement.
class statement {
 public:
  statement(sqlite3* db, const char* sql, const std::string& where) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &st_, nullptr) != SQLITE_OK)
      throw std::runtime_error(where + ": " + sqlite3_errmsg(db));
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
    throw std::runtime_error(where + ": " + sqlite3_errmsg(db_));
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

journal_job read_row(statement& s) {
  journal_job j;
  j.id = s.col_text(0);
  j.request_id = s.col_text(1);
  j.circuit = s.col_text(2);
  j.priority = int(s.col_int(3));
  j.partitions = std::uint32_t(s.col_int(4));
  j.state = s.col_text(5);
  j.submitted_ms = s.col_int(6);
  j.finished_ms = s.col_int(7);
  j.error = s.col_text(8);
  j.result = s.col_text(9);
  j.witness_dir = s.col_text(10);
  return j;
}

}  // namespace

journal::journal(const std::string& path) : path_(path) {
  if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    throw std::runtime_error(path + ": cannot open the job journal: " + msg);
  }
  sqlite3_busy_timeout(db_, 5000);
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
}

journal::~journal() { sqlite3_close(db_); }

void journal::exec(const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    throw std::runtime_error(path_ + ": " + msg);
  }
}

void journal::insert(const journal_job& j) {
  std::lock_guard lock(mu_);
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

std::vector<std::string> journal::expire(std::int64_t finished_before_ms) {
  std::lock_guard lock(mu_);
  std::vector<std::string> dirs;
  {
    statement s(db_, "SELECT witness_dir FROM jobs WHERE state != 'accepted' AND finished_ms < ?", path_);
    s.integer(1, finished_before_ms);
    while (s.step(path_)) dirs.push_back(s.col_text(0));
  }
  statement d(db_, "DELETE FROM jobs WHERE state != 'accepted' AND finished_ms < ?", path_);
  d.integer(1, finished_before_ms);
  d.step(path_);
  return dirs;
}

}  // namespace cuzk::daemon
