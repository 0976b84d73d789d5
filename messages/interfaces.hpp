// Atoms, the messages that carry actor handles, the engine's error codes and the typed actor
// interfaces (CAF 0.17 style: replies_to<In...>::with<Out...>, reacts_to<In...>). Included by the
// actor translation units and the engine's implementation, never by the public engine header.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "caf/actor.hpp"
#include "caf/actor_addr.hpp"
#include "caf/atom.hpp"
#include "caf/error.hpp"
#include "caf/replies_to.hpp"
#include "caf/typed_actor.hpp"
#include "messages/cluster.hpp"
#include "messages/types.hpp"

namespace caf {
class actor_system_config;
}

namespace cuzk::msg {

// ---- atoms (10 characters at most) ------------------------------------------------------------
using status_atom = caf::atom_constant<caf::atom("status")>;
using release_atom = caf::atom_constant<caf::atom("release")>;
using acquire_atom = caf::atom_constant<caf::atom("acquire")>;
using load_atom = caf::atom_constant<caf::atom("load")>;
using build_atom = caf::atom_constant<caf::atom("build")>;
using evict_atom = caf::atom_constant<caf::atom("evict")>;
using await_atom = caf::atom_constant<caf::atom("await")>;
using cancel_atom = caf::atom_constant<caf::atom("cancel")>;
using forget_atom = caf::atom_constant<caf::atom("forget")>;
using roster_atom = caf::atom_constant<caf::atom("roster")>;
using kill_atom = caf::atom_constant<caf::atom("killworker")>;
using shutdown_atom = caf::atom_constant<caf::atom("shutdown")>;
using describe_atom = caf::atom_constant<caf::atom("describe")>;
using ping_atom = caf::atom_constant<caf::atom("ping")>;
using tick_atom = caf::atom_constant<caf::atom("tick")>;
using node_lost_atom = caf::atom_constant<caf::atom("nodelost")>;
using fail_alloc_atom = caf::atom_constant<caf::atom("failalloc")>;  // chaos: fail the next N allocations

// ---- errors -----------------------------------------------------------------------------------
enum class errc : std::uint8_t {
  none = 0,
  invalid_request,  // the request cannot be run (no partitions, unknown circuit, ...)
  queue_full,       // intake's limit on queued jobs
  unknown_job,
  bad_input,        // a file or witness is unusable: retrying cannot help
  worker_failed,    // a synthesizer or device threw, or an injected fault
  proof_invalid,    // the assembler's verification failed
  over_budget,      // a reservation larger than the whole budget
  shutting_down,
  refused,          // a cluster join with the wrong secret or another build
  node_lost,        // a cluster node stopped answering
};
caf::error make_error(errc x, std::string what = {});
const char* to_string(errc x);
// "bad_input: circuit.zkey: ..." for any caf::error, ours or CAF's.
std::string describe(const caf::error& e);

// ---- messages with actor handles --------------------------------------------------------------

// A reservation request. The budget monitors `holder` and reclaims its grants when it dies.
// no_wait: granted now or refused (errc::over_budget), never queued (the key store's resident
// tier asks so: a queued key grant would hold up the staging grants ahead of whose proofs it
// waits for, and it evicts and asks again instead).
struct reserve_request {
  std::uint64_t bytes = 0;
  caf::actor_addr holder;
  std::string purpose;
  bool no_wait = false;
};
inline bool operator==(const reserve_request& a, const reserve_request& b) {
  return a.bytes == b.bytes && a.holder == b.holder && a.purpose == b.purpose && a.no_wait == b.no_wait;
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, reserve_request& x) {
  return f(caf::meta::type_name("reserve_request"), x.bytes, x.holder, x.purpose, x.no_wait);
}

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

// ---- typed interfaces -------------------------------------------------------------------------

// Host memory budget, and one VRAM budget per device: grants never exceed capacity; requests that
// do not fit wait in FIFO order; a request larger than the capacity fails with over_budget.
using budget_actor = caf::typed_actor<                            //
    caf::replies_to<reserve_request>::with<reservation>,          //
    caf::reacts_to<release_atom, std::uint64_t>,                  //
    caf::replies_to<status_atom>::with<budget_status>>;

// Blocking helper of the key store (its own thread): parses keys and builds evaluators.
using key_worker_actor = caf::typed_actor<                        //
    caf::replies_to<load_atom, std::string>::with<key_handle>,    //
    caf::replies_to<describe_atom, std::string>::with<key_summary>,  //
    caf::replies_to<build_atom, key_handle>::with<key_handle>>;

// Proving keys by path: acquire answers once the key is hot (parsed, evaluator built); describe
// reads only the key's header (fingerprint and verifying key), cached per path. acquire with a
// hot key's handle and a device slot answers once the key's points are resident on that device
// (the tier above hot: a grant from that device's VRAM budget, then the device's load_key); tick
// retries residencies that waited for VRAM.
using key_store_actor = caf::typed_actor<                         //
    caf::replies_to<acquire_atom, std::string>::with<key_handle>,  //
    caf::replies_to<acquire_atom, key_handle, std::uint32_t>::with<resident_handle>,  //
    caf::reacts_to<tick_atom>,                                    //
    caf::replies_to<describe_atom, std::string>::with<key_summary>,  //
    caf::reacts_to<evict_atom>,                                   //
    caf::replies_to<evict_atom, std::string>::with<bool>,         // one key, when unleased -> evicted
    caf::reacts_to<worker_replaced>,                              //
    caf::replies_to<status_atom>::with<key_store_status>>;

using synthesizer_actor = caf::typed_actor<caf::replies_to<synth_request>::with<synth_result>>;

// A device: proves partitions; for the key store, sizes (describe) and makes (load) a key's
// resident points on its backend (bool: with shifted sets, where the backend has them).
using device_actor = caf::typed_actor<                            //
    caf::replies_to<prove_request>::with<device_result>,          //
    caf::replies_to<describe_atom, key_handle, bool>::with<std::uint64_t>,  //
    caf::replies_to<load_atom, key_handle, bool>::with<resident_handle>,    //
    caf::replies_to<fail_alloc_atom, std::uint32_t>::with<std::uint32_t>,  // -> failures now pending
    caf::replies_to<status_atom>::with<device_status>>;

// One per device, on its own thread: places a partition's inputs on the device (its own upload
// stream and pinned buffers) while the device computes the previous partition.
using stager_actor = caf::typed_actor<caf::replies_to<stage_request>::with<stage_result>>;

using assembler_actor = caf::typed_actor<                         //
    caf::replies_to<assemble_request>::with<assembly_ack>,        //
    caf::reacts_to<forget_atom, job_id>>;

// Answers a job_ticket when the job ends (succeeded, failed or canceled).
using scheduler_actor = caf::typed_actor<                         //
    caf::replies_to<job_ticket>::with<job_outcome>,               //
    caf::reacts_to<cancel_atom, job_id>,                          //
    caf::reacts_to<worker_replaced>,                              //
    caf::reacts_to<node_joined>,                                  //
    caf::reacts_to<node_lost_atom, std::uint64_t, std::string>,   //
    caf::replies_to<status_atom>::with<scheduler_status>>;

using intake_actor = caf::typed_actor<                            //
    caf::replies_to<job_spec>::with<job_id>,                      //
    caf::replies_to<await_atom, job_id>::with<job_outcome>,       //
    caf::replies_to<cancel_atom, job_id>::with<bool>,             //
    caf::reacts_to<forget_atom, job_id>,                          // a finished job's record is no longer needed
    caf::replies_to<status_atom>::with<intake_status>>;

// Coordinator side of a cluster, published on [cluster] listen: admits nodes (join handshake),
// heartbeats them, and tells the scheduler who joined and who was lost.
using registrar_actor = caf::typed_actor<                         //
    caf::replies_to<join_hello>::with<join_challenge>,            //
    caf::replies_to<join_request>::with<join_reply>,              //
    caf::replies_to<ping_atom, std::uint64_t>::with<bool>,        // a node's heartbeat: still a member?
    caf::reacts_to<tick_atom>,                                    //
    caf::replies_to<status_atom>::with<registrar_status>>;

// Worker side: joins the coordinator, proves the partitions it is sent on the local engine.
using node_agent_actor = caf::typed_actor<                        //
    caf::replies_to<node_task>::with<node_result>,                //
    caf::replies_to<ping_atom>::with<std::uint64_t>,              // the registrar's heartbeat -> node id
    caf::reacts_to<tick_atom>,                                    //
    caf::replies_to<status_atom>::with<agent_status>>;

// The supervisor is a dynamically typed actor (it handles down messages of every worker):
//   (roster_atom) -> roster
//   (status_atom) -> supervisor_status
//   (kill_atom, role, uint32 slot) -> bool       test hook: exit_reason::kill to a worker
//   (fail_alloc_atom, uint32 device, uint32 n) -> bool   chaos hook: that device's next n
//                                                 allocations fail (false: no such device)
//   (shutdown_atom) -> bool                      stops every worker, then itself

// The one registration function: every actor system of the engine (and every remote node) calls
// it, so both ends of a connection register the same types under the same names.
void register_messages(caf::actor_system_config& cfg);

}  // namespace cuzk::msg
