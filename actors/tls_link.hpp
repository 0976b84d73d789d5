// The cluster's TLS links over CAF 0.17's OpenSSL module (caf::openssl::session: the module's
// TLS context from the actor system's openssl settings, peer certificates required and checked
// against the CA). Not the module's own publish / remote_actor: its scribes ask SSL_get_error
// about a read that only wants more bytes while the thread's OpenSSL error queue still holds an
// earlier connection's failure (CAF logs, and so drains, it only in builds with logging, which
// Debian's is not), so one peer's failed handshake drops every good link on that multiplexer
// thread and a worker could never reconnect after a lost link. These scribes clear the queue
// before each TLS call. Used by the coordinator's door (engine/capped_door.cpp) and the node
// agent's dial. The manager (caf::openssl::manager) must be loaded: sessions read its settings.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "caf/io/scribe.hpp"
#include "caf/io/network/default_multiplexer.hpp"
#include "caf/io/network/stream_impl.hpp"
#include "caf/openssl/session.hpp"

namespace cuzk::actors {

// A TLS stream's reads and writes through its session, the error queue cleared first.
struct tls_policy {
  explicit tls_policy(caf::openssl::session_ptr s) : session(std::move(s)) {}
  caf::io::network::rw_state read_some(std::size_t& n, caf::io::network::native_socket fd, void* buf, std::size_t len);
  caf::io::network::rw_state write_some(std::size_t& n, caf::io::network::native_socket fd, const void* buf,
                                        std::size_t len);
  bool must_read_more(caf::io::network::native_socket fd, std::size_t threshold);
  caf::openssl::session_ptr session;
};

// caf::io::network::scribe_impl over a TLS stream. Launching also asks for a write event: the
// handshake advances on reads and writes alike, and nothing else would ask for one.
class tls_scribe : public caf::io::scribe {
 public:
  tls_scribe(caf::io::network::default_multiplexer& mx, caf::io::network::native_socket fd,
             caf::openssl::session_ptr session);
  void configure_read(caf::io::receive_policy::config config) override;
  void ack_writes(bool enable) override;
  std::vector<char>& wr_buf() override;
  std::vector<char>& rd_buf() override;
  void graceful_shutdown() override;
  void flush() override;
  std::string addr() const override;
  std::uint16_t port() const override;
  void add_to_loop() override;
  void remove_from_loop() override;

 protected:
  void launch();
  bool launched_ = false;
  caf::io::network::stream_impl<tls_policy> stream_;
};

// A TLS session on a connected or accepted socket (made non-blocking), or null when the module
// cannot make one (its files gone bad since the start).
caf::openssl::session_ptr make_tls_session(caf::actor_system& sys, caf::io::network::native_socket fd, bool accepted);

// remote_actor through TLS: connects, hands the connection to the BASP broker and returns the
// actor published at host:port if its interface is `mpi` (as caf::openssl::remote_actor).
caf::expected<caf::strong_actor_ptr> tls_remote_actor(caf::actor_system& sys, const std::set<std::string>& mpi,
                                                      const std::string& host, std::uint16_t port);

}  // namespace cuzk::actors
