// The node agent (actors/node_agent.cpp), a worker's side of a cluster: joins the coordinator and
// proves the partitions it is sent on the local engine.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "actors/intake.hpp"
#include "actors/registrar.hpp"
#include "caf/replies_to.hpp"
#include "caf/typed_actor.hpp"
#include "messages/cluster.hpp"

namespace cuzk::msg {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, agent_status& x) {
  return f(caf::meta::type_name("agent_status"), x.coordinator, x.state, x.detail, x.node_id, x.joins, x.tasks,
           x.failures, x.payloads_received, x.payloads_held);
}

// Worker side: joins the coordinator, proves the partitions it is sent on the local engine.
using node_agent_actor = caf::typed_actor<                        //
    caf::replies_to<node_task>::with<node_result>,                //
    caf::reacts_to<forget_atom, job_id>,                          // the job ended: drop its inputs
    caf::replies_to<ping_atom>::with<std::uint64_t>,              // the registrar's heartbeat -> node id
    caf::reacts_to<tick_atom>,                                    //
    caf::replies_to<status_atom>::with<agent_status>>;

}  // namespace cuzk::msg

namespace cuzk::actors {

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
  // Dial over TLS (actors/tls_link.hpp; CAF's OpenSSL manager loaded and configured in the system).
  bool tls = false;
  // Test hook: each answer passes through it before it goes back (a test swaps in another proof).
  std::function<void(node_result&)> on_answer;
};

node_agent_actor spawn_node_agent(caf::actor_system& sys, node_agent_settings settings, intake_actor intake);

}  // namespace cuzk::actors
