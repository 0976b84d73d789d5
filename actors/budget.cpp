// Memory budget actor (host RAM, or one device's VRAM): grants reservations, never over capacity.
// Requests that do not fit wait FIFO; a queued request may be withdrawn (cancel_atom with its tag).
// Holders are monitored: a dead holder's unguarded grants are reclaimed and its queued requests
// dropped; a guarded grant goes back when its token's last copy goes. The grants live in a ledger
// that outlives the actor, so a respawned budget starts with every grant still outstanding and
// accounted memory never exceeds capacity across respawns.
#include <deque>
#include <map>
#include <mutex>

#include "actors/budget.hpp"
#include "caf/all.hpp"

namespace cuzk::actors {

struct budget_ledger {
  struct grant {
    std::uint64_t bytes;
    caf::actor_addr holder;
    bool guarded = false;  // a reservation token holds it
  };
  std::mutex mu;
  std::map<std::uint64_t, grant> grants;
  std::uint64_t in_use = 0, peak = 0, next_id = 1, reclaimed_total = 0;
  std::uint64_t held = 0;  // bytes of the grants that a live token guards
  caf::actor_addr current;  // the budget that serves this ledger now
  std::vector<caf::actor_addr> incarnations;
  ~budget_ledger();
};

namespace {

// Budget actor -> its ledger, for make_reservation_token (which gets only the budget's handle).
// Weak: a ledger removes its entries when it goes.
std::mutex registry_mu;
std::map<caf::actor_addr, std::weak_ptr<budget_ledger>>& registry() {
  static auto* r = new std::map<caf::actor_addr, std::weak_ptr<budget_ledger>>;  // never destroyed: see ~budget_ledger
  return *r;
}

std::shared_ptr<budget_ledger> ledger_of(const caf::actor_addr& a) {
  std::lock_guard lock(registry_mu);
  auto it = registry().find(a);
  return it == registry().end() ? nullptr : it->second.lock();
}

}  // namespace

budget_ledger::~budget_ledger() {
  std::lock_guard lock(registry_mu);
  for (auto& a : incarnations) registry().erase(a);
}

std::shared_ptr<budget_ledger> make_budget_ledger() { return std::make_shared<budget_ledger>(); }

namespace {

struct budget_state {
  budget_state() = default;  // not an aggregate: CAF would construct it from the actor pointer
  std::string name;
  std::uint64_t capacity = 0;
  std::shared_ptr<budget_ledger> ledger;
  struct waiting {
    reserve_request req;
    caf::typed_response_promise<reservation> promise;
  };
  std::deque<waiting> queue;
  std::map<caf::actor_addr, std::uint32_t> watched;  // holders monitored

  reservation take(const reserve_request& req) {
    std::lock_guard lock(ledger->mu);
    auto& l = *ledger;
    reservation r{l.next_id++, req.bytes};
    l.grants.emplace(r.id, budget_ledger::grant{req.bytes, req.holder});
    l.in_use += req.bytes;
    l.peak = std::max(l.peak, l.in_use);
    return r;
  }

  bool fits(std::uint64_t bytes) {
    std::lock_guard lock(ledger->mu);
    return ledger->in_use + bytes <= capacity;
  }

  void drain() {
    while (!queue.empty() && fits(queue.front().req.bytes)) {
      auto w = std::move(queue.front());
      queue.pop_front();
      w.promise.deliver(take(w.req));
    }
  }

  // The holder is gone: its unguarded grants return (nobody will release them).
  void reclaim(const caf::actor_addr& holder) {
    std::lock_guard lock(ledger->mu);
    auto& l = *ledger;
    for (auto it = l.grants.begin(); it != l.grants.end();) {
      if (it->second.holder == holder && !it->second.guarded) {
        l.in_use -= it->second.bytes;
        l.reclaimed_total += it->second.bytes;
        it = l.grants.erase(it);
      } else {
        ++it;
      }
    }
  }
};

using budget_ptr = budget_actor::stateful_pointer<budget_state>;

// Monitors `holder` once; false when it is already gone.
bool watch(budget_ptr self, const caf::actor_addr& holder) {
  auto strong = caf::actor_cast<caf::actor>(holder);
  if (!strong) return false;
  if (self->state.watched.emplace(holder, 0).second) self->monitor(strong);
  return true;
}

budget_actor::behavior_type budget(budget_ptr self, std::string name, std::uint64_t capacity,
                                   std::shared_ptr<budget_ledger> ledger) {
  auto& st = self->state;
  st.name = std::move(name);
  st.capacity = capacity;
  st.ledger = ledger ? std::move(ledger) : make_budget_ledger();
  {
    std::lock_guard lock(registry_mu);
    registry()[self->address()] = st.ledger;
  }
  std::vector<caf::actor_addr> holders;
  {
    std::lock_guard lock(st.ledger->mu);
    st.ledger->current = self->address();
    st.ledger->incarnations.push_back(self->address());
    for (auto& [id, g] : st.ledger->grants)
      if (g.holder) holders.push_back(g.holder);
  }
  // A replacement watches the holders of the grants it inherits.
  for (auto& h : holders)
    if (!watch(self, h)) st.reclaim(h);
  self->set_down_handler([self](caf::down_msg& dm) {
    auto& st = self->state;
    st.watched.erase(dm.source);
    st.reclaim(dm.source);
    for (auto it = st.queue.begin(); it != st.queue.end();) {
      if (it->req.holder == dm.source) {
        it->promise.deliver(make_error(errc::worker_failed, "budget " + st.name + ": holder died while waiting"));
        it = st.queue.erase(it);
      } else {
        ++it;
      }
    }
    st.drain();
  });
  return {
      [self](reserve_request& req) -> caf::result<reservation> {
        auto& st = self->state;
        if (req.bytes > st.capacity)
          return make_error(errc::over_budget, "budget " + st.name + ": " + req.purpose + " needs " +
                                                   std::to_string(req.bytes) + " bytes, capacity is " +
                                                   std::to_string(st.capacity));
        // Monitor through a strong handle: a weak address of an actor that is already gone
        // must not be dereferenced. A holder that is gone gets nothing.
        if (req.holder && !watch(self, req.holder))
          return make_error(errc::worker_failed, "budget " + st.name + ": holder of " + req.purpose + " is gone");
        if (st.queue.empty() && st.fits(req.bytes)) return st.take(req);
        if (req.no_wait)
          return make_error(errc::over_budget, "budget " + st.name + ": " + req.purpose + " does not fit now");
        auto rp = self->make_response_promise<reservation>();
        st.queue.push_back({std::move(req), rp});
        return rp;
      },
      [self](release_atom, std::uint64_t id) {
        // Tokens release in the ledger themselves; this also serves releases by message.
        auto& st = self->state;
        {
          std::lock_guard lock(st.ledger->mu);
          auto it = st.ledger->grants.find(id);
          if (it != st.ledger->grants.end()) {
            st.ledger->in_use -= it->second.bytes;
            if (it->second.guarded) st.ledger->held -= it->second.bytes;
            st.ledger->grants.erase(it);
          }
        }
        st.drain();
      },
      [self](cancel_atom, const caf::actor_addr& holder, std::uint64_t tag) {
        auto& st = self->state;
        if (!tag) return;
        for (auto it = st.queue.begin(); it != st.queue.end(); ++it) {
          if (it->req.holder == holder && it->req.tag == tag) {
            it->promise.deliver(make_error(errc::withdrawn, "budget " + st.name + ": " + it->req.purpose + " withdrawn"));
            st.queue.erase(it);
            st.drain();  // the one behind it may fit now
            return;
          }
        }
      },
      [self](status_atom) -> budget_status {
        auto& st = self->state;
        budget_status s;
        s.name = st.name;
        s.capacity = st.capacity;
        for (auto& w : st.queue) s.queued_bytes += w.req.bytes;
        s.queued = static_cast<std::uint32_t>(st.queue.size());
        std::lock_guard lock(st.ledger->mu);
        s.in_use = st.ledger->in_use;
        s.peak = st.ledger->peak;
        s.reservations = static_cast<std::uint32_t>(st.ledger->grants.size());
        s.reclaimed_total = st.ledger->reclaimed_total;
        s.held_bytes = st.ledger->held;
        return s;
      },
  };
}

// Releases the grant when the last copy of the keepalive goes away, wherever that happens: into
// the ledger directly (the budget that granted it may be dead), then wakes the budget serving
// the ledger now so that it grants what was waiting.
struct reservation_token {
  reservation_token(budget_actor b, std::uint64_t i) : budget(std::move(b)), id(i) {
    ledger = ledger_of(caf::actor_cast<caf::actor_addr>(budget));
    if (!ledger) return;
    std::lock_guard lock(ledger->mu);
    auto it = ledger->grants.find(id);
    if (it != ledger->grants.end() && !it->second.guarded) {
      it->second.guarded = true;
      ledger->held += it->second.bytes;
    }
  }
  reservation_token(const reservation_token&) = delete;
  budget_actor budget;
  std::uint64_t id;
  std::shared_ptr<budget_ledger> ledger;
  ~reservation_token() {
    if (!ledger) {
      caf::anon_send(budget, release_atom::value, id);
      return;
    }
    caf::actor_addr wake;
    {
      std::lock_guard lock(ledger->mu);
      auto it = ledger->grants.find(id);
      if (it == ledger->grants.end()) return;  // reclaimed already
      ledger->in_use -= it->second.bytes;
      if (it->second.guarded) ledger->held -= it->second.bytes;
      ledger->grants.erase(it);
      wake = ledger->current;
    }
    if (auto b = caf::actor_cast<caf::actor>(wake))
      caf::anon_send(caf::actor_cast<budget_actor>(b), release_atom::value, id);
  }
};

}  // namespace

std::uint64_t now_us() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

keepalive make_reservation_token(const budget_actor& b, const reservation& grant) {
  return keepalive{std::make_shared<const reservation_token>(b, grant.id)};
}

budget_actor spawn_budget(caf::actor_system& sys, std::string name, std::uint64_t capacity) {
  return sys.spawn(budget, std::move(name), capacity, std::shared_ptr<budget_ledger>{});
}

budget_actor spawn_budget(caf::actor_system& sys, std::string name, std::uint64_t capacity,
                          std::shared_ptr<budget_ledger> ledger) {
  return sys.spawn(budget, std::move(name), capacity, std::move(ledger));
}

}  // namespace cuzk::actors
