// Key store (SRS manager): proving keys by path, in tiers.
//   cold: not loaded;  warm: zkey parsed (points mapped);  hot: constraint evaluator built.
// acquire() answers with a lease (a key_handle sharing the entry's pointer) once the key is hot.
// The first acquire of a cold key starts ONE load and ONE evaluator build, the latter only after
// the host budget granted its estimated bytes; every other acquire of that key waits for it.
// Leases are reference counts: a hot key is evictable when nobody but the store holds its pointer.
// Eviction is LRU among unleased keys, when the hot keys exceed key_cache_bytes, or on evict_atom.
// A Filecoin key is a `.params` path: the same tiers, with its circuit recorded at load
// (load_proving_key) and its parameters.json digest checked there when [filecoin] verify_params.
#include <filesystem>
#include <map>
#include <set>

#include "actors/actors.hpp"
#include "caf/all.hpp"
#include "fil/partition.hpp"
#include "zk/error.hpp"
#include "zk/io/bellperson.hpp"

namespace cuzk::actors {

std::shared_ptr<const zk::io::zkey> load_proving_key(const std::string& path,
                                                     const std::map<std::string, std::string>* digests) {
  auto circuit = fil::circuit_for_params(path);
  if (!circuit) return std::make_shared<const zk::io::zkey>(zk::io::zkey::load(path));
  if (!std::filesystem::exists(path)) throw zk::input_error(path + ": params file not found");
  if (digests && !digests->empty()) {
    const auto name = std::filesystem::path(path).filename().string();
    auto it = digests->find(name);
    if (it == digests->end()) throw zk::input_error(path + ": not listed in parameters.json (verify_params is on)");
    auto got = zk::io::parameters_json_digest(path);
    if (got != it->second)
      throw zk::input_error(path + ": digest " + got + " differs from parameters.json's " + it->second);
  }
  return std::make_shared<const zk::io::zkey>(fil::proving_key(path, *circuit));
}

namespace {

// The blocking half, on its own thread: parse the zkey, build the evaluator.
key_worker_actor::behavior_type key_worker(key_worker_actor::pointer self,
                                           std::shared_ptr<const std::map<std::string, std::string>> digests) {
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
          auto h = zk::io::zkey_header::read(path);
          return key_summary{path, h.fingerprint,
                             verifier_handle{std::make_shared<const zk::groth16::verifying_key>(std::move(h.vk))}};
        } catch (const zk::input_error& e) {
          return make_error(errc::bad_input, e.what());
        } catch (const std::exception& e) {
          return make_error(errc::worker_failed, e.what());
        }
      },
      [guarded, digests](load_atom, const std::string& path) -> caf::result<key_handle> {
        return guarded([&] {
          auto key = load_proving_key(path, digests.get());
          auto ck = std::make_shared<circuit_key>();
          ck->zkey = key;
          ck->evaluator_bytes = zk::groth16::constraint_evaluator::estimate_bytes(*key);
          key_handle h;
          h.path = path;
          const std::uint64_t d = key->domain_size, fr_bytes = sizeof(zk::bls12_381::fr);
          h.synthesis_bytes = 3 * d * fr_bytes;                           // a, b, c
          if (fil::circuit_for_params(path)) h.synthesis_bytes += 2 * key->n_vars * fr_bytes;  // witness, twice
          h.device_bytes = 4 * d * fr_bytes + key->n_vars * fr_bytes;     // NTT scratch, h, scalars
          h.ptr = std::move(ck);
          return h;
        });
      },
      [guarded](build_atom, key_handle& h) -> caf::result<key_handle> {
        return guarded([&] {
          if (!h.ptr || !h.ptr->zkey) throw std::runtime_error("key store: build of a key that is not loaded");
          auto ck = std::make_shared<circuit_key>(*h.ptr);
          auto eval = zk::groth16::constraint_evaluator::build(*ck->zkey);
          ck->evaluator = std::make_shared<const zk::groth16::constraint_evaluator>(std::move(eval));
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
};

struct key_store_state {
  key_store_state() = default;  // not an aggregate: CAF would construct it from the actor pointer
  budget_actor host_budget;
  std::uint64_t cache_bytes = 0;
  key_worker_actor worker;
  std::map<std::string, key_entry> keys;
  std::map<std::string, key_summary> summaries;
  std::uint64_t loads = 0, builds = 0, evictions = 0, next_ticket = 1;
};

using store_ptr = key_store_actor::stateful_pointer<key_store_state>;

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
            e.handle = std::move(h);  // warm
            reserve_and_build(self, path);
          },
          [self, path, ticket](caf::error& err) {
            auto& e = self->state.keys[path];
            if (e.ticket == ticket) fail_waiters(e, err);
          });
}

void reserve_and_build(store_ptr self, const std::string& path) {
  auto& st = self->state;
  auto& e = st.keys[path];
  e.st = key_entry::stage::reserving;
  auto ticket = e.ticket = st.next_ticket++;
  auto budget = st.host_budget;
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
                      if (e.ticket == t2) fail_waiters(e, err);
                    });
          },
          [self, path, ticket](caf::error& err) {
            auto& e = self->state.keys[path];
            if (e.ticket == ticket) fail_waiters(e, err);
          });
}

key_store_actor::behavior_type key_store(store_ptr self, budget_actor host_budget, std::uint64_t cache_bytes,
                                         std::shared_ptr<const std::map<std::string, std::string>> digests) {
  self->state.host_budget = std::move(host_budget);
  self->state.cache_bytes = cache_bytes;
  self->state.worker = self->spawn<caf::detached + caf::linked>(key_worker, std::move(digests));
  return {
      [self](acquire_atom, const std::string& path) -> caf::result<key_handle> {
        auto& e = self->state.keys[path];
        e.last_used = now_us();
        if (e.st == key_entry::stage::hot && !e.handle.ptr->zkey->intact()) {
          // The file shrank under the mapping (zk::io::guard_mapped_files): its points read as
          // zeros now. Dropped; loaded again below (a truncated file then fails with the reason).
          e.st = key_entry::stage::idle;
          e.handle = {};
          e.reservation = {};
          e.bytes = 0;
          ++self->state.evictions;
          self->state.summaries.erase(path);
        }
        if (e.st == key_entry::stage::hot) return e.handle;
        auto rp = self->make_response_promise<key_handle>();
        e.waiters.push_back(rp);
        if (e.st == key_entry::stage::idle) start_load(self, path);
        return rp;
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
                [rp](caf::error& e) mutable { rp.deliver(std::move(e)); });
        return rp;
      },
      [self](evict_atom) {
        self->state.summaries.clear();  // a key file replaced on disk is read again
        evict(self, true);
      },
      [self](evict_atom, const std::string& path) -> bool {
        auto it = self->state.keys.find(path);
        self->state.summaries.erase(path);
        if (it == self->state.keys.end() || it->second.st != key_entry::stage::hot || leases(it->second) > 0) return false;
        auto& e = it->second;
        e.st = key_entry::stage::idle;
        e.handle = {};
        e.reservation = {};  // returns the bytes to the host budget
        e.bytes = 0;
        ++self->state.evictions;
        return true;
      },
      [self](worker_replaced& r) {
        if (r.who != role::host_budget || !r.fresh) return;
        auto& st = self->state;
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
        s.evictions = st.evictions;
        for (auto& [path, e] : st.keys) {
          key_status k;
          k.path = path;
          k.tier = e.st == key_entry::stage::hot  ? key_tier::hot
                   : e.handle.ptr                 ? key_tier::warm
                                                  : key_tier::cold;
          k.leases = leases(e);
          k.bytes = e.bytes;
          if (e.reservation.ptr) s.reserved_bytes += e.bytes;
          s.keys.push_back(std::move(k));
        }
        return s;
      },
  };
}

}  // namespace

key_store_actor spawn_key_store(caf::actor_system& sys, budget_actor host_budget, std::uint64_t key_cache_bytes,
                                std::shared_ptr<const std::map<std::string, std::string>> param_digests) {
  return sys.spawn(key_store, std::move(host_budget), key_cache_bytes, std::move(param_digests));
}

}  // namespace cuzk::actors
