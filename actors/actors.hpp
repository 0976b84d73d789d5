// Spawn functions of the engine's actors (one translation unit each) and the settings they share.
// Each actor keeps its state in a struct and its behavior in one function inside its .cpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "caf/node_id.hpp"
#include "messages/interfaces.hpp"
#include "zk/groth16/backend_registry.hpp"

namespace caf {
class actor_system;
}

namespace cuzk::actors {

using namespace cuzk::msg;

// Seeded fault injection for tests: probabilities per operation.
struct fault_settings {
  double synth_throw = 0;         // a synthesizer throws instead of synthesizing
  double device_kernel_fail = 0;  // a backend call (h, an MSM) throws, as a failed kernel would
  double device_alloc_fail = 0;   // a device's allocation fails before it computes
  std::uint64_t seed = 0;
  bool any() const { return synth_throw > 0 || device_kernel_fail > 0 || device_alloc_fail > 0; }
};

struct remote_endpoint {
  std::string host;
  std::uint16_t port = 0;
};

// Everything the supervisor needs to build (and rebuild) the actors of one engine.
struct engine_settings {
  std::uint64_t host_budget_bytes = 0;
  std::vector<std::string> devices{"cpu"};  // backend names, one device actor each
  zk::groth16::backend_settings backend;    // the tuning every device backend is made with
  std::uint64_t device_budget_bytes = 0;    // per device: its VRAM budget (resident keys and staged partitions)
  unsigned synthesizers = 1;
  std::vector<remote_endpoint> remote_synthesizers;
  unsigned max_attempts = 3;
  std::size_t max_active_jobs = 1024;
  std::size_t max_partitions = 1024;
  std::uint64_t key_cache_bytes = 0;  // hot keys beyond this are evicted when unleased (0 = no limit)
  std::chrono::milliseconds step_timeout{120000};
  std::map<std::string, std::string> circuits;  // registered name -> zkey path
  fault_settings faults;
  // Filecoin [filecoin] verify_params: parameters.json's digests by file name; empty = not checked.
  std::shared_ptr<const std::map<std::string, std::string>> param_digests;
};

std::uint64_t now_us();  // steady clock, microseconds

// A host/VRAM reservation as a keepalive: releases the grant when the last holder drops it.
keepalive make_reservation_token(const budget_actor& budget, const reservation& grant);

budget_actor spawn_budget(caf::actor_system& sys, std::string name, std::uint64_t capacity);
// The grants of one budget slot, kept across respawns: the supervisor passes a slot's ledger to
// every budget it spawns there, so a replacement inherits the grants still outstanding.
struct budget_ledger;
std::shared_ptr<budget_ledger> make_budget_ledger();
budget_actor spawn_budget(caf::actor_system& sys, std::string name, std::uint64_t capacity,
                          std::shared_ptr<budget_ledger> ledger);
// The key store, with each device and its VRAM budget (devices[d], vram_budgets[d]) for the
// resident tier.
key_store_actor spawn_key_store(caf::actor_system& sys, budget_actor host_budget, std::uint64_t key_cache_bytes,
                                std::shared_ptr<const std::map<std::string, std::string>> param_digests = {},
                                std::vector<device_actor> devices = {}, std::vector<budget_actor> vram_budgets = {});
// A proving key by path: a snarkjs .zkey, or a Filecoin .params file named as parameters.json names
// it (its circuit recorded, fil/partition.hpp; its digest checked first when `param_digests` lists
// digests). Blocking; throws zk::input_error naming the file. (Key store worker, remote synthesizers.)
std::shared_ptr<const zk::io::zkey> load_proving_key(const std::string& path,
                                                     const std::map<std::string, std::string>* param_digests);
synthesizer_actor spawn_synthesizer(caf::actor_system& sys, std::uint32_t slot, fault_settings faults,
                                    std::uint64_t generation);
device_actor spawn_device(caf::actor_system& sys, std::uint32_t slot, std::string backend,
                          zk::groth16::backend_settings settings, fault_settings faults, std::uint64_t generation);
// The stager of device `slot`, for that device's backend; spawned detached (uploads block).
stager_actor spawn_stager(caf::actor_system& sys, std::uint32_t slot, std::string backend);
assembler_actor spawn_assembler(caf::actor_system& sys);

struct scheduler_setup {
  engine_settings settings;
  roster workers;  // synthesizers, devices, budgets, key store, assembler
};
scheduler_actor spawn_scheduler(caf::actor_system& sys, scheduler_setup setup);
intake_actor spawn_intake(caf::actor_system& sys, scheduler_actor scheduler, engine_settings settings);

// ---- cluster ---------------------------------------------------------------------------------

// What both ends of a cluster need. `on_event` gets one line per join, refusal and loss (the
// daemon logs them); it is called from actor threads and must be thread-safe.
struct cluster_settings {
  std::string secret;
  std::string build;  // nodes of another build are refused
  std::chrono::milliseconds heartbeat{1000}, node_timeout{5000};
  std::function<void(const std::string&)> on_event;
  // Coordinator: called at every heartbeat with the node ids of the admitted nodes (the cluster
  // door closes connections that did not become one of them in time: engine/capped_door.hpp).
  std::function<void(std::vector<caf::node_id>)> admitted;
};

registrar_actor spawn_registrar(caf::actor_system& sys, cluster_settings settings, scheduler_actor scheduler);

struct node_agent_settings {
  cluster_settings cluster;
  std::string host;  // the coordinator's registrar
  std::uint16_t port = 0;
  std::string name;  // this node, as the coordinator shows it
  std::uint32_t slots = 1;
  std::vector<std::string> devices;
  std::vector<key_offer> keys;                    // what it offers
  std::map<std::string, std::string> key_paths;  // fingerprint -> zkey path here
  std::chrono::milliseconds task_timeout{120000};
  // A refusal (wrong secret, other build) is a configuration error: the agent stops and says why.
  std::function<void(const std::string&)> on_refused;
};

node_agent_actor spawn_node_agent(caf::actor_system& sys, node_agent_settings settings, intake_actor intake);

// Builds every actor above, monitors them, respawns the dead and tells the scheduler (and the key
// store) about replacements; answers roster_atom / status_atom / kill_atom / shutdown_atom.
caf::actor spawn_supervisor(caf::actor_system& sys, engine_settings settings);

}  // namespace cuzk::actors
