// Memory budgets: the host budget, and one VRAM budget per device (actors/budget.cpp). A holder
// asks for bytes (reserve_request) and gets a reservation, or waits in FIFO order; the grant
// travels as a keepalive token that releases it when its last copy goes. The budget monitors each
// holder and reclaims the grants of one that dies.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "actors/settings.hpp"
#include "caf/actor_addr.hpp"
#include "caf/replies_to.hpp"
#include "caf/typed_actor.hpp"
#include "messages/common.hpp"

namespace cuzk::msg {

// A reservation request. The budget monitors `holder` and reclaims its grants when it dies.
// no_wait: granted now or refused (errc::over_budget), never queued (the key store's resident
// tier asks so: a queued key grant would hold up the staging grants ahead of whose proofs it
// waits for, and it evicts and asks again instead).
// tag: names a queued request for (cancel_atom, holder, tag), which takes it out of the queue (its
// answer is then errc::withdrawn); 0 = not cancellable. Unique per holder while it waits.
struct reserve_request {
  std::uint64_t bytes = 0;
  caf::actor_addr holder;
  std::string purpose;
  bool no_wait = false;
  std::uint64_t tag = 0;
};
inline bool operator==(const reserve_request& a, const reserve_request& b) {
  return a.bytes == b.bytes && a.holder == b.holder && a.purpose == b.purpose && a.no_wait == b.no_wait &&
         a.tag == b.tag;
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, reserve_request& x) {
  return f(caf::meta::type_name("reserve_request"), x.bytes, x.holder, x.purpose, x.no_wait, x.tag);
}

struct reservation {
  std::uint64_t id = 0;
  std::uint64_t bytes = 0;
  bool operator==(const reservation&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, reservation& x) {
  return f(caf::meta::type_name("reservation"), x.id, x.bytes);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, budget_status& x) {
  return f(caf::meta::type_name("budget_status"), x.name, x.capacity, x.in_use, x.peak, x.queued_bytes, x.queued,
           x.reservations, x.reclaimed_total, x.held_bytes);
}

// Host memory budget, and one VRAM budget per device: grants never exceed capacity; requests that
// do not fit wait in FIFO order; a request larger than the capacity fails with over_budget.
// (cancel_atom, holder, tag) withdraws that holder's queued request of that tag (nothing when it
// was granted already: its grant is on its way, and the requester returns it).
using budget_actor = caf::typed_actor<                            //
    caf::replies_to<reserve_request>::with<reservation>,          //
    caf::reacts_to<release_atom, std::uint64_t>,                  //
    caf::reacts_to<cancel_atom, caf::actor_addr, std::uint64_t>,  //
    caf::replies_to<status_atom>::with<budget_status>>;

}  // namespace cuzk::msg

namespace cuzk::actors {

// A host/VRAM reservation as a keepalive: releases the grant when the last holder drops it.
keepalive make_reservation_token(const budget_actor& budget, const reservation& grant);

budget_actor spawn_budget(caf::actor_system& sys, std::string name, std::uint64_t capacity);
// The grants of one budget slot, kept across respawns: the supervisor passes a slot's ledger to
// every budget it spawns there, so a replacement inherits the grants still outstanding.
struct budget_ledger;
std::shared_ptr<budget_ledger> make_budget_ledger();
budget_actor spawn_budget(caf::actor_system& sys, std::string name, std::uint64_t capacity,
                          std::shared_ptr<budget_ledger> ledger);

}  // namespace cuzk::actors
