// A synthesizer served to other nodes: its own actor system with the middleman, the same message
// registration as the engine (both ends must agree), one synthesizer actor published on a port.
#include "actors/actors.hpp"
#include "caf/all.hpp"
#include "caf/io/all.hpp"
#include "engine/engine.hpp"

namespace cuzk::engine {

namespace {

// What the node publishes: a front that hands every request to the detached synthesizer. Remote
// peers (their proxies, monitors) keep references to the published actor after they disconnect;
// a detached actor's thread waits until its last reference is gone, so the published actor must
// not be the detached one or the node could never shut down.
msg::synthesizer_actor::behavior_type synthesizer_front(msg::synthesizer_actor::pointer self,
                                                        msg::synthesizer_actor worker) {
  self->link_to(worker);  // the worker ends with the front
  return {
      [self, worker](msg::synth_request& req) -> caf::result<msg::synth_result> {
        return self->delegate(worker, std::move(req));
      },
  };
}

}  // namespace

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
  p.synth = p.sys->spawn(synthesizer_front, actors::spawn_synthesizer(*p.sys, 0, actors::fault_settings{}, 0));
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
