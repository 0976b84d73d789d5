// TLS links (see tls_link.hpp).
#include "actors/tls_link.hpp"

#include <openssl/err.h>

#include "caf/all.hpp"
#include "caf/io/all.hpp"
#include "caf/io/basp_broker.hpp"
#include "caf/io/middleman_actor_impl.hpp"

namespace cuzk::actors {

namespace net = caf::io::network;

net::rw_state tls_policy::read_some(std::size_t& n, net::native_socket fd, void* buf, std::size_t len) {
  ERR_clear_error();
  return session->read_some(n, fd, buf, len);
}
net::rw_state tls_policy::write_some(std::size_t& n, net::native_socket fd, const void* buf, std::size_t len) {
  ERR_clear_error();
  return session->write_some(n, fd, buf, len);
}
bool tls_policy::must_read_more(net::native_socket fd, std::size_t threshold) {
  return session->must_read_more(fd, threshold);
}

tls_scribe::tls_scribe(net::default_multiplexer& mx, net::native_socket fd, caf::openssl::session_ptr session)
    : caf::io::scribe(net::conn_hdl_from_socket(fd)), stream_(mx, fd, std::move(session)) {}

void tls_scribe::configure_read(caf::io::receive_policy::config config) {
  stream_.configure_read(config);
  if (!launched_) launch();
}
void tls_scribe::ack_writes(bool enable) { stream_.ack_writes(enable); }
std::vector<char>& tls_scribe::wr_buf() { return stream_.wr_buf(); }
std::vector<char>& tls_scribe::rd_buf() { return stream_.rd_buf(); }
void tls_scribe::graceful_shutdown() {
  stream_.graceful_shutdown();
  detach(&stream_.backend(), false);
}
void tls_scribe::flush() { stream_.flush(this); }
std::string tls_scribe::addr() const {
  auto x = net::remote_addr_of_fd(stream_.fd());
  return x ? *x : std::string();
}
std::uint16_t tls_scribe::port() const {
  auto x = net::remote_port_of_fd(stream_.fd());
  return x ? *x : 0;
}
void tls_scribe::launch() {
  launched_ = true;
  stream_.start(this);
  stream_.force_empty_write(this);
}
void tls_scribe::add_to_loop() { stream_.activate(this); }
void tls_scribe::remove_from_loop() { stream_.passivate(); }

caf::openssl::session_ptr make_tls_session(caf::actor_system& sys, net::native_socket fd, bool accepted) {
  net::nonblocking(fd, true);  // before the session's first SSL_accept / SSL_connect
  ERR_clear_error();
  try {
    return caf::openssl::make_session(sys, fd, accepted);
  } catch (const std::exception&) {
    return nullptr;  // the module throws when it cannot load its files
  }
}

namespace {

// The middleman actor's connect (endpoint cache, BASP handshake through the broker) with a TLS
// scribe for the connection.
class tls_connector final : public caf::io::middleman_actor_impl {
 public:
  tls_connector(caf::actor_config& cfg, caf::actor broker) : caf::io::middleman_actor_impl(cfg, std::move(broker)) {}
  const char* name() const override { return "cuzk.tls_connector"; }

 protected:
  caf::expected<caf::io::scribe_ptr> connect(const std::string& host, std::uint16_t port) override {
    auto fd = net::new_tcp_connection(host, port);
    if (!fd) return std::move(fd.error());
    auto session = make_tls_session(system(), *fd, false);
    if (!session) {
      net::close_socket(*fd);
      return caf::sec::cannot_connect_to_node;
    }
    auto& mx = static_cast<net::default_multiplexer&>(system().middleman().backend());
    return caf::io::scribe_ptr{caf::make_counted<tls_scribe>(mx, *fd, std::move(session))};
  }
};

}  // namespace

caf::expected<caf::strong_actor_ptr> tls_remote_actor(caf::actor_system& sys, const std::set<std::string>& mpi,
                                                      const std::string& host, std::uint16_t port) {
  auto broker = sys.middleman().named_broker<caf::io::basp_broker>(caf::atom("BASP"));
  auto connector = sys.spawn<tls_connector, caf::detached + caf::hidden>(broker);
  caf::expected<caf::strong_actor_ptr> result{caf::strong_actor_ptr{}};
  {
    auto f = caf::make_function_view(connector);
    auto x = f(caf::connect_atom::value, host, port);
    if (!x) result = std::move(x.error());
    else if (!std::get<1>(*x)) result = caf::sec::no_actor_published_at_port;
    else if (!sys.assignable(std::get<2>(*x), mpi)) result = caf::sec::unexpected_actor_messaging_interface;
    else result = std::move(std::get<1>(*x));
  }
  caf::anon_send_exit(connector, caf::exit_reason::user_shutdown);
  return result;
}

}  // namespace cuzk::actors
