// What a cluster node costs and gives, on loopback (engines in one process, each with its own
// actor system and middleman, joined over TCP exactly as separate daemons are):
//   1. bytes on the wire per partition: the node_task (witness) and node_result (proof) as CAF
//      serializes them;
//   2. the latency a remote partition adds: single-partition jobs, one at a time, on a local
//      engine against a coordinator_only engine with one worker;
//   3. throughput: 10-partition jobs on a standalone engine, then a coordinator with one and with
//      two CPU workers (on a 2-core machine the workers share the same cores: expect no gain).
//
//   cluster_bench ZKEY WTNS [latency_jobs=10] [throughput_jobs=4]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "caf/all.hpp"
#include "caf/binary_serializer.hpp"
#include "engine/engine.hpp"
#include "actors/actors.hpp"
#include "zk/io/wtns.hpp"
#include "zk/io/zkey.hpp"

using namespace cuzk;
using clk = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

double ms_since(clk::time_point t0) { return std::chrono::duration<double, std::milli>(clk::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

template <class T>
std::size_t wire_bytes(caf::actor_system& sys, T x) {
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  auto msg = caf::make_message(std::move(x));
  if (auto err = msg.save(sink)) std::abort();
  return buf.size();
}

engine::config base_config() {
  engine::config c;
  c.host_budget = "4GiB";
  c.device_budget = "4GiB";
  c.synthesizers = 1;
  return c;
}

engine::config coordinator_config() {
  auto c = base_config();
  c.cluster.listen = "127.0.0.1:0";
  c.cluster.secret = "bench";
  c.cluster.coordinator_only = true;
  return c;
}

engine::config worker_config(std::uint16_t port, const std::string& name, const std::string& zkey) {
  auto c = base_config();
  c.circuits = {{"bench", zkey}};
  c.cluster.join = "127.0.0.1:" + std::to_string(port);
  c.cluster.secret = "bench";
  c.cluster.node_name = name;
  c.cluster.slots = 2;
  return c;
}

void wait_nodes(engine::engine& e, std::size_t n) {
  for (int i = 0; i < 1000; ++i) {
    std::size_t up = 0;
    for (auto& node : e.status().registrar.nodes) up += node.alive;
    if (up == n) return;
    std::this_thread::sleep_for(10ms);
  }
  std::fprintf(stderr, "nodes did not join\n");
  std::exit(1);
}

engine::request job(const std::string& zkey, std::shared_ptr<const zk::io::witness> w, std::size_t n) {
  engine::request r;
  r.circuit = zkey;
  for (std::size_t i = 0; i < n; ++i) r.partitions.push_back({"", w});
  return r;
}

// Median latency of single-partition jobs, one at a time, after one warm-up job (key load).
double latency(engine::engine& e, const std::string& zkey, std::shared_ptr<const zk::io::witness> w, int jobs) {
  e.await(e.submit(job(zkey, w, 1)), 600s);
  std::vector<double> t;
  for (int i = 0; i < jobs; ++i) {
    auto t0 = clk::now();
    auto r = e.await(e.submit(job(zkey, w, 1)), 600s);
    if (!r || r->state != engine::job_state::succeeded) std::abort();
    t.push_back(ms_since(t0));
  }
  return median(t);
}

// Partitions per second over `jobs` 10-partition jobs submitted at once, after a warm-up job.
double throughput(engine::engine& e, const std::string& zkey, std::shared_ptr<const zk::io::witness> w, int jobs) {
  e.await(e.submit(job(zkey, w, 2)), 600s);
  auto t0 = clk::now();
  std::vector<engine::job_id> ids;
  for (int i = 0; i < jobs; ++i) ids.push_back(e.submit(job(zkey, w, 10)));
  for (auto id : ids) {
    auto r = e.await(id, 600s);
    if (!r || r->state != engine::job_state::succeeded) std::abort();
  }
  return 10.0 * jobs / (ms_since(t0) / 1000.0);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: cluster_bench ZKEY WTNS [latency_jobs=10] [throughput_jobs=4]\n");
    return 2;
  }
  std::string zkey = argv[1];
  auto w = std::make_shared<const zk::io::witness>(zk::io::witness::load(argv[2]));
  int lat_jobs = argc > 3 ? std::atoi(argv[3]) : 10, tp_jobs = argc > 4 ? std::atoi(argv[4]) : 4;
  auto header = zk::io::zkey_header::read(zkey);
  std::printf("circuit %s: %u wires, domain 2^%u\n", zkey.c_str(), header.n_vars, header.log_domain);

  {
    caf::actor_system_config cfg;
    msg::register_messages(cfg);
    caf::actor_system sys{cfg};
    msg::node_task task;
    task.fingerprint = header.fingerprint;
    task.witness.ptr = w;
    msg::node_result result;  // the proof alone: the coordinator computes the public inputs
    std::printf("| bytes per remote partition | node_task (witness) %zu | node_result (proof) %zu | witness alone %zu |\n",
                wire_bytes(sys, task), wire_bytes(sys, result), w->values.size() * 32);
  }

  double local_ms, remote_ms;
  {
    auto e = engine::engine::start(base_config());
    local_ms = latency(e, zkey, w, lat_jobs);
  }
  {
    auto c = engine::engine::start(coordinator_config());
    auto w1 = engine::engine::start(worker_config(c.cluster_port(), "w1", zkey));
    wait_nodes(c, 1);
    remote_ms = latency(c, zkey, w, lat_jobs);
  }
  std::printf("| single-partition job latency (median of %d) | local %.1f ms | via one worker %.1f ms | added %.1f ms |\n",
              lat_jobs, local_ms, remote_ms, remote_ms - local_ms);

  double alone, one, two;
  {
    auto cfg = base_config();
    cfg.synthesizers = 0;  // every core
    auto e = engine::engine::start(cfg);
    alone = throughput(e, zkey, w, tp_jobs);
  }
  {
    auto c = engine::engine::start(coordinator_config());
    auto w1 = engine::engine::start(worker_config(c.cluster_port(), "w1", zkey));
    wait_nodes(c, 1);
    one = throughput(c, zkey, w, tp_jobs);
  }
  {
    auto c = engine::engine::start(coordinator_config());
    auto w1 = engine::engine::start(worker_config(c.cluster_port(), "w1", zkey));
    auto w2 = engine::engine::start(worker_config(c.cluster_port(), "w2", zkey));
    wait_nodes(c, 2);
    two = throughput(c, zkey, w, tp_jobs);
  }
  std::printf("| throughput, %d x 10-partition jobs (partitions/s) | standalone %.2f | coordinator + 1 worker %.2f | "
              "coordinator + 2 workers %.2f |\n",
              tp_jobs, alone, one, two);
  return 0;
}
