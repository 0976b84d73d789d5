// Node agent: what makes an engine a worker of a coordinator ([cluster] join / --join).
// It dials the coordinator's registrar (a short-lived detached dialer does the blocking connect,
// so the agent keeps answering), answers the join challenge with the HMAC of the shared secret,
// and offers the node's slots, devices and key fingerprints. Partitions it is sent run as
// one-partition jobs on this node's own engine (its intake): synthesis, device and verification
// all happen here, and only the proof goes back.
// Heartbeats: every heartbeat it pings the registrar with its node id; a "no" (the coordinator
// declared it lost) or node_timeout of silence makes it join again, a closed connection makes it
// dial again. A refusal (wrong secret, another build) stops it: that is a configuration error.
#include "actors/node_agent.hpp"
#include "caf/all.hpp"
#include "caf/io/all.hpp"
#include "actors/tls_link.hpp"
#include "zk/io/sha256.hpp"

namespace cuzk::actors {

namespace {

using dial_atom = caf::atom_constant<caf::atom("dial")>;

enum class link_state { idle, dialing, joining, joined, refused };

const char* to_string(link_state s) {
  switch (s) {
    case link_state::idle: return "connecting";
    case link_state::dialing: return "connecting";
    case link_state::joining: return "joining";
    case link_state::joined: return "joined";
    case link_state::refused: return "refused";
  }
  return "unknown";
}

struct agent_state {
  agent_state() = default;  // not an aggregate: CAF would construct it from the actor pointer
  node_agent_settings settings;
  intake_actor intake;
  registrar_actor registrar;
  link_state link = link_state::idle;
  std::uint64_t node_id = 0, last_ack_us = 0, joins = 0, tasks = 0, failures = 0, attempt = 0;
  std::string detail;
  // Filecoin jobs' inputs (a PoRep's C1, a PoSt's vanilla proofs), sent once per job with its first
  // partition here, kept for its next ones until the coordinator says the job ended (forget_atom) or
  // this node joins again (the coordinator's job ids are its own).
  std::map<job_id, std::shared_ptr<const fil::job_input>> payloads;
  std::uint64_t payloads_received = 0;
};

using agent_ptr = node_agent_actor::stateful_pointer<agent_state>;

void report(agent_ptr self, const std::string& line) {
  if (self->state.settings.cluster.on_event) self->state.settings.cluster.on_event(line);
}

std::string coordinator(const agent_state& st) { return st.settings.host + ":" + std::to_string(st.settings.port); }

void join(agent_ptr self);

// The blocking connect runs in its own detached actor; the answer is the registrar (or an error).
void dial(agent_ptr self) {
  auto& st = self->state;
  st.link = link_state::dialing;
  auto dialer = self->spawn<caf::detached>([](caf::event_based_actor* d) -> caf::behavior {
    return {[d](dial_atom, const std::string& host, std::uint16_t port, bool tls) -> caf::result<caf::actor> {
      auto& sys = d->system();
      if (tls) {
        auto r = tls_remote_actor(sys, sys.message_types(caf::detail::type_list<registrar_actor>{}), host, port);
        d->quit();
        if (!r) return std::move(r.error());
        return caf::actor_cast<caf::actor>(*r);
      }
      auto r = sys.middleman().remote_actor<registrar_actor>(host, port);
      d->quit();
      if (!r) return std::move(r.error());
      return caf::actor_cast<caf::actor>(*r);
    }};
  });
  auto attempt = ++st.attempt;
  self->request(dialer, caf::infinite, dial_atom::value, st.settings.host, st.settings.port, st.settings.tls)
      .then(
          [self, attempt](caf::actor& a) {
            auto& st = self->state;
            if (st.attempt != attempt || st.link != link_state::dialing) return;
            st.registrar = caf::actor_cast<registrar_actor>(a);
            self->monitor(st.registrar);
            join(self);
          },
          [self, attempt](caf::error& e) {
            auto& st = self->state;
            if (st.attempt != attempt || st.link != link_state::dialing) return;
            st.link = link_state::idle;  // the next tick dials again
            st.detail = "connect " + coordinator(st) + ": " + describe(e);
          });
}

void refused(agent_ptr self, const std::string& why) {
  auto& st = self->state;
  st.link = link_state::refused;
  st.detail = why;
  report(self, "cluster: coordinator " + coordinator(st) + " refused this node: " + why);
  if (st.settings.on_refused) st.settings.on_refused(why);
}

void join(agent_ptr self) {
  auto& st = self->state;
  st.link = link_state::joining;
  auto attempt = ++st.attempt;
  auto timeout = st.settings.cluster.node_timeout;
  auto fail = [self, attempt](caf::error& e) {
    auto& st = self->state;
    if (st.attempt != attempt || st.link != link_state::joining) return;
    if (e.category() == caf::atom("cuzk") && static_cast<errc>(e.code()) == errc::refused) {
      std::string why = describe(e);
      if (auto p = why.find(": "); p != std::string::npos) why = why.substr(p + 2);
      refused(self, why);
      return;
    }
    st.link = link_state::idle;
    st.detail = "join: " + describe(e);
  };
  self->request(st.registrar, timeout, join_hello{st.settings.name, st.settings.cluster.build})
      .then(
          [self, attempt, timeout, fail](join_challenge& c) {
            auto& st = self->state;
            if (st.attempt != attempt || st.link != link_state::joining) return;
            join_request r;
            r.node = st.settings.name;
            r.build = st.settings.cluster.build;
            r.nonce = c.nonce;
            r.mac = zk::io::hmac_sha256_hex(st.settings.cluster.secret, join_mac_text(c.nonce, r.node, r.build));
            r.agent = caf::actor_cast<caf::actor>(self);
            r.slots = st.settings.slots;
            r.devices = st.settings.devices;
            r.keys = st.settings.keys;
            self->request(st.registrar, timeout, std::move(r))
                .then(
                    [self, attempt](join_reply& ok) {
                      auto& st = self->state;
                      if (st.attempt != attempt || st.link != link_state::joining) return;
                      st.link = link_state::joined;
                      st.node_id = ok.node_id;
                      st.payloads.clear();
                      st.last_ack_us = now_us();
                      st.detail.clear();
                      ++st.joins;
                      report(self, "cluster: joined coordinator " + coordinator(st) + " as node #" +
                                       std::to_string(ok.node_id));
                    },
                    fail);
          },
          fail);
}

void on_tick(agent_ptr self) {
  auto& st = self->state;
  const auto timeout_us = static_cast<std::uint64_t>(st.settings.cluster.node_timeout.count()) * 1000;
  switch (st.link) {
    case link_state::refused:
    case link_state::dialing:
      return;
    case link_state::idle:
      if (!st.registrar) dial(self);
      else join(self);
      return;
    case link_state::joining:
      return;  // the join's own requests time out
    case link_state::joined:
      break;
  }
  if (now_us() - st.last_ack_us > timeout_us) {
    report(self, "cluster: no word from coordinator " + coordinator(st) + " for " +
                     std::to_string(st.settings.cluster.node_timeout.count()) + " ms; joining again");
    st.link = link_state::idle;
    st.node_id = 0;
    return;
  }
  auto id = st.node_id;
  self->request(st.registrar, st.settings.cluster.heartbeat, ping_atom::value, id)
      .then(
          [self, id](bool member) {
            auto& st = self->state;
            if (st.link != link_state::joined || st.node_id != id) return;
            if (member) {
              st.last_ack_us = now_us();
              return;
            }
            report(self, "cluster: coordinator " + coordinator(st) + " dropped node #" + std::to_string(id) +
                             "; joining again");
            st.link = link_state::idle;
            st.node_id = 0;
          },
          [](caf::error&) {});  // silence is judged against node_timeout
}

node_agent_actor::behavior_type node_agent(agent_ptr self, node_agent_settings settings, intake_actor intake) {
  self->state.settings = std::move(settings);
  self->state.intake = std::move(intake);
  self->set_down_handler([self](caf::down_msg& dm) {
    auto& st = self->state;
    if (!st.registrar || st.registrar.address() != dm.source) return;
    report(self, "cluster: connection to coordinator " + coordinator(st) + " closed (" + caf::to_string(dm.reason) +
                     ")");
    st.registrar = nullptr;
    if (st.link != link_state::refused) st.link = link_state::idle;
    st.node_id = 0;
  });
  self->send(self, tick_atom::value);
  return {
      [self](node_task& task) -> caf::result<node_result> {
        auto& st = self->state;
        ++st.tasks;
        auto path = st.settings.key_paths.find(task.fingerprint);
        if (path == st.settings.key_paths.end()) {
          ++st.failures;
          return make_error(errc::worker_failed, "node " + st.settings.name + " has no key with fingerprint " +
                                                     task.fingerprint);
        }
        job_spec spec;
        spec.request_id = "cluster:" + std::to_string(task.task.job) + ":" + std::to_string(task.task.index) + ":" +
                          std::to_string(task.task.ticket);
        spec.circuit = path->second;
        spec.prio = task.prio;
        if (task.fil.ptr) {  // a Filecoin job's first partition here: its inputs, kept for the next ones
          st.payloads[task.task.job] = task.fil.ptr;
          ++st.payloads_received;
        }
        if (task.witness.ptr) {
          spec.partitions.push_back(witness_source{{}, task.witness, {}});
        } else if (auto in = st.payloads.find(task.task.job); in != st.payloads.end()) {
          spec.partitions.push_back(witness_source{{}, {}, fil_input_handle{in->second, task.fil.partition}});
        } else {
          ++st.failures;  // the coordinator sends the inputs again with the partition's next attempt
          return make_error(errc::worker_failed, "node " + st.settings.name + " holds no inputs of job " +
                                                     std::to_string(task.task.job));
        }
        spec.fixed_randomness = task.fixed_randomness;
        spec.randomness = task.randomness;
        auto rp = self->make_response_promise<node_result>();
        auto ref = task.task;
        auto timeout = st.settings.task_timeout;
        auto failed = [self, rp](caf::error& e) mutable {
          ++self->state.failures;
          rp.deliver(std::move(e));
        };
        self->request(st.intake, timeout, std::move(spec))
            .then(
                [self, rp, ref, timeout, failed](job_id id) mutable {
                  self->request(self->state.intake, timeout, await_atom::value, id)
                      .then(
                          [self, rp, ref](job_outcome& out) mutable {
                            if (out.state != job_state::succeeded || out.partitions.size() != 1) {
                              ++self->state.failures;
                              std::string why = "node " + self->state.settings.name + ": the partition's job ended " +
                                                (out.state == job_state::canceled ? "canceled" : "failed");
                              for (auto& r : out.reasons) why += "; " + r;
                              rp.deliver(make_error(errc::worker_failed, why));
                              return;
                            }
                            node_result r{ref, std::move(out.partitions[0].proof), out.timings.synthesis_us,
                                          out.timings.device_us};
                            if (self->state.settings.on_answer) self->state.settings.on_answer(r);
                            rp.deliver(std::move(r));
                          },
                          failed);
                },
                failed);
        return rp;
      },
      [self](forget_atom, job_id job) { self->state.payloads.erase(job); },
      [self](ping_atom) {
        auto& st = self->state;
        if (st.link == link_state::joined) st.last_ack_us = now_us();
        return st.node_id;
      },
      [self](tick_atom) {
        on_tick(self);
        if (self->state.link != link_state::refused)
          self->delayed_send(self, self->state.settings.cluster.heartbeat, tick_atom::value);
      },
      [self](status_atom) {
        auto& st = self->state;
        return agent_status{coordinator(st), to_string(st.link), st.detail, st.node_id, st.joins, st.tasks,
                            st.failures, st.payloads_received, st.payloads.size()};
      },
  };
}

}  // namespace

node_agent_actor spawn_node_agent(caf::actor_system& sys, node_agent_settings settings, intake_actor intake) {
  return sys.spawn(node_agent, std::move(settings), std::move(intake));
}

}  // namespace cuzk::actors
