// Key store: proving keys by path, in tiers cold -> warm (parsed) -> hot (evaluator built, host
// grant) -> resident on a device (the device's load_key, after its VRAM budget granted the bytes).
// Answers acquire (a lease once the key is hot; the first acquire starts the one load and build),
// acquire on a device (a resident lease, or an empty handle: the device uploads the points per
// proof), describe (fingerprint, verifying key) and evict. Leases are shared_ptr counts; eviction
// is LRU among unleased entries, and a hot key takes its residents with it. One admission rule
// (admission_bytes) decides residency with or without shifted sets. Keys are loaded by
// fil::load_circuit_key (fil/key.hpp: a Filecoin `.params` path's digest checked when verify_params,
// PoRep keys map their compact evaluator); a key's partition buffers and held grants live with it.
// docs/architecture.md "Memory owners" has the whole story.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <set>

#include "actors/key_store.hpp"
#include "actors/stager.hpp"
#include "caf/all.hpp"
#include "fil/key.hpp"
#include "fil/partition.hpp"
#include "zk/error.hpp"
#include "zk/groth16/b2_plan.hpp"
#include "zk/groth16/pce_compact.hpp"
#include "zk/groth16/prover.hpp"
#include "zk/io/bellperson.hpp"

namespace cuzk::actors {

namespace {

// The blocking half, on its own thread: parse the zkey, build the evaluator.
key_worker_actor::behavior_type key_worker(key_worker_actor::pointer self, key_load_options options) {
  fil::key_options load;  // the loader's part of the options; its event lines as the key store's
  load.param_digests = options.param_digests;
  load.evaluator_dir = options.evaluator_dir;
  load.record_threads = options.record_threads;
  if (options.on_event)
    load.on_event = [on_event = options.on_event](const std::string& line) { on_event("key store: " + line); };
  auto guarded = [](auto&& fn) -> caf::result<key_handle> {
    try {
      return fn();
    } catch (const zk::input_error& e) {
      return make_error(errc::bad_input, e.what());
    } catch (const fil::not_implemented& e) {
      return make_error(errc::invalid_request, e.what());
    } catch (const std::exception& e) {
      return make_error(errc::worker_failed, e.what());
    }
  };
  return {
      [](describe_atom, const std::string& path) -> caf::result<key_summary> {
        try {
          if (fil::circuit_for_params(path)) {  // a .params file: its vk heads it (no fingerprint)
            auto p = zk::io::bellperson_params::open(path);
            return key_summary{path, {}, verifier_handle{std::make_shared<const zk::groth16::verifying_key>(std::move(p.vk))}};
          }
          auto h = zk::io::zkey_header::read(path);
          return key_summary{path, h.fingerprint,
                             verifier_handle{std::make_shared<const zk::groth16::verifying_key>(std::move(h.vk))}};
        } catch (const zk::input_error& e) {
          return make_error(errc::bad_input, e.what());
        } catch (const std::exception& e) {
          return make_error(errc::worker_failed, e.what());
        }
      },
      [guarded, options, load](load_atom, const std::string& path) -> caf::result<key_handle> {
        return guarded([&] {
          auto ck = std::make_shared<circuit_key>(fil::load_circuit_key(path, load));
          const auto& key = ck->zkey;
          key_handle h;
          h.path = path;
          const std::uint64_t d = key->domain_size, fr_bytes = sizeof(zk::bls12_381::fr);
          h.synthesis_bytes = 3 * d * fr_bytes;                           // a, b, c
          if (fil::circuit_for_params(path) || key->synthetic)
            h.synthesis_bytes += 2 * key->n_vars * fr_bytes;  // witness, twice
          // One staged partition on a device: a, b, c (h is computed in a's place) and the witness.
          h.device_bytes = zk::groth16::staged_bytes(d, key->n_vars, false);
          // A compact evaluator (PoRep; a synthetic key's, built below) goes resident with the key on a
          // GPU, whose partitions then stage their witness only (a, b, c are the key's).
          bool witness_only = false;
          if (options.device_synthesis && ((ck->evaluator && ck->evaluator->compact()) || key->synthetic)) {
            h.device_witness_bytes = zk::groth16::staged_bytes(d, key->n_vars, true);
            // Its partitions are synthesized witness-only (the scheduler asks so whenever
            // device_witness_bytes is set): they hold the circuit's values and the witness, not a,
            // b, c (8.4 of 21.35 GB at 32 GiB), and so does a set kept with the key.
            witness_only = fil::circuit_for_params(path) || key->synthetic;
            if (witness_only) h.synthesis_bytes = 2 * key->n_vars * fr_bytes;
          }
          if (!ck->evaluator) {
            ck->evaluator_bytes = fil::evaluator_bytes(*key);
          } else {
            // One partition's buffers kept between partitions, reserved with the key (a partition in
            // flight is accounted by its own reservation; a kept set by this one, or by a partition's
            // grant that the buffers hold: partition_buffers.hpp, counting a kept set once).
            const std::size_t kept = std::max<std::size_t>(1, options.kept_partitions);
            ck->buffers = std::make_shared<zk::groth16::partition_buffers>(kept);
            ck->evaluator_bytes += kept * h.synthesis_bytes;
            // Made and written now, not by the first partition (partition_buffers::prefill).
            const std::size_t inputs = std::size_t{key->n_public} + 1;
            ck->buffers->prefill(inputs, key->n_vars - inputs, witness_only ? 0 : d, zk::default_pool());
          }
          // B2's host part on a key whose points are only on its devices: the host copy of its B2
          // points, made by its first proof with B2 on the host, reserved now with the key (so the
          // budget counts it before it exists) and gone with it.
          if (options.b2_host_copy) {
            const auto kp = zk::groth16::points_of(*key);
            if (!kp.points_on_host() && !kp.b2.empty()) {
              ck->b2_host = std::make_shared<zk::groth16::b2_host_points>();
              ck->b2_host_bytes = zk::groth16::b2_host_points::bytes(kp.b2.size());
              ck->evaluator_bytes += ck->b2_host_bytes;
            }
          }
          h.ptr = std::move(ck);
          return h;
        });
      },
      [guarded](build_atom, key_handle& h) -> caf::result<key_handle> {
        return guarded([&] {
          if (!h.ptr || !h.ptr->zkey) throw std::runtime_error("key store: build of a key that is not loaded");
          if (h.ptr->evaluator) return h;  // came with its evaluator (a PoRep key's compact one)
          auto ck = std::make_shared<circuit_key>(*h.ptr);
          ck->evaluator = fil::build_evaluator(*ck->zkey);
          key_handle out = h;
          out.ptr = std::move(ck);
          return out;
        });
      },
  };
}

struct key_entry {
  enum class stage { idle, loading, reserving, building, hot };
  stage st = stage::idle;
  key_handle handle;  // warm: zkey only; hot: zkey + evaluator
  keepalive reservation;
  std::uint64_t bytes = 0, last_used = 0, ticket = 0;
  std::vector<caf::typed_response_promise<key_handle>> waiters;
  std::map<std::uint32_t, b2_plan_status> b2_plans;  // by device: its latest B2 plan for this key (kept across loads)
};

// The tier above hot: one key's points on one device.
struct resident_entry {
  enum class stage { idle, sizing, waiting, loading, resident };
  stage st = stage::idle;
  resident_handle handle;  // resident: the lease the store keeps
  key_handle key;          // while sizing and loading: the hot key it is made from (a lease)
  std::weak_ptr<const zk::io::zkey> made_from;  // resident: that key (no lease: it does not pin hot)
  bool sets = true;        // with shifted sets (false once the sized grant exceeded the budget)
  unsigned staged = 1;     // staged partitions admitted beside it (admission_bytes)
  std::uint64_t bytes = 0, last_used = 0, ticket = 0;
  std::vector<caf::typed_response_promise<resident_handle>> waiters;
};

struct device_tier {
  device_actor device;
  budget_actor vram;
  std::map<std::string, resident_entry> keys;
  std::uint64_t loads = 0, evictions = 0;
};

struct key_store_state {
  key_store_state() = default;  // not an aggregate: CAF would construct it from the actor pointer
  budget_actor host_budget;
  std::vector<device_tier> devices;
  bool tick_pending = false;
  std::uint64_t cache_bytes = 0;
  unsigned staged_partitions = 1;  // key_load_options::staged_partitions: the admission rule's
  key_worker_actor worker;
  std::map<std::string, key_entry> keys;
  std::map<std::string, key_summary> summaries;
  std::uint64_t loads = 0, builds = 0, records = 0, evictions = 0, next_ticket = 1;
  std::function<void(const std::string&)> on_event;  // key_load_options::on_event: the B2 plan lines too
};

using store_ptr = key_store_actor::stateful_pointer<key_store_state>;

// An error of a request the key store made (to its key worker, the host budget, a device or its
// VRAM budget), as the key store answers its own requesters. CAF's request_receiver_down (that actor
// died under the request; the supervisor replaces budgets and devices) becomes worker_failed naming
// it: passed on as it is, it reads as the key store itself being gone, and the scheduler then sends
// the store nothing more until a replacement that never comes for a live store (a fault-injection
// run stalled so, every job queued, after the host budget died under a key's load).
caf::error from_downstream(const char* who, caf::error err) {
  if (receiver_down(err))
    return make_error(errc::worker_failed, std::string("key store: the ") + who + " died under the request");
  return err;
}

void fail_waiters(key_entry& e, const caf::error& err) {
  for (auto& w : e.waiters) w.deliver(err);
  e.waiters.clear();
  e.st = key_entry::stage::idle;
  e.handle = {};
  e.reservation = {};
}

std::uint32_t leases(const key_entry& e) {
  return e.handle.ptr ? static_cast<std::uint32_t>(e.handle.ptr.use_count() - 1) : 0;
}
std::uint32_t leases(const resident_entry& r) {
  return r.handle.ptr ? static_cast<std::uint32_t>(r.handle.ptr.use_count() - 1) : 0;
}

void drop_resident(device_tier& dev, resident_entry& r) {
  r.st = resident_entry::stage::idle;
  r.handle = {};  // the grant returns with the last lease
  r.key = {};
  r.made_from.reset();
  r.bytes = 0;
  ++dev.evictions;
}

// A hot key leaves: its unleased residents go (a leased one goes with its last lease).
void drop_residents_of(key_store_state& st, const std::string& path) {
  for (auto& dev : st.devices) {
    auto it = dev.keys.find(path);
    if (it == dev.keys.end()) continue;
    if (it->second.st == resident_entry::stage::resident) drop_resident(dev, it->second);
  }
}

void evict(store_ptr self, bool everything_unleased) {
  auto& st = self->state;
  auto hot_bytes = [&] {
    std::uint64_t n = 0;
    for (auto& [p, e] : st.keys)
      if (e.st == key_entry::stage::hot) n += e.bytes;
    return n;
  };
  for (;;) {
    if (!everything_unleased && (st.cache_bytes == 0 || hot_bytes() <= st.cache_bytes)) return;
    key_entry* lru = nullptr;
    for (auto& [p, e] : st.keys)
      if (e.st == key_entry::stage::hot && leases(e) == 0 && (!lru || e.last_used < lru->last_used)) lru = &e;
    if (!lru) return;
    for (auto& [p, e] : st.keys)
      if (&e == lru) drop_residents_of(st, p);
    lru->st = key_entry::stage::idle;
    lru->handle = {};
    lru->reservation = {};  // returns the bytes to the host budget
    lru->bytes = 0;
    ++st.evictions;
  }
}

void reserve_and_build(store_ptr self, const std::string& path);

void start_load(store_ptr self, const std::string& path) {
  auto& e = self->state.keys[path];
  e.st = key_entry::stage::loading;
  auto ticket = e.ticket = self->state.next_ticket++;
  ++self->state.loads;
  self->request(self->state.worker, caf::infinite, load_atom::value, path)
      .then(
          [self, path, ticket](key_handle& h) {
            auto& e = self->state.keys[path];
            if (e.ticket != ticket) return;
            if (h.ptr && h.ptr->evaluator_recorded) ++self->state.records;
            e.handle = std::move(h);  // warm
            reserve_and_build(self, path);
          },
          [self, path, ticket](caf::error& err) {
            auto& e = self->state.keys[path];
            if (e.ticket == ticket) fail_waiters(e, from_downstream("key worker", std::move(err)));
          });
}

void reserve_and_build(store_ptr self, const std::string& path) {
  auto& st = self->state;
  auto& e = st.keys[path];
  e.st = key_entry::stage::reserving;
  auto ticket = e.ticket = st.next_ticket++;
  auto budget = st.host_budget;
  // A key's room comes before the idle sets that other keys keep under held partition grants
  // (partition_buffers.hpp, counting a kept set once): those grants go back to the budget now.
  // Held, they return to it only with their key, so this request could otherwise wait behind them
  // for as long as that key stays hot (a WindowPoSt key's load behind an idle PoRep key's sets).
  for (auto& [other_path, other] : st.keys)
    if (other_path != path && other.handle.ptr && other.handle.ptr->buffers) other.handle.ptr->buffers->release_held();
  reserve_request req{e.handle.ptr->evaluator_bytes, caf::actor_cast<caf::actor_addr>(self), "evaluator of " + path};
  self->request(budget, caf::infinite, std::move(req))
      .then(
          [self, path, ticket, budget](reservation& grant) {
            auto token = make_reservation_token(budget, grant);
            auto& e = self->state.keys[path];
            if (e.ticket != ticket) return;  // token dies here: the grant goes back
            e.reservation = std::move(token);
            e.bytes = grant.bytes;
            e.st = key_entry::stage::building;
            auto t2 = e.ticket = self->state.next_ticket++;
            ++self->state.builds;
            self->request(self->state.worker, caf::infinite, build_atom::value, e.handle)
                .then(
                    [self, path, t2](key_handle& h) {
                      auto& e = self->state.keys[path];
                      if (e.ticket != t2) return;
                      e.handle = std::move(h);
                      e.st = key_entry::stage::hot;
                      e.last_used = now_us();
                      for (auto& w : e.waiters) w.deliver(e.handle);
                      e.waiters.clear();
                      evict(self, false);
                    },
                    [self, path, t2](caf::error& err) {
                      auto& e = self->state.keys[path];
                      if (e.ticket == t2) fail_waiters(e, from_downstream("key worker", std::move(err)));
                    });
          },
          [self, path, ticket](caf::error& err) {
            auto& e = self->state.keys[path];
            if (e.ticket == ticket) fail_waiters(e, from_downstream("host budget", std::move(err)));
          });
}

void fail_residency(resident_entry& r, const caf::error& err) {
  for (auto& w : r.waiters) w.deliver(err);
  r.waiters.clear();
  r.st = resident_entry::stage::idle;
  r.key = {};
}

void answer_residency(resident_entry& r, const resident_handle& h) {
  for (auto& w : r.waiters) w.deliver(h);
  r.waiters.clear();
}

void schedule_tick(store_ptr self) {
  if (self->state.tick_pending) return;
  self->state.tick_pending = true;
  self->delayed_send(self, std::chrono::milliseconds(20), tick_atom::value);
}

// The entry an answer is for, while it still waits for that answer (its ticket); null once it
// moved on (evicted, made again, its device replaced).
resident_entry* awaiting(store_ptr self, std::uint32_t d, const std::string& path, std::uint64_t ticket) {
  auto& st = self->state;
  if (d >= st.devices.size()) return nullptr;
  auto it = st.devices[d].keys.find(path);
  return it != st.devices[d].keys.end() && it->second.ticket == ticket ? &it->second : nullptr;
}

void load_resident(store_ptr self, std::uint32_t d, const std::string& path, keepalive grant);

// The room one staged partition takes beside a resident key: its witness alone when the key goes
// resident with its compact evaluator (the device's a, b, c are counted in the key's bytes), else
// a, b, c and the witness.
std::uint64_t staged_room(const key_handle& k) { return staging_grant_bytes(k, k.device_witness_bytes > 0); }

// The admission rule of the resident tier, its one place: a key of `bytes` (the device's grant,
// describe) goes resident only where the VRAM budget has room for it and, beside it, `staged` of
// its staged partitions. Where the budget's capacity allows, that is
// key_load_options::staged_partitions (the engine's config::staged_partitions, by default
// max(2, device_depth): the partition that asked holds this device's stager slot and asks for its
// staging grant next, then the one proving and the one waiting in the device's mailbox); the GPU's sets plan leaves the same room (backend_settings::
// staged_partitions, key_placement.hpp's shift_policy::staged), so a key made with its shifted sets
// and one made without them are admitted alike, and the device's reserve step finds room for the
// slots it makes. A key that does not leave that room with its sets is made without them; one that
// does not leave it even then is admitted with room for one staged partition (it proves at depth
// one, its partitions staged one at a time: slower than the full depth, far faster than uploading
// its points for every proof); larger still, it does not go resident.
std::uint64_t admission_bytes(const resident_entry& r, unsigned staged) {
  return r.bytes + std::uint64_t(staged) * staged_room(r.key);
}

// Asks device d's VRAM budget how full it is, for entry `path` (a new ticket): `then` runs with the
// entry and the answer unless the entry moved on meanwhile. No answer (the budget is being
// replaced): the entry waits and asks again on the tick.
template <class F>
void with_vram_status(store_ptr self, std::uint32_t d, const std::string& path, F then) {
  auto& st = self->state;
  auto ticket = st.devices[d].keys[path].ticket = st.next_ticket++;
  self->request(st.devices[d].vram, caf::infinite, status_atom::value)
      .then(
          [self, d, path, ticket, then](budget_status& b) {
            if (auto* r = awaiting(self, d, path, ticket)) then(*r, b);
          },
          [self, d, path, ticket](caf::error&) {
            if (auto* r = awaiting(self, d, path, ticket)) {
              r->st = resident_entry::stage::waiting;
              schedule_tick(self);
            }
          });
}

// Room on device d for entry `path` (sized): its unleased residents go, LRU first, until the budget
// has admission_bytes free: the key's and its staged partitions' (the partition that asked holds
// this device's stager slot and asks for its staging grant next: a key granted into the last free
// bytes would starve it while the idle residents kept their room). Then the grant, asked for
// without queueing. Not yet (leases hold the room): waits for the tick.
void try_reserve(store_ptr self, std::uint32_t d, const std::string& path) {
  self->state.devices[d].keys[path].st = resident_entry::stage::waiting;
  with_vram_status(self, d, path, [self, d, path](resident_entry& r, const budget_status& b) {
    auto& st = self->state;
    auto& dev = st.devices[d];
    auto vram = dev.vram;
    std::uint64_t free = free_bytes(b);
    const std::uint64_t need = admission_bytes(r, r.staged);
    while (free < need) {
      resident_entry* lru = nullptr;
      for (auto& [p, e] : dev.keys)
        if (e.st == resident_entry::stage::resident && leases(e) == 0 && (!lru || e.last_used < lru->last_used))
          lru = &e;
      if (!lru) break;
      free += lru->bytes;
      drop_resident(dev, *lru);
    }
    if (free < need) {
      schedule_tick(self);  // leases hold the room: asked again on the tick
      return;
    }
    reserve_request req{r.bytes, caf::actor_cast<caf::actor_addr>(self), "resident points of " + path, true};
    auto t2 = r.ticket = st.next_ticket++;
    self->request(vram, caf::infinite, std::move(req))
        .then(
            [self, d, path, t2, vram](reservation& grant) {
              auto token = make_reservation_token(vram, grant);
              auto* found = awaiting(self, d, path, t2);
              if (!found) return;  // the token dies here: the grant goes back
              load_resident(self, d, path, std::move(token));
            },
            [self, d, path, t2](caf::error&) {
              auto* found = awaiting(self, d, path, t2);
              if (!found) return;
              schedule_tick(self);  // leases still hold the room: asked again on the tick
            });
  });
}

void load_resident(store_ptr self, std::uint32_t d, const std::string& path, keepalive grant) {
  auto& st = self->state;
  auto& dev = st.devices[d];
  auto& r = dev.keys[path];
  r.st = resident_entry::stage::loading;
  auto ticket = r.ticket = st.next_ticket++;
  ++dev.loads;
  self->request(dev.device, caf::infinite, load_atom::value, r.key, r.sets)
      .then(
          [self, d, path, ticket, grant](resident_handle& made) {
            auto* found = awaiting(self, d, path, ticket);
            if (!found) return;
            auto& r = *found;
            auto res = std::make_shared<device_resident>();
            res->key = made.ptr ? made.ptr->key : nullptr;
            res->bytes = r.bytes;
            if (self->state.on_event && res->key)  // how the device laid it out (a GPU key: its shifted sets)
              if (auto line = res->key->describe(); !line.empty())
                self->state.on_event("key store: " + path + " resident on device " + std::to_string(d) + " (grant " +
                                     std::to_string(r.bytes / 1000000) + " MB" + (r.sets ? "" : ", sized without sets") +
                                     (r.staged < self->state.staged_partitions ? ", room for one staged partition" : "") +
                                     "): " + line);
            res->grant = grant;
            r.handle = resident_handle{path, d, std::move(res)};
            r.made_from = r.key.ptr ? r.key.ptr->zkey : nullptr;
            r.key = {};
            r.st = resident_entry::stage::resident;
            r.last_used = now_us();
            answer_residency(r, r.handle);
          },
          [self, d, path, ticket](caf::error& err) {
            // the grant's token dies with the lambda
            if (auto* r = awaiting(self, d, path, ticket)) fail_residency(*r, from_downstream("device", std::move(err)));
          });
}

// Sizes entry `path` on device d (the device's backend says what its resident points and proof
// scratch take), then makes room for it.
void start_residency(store_ptr self, std::uint32_t d, const std::string& path) {
  auto& st = self->state;
  auto& dev = st.devices[d];
  auto& r = dev.keys[path];
  r.st = resident_entry::stage::sizing;
  auto ticket = r.ticket = st.next_ticket++;
  self->request(dev.device, caf::infinite, describe_atom::value, r.key, r.sets)
      .then(
          [self, d, path, ticket](std::uint64_t bytes) {
            auto* found = awaiting(self, d, path, ticket);
            if (!found) return;
            auto& r = *found;
            r.bytes = bytes;
            if (bytes == 0) {  // the backend keeps nothing (a CPU): resident at no cost
              load_resident(self, d, path, keepalive{});
              return;
            }
            with_vram_status(self, d, path, [self, d, path](resident_entry& r, const budget_status& b) {
              // It must leave room for its staged partitions (admission_bytes).
              const unsigned full = self->state.staged_partitions;
              if (admission_bytes(r, full) <= b.capacity) {
                r.staged = full;
                try_reserve(self, d, path);
              } else if (r.sets) {
                r.sets = false;  // too large with its shifted sets: sized again without
                start_residency(self, d, path);
              } else if (full > 1 && admission_bytes(r, 1) <= b.capacity) {
                r.staged = 1;  // at depth one rather than its points uploaded for every proof
                try_reserve(self, d, path);
              } else {
                // Larger than the whole budget: no residency; the device uploads the
                // points for each proof (and the proof fails there if they do not fit).
                r.st = resident_entry::stage::idle;
                answer_residency(r, resident_handle{path, d, nullptr});
                r.key = {};
              }
            });
          },
          [self, d, path, ticket](caf::error& err) {
            if (auto* r = awaiting(self, d, path, ticket)) fail_residency(*r, from_downstream("device", std::move(err)));
          });
}

// The log line of a device's B2 plan for a key: the mode, the host's share, the model's
// predictions (device alone, host alone, this plan) and its line.
std::string b2_plan_line(const std::string& path, const b2_plan_status& p) {
  char buf[256];
  const double share = p.points ? 100.0 * double(p.host_points) / double(p.points) : 0;
  std::snprintf(buf, sizeof buf,
                " on device %u: %s, %llu of %llu points on the host (%.1f%%); predicted %.1f ms "
                "(all on the device %.1f ms, all on the host %.1f ms); rates device %.4g, host %.4g points/s: ",
                unsigned(p.device), p.mode.c_str(), static_cast<unsigned long long>(p.host_points),
                static_cast<unsigned long long>(p.points), share, p.predicted_ms, p.predicted_device_ms,
                p.predicted_host_ms, p.device_rate, p.host_rate);
  return "B2 plan for " + path + buf + p.why;
}

namespace {
// The key's compact evaluator (PoRep) is known to be damaged: its mapping read zeros, or a failed
// proof's diagnosis found its bytes changed.
bool evaluator_damaged(const circuit_key& k) {
  const auto* c = k.evaluator ? k.evaluator->compact() : nullptr;
  return c && c->damaged();
}
}  // namespace

key_store_actor::behavior_type key_store(store_ptr self, budget_actor host_budget, std::uint64_t cache_bytes,
                                         key_load_options load,
                                         std::vector<device_actor> devices, std::vector<budget_actor> vram) {
  self->state.host_budget = std::move(host_budget);
  self->state.cache_bytes = cache_bytes;
  self->state.staged_partitions = std::max(1u, load.staged_partitions);
  for (std::size_t d = 0; d < devices.size(); ++d)
    self->state.devices.push_back(device_tier{devices[d], d < vram.size() ? vram[d] : budget_actor{}, {}, 0, 0});
  self->state.on_event = load.on_event;
  self->state.worker = self->spawn<caf::detached + caf::linked>(key_worker, std::move(load));
  return {
      [self](acquire_atom, const std::string& path) -> caf::result<key_handle> {
        auto& e = self->state.keys[path];
        e.last_used = now_us();
        if (e.st == key_entry::stage::hot && (!e.handle.ptr->zkey->intact() || evaluator_damaged(*e.handle.ptr))) {
          // The file shrank under the mapping (zk::io::guard_mapped_files): its points read as
          // zeros now; or its evaluator file did, or changed (found by a failed proof's diagnosis,
          // pce_compact::intact). Dropped; loaded again below (a truncated key file then fails with
          // the reason; a damaged evaluator is refused by its digest and recorded again).
          e.st = key_entry::stage::idle;
          e.handle = {};
          e.reservation = {};
          e.bytes = 0;
          ++self->state.evictions;
          self->state.summaries.erase(path);
          drop_residents_of(self->state, path);
        }
        if (e.st == key_entry::stage::hot) return e.handle;
        auto rp = self->make_response_promise<key_handle>();
        e.waiters.push_back(rp);
        if (e.st == key_entry::stage::idle) start_load(self, path);
        return rp;
      },
      [self](acquire_atom, key_handle& k, std::uint32_t d) -> caf::result<resident_handle> {
        auto& st = self->state;
        if (d >= st.devices.size() || !st.devices[d].device)
          return make_error(errc::worker_failed, "key store: no device " + std::to_string(d));
        if (!k.ptr || !k.ptr->zkey) return make_error(errc::worker_failed, "key store: residency of a key that is not hot");
        auto& r = st.devices[d].keys[k.path];
        r.last_used = now_us();
        // Made from another load of the key (evicted and loaded again since): made anew.
        if (r.st == resident_entry::stage::resident && r.made_from.lock() != k.ptr->zkey) drop_resident(st.devices[d], r);
        if (r.st == resident_entry::stage::resident) return r.handle;
        auto rp = self->make_response_promise<resident_handle>();
        r.waiters.push_back(rp);
        if (r.st == resident_entry::stage::idle) {
          r.key = std::move(k);
          r.sets = true;
          start_residency(self, d, r.key.path);
        }
        return rp;
      },
      [self](tick_atom) {
        auto& st = self->state;
        st.tick_pending = false;
        for (std::uint32_t d = 0; d < st.devices.size(); ++d)
          for (auto& [path, r] : st.devices[d].keys)
            if (r.st == resident_entry::stage::waiting) try_reserve(self, d, path);
      },
      [self](describe_atom, const std::string& path) -> caf::result<key_summary> {
        auto& st = self->state;
        if (auto it = st.summaries.find(path); it != st.summaries.end()) return it->second;
        auto rp = self->make_response_promise<key_summary>();
        self->request(st.worker, caf::infinite, describe_atom::value, path)
            .then(
                [self, rp, path](key_summary& s) mutable {
                  self->state.summaries[path] = s;
                  rp.deliver(std::move(s));
                },
                [rp](caf::error& e) mutable { rp.deliver(from_downstream("key worker", std::move(e))); });
        return rp;
      },
      [self](evict_atom) {
        self->state.summaries.clear();  // a key file replaced on disk is read again
        for (auto& dev : self->state.devices)
          for (auto& [p, r] : dev.keys)
            if (r.st == resident_entry::stage::resident && leases(r) == 0) drop_resident(dev, r);
        evict(self, true);
      },
      [self](evict_atom, const std::string& path) -> bool {
        auto it = self->state.keys.find(path);
        self->state.summaries.erase(path);
        if (it == self->state.keys.end() || it->second.st != key_entry::stage::hot || leases(it->second) > 0) return false;
        drop_residents_of(self->state, path);
        auto& e = it->second;
        e.st = key_entry::stage::idle;
        e.handle = {};
        e.reservation = {};  // returns the bytes to the host budget
        e.bytes = 0;
        ++self->state.evictions;
        return true;
      },
      [self](b2_plan_atom, const std::string& path, b2_plan_status& p) {
        // The latest plan per device, for the status; one line when it is new for this key and
        // device: the first, a mode that changed, or the model's first choice after a probe.
        auto it = self->state.keys.find(path);
        if (it == self->state.keys.end()) return;
        auto& last = it->second.b2_plans[p.device];
        const bool news = last.proofs == 0 || last.mode != p.mode || (last.predicted_ms > 0) != (p.predicted_ms > 0);
        p.proofs = last.proofs + 1;
        last = std::move(p);
        if (news && self->state.on_event) self->state.on_event(b2_plan_line(path, last));
      },
      [self](worker_replaced& r) {
        auto& st = self->state;
        if (r.who == role::device && r.slot < st.devices.size()) {
          // A new device: what the old one made stays valid while leased (device memory outlives
          // the actor); loads in flight there died with it and start again on the new one.
          auto& dev = st.devices[r.slot];
          dev.device = caf::actor_cast<device_actor>(r.fresh);
          for (auto& [path, e] : dev.keys)
            if (e.st == resident_entry::stage::sizing || e.st == resident_entry::stage::loading) {
              if (dev.device) start_residency(self, r.slot, path);
              else fail_residency(e, make_error(errc::worker_failed, "device " + std::to_string(r.slot) + " is gone"));
            }
          return;
        }
        if (r.who == role::vram_budget && r.slot < st.devices.size()) {
          st.devices[r.slot].vram = caf::actor_cast<budget_actor>(r.fresh);  // it inherits the grants
          schedule_tick(self);
          return;
        }
        if (r.who != role::host_budget || !r.fresh) return;
        st.host_budget = caf::actor_cast<budget_actor>(r.fresh);
        // The new budget inherits the dead one's grants (the supervisor hands it the ledger), so
        // the hot keys stay accounted as they are; only reservations that were waiting in the
        // dead one's queue died with it: restart them.
        for (auto& [path, e] : st.keys)
          if (e.st == key_entry::stage::reserving) reserve_and_build(self, path);
      },
      [self](status_atom) -> key_store_status {
        auto& st = self->state;
        key_store_status s;
        s.loads = st.loads;
        s.evaluator_builds = st.builds;
        s.evaluator_records = st.records;
        s.evictions = st.evictions;
        for (std::uint32_t d = 0; d < st.devices.size(); ++d) {
          residency_status rs;
          rs.device = d;
          rs.loads = st.devices[d].loads;
          rs.evictions = st.devices[d].evictions;
          for (auto& [path, r] : st.devices[d].keys) {
            if (r.st == resident_entry::stage::resident) {
              ++rs.keys;
              rs.resident_bytes += r.bytes;
            }
          }
          s.devices.push_back(rs);
        }
        for (auto& [path, e] : st.keys) {
          key_status k;
          k.path = path;
          for (std::uint32_t d = 0; d < st.devices.size(); ++d) {
            auto it = st.devices[d].keys.find(path);
            if (it != st.devices[d].keys.end() && it->second.st == resident_entry::stage::resident) {
              k.resident_on.push_back(d);
              const auto& h = it->second.handle;
              k.placement_on.push_back(h.ptr && h.ptr->key ? h.ptr->key->placement() : "resident");
            }
          }
          k.tier = e.st == key_entry::stage::hot  ? key_tier::hot
                   : e.handle.ptr                 ? key_tier::warm
                                                  : key_tier::cold;
          k.leases = leases(e);
          k.bytes = e.bytes;
          if (e.handle.ptr && e.handle.ptr->buffers) {
            k.buffers_reused = e.handle.ptr->buffers->reused();
            k.buffers_fresh = e.handle.ptr->buffers->fresh();
            k.buffers_held_grants = e.handle.ptr->buffers->grants_held();
            k.buffers_held_bytes = e.handle.ptr->buffers->held_bytes();
            k.buffers_grants_out = e.handle.ptr->buffers->grants_out();
          }
          if (e.handle.ptr) k.b2_host_bytes = e.handle.ptr->b2_host_bytes;
          for (auto& [d, p] : e.b2_plans) k.b2_plans.push_back(p);
          if (e.reservation.ptr) s.reserved_bytes += e.bytes;
          s.keys.push_back(std::move(k));
        }
        return s;
      },
  };
}

}  // namespace

key_store_actor spawn_key_store(caf::actor_system& sys, budget_actor host_budget, std::uint64_t key_cache_bytes,
                                key_load_options load,
                                std::vector<device_actor> devices, std::vector<budget_actor> vram_budgets) {
  return sys.spawn(key_store, std::move(host_budget), key_cache_bytes, std::move(load), std::move(devices),
                   std::move(vram_budgets));
}

}  // namespace cuzk::actors
