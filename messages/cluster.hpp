// Messages between a coordinator and its worker nodes (CAF's middleman carries them; both ends
// register them through msg::register_messages). The join handshake:
//   node -> registrar  join_hello{node, build}             -> join_challenge{nonce}
//   node -> registrar  join_request{..., mac, agent, ...}  -> join_reply{node id}   (or an error)
// where mac = HMAC-SHA256(secret, join_mac_text(nonce, node, build)): the secret never travels,
// and a nonce answers one join only. After the join the registrar pings the node's agent and the
// agent pings the registrar; either side that hears nothing for node_timeout treats the other as
// gone (a node rejoins with a fresh handshake). Work: node_task -> node_result, a whole partition
// (witness in, proof out, verified by the coordinator against the partition's public inputs that
// it computes itself); never a key, which every node loads itself.
// The registrar's and the agent's own interfaces: actors/registrar.hpp, actors/node_agent.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "caf/actor.hpp"
#include "messages/common.hpp"

namespace cuzk::msg {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, key_offer& x) {
  return f(caf::meta::type_name("key_offer"), x.name, x.fingerprint, x.kind);
}

struct join_hello {
  std::string node, build;
  bool operator==(const join_hello&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, join_hello& x) {
  return f(caf::meta::type_name("join_hello"), x.node, x.build);
}

struct join_challenge {
  std::string nonce;  // hex, single use, expires
  bool operator==(const join_challenge&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, join_challenge& x) {
  return f(caf::meta::type_name("join_challenge"), x.nonce);
}

struct join_request {
  std::string node, build, nonce, mac;
  caf::actor agent;                  // where the coordinator sends work and heartbeats
  std::uint32_t slots = 0;           // partitions the node takes at once
  std::vector<std::string> devices;  // backend names, for status
  std::vector<key_offer> keys;
  bool operator==(const join_request&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, join_request& x) {
  return f(caf::meta::type_name("join_request"), x.node, x.build, x.nonce, x.mac, x.agent, x.slots, x.devices,
           x.keys);
}

struct join_reply {
  std::uint64_t node_id = 0;
  std::string coordinator;  // the coordinator's build, for the node's log
  bool operator==(const join_reply&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, join_reply& x) {
  return f(caf::meta::type_name("join_reply"), x.node_id, x.coordinator);
}

// The text both ends MAC: fields separated by NUL so that no two field lists give one text.
inline std::string join_mac_text(const std::string& nonce, const std::string& node, const std::string& build) {
  std::string t = "cuzk-join-v1";
  for (auto* s : {&nonce, &node, &build}) {
    t.push_back('\0');
    t += *s;
  }
  return t;
}

// One partition for a node: the key's fingerprint (a Filecoin params file's digest) and its witness,
// or for a Filecoin partition which one it is and, with the job's first partition sent to this
// node, the job's inputs (a PoRep's C1, a PoSt's vanilla proofs: fil.ptr null on the next ones; the
// node keeps them until forget_atom). prio: the job's, which the node's own scheduler orders by.
struct node_task {
  task_ref task;
  std::string fingerprint;
  witness_handle witness;
  bool fixed_randomness = false;
  zk::groth16::randomness randomness{};
  fil_input_handle fil;
  priority prio = priority::normal;
  bool operator==(const node_task& o) const {
    return task == o.task && fingerprint == o.fingerprint && witness == o.witness &&
           fixed_randomness == o.fixed_randomness && randomness.r == o.randomness.r && randomness.s == o.randomness.s &&
           fil == o.fil && prio == o.prio;
  }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_task& x) {
  return f(caf::meta::type_name("node_task"), x.task, x.fingerprint, x.witness, x.fixed_randomness, x.randomness,
           x.fil, x.prio);
}

// The proof alone: no public inputs travel back. The coordinator computes the partition's own from
// the input it sent (a Filecoin job's, or the witness) and verifies the proof against them, so a
// node that proved another statement is refused, never assembled.
struct node_result {
  task_ref task;
  zk::groth16::proof proof;
  std::uint64_t synthesis_us = 0, device_us = 0;
  bool operator==(const node_result&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_result& x) {
  return f(caf::meta::type_name("node_result"), x.task, x.proof, x.synthesis_us, x.device_us);
}

}  // namespace cuzk::msg
