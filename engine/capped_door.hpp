// The coordinator's cluster door: CAF 0.17's middleman publishes an actor through a doorman whose
// connections (scribes) obey whatever read size the BASP broker asks for. A BASP header is 32
// fixed bytes, but its payload_len is the peer's word: announce 4 GiB and the broker configures
// a 4 GiB read buffer for a peer that has authenticated nothing (the join handshake with the
// cluster secret is a message *after* that). CAF 0.17 has no setting for it.
//
// The trick: publish through our own doorman (a doorman_impl whose accepted sockets become our
// scribes) by sending the BASP broker the same publish message the middleman actor would. Our
// scribe refuses a read larger than max_message_bytes: it shuts the socket down and asks for one
// byte, so the broker reads EOF (or a short payload) and closes the connection as malformed;
// nothing beyond the 32-byte header is ever allocated for the lie. Everything a coordinator
// receives is small (join requests, results of one proof, pings); the large messages (witnesses)
// flow the other way. The doorman also refuses connections beyond max_peers at once, so memory
// held for peers that never authenticate is at most max_peers x max_message_bytes.
//
// A slot must not be held forever by a peer that connects and then says nothing (or speaks BASP
// but never joins): every connection has handshake_timeout to become an admitted node's. The
// registrar, which alone knows who proved the secret, hands sweep_door its members' node ids at
// every heartbeat; the sweep runs on the multiplexer thread (where the BASP broker runs, so its
// routing table, connection -> node id, may be read there) and shuts down each connection that
// is past the deadline and maps to no member. A connection seen once as a member's stays.
//
// With tls, every accepted connection is a TLS session of CAF's OpenSSL module (its settings in
// the actor system's config, its manager loaded): the handshake, with the peer's certificate
// checked against the CA, comes before any BASP byte; the caps and the deadline hold as above.
//
// Only for engine.cpp (CAF includes stay out of widely included headers).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "caf/fwd.hpp"
#include "caf/expected.hpp"
#include "caf/node_id.hpp"

namespace cuzk::engine {

struct door_limits {
  std::uint64_t max_message_bytes = std::uint64_t{1} << 20;
  unsigned max_peers = 64;
  std::chrono::milliseconds handshake_timeout{5000};  // 0: no deadline
};

// Counters the door keeps (read from any thread).
struct door_counters {
  std::atomic<int> peers{0};                           // connections open now
  std::atomic<std::uint64_t> refused_messages{0};      // connections closed for an oversized payload
  std::atomic<std::uint64_t> refused_connections{0};   // accepted beyond max_peers, closed at once
  std::atomic<std::uint64_t> handshake_timeouts{0};    // closed for not joining within handshake_timeout
};

// One door: its limits, counters and open connections (defined in capped_door.cpp).
struct capped_door;
std::shared_ptr<capped_door> make_capped_door(door_limits limits, std::shared_ptr<door_counters> counters,
                                              bool tls = false);

// Publishes `whom` with the interface `sigs` (sys.message_types(typed_handle)) on host:port
// (port 0: any) behind `door`; returns the bound port. One door is published once.
caf::expected<std::uint16_t> publish_capped(caf::actor_system& sys, caf::strong_actor_ptr whom,
                                            std::set<std::string> sigs, std::uint16_t port, const std::string& host,
                                            std::shared_ptr<capped_door> door);

// From any thread: closes the door's connections older than handshake_timeout whose peer is not
// one of `members` (the node ids of admitted nodes). Nothing before publish_capped.
void sweep_door(const std::shared_ptr<capped_door>& door, std::vector<caf::node_id> members);

}  // namespace cuzk::engine
