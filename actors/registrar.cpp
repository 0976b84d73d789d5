// Registrar: the coordinator's door for worker nodes ([cluster] listen). A node answers a
// single-use challenge with HMAC-SHA256(secret, nonce, name, build); a wrong secret or build is
// refused with the reason. An admitted node gets an id, is monitored and pinged every heartbeat,
// and is declared lost after node_timeout of silence; the scheduler learns of joins and losses
// and re-queues a lost node's partitions (a rejoin is a new member, its old answers stale). Every
// heartbeat the admitted ids go to `admitted`, so the cluster door closes unregistered links.
#include <deque>
#include <map>

#include "actors/registrar.hpp"
#include "actors/node_agent.hpp"
#include "caf/all.hpp"
#include "zk/io/sha256.hpp"

namespace cuzk::actors {

namespace {

constexpr std::uint64_t challenge_lifetime_us = 30'000'000;
constexpr std::size_t max_pending_challenges = 1024, max_history = 16;

struct member {
  node_info info;
  node_agent_actor agent;
};

struct registrar_state {
  registrar_state() = default;  // not an aggregate: CAF would construct it from the actor pointer
  cluster_settings settings;
  scheduler_actor scheduler;
  std::map<std::string, std::uint64_t> challenges;  // nonce -> expiry
  std::map<std::uint64_t, member> members;
  std::deque<node_info> lost;
  std::deque<std::string> refusals;
  std::uint64_t next_id = 1, joins = 0, refused = 0, losses = 0;
};

using registrar_ptr = registrar_actor::stateful_pointer<registrar_state>;

void report(registrar_ptr self, const std::string& line) {
  if (self->state.settings.on_event) self->state.settings.on_event(line);
}

void lose(registrar_ptr self, std::uint64_t id, const std::string& reason) {
  auto& st = self->state;
  auto it = st.members.find(id);
  if (it == st.members.end()) return;
  self->demonitor(it->second.agent.address());
  auto info = std::move(it->second.info);
  st.members.erase(it);
  info.alive = false;
  info.lost_reason = reason;
  ++st.losses;
  report(self, "cluster: node " + info.name + " (#" + std::to_string(id) + ") lost: " + reason);
  st.lost.push_front(std::move(info));
  if (st.lost.size() > max_history) st.lost.pop_back();
  self->send(st.scheduler, node_lost_atom::value, id, reason);
}

caf::error refuse(registrar_ptr self, const join_request& r, const std::string& why) {
  auto& st = self->state;
  ++st.refused;
  std::string line = "node " + (r.node.empty() ? std::string("(unnamed)") : r.node) + " refused: " + why;
  report(self, "cluster: " + line);
  st.refusals.push_front(line);
  if (st.refusals.size() > max_history) st.refusals.pop_back();
  return make_error(errc::refused, why);
}

void heartbeat(registrar_ptr self) {
  auto& st = self->state;
  auto now = now_us();
  const auto timeout_us = static_cast<std::uint64_t>(st.settings.node_timeout.count()) * 1000;
  std::vector<std::uint64_t> silent;
  for (auto& [id, m] : st.members) {
    if (now - m.info.last_seen_us > timeout_us) {
      silent.push_back(id);
      continue;
    }
    auto node = id;
    self->request(m.agent, st.settings.heartbeat, ping_atom::value)
        .then(
            [self, node](std::uint64_t as_seen) {
              auto it = self->state.members.find(node);
              if (it == self->state.members.end()) return;
              if (as_seen == node) it->second.info.last_seen_us = now_us();
              else lose(self, node, "it rejoined as #" + std::to_string(as_seen));
            },
            [](caf::error&) {});  // silence is judged above, against node_timeout
  }
  for (auto id : silent)
    lose(self, id, "no heartbeat for " + std::to_string(st.settings.node_timeout.count()) + " ms");
  for (auto it = st.challenges.begin(); it != st.challenges.end();)
    it = it->second < now ? st.challenges.erase(it) : std::next(it);
  if (st.settings.admitted) {
    std::vector<caf::node_id> nodes;
    for (auto& [id, m] : st.members) nodes.push_back(m.agent.node());
    st.settings.admitted(std::move(nodes));
  }
}

registrar_actor::behavior_type registrar(registrar_ptr self, cluster_settings settings, scheduler_actor scheduler) {
  self->state.settings = std::move(settings);
  self->state.scheduler = std::move(scheduler);
  self->set_down_handler([self](caf::down_msg& dm) {
    for (auto& [id, m] : self->state.members)
      if (m.agent.address() == dm.source) {
        lose(self, id, "connection closed (" + caf::to_string(dm.reason) + ")");
        return;
      }
  });
  self->send(self, tick_atom::value);
  return {
      [self](join_hello& h) -> caf::result<join_challenge> {
        auto& st = self->state;
        if (st.challenges.size() >= max_pending_challenges)
          return make_error(errc::refused, "too many joins in progress");
        auto nonce = zk::io::random_hex(16);
        st.challenges[nonce] = now_us() + challenge_lifetime_us;
        (void)h;
        return join_challenge{nonce};
      },
      [self](join_request& r) -> caf::result<join_reply> {
        auto& st = self->state;
        auto c = st.challenges.find(r.nonce);
        if (c == st.challenges.end() || c->second < now_us()) return refuse(self, r, "unknown or expired challenge");
        st.challenges.erase(c);
        if (r.build != st.settings.build)
          return refuse(self, r, "build mismatch: node runs '" + r.build + "', coordinator runs '" +
                                     st.settings.build + "'");
        auto expected = zk::io::hmac_sha256_hex(st.settings.secret, join_mac_text(r.nonce, r.node, r.build));
        if (!zk::io::equal_constant_time(expected, r.mac)) return refuse(self, r, "wrong secret");
        if (!r.agent || r.slots == 0) return refuse(self, r, "no agent or no slots offered");
        // The same node joining again (it lost us, we may not have noticed yet): its old membership ends.
        for (auto& [id, m] : st.members)
          if (m.info.name == r.node) {
            lose(self, id, "it joined again");
            break;
          }
        auto id = st.next_id++;
        member m;
        m.agent = caf::actor_cast<node_agent_actor>(r.agent);
        m.info.id = id;
        m.info.name = r.node;
        m.info.build = r.build;
        m.info.alive = true;
        m.info.slots = r.slots;
        m.info.devices = r.devices;
        m.info.keys = r.keys;
        m.info.joined_us = m.info.last_seen_us = now_us();
        self->monitor(m.agent);
        node_joined note{id, r.node, r.agent, r.slots, {}};
        for (auto& k : r.keys) note.fingerprints.push_back(k.fingerprint);
        st.members.emplace(id, std::move(m));
        ++st.joins;
        const auto params = std::count_if(r.keys.begin(), r.keys.end(), [](const key_offer& k) { return k.kind != "circom"; });
        report(self, "cluster: node " + r.node + " joined as #" + std::to_string(id) + " (" +
                         std::to_string(r.slots) + " slots, " + std::to_string(r.devices.size()) + " devices, " +
                         std::to_string(r.keys.size() - params) + " keys, " + std::to_string(params) +
                         " Filecoin params files)");
        self->send(st.scheduler, std::move(note));
        return join_reply{id, st.settings.build};
      },
      [self](ping_atom, std::uint64_t id) {
        auto it = self->state.members.find(id);
        if (it == self->state.members.end()) return false;
        it->second.info.last_seen_us = now_us();
        return true;
      },
      [self](tick_atom) {
        heartbeat(self);
        self->delayed_send(self, self->state.settings.heartbeat, tick_atom::value);
      },
      [self](status_atom) {
        auto& st = self->state;
        registrar_status s;
        for (auto& [id, m] : st.members) s.nodes.push_back(m.info);
        s.nodes.insert(s.nodes.end(), st.lost.begin(), st.lost.end());
        s.joins = st.joins;
        s.refused = st.refused;
        s.lost = st.losses;
        s.refusals.assign(st.refusals.begin(), st.refusals.end());
        return s;
      },
  };
}

}  // namespace

registrar_actor spawn_registrar(caf::actor_system& sys, cluster_settings settings, scheduler_actor scheduler) {
  return sys.spawn(registrar, std::move(settings), std::move(scheduler));
}

}  // namespace cuzk::actors
