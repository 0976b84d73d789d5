// The daemon's three reports: GetStatus (gRPC, `cuzk status`), the Prometheus text (/metrics,
// `cuzk metrics`) and the JSON (/status). One source of the figures: status_of builds the
// GetStatusResponse from a snapshot that core takes (the engine's status_report, the daemon's
// unfinished jobs and counters, the catalog's circuits), and the other two format that response,
// so the three agree figure for figure. Nothing here reads core's state or takes its lock, and
// status_of reads no file: what it needs of the key files (sizes, canonical paths) the catalog took
// at its scan and key_files below took once per key, so a scrape every second costs no disk I/O.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "circuit_catalog.hpp"
#include "cuzk/v1/proving.pb.h"
#include "engine/engine.hpp"

namespace cuzk::daemon {

namespace pb = ::cuzk::v1;

// Who this daemon is (GetStatus's first fields; core's job ids and the cluster's build string too).
struct daemon_info {
  std::uint32_t pid = 0;
  std::string version, build_id, config_hash;
  std::int64_t start_unix_ms = 0;
};

// What the reports know of a key store key's file: its size and canonical_path (matched against the
// catalog's circuits, however the two paths were spelled).
struct key_file {
  std::string canonical;
  std::uint64_t bytes = 0;
  bool operator==(const key_file&) const = default;
};

// The engine's key files, looked up once per path (by the first status that sees the key) and
// remembered: later scrapes touch no disk. A key's file does not change under its path (the
// catalog's circuits are rescanned on their own; Filecoin parameters are immutable by name).
class key_files {
 public:
  using probe_fn = std::function<key_file(const std::string& path)>;
  // The look-up: canonical_path and the file's size (0 when it cannot be read).
  static key_file read(const std::string& path);
  explicit key_files(probe_fn probe = read) : probe_(std::move(probe)) {}
  // The files of `keys` by path, probing only the paths not read before (one that could not be
  // read, 0 bytes, is probed again next time).
  std::map<std::string, key_file> of(const std::vector<engine::key_status>& keys);

 private:
  std::mutex mu_;
  probe_fn probe_;
  std::map<std::string, key_file> known_;
};

// What the reports read, taken by core::status (its lock held only to copy the jobs and counters).
struct status_snapshot {
  daemon_info info;
  std::int64_t now_unix_ms = 0;  // taken first: the uptime
  engine::status_report engine;
  // Engine job -> (daemon job id, proof kind) of the unfinished jobs: the devices' current jobs
  // and the queues by kind (an engine job not in it counts as "circom").
  std::map<engine::job_id, std::pair<std::string, std::string>> live;
  std::map<std::string, circuit_catalog::circuit> circuits;  // catalog_.known(): no I/O
  std::map<std::string, key_file> key_files;                 // the engine's keys' (key_files::of)
  std::uint64_t completed = 0, failed = 0;
};

pb::GetStatusResponse status_of(const status_snapshot& in);
std::string prometheus_text(const pb::GetStatusResponse& s);
std::string status_json_text(const pb::GetStatusResponse& s);

}  // namespace cuzk::daemon
