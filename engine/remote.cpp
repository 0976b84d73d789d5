// A synthesizer served to other nodes: its own actor system with the middleman, the same message
// registration as the engine (both ends must agree), one synthesizer actor published on a port.
#include "actors/actors.hpp"
#include "caf/all.hpp"
#include "caf/io/all.hpp"
#include "engine/engine.hpp"

namespace cuzk::actors {
synthesizer_actor spawn_synthesizer_for_node(caf::actor_system& sys);  // actors/synthesizer.cpp
}

namespace cuzk::engine {

struct synthesizer_node::impl {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  msg::synthesizer_actor synth;
  std::uint16_t port = 0;
};

synthesizer_node::synthesizer_node() : p_(std::make_unique<impl>()) {}

std::unique_ptr<synthesizer_node> synthesizer_node::serve(std::uint16_t port, const std::string& host) {
  std::unique_ptr<synthesizer_node> node(new synthesizer_node());
  auto& p = *node->p_;
  msg::register_messages(p.cfg);
  p.cfg.load<caf::io::middleman>();
  p.sys = std::make_unique<caf::actor_system>(p.cfg);
  p.synth = actors::spawn_synthesizer_for_node(*p.sys);
  auto bound = p.sys->middleman().publish(p.synth, port, host.c_str(), true);
  if (!bound) throw engine_error("synthesizer node: publish on " + host + ":" + std::to_string(port) + ": " +
                                 p.sys->render(bound.error()));
  p.port = *bound;
  return node;
}

synthesizer_node::~synthesizer_node() {
  if (!p_ || !p_->sys) return;
  p_->sys->middleman().unpublish(p_->synth, p_->port);
  caf::anon_send_exit(p_->synth, caf::exit_reason::user_shutdown);
  p_->synth = nullptr;
  p_->sys.reset();
}

std::uint16_t synthesizer_node::port() const { return p_->port; }

}  // namespace cuzk::engine
