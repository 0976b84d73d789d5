// The daemon's three reports: GetStatus (gRPC, `cuzk status`), the Prometheus text (/metrics,
// `cuzk metrics`) and the JSON (/status). One source of the figures: status_of builds the
// GetStatusResponse from a snapshot that core takes (the engine's status_report, the daemon's
// unfinished jobs and counters, the catalog's circuits), and the other two format that response,
// so the three agree figure for figure. Nothing here reads core's state or takes its lock.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

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

// What the reports read, taken by core::status (its lock held only to copy the jobs and counters).
struct status_snapshot {
  daemon_info info;
  std::int64_t now_unix_ms = 0;  // taken first: the uptime
  engine::status_report engine;
  // Engine job -> (daemon job id, proof kind) of the unfinished jobs: the devices' current jobs
  // and the queues by kind (an engine job not in it counts as "circom").
  std::map<engine::job_id, std::pair<std::string, std::string>> live;
  std::map<std::string, circuit_catalog::circuit> circuits;  // catalog_.known(): no I/O
  std::uint64_t completed = 0, failed = 0;
};

pb::GetStatusResponse status_of(const status_snapshot& in);
std::string prometheus_text(const pb::GetStatusResponse& s);
std::string status_json_text(const pb::GetStatusResponse& s);

}  // namespace cuzk::daemon
