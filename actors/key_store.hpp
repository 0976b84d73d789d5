// The key store (actors/key_store.cpp): proving keys by path in tiers, cold -> warm -> hot (host
// budget) -> resident on a device (that device's VRAM budget), leased to partitions, evicted LRU
// among unleased entries; and its blocking helper, the key worker.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "actors/budget.hpp"
#include "actors/device.hpp"
#include "actors/settings.hpp"
#include "actors/supervisor.hpp"
#include "caf/replies_to.hpp"
#include "caf/typed_actor.hpp"
#include "messages/common.hpp"

namespace cuzk::msg {

// A key as its header describes it (zk::io::zkey_header): read without loading the key's points.
struct key_summary {
  std::string path, fingerprint;
  verifier_handle vk;
  bool operator==(const key_summary&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, key_summary& x) {
  return f(caf::meta::type_name("key_summary"), x.path, x.fingerprint, x.vk);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, key_status& x) {
  return f(caf::meta::type_name("key_status"), x.path, x.tier, x.leases, x.bytes, x.resident_on, x.placement_on,
           x.buffers_reused, x.buffers_fresh, x.buffers_held_grants, x.buffers_held_bytes,
           x.buffers_grants_out, x.b2_host_bytes, x.b2_plans);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, residency_status& x) {
  return f(caf::meta::type_name("residency_status"), x.device, x.resident_bytes, x.keys, x.loads,
           x.evictions);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, key_store_status& x) {
  return f(caf::meta::type_name("key_store_status"), x.keys, x.loads, x.evaluator_builds, x.evictions,
           x.reserved_bytes, x.evaluator_records, x.devices);
}

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
    caf::reacts_to<b2_plan_atom, std::string, b2_plan_status>,    // a device's B2 plan for a key (the scheduler)
    caf::replies_to<status_atom>::with<key_store_status>>;

}  // namespace cuzk::msg

namespace cuzk::actors {

// How keys are loaded (param_digests, evaluator_dir, record_threads and on_event go to the one
// loader, fil::load_circuit_key: fil/key.hpp) and kept.
struct key_load_options {
  std::shared_ptr<const std::map<std::string, std::string>> param_digests;
  std::string evaluator_dir;
  unsigned record_threads = 0;  // a PoRep evaluator's recording: threads (0: the process pool)
  // A PoRep (or synthetic) key's partition buffers: how many partitions' sets it keeps between
  // partitions (at least 1), each reserved from the host budget with the key.
  std::size_t kept_partitions = 1;
  // One line when a PoRep evaluator's recording starts and one when it ends (called on the key
  // store's worker thread; the daemon logs them), and the key store's own lines.
  std::function<void(const std::string&)> on_event;
  // engine_settings::device_synthesis: a key with a compact evaluator goes resident on a GPU with
  // it and its partitions stage their witness only (key_handle::device_witness_bytes set).
  bool device_synthesis = false;
  // B2 may run on the host (engine b2 is not "device"): a key whose points are only on its devices
  // gets a host copy of its B2 points (circuit_key::b2_host), reserved from the host budget with it.
  bool b2_host_copy = false;
  // The admission rule of the resident tier: a key goes resident on a device only with room beside
  // it for this many of its staged partitions (backend_settings::staged_partitions, the engine's
  // config::staged_partitions: by default max(2, device_depth), at depth 2 one proving, one waiting
  // in the device's mailbox, the next staged as it is proved), the number the GPU's sets plan leaves free
  // (key_placement.hpp).
  unsigned staged_partitions = 1;
};

// The key store, with each device and its VRAM budget (devices[d], vram_budgets[d]) for the
// resident tier.
key_store_actor spawn_key_store(caf::actor_system& sys, budget_actor host_budget, std::uint64_t key_cache_bytes,
                                key_load_options load = {}, std::vector<device_actor> devices = {},
                                std::vector<budget_actor> vram_budgets = {});

}  // namespace cuzk::actors
