// The supervisor (actors/supervisor.cpp): builds every actor of an engine, monitors them, respawns
// the dead and tells the workers that talk to them (worker_replaced); the roster is who the current
// workers are.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "actors/settings.hpp"
#include "caf/actor.hpp"
#include "caf/actor_addr.hpp"
#include "messages/common.hpp"

namespace cuzk::msg {

// The supervisor replaced a dead worker (`fresh` is invalid when it could not: a remote node).
struct worker_replaced {
  role who = role::synthesizer;
  std::uint32_t slot = 0;
  caf::actor_addr old;
  caf::actor fresh;
  std::string reason;
};
inline bool operator==(const worker_replaced& a, const worker_replaced& b) {
  return a.who == b.who && a.slot == b.slot && a.old == b.old && a.fresh == b.fresh && a.reason == b.reason;
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, worker_replaced& x) {
  return f(caf::meta::type_name("worker_replaced"), x.who, x.slot, x.old, x.fresh, x.reason);
}

// The current workers, as the supervisor knows them.
struct roster {
  caf::actor intake, scheduler, key_store, host_budget, assembler;
  std::vector<caf::actor> synthesizers, devices, vram_budgets, stagers;  // stagers[d] feeds devices[d]
};
inline bool operator==(const roster& a, const roster& b) {
  return a.intake == b.intake && a.scheduler == b.scheduler && a.key_store == b.key_store &&
         a.host_budget == b.host_budget && a.assembler == b.assembler && a.synthesizers == b.synthesizers &&
         a.devices == b.devices && a.vram_budgets == b.vram_budgets && a.stagers == b.stagers;
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, roster& x) {
  return f(caf::meta::type_name("roster"), x.intake, x.scheduler, x.key_store, x.host_budget, x.assembler,
           x.synthesizers, x.devices, x.vram_budgets, x.stagers);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, fault_record& x) {
  return f(caf::meta::type_name("fault_record"), x.who, x.slot, x.reason, x.at_us);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, supervisor_status& x) {
  return f(caf::meta::type_name("supervisor_status"), x.faults, x.respawns);
}

// The supervisor is a dynamically typed actor (it handles down messages of every worker):
//   (roster_atom) -> roster
//   (status_atom) -> supervisor_status
//   (kill_atom, role, uint32 slot) -> bool       test hook: exit_reason::kill to a worker
//   (fail_alloc_atom, uint32 device, uint32 n) -> bool   chaos hook: that device's next n
//                                                 allocations fail (false: no such device)
//   (shutdown_atom) -> bool                      stops every worker, then itself

}  // namespace cuzk::msg

namespace cuzk::actors {

// Builds every actor of the engine (actors/actors.hpp), monitors them, respawns the dead and tells the scheduler (and the key
// store) about replacements; answers roster_atom / status_atom / kill_atom / shutdown_atom.
caf::actor spawn_supervisor(caf::actor_system& sys, engine_settings settings);

}  // namespace cuzk::actors
