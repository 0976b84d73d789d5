// The capped cluster door (see capped_door.hpp for why and how).
#include "engine/capped_door.hpp"

#include "actors/tls_link.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <map>
#include <mutex>

#include "caf/all.hpp"
#include "caf/io/all.hpp"
#include "caf/io/basp_broker.hpp"
#include "caf/io/network/default_multiplexer.hpp"
#include "caf/io/network/doorman_impl.hpp"
#include "caf/io/network/scribe_impl.hpp"

namespace cuzk::engine {

namespace net = caf::io::network;

namespace {

// What the door keeps of a connection, plain or TLS (on the multiplexer thread only).
class door_member {
 public:
  virtual ~door_member() = default;
  virtual caf::node_id peer() = 0;
  virtual void shut() = 0;
};

}  // namespace

struct capped_door {
  door_limits limits;
  std::shared_ptr<door_counters> counters;
  bool tls = false;

  struct connection {
    std::chrono::steady_clock::time_point accepted;
    bool member = false;  // seen as an admitted node's: no deadline
    bool closed = false;  // shut down by a sweep, waiting for the broker to drop it
  };
  std::mutex mu;
  net::default_multiplexer* mx = nullptr;  // set by publish_capped
  std::map<door_member*, connection> connections;
};

namespace {

// A scribe (Base: net::scribe_impl, or actors::tls_scribe) that refuses to read more than the limit in
// one piece. The BASP broker asks for the 32-byte header, then for exactly payload_len bytes; a
// payload over the limit closes the connection instead of sizing a buffer for it.
template <class Base>
class capped_scribe final : public Base, public door_member {
 public:
  template <class... Ts>
  capped_scribe(std::shared_ptr<capped_door> door, net::default_multiplexer& mx, net::native_socket fd, Ts&&... xs)
      : Base(mx, fd, std::forward<Ts>(xs)...), door_(std::move(door)) {
    ++door_->counters->peers;
    std::lock_guard lock(door_->mu);
    door_->connections[this] = {std::chrono::steady_clock::now()};
  }
  ~capped_scribe() override {
    {
      std::lock_guard lock(door_->mu);
      door_->connections.erase(this);
    }
    --door_->counters->peers;
  }

  void configure_read(caf::io::receive_policy::config config) override {
    if (config.second > door_->limits.max_message_bytes) {
      ++door_->counters->refused_messages;
      // Both directions shut: the read that follows ends (EOF, or a payload shorter than the
      // header announced, which the broker rejects as malformed) and the broker drops the peer.
      net::shutdown_both(this->stream_.fd());
      config = caf::io::receive_policy::exactly(1);
    }
    Base::configure_read(config);
  }

  // The peer this connection reached, once the BASP handshake named it (none before). On the
  // multiplexer thread only: the broker's routing table is the broker's.
  caf::node_id peer() override {
    auto* basp = dynamic_cast<caf::io::basp_broker*>(this->parent());
    if (!basp) return {};
    return basp->instance.tbl().lookup_direct(this->hdl());
  }
  // Shut both ways: the broker reads EOF, drops the connection, and this scribe goes.
  void shut() override { net::shutdown_both(this->stream_.fd()); }

 private:
  std::shared_ptr<capped_door> door_;
};

// doorman_impl, but its connections are capped scribes, and at most max_peers at once.
class capped_doorman final : public net::doorman_impl {
 public:
  capped_doorman(net::default_multiplexer& mx, net::native_socket fd, std::shared_ptr<capped_door> door)
      : net::doorman_impl(mx, fd), door_(std::move(door)) {}

  bool new_connection() override {
    if (detached()) return false;  // as doorman_impl: the broker let go of us already
    auto& mx = acceptor_.backend();
    auto fd = acceptor_.accepted_socket();
    if (door_->counters->peers.load() >= static_cast<int>(door_->limits.max_peers)) {
      ++door_->counters->refused_connections;
      net::close_socket(fd);
      return true;  // keep accepting: the next one may find room
    }
    caf::io::scribe_ptr s;
    if (door_->tls) {
      // The session starts the handshake (SSL_accept); a failed one closes the connection like
      // any failed read. Its files were checked at start, but may have gone since.
      auto session = actors::make_tls_session(parent()->system(), fd, true);
      if (!session) {
        net::close_socket(fd);
        return true;
      }
      s = caf::make_counted<capped_scribe<actors::tls_scribe>>(door_, mx, fd, std::move(session));
    } else {
      s = caf::make_counted<capped_scribe<net::scribe_impl>>(door_, mx, fd);
    }
    auto hdl = s->hdl();
    parent()->add_scribe(std::move(s));
    return caf::io::doorman::new_connection(&mx, hdl);
  }

 private:
  std::shared_ptr<capped_door> door_;
};

// On the multiplexer thread.
void sweep_now(capped_door& door, const std::vector<caf::node_id>& members) {
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(door.mu);
  for (auto& [s, c] : door.connections) {
    if (c.member || c.closed) continue;
    auto peer = s->peer();
    if (peer != caf::none && std::find(members.begin(), members.end(), peer) != members.end()) {
      c.member = true;
      continue;
    }
    if (now - c.accepted < door.limits.handshake_timeout) continue;
    c.closed = true;
    ++door.counters->handshake_timeouts;
    s->shut();
  }
}

}  // namespace

std::shared_ptr<capped_door> make_capped_door(door_limits limits, std::shared_ptr<door_counters> counters, bool tls) {
  auto d = std::make_shared<capped_door>();
  d->tls = tls;
  d->limits = limits;
  d->counters = std::move(counters);
  return d;
}

caf::expected<std::uint16_t> publish_capped(caf::actor_system& sys, caf::strong_actor_ptr whom,
                                            std::set<std::string> sigs, std::uint16_t port, const std::string& host,
                                            std::shared_ptr<capped_door> door) {
  auto& mm = sys.middleman();
  auto& mx = static_cast<net::default_multiplexer&>(mm.backend());
  auto fd = net::new_tcp_acceptor_impl(port, host.empty() ? nullptr : host.c_str(), true);
  if (!fd) return std::move(fd.error());
  {
    std::lock_guard lock(door->mu);
    door->mx = &mx;
  }
  caf::io::doorman_ptr doorman = caf::make_counted<capped_doorman>(mx, *fd, std::move(door));
  auto bound = doorman->port();
  // What middleman::publish would send the BASP broker once the middleman actor opened the port.
  auto broker = mm.named_broker<caf::io::basp_broker>(caf::atom("BASP"));
  caf::anon_send(broker, caf::publish_atom::value, std::move(doorman), bound, std::move(whom), std::move(sigs));
  return bound;
}

void sweep_door(const std::shared_ptr<capped_door>& door, std::vector<caf::node_id> members) {
  if (door->limits.handshake_timeout.count() <= 0) return;
  net::default_multiplexer* mx = nullptr;
  {
    std::lock_guard lock(door->mu);
    mx = door->mx;
    if (!mx || door->connections.empty()) return;
  }
  mx->post([door, members = std::move(members)] { sweep_now(*door, members); });
}

}  // namespace cuzk::engine
