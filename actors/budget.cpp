// Memory budget actor (host RAM, or one device's VRAM): grants reservations, never over capacity.
//
// Requests that do not fit wait in FIFO order (a large request is not starved by small ones).
// Every holder is monitored: when it dies, its grants are reclaimed and its queued requests
// dropped, so a killed worker cannot leak budget.
#include <deque>
#include <map>

#include "actors/actors.hpp"
#include "caf/all.hpp"

namespace cuzk::actors {

namespace {

struct budget_state {
  budget_state() = default;  // not an aggregate: CAF would construct it from the actor pointer
  std::string name;
  std::uint64_t capacity = 0, in_use = 0, peak = 0, next_id = 1;
  std::uint64_t granted_total = 0, reclaimed_total = 0;
  struct grant {
    std::uint64_t bytes;
    caf::actor_addr holder;
  };
  std::map<std::uint64_t, grant> grants;
  struct waiting {
    reserve_request req;
    caf::typed_response_promise<reservation> promise;
  };
  std::deque<waiting> queue;
  std::map<caf::actor_addr, std::uint32_t> watched;  // holder -> live grants + queued requests

  reservation take(const reserve_request& req) {
    reservation r{next_id++, req.bytes};
    grants.emplace(r.id, grant{req.bytes, req.holder});
    in_use += req.bytes;
    peak = std::max(peak, in_use);
    granted_total += req.bytes;
    return r;
  }

  void drain() {
    while (!queue.empty() && in_use + queue.front().req.bytes <= capacity) {
      auto w = std::move(queue.front());
      queue.pop_front();
      w.promise.deliver(take(w.req));
    }
  }
};

using budget_ptr = budget_actor::stateful_pointer<budget_state>;

budget_actor::behavior_type budget(budget_ptr self, std::string name, std::uint64_t capacity) {
  self->state.name = std::move(name);
  self->state.capacity = capacity;
  self->set_down_handler([self](caf::down_msg& dm) {
    auto& st = self->state;
    st.watched.erase(dm.source);
    for (auto it = st.grants.begin(); it != st.grants.end();) {
      if (it->second.holder == dm.source) {
        st.in_use -= it->second.bytes;
        st.reclaimed_total += it->second.bytes;
        it = st.grants.erase(it);
      } else {
        ++it;
      }
    }
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
        if (req.holder) {
          // Monitor through a strong handle: a weak address of an actor that is already gone
          // must not be dereferenced. A holder that is gone gets nothing.
          auto holder = caf::actor_cast<caf::actor>(req.holder);
          if (!holder)
            return make_error(errc::worker_failed, "budget " + st.name + ": holder of " + req.purpose + " is gone");
          if (st.watched.emplace(req.holder, 0).second) self->monitor(holder);
        }
        if (st.queue.empty() && st.in_use + req.bytes <= st.capacity) return st.take(req);
        auto rp = self->make_response_promise<reservation>();
        st.queue.push_back({std::move(req), rp});
        return rp;
      },
      [self](release_atom, std::uint64_t id) {
        auto& st = self->state;
        auto it = st.grants.find(id);
        if (it == st.grants.end()) return;  // reclaimed already, or a grant of a previous budget
        st.in_use -= it->second.bytes;
        st.grants.erase(it);
        st.drain();
      },
      [self](status_atom) -> budget_status {
        auto& st = self->state;
        budget_status s;
        s.name = st.name;
        s.capacity = st.capacity;
        s.in_use = st.in_use;
        s.peak = st.peak;
        for (auto& w : st.queue) s.queued_bytes += w.req.bytes;
        s.queued = static_cast<std::uint32_t>(st.queue.size());
        s.reservations = static_cast<std::uint32_t>(st.grants.size());
        s.granted_total = st.granted_total;
        s.reclaimed_total = st.reclaimed_total;
        return s;
      },
  };
}

// Sends the release when the last copy of the keepalive goes away, wherever that happens.
struct reservation_token {
  reservation_token(budget_actor b, std::uint64_t i) : budget(std::move(b)), id(i) {}
  reservation_token(const reservation_token&) = delete;
  budget_actor budget;
  std::uint64_t id;
  ~reservation_token() { caf::anon_send(budget, release_atom::value, id); }
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
  return sys.spawn(budget, std::move(name), capacity);
}

}  // namespace cuzk::actors
