// The operator's requests to a running daemon, beside its jobs: keys made ready or dropped ahead
// of work (PreloadSRS, EvictSRS: circom circuits from the catalog, Filecoin parameters through the
// engine's key store) and fault injection ([chaos] enabled: kill an actor, fail a device's next
// allocations or the journal's next writes).
#include <grpcpp/support/status_code_enum.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "core.hpp"
#include "fil_request.hpp"
#include "request_error.hpp"

namespace cuzk::daemon {

using grpc::StatusCode;

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

}  // namespace cuzk::daemon
