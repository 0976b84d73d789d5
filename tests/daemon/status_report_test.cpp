// The daemon's reports on a snapshot made here (no daemon, no engine): GetStatus's figures come from
// the snapshot as status_report.cpp maps them, and /metrics and /status show the same figures.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "status_report.hpp"

using namespace cuzk::daemon;

namespace {

status_snapshot sample_snapshot() {
  status_snapshot in;
  in.info = {42, "1.2.3", "abc123", "cfg", 1'000};
  in.now_unix_ms = 61'500;
  auto& es = in.engine;
  cuzk::msg::device_usage dev;
  dev.name = "cuda:0";
  dev.busy_us = 2'500'000;
  dev.proofs = 7;
  dev.current_job = 11;
  es.scheduler.devices.push_back(dev);
  es.scheduler.retries = 4;
  es.scheduler.host_waits = 3;
  es.scheduler.waits_served_home = 5;
  es.vram.push_back({.name = "vram0", .capacity = 1000, .in_use = 400, .peak = 900, .queued = 2});
  es.host = {.name = "host", .capacity = 5000, .in_use = 1200, .peak = 3000};
  es.key_store.devices.push_back({.device = 0, .resident_bytes = 300, .keys = 1, .loads = 2, .evictions = 1});
  cuzk::msg::key_status key;
  key.path = "/keys/sample.zkey";
  key.tier = cuzk::msg::key_tier::hot;
  key.leases = 2;
  key.bytes = 50;
  key.buffers_held_bytes = 5;
  key.resident_on = {0};
  es.key_store.keys.push_back(key);
  auto job = [](cuzk::engine::job_id id, cuzk::msg::job_state st, std::uint32_t parts) {
    cuzk::msg::job_report r;
    r.job = id;
    r.state = st;
    r.partitions = parts;
    return r;
  };
  es.intake.jobs = {job(11, cuzk::msg::job_state::running, 10), job(12, cuzk::msg::job_state::queued, 1),
                    job(13, cuzk::msg::job_state::queued, 2), job(14, cuzk::msg::job_state::succeeded, 3)};
  in.live = {{11, {"job-a", "porep"}}, {12, {"job-b", "wpost"}}};  // 13: not the daemon's kind map: circom
  in.circuits["sample"] = {.path = "/keys/sample.zkey", .canonical = "/keys/sample.zkey", .file_bytes = 123};
  in.circuits["other"] = {.path = "/keys/other.zkey", .canonical = "/keys/other.zkey", .file_bytes = 77};
  in.completed = 3;
  in.failed = 1;
  return in;
}

}  // namespace

TEST_CASE("status_of maps the snapshot's figures into GetStatus", "[daemon][status]") {
  const auto s = status_of(sample_snapshot());
  CHECK(s.pid() == 42);
  CHECK(s.build_id() == "abc123");
  CHECK(s.uptime_seconds() == 60);
  CHECK(s.total_proofs_completed() == 3);
  CHECK(s.total_proofs_failed() == 1);
  CHECK(s.jobs_running() == 3);  // running 11, queued 12 and 13
  CHECK(s.retries() == 4);
  CHECK(s.host_waits() == 3);
  CHECK(s.host_waits_served_home() == 5);
  REQUIRE(s.gpus_size() == 1);
  const auto& g = s.gpus(0);
  CHECK(g.name() == "cuda:0");
  CHECK(g.kind() == "cuda");
  CHECK(g.busy_seconds() == 2.5);
  CHECK(g.partitions_done() == 7);
  CHECK(g.current_job_id() == "job-a");
  CHECK(g.current_proof_kind() == "porep");
  CHECK(g.vram_free_bytes() == 600);
  CHECK(g.vram_reserved_bytes() == 400);
  CHECK(g.vram_resident_bytes() == 300);
  CHECK(g.vram_staged_bytes() == 100);  // what the budget granted beyond the residency
  CHECK(g.resident_evictions() == 1);
  REQUIRE(s.budgets_size() == 2);
  CHECK(s.budgets(0).name() == "host");
  CHECK(s.budgets(1).waiting() == 2);
  REQUIRE(s.loaded_srs_size() == 2);
  for (auto& k : s.loaded_srs()) {
    if (k.circuit_id() == "sample") {
      CHECK(k.tier() == pb::SRSStatus::HOT);
      CHECK(k.size_bytes() == 55);  // its kept sets' held grants too
      CHECK(k.ref_count() == 2);
      CHECK(k.file_bytes() == 123);
      CHECK(k.resident_on_size() == 1);
    } else {
      CHECK(k.circuit_id() == "other");
      CHECK(k.tier() == pb::SRSStatus::COLD);
      CHECK(k.size_bytes() == 0);
    }
  }
  std::map<std::string, const pb::QueueStatus*> q;
  for (auto& x : s.queues()) q[x.proof_kind()] = &x;
  REQUIRE(q.size() == 4);
  CHECK(q["porep"]->in_progress() == 1);
  CHECK(q["porep"]->pending() == 0);
  CHECK(q["wpost"]->pending() == 1);
  CHECK(q["wpost"]->partitions_queued() == 1);
  CHECK(q["circom"]->pending() == 1);
  CHECK(q["circom"]->partitions_queued() == 2);
  CHECK(q["winning"]->pending() == 0);
}

TEST_CASE("/metrics and /status show GetStatus's figures", "[daemon][status]") {
  const auto s = status_of(sample_snapshot());
  const std::string m = prometheus_text(s);
  for (const char* line : {"cuzk_up{version=\"1.2.3\",build_id=\"abc123\"} 1\n", "cuzk_uptime_seconds 60\n",
                           "cuzk_jobs_completed_total 3\n", "cuzk_jobs_active 3\n",
                           "cuzk_partitions_queued{proof_kind=\"circom\"} 2\n",
                           "cuzk_jobs_running{proof_kind=\"porep\"} 1\n",
                           "cuzk_budget_reserved_bytes{budget=\"vram0\"} 400\n",
                           "cuzk_key_tier{circuit=\"sample\",tier=\"hot\"} 1\n",
                           "cuzk_key_tier{circuit=\"sample\",tier=\"cold\"} 0\n", "cuzk_key_bytes{circuit=\"sample\"} 55\n",
                           "cuzk_device_busy_seconds_total{device=\"cuda:0\"} 2.5\n",
                           "cuzk_device_staged_bytes{device=\"cuda:0\"} 100\n",
                           "# TYPE cuzk_host_waits gauge\ncuzk_host_waits 3\n",
                           "# TYPE cuzk_host_waits_served_home_total counter\ncuzk_host_waits_served_home_total 5\n"})
    CHECK(m.find(line) != std::string::npos);
  CHECK(m.find("cuzk_cluster_") == std::string::npos);  // standalone

  const auto j = nlohmann::json::parse(status_json_text(s));
  CHECK(j["pid"] == 42);
  CHECK(j["uptime_seconds"] == 60);
  CHECK(j["jobs"]["completed"] == 3);
  CHECK(j["jobs"]["active"] == 3);
  CHECK(j["host_waits"]["waiting"] == 3);
  CHECK(j["host_waits"]["served_home"] == 5);
  CHECK(j["devices"][0]["busy_seconds"] == 2.5);
  CHECK(j["devices"][0]["vram_staged_bytes"] == 100);
  CHECK(j["queues"]["circom"]["partitions_queued"] == 2);
  CHECK(j["budgets"][1]["name"] == "vram0");
  bool sample = false;
  for (auto& k : j["keys"])
    if (k["circuit"] == "sample") {
      sample = true;
      CHECK(k["tier"] == "hot");
      CHECK(k["bytes"] == 55);
      CHECK(k["file_bytes"] == 123);
    }
  CHECK(sample);
  CHECK(j["cluster"]["role"] == "standalone");
}

TEST_CASE("status_of reads no file: it matches and sizes keys by what the snapshot took", "[daemon][status]") {
  auto in = sample_snapshot();
  // The engine knows the sample key by another spelling, and a Filecoin parameters file; neither
  // path exists, so only the snapshot's key_files can match the one and size the other.
  in.engine.key_store.keys[0].path = "/nowhere/link-to-sample.zkey";
  in.circuits["sample"].canonical = "/keys/real/sample.zkey";
  cuzk::msg::key_status params;
  params.path = "/nowhere/v28-test.params";
  params.tier = cuzk::msg::key_tier::warm;
  in.engine.key_store.keys.push_back(params);
  in.key_files["/nowhere/link-to-sample.zkey"] = {"/keys/real/sample.zkey", 123};
  in.key_files["/nowhere/v28-test.params"] = {"/nowhere/v28-test.params", 4096};
  const auto s = status_of(in);
  std::map<std::string, const pb::SRSStatus*> k;
  for (auto& x : s.loaded_srs()) k[x.circuit_id()] = &x;
  REQUIRE(k.size() == 3);
  CHECK(k["sample"]->tier() == pb::SRSStatus::HOT);  // matched by the canonical path
  CHECK(k["sample"]->size_bytes() == 55);
  CHECK(k["other"]->tier() == pb::SRSStatus::COLD);
  REQUIRE(k.count("v28-test"));
  CHECK(k["v28-test"]->tier() == pb::SRSStatus::WARM);
  CHECK(k["v28-test"]->file_bytes() == 4096);
}

TEST_CASE("key_files reads each key's file once: a file removed since still shows its size, an unreadable one is "
          "read again",
          "[daemon][status]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("cuzk-key-files-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto path = (dir / "v28-test.params").string();
  std::ofstream(path, std::ios::binary) << std::string(1000, 'x');
  std::uint32_t probes = 0;
  key_files files([&](const std::string& p) {
    ++probes;
    return key_files::read(p);
  });
  cuzk::msg::key_status key;
  key.path = (dir / "." / "v28-test.params").string();  // another spelling of the same file
  auto first = files.of({key});
  CHECK(probes == 1);
  CHECK(first[key.path].bytes == 1000);
  CHECK(first[key.path].canonical == fs::weakly_canonical(path).string());
  fs::remove_all(dir);
  auto again = files.of({key});
  CHECK(probes == 1);  // not read again
  CHECK(again == first);
  cuzk::msg::key_status gone;
  gone.path = path;
  auto both = files.of({key, gone});
  CHECK(probes == 2);  // only the new path
  CHECK(both[gone.path].bytes == 0);  // it cannot be read now: 0
  CHECK(both[key.path].bytes == 1000);
  // Unreadable is not remembered: once the file is there again, the next status reads its size.
  fs::create_directories(dir);
  std::ofstream(path, std::ios::binary) << std::string(700, 'y');
  auto back = files.of({key, gone});
  CHECK(probes == 3);  // the unreadable path again, not the known one
  CHECK(back[gone.path].bytes == 700);
  CHECK(back[key.path].bytes == 1000);
  fs::remove_all(dir);
}

TEST_CASE("a coordinator's status names the jobs waiting for a node, with the daemon's job id and kind",
          "[daemon][status]") {
  auto in = sample_snapshot();
  in.engine.cluster_role = "coordinator";
  in.engine.scheduler.waiting.push_back({12, "waiting for a node holding v28-x.params (parameters.json digest d1)"});
  in.engine.scheduler.waiting.push_back({13, "waiting for a node holding sample.zkey (fingerprint f1)"});
  cuzk::msg::node_info node;
  node.id = 1;
  node.name = "w1";
  node.alive = true;
  node.keys = {{"sample", "f1", "circom"}, {"v28-x.params", "d1", "WindowPoSt"}};
  in.engine.registrar.nodes.push_back(node);
  const auto s = status_of(in);
  REQUIRE(s.nodes_size() == 1);
  CHECK(s.nodes(0).circuits(1) == "v28-x.params");
  CHECK(s.nodes(0).fingerprints(1) == "d1");  // the params file's parameters.json digest
  CHECK(s.nodes(0).proof_kinds(0) == "circom");
  CHECK(s.nodes(0).proof_kinds(1) == "WindowPoSt");
  REQUIRE(s.waiting_for_node_size() == 2);
  CHECK(s.waiting_for_node(0).job_id() == "job-b");
  CHECK(s.waiting_for_node(0).proof_kind() == "wpost");
  CHECK(s.waiting_for_node(0).reason() == "waiting for a node holding v28-x.params (parameters.json digest d1)");
  CHECK(s.waiting_for_node(1).job_id() == "13");  // not one of the daemon's Filecoin jobs: the engine's id
  CHECK(s.waiting_for_node(1).proof_kind() == "circom");
  const auto j = nlohmann::json::parse(status_json_text(s));
  CHECK(j["cluster"]["waiting_for_node"][0]["job_id"] == "job-b");
  CHECK(j["cluster"]["waiting_for_node"][1]["reason"] == "waiting for a node holding sample.zkey (fingerprint f1)");
  CHECK(j["cluster"]["nodes"][0]["fingerprints"][1] == "d1");
  CHECK(j["cluster"]["nodes"][0]["proof_kinds"][1] == "WindowPoSt");
}
