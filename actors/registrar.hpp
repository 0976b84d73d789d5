// The registrar (actors/registrar.cpp), a coordinator's side of a cluster: admits nodes through the
// join handshake (messages/cluster.hpp), heartbeats them and tells the scheduler who joined and who
// was lost.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "actors/scheduler.hpp"
#include "caf/node_id.hpp"
#include "caf/replies_to.hpp"
#include "caf/typed_actor.hpp"
#include "messages/cluster.hpp"

namespace cuzk::msg {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_info& x) {
  return f(caf::meta::type_name("node_info"), x.id, x.name, x.build, x.alive, x.lost_reason, x.slots, x.devices,
           x.keys, x.joined_us, x.last_seen_us);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, registrar_status& x) {
  return f(caf::meta::type_name("registrar_status"), x.nodes, x.joins, x.refused, x.lost, x.refusals);
}

// Coordinator side of a cluster, published on [cluster] listen: admits nodes (join handshake),
// heartbeats them, and tells the scheduler who joined and who was lost.
using registrar_actor = caf::typed_actor<                         //
    caf::replies_to<join_hello>::with<join_challenge>,            //
    caf::replies_to<join_request>::with<join_reply>,              //
    caf::replies_to<ping_atom, std::uint64_t>::with<bool>,        // a node's heartbeat: still a member?
    caf::reacts_to<tick_atom>,                                    //
    caf::replies_to<status_atom>::with<registrar_status>>;

}  // namespace cuzk::msg

namespace cuzk::actors {

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

}  // namespace cuzk::actors
