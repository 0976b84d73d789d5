// The capped cluster door (see capped_door.hpp for why and how).
#include "engine/capped_door.hpp"

#include <sys/socket.h>

#include "caf/all.hpp"
#include "caf/io/all.hpp"
#include "caf/io/basp_broker.hpp"
#include "caf/io/network/default_multiplexer.hpp"
#include "caf/io/network/doorman_impl.hpp"
#include "caf/io/network/scribe_impl.hpp"

namespace cuzk::engine {

namespace {

namespace net = caf::io::network;

struct door_state {
  door_limits limits;
  std::shared_ptr<door_counters> counters;
};

// A scribe that refuses to read more than the limit in one piece. The BASP broker asks for the
// 32-byte header, then for exactly payload_len bytes; a payload over the limit closes the
// connection instead of sizing a buffer for it.
class capped_scribe final : public net::scribe_impl {
 public:
  capped_scribe(net::default_multiplexer& mx, net::native_socket fd, std::shared_ptr<const door_state> st)
      : net::scribe_impl(mx, fd), st_(std::move(st)) {
    ++st_->counters->peers;
  }
  ~capped_scribe() override { --st_->counters->peers; }

  void configure_read(caf::io::receive_policy::config config) override {
    if (config.second > st_->limits.max_message_bytes) {
      ++st_->counters->refused_messages;
      // Both directions shut: the read that follows ends (EOF, or a payload shorter than the
      // header announced, which the broker rejects as malformed) and the broker drops the peer.
      net::shutdown_both(stream_.fd());
      config = caf::io::receive_policy::exactly(1);
    }
    net::scribe_impl::configure_read(config);
  }

 private:
  std::shared_ptr<const door_state> st_;
};

// doorman_impl, but its connections are capped scribes, and at most max_peers at once.
class capped_doorman final : public net::doorman_impl {
 public:
  capped_doorman(net::default_multiplexer& mx, net::native_socket fd, std::shared_ptr<const door_state> st)
      : net::doorman_impl(mx, fd), st_(std::move(st)) {}

  bool new_connection() override {
    if (detached()) return false;  // as doorman_impl: the broker let go of us already
    auto& mx = acceptor_.backend();
    auto fd = acceptor_.accepted_socket();
    if (st_->counters->peers.load() >= static_cast<int>(st_->limits.max_peers)) {
      ++st_->counters->refused_connections;
      net::close_socket(fd);
      return true;  // keep accepting: the next one may find room
    }
    caf::io::scribe_ptr s = caf::make_counted<capped_scribe>(mx, fd, st_);
    auto hdl = s->hdl();
    parent()->add_scribe(std::move(s));
    return caf::io::doorman::new_connection(&mx, hdl);
  }

 private:
  std::shared_ptr<const door_state> st_;
};

}  // namespace

caf::expected<std::uint16_t> publish_capped(caf::actor_system& sys, caf::strong_actor_ptr whom,
                                            std::set<std::string> sigs, std::uint16_t port, const std::string& host,
                                            door_limits limits, std::shared_ptr<door_counters> counters) {
  auto& mm = sys.middleman();
  auto& mx = static_cast<net::default_multiplexer&>(mm.backend());
  auto fd = net::new_tcp_acceptor_impl(port, host.empty() ? nullptr : host.c_str(), true);
  if (!fd) return std::move(fd.error());
  auto st = std::make_shared<door_state>();
  st->limits = limits;
  st->counters = std::move(counters);
  caf::io::doorman_ptr door = caf::make_counted<capped_doorman>(mx, *fd, std::move(st));
  auto bound = door->port();
  // What middleman::publish would send the BASP broker once the middleman actor opened the port.
  auto broker = mm.named_broker<caf::io::basp_broker>(caf::atom("BASP"));
  caf::anon_send(broker, caf::publish_atom::value, std::move(door), bound, std::move(whom), std::move(sigs));
  return bound;
}

}  // namespace cuzk::engine
