// Synthesizer: one partition at a time, witness -> a = A·w, b = B·w, c = a∘b, on its own thread
// (spawned detached, so the CPU-heavy work never blocks CAF's scheduler threads). In-process the
// key comes as a lease; on another node it gets the key's path and loads it once itself. A
// Filecoin partition brings vanilla proofs, run through the circuit in witness mode; a PoRep key
// writes into its kept partition buffers, so the next partition reuses the memory. Witness-only
// requests (the GPU evaluates a, b, c) skip a, b, c. A PoRep job's C1 output is read once per
// job and shared by its partitions (c1_cache).
#include <future>
#include <map>
#include <mutex>

#include "actors/synthesizer.hpp"
#include "actors/key_store.hpp"
#include "actors/faults.hpp"
#include "caf/all.hpp"
#include "fil/key.hpp"
#include "fil/partition.hpp"
#include "zk/cs/export.hpp"
#include "zk/error.hpp"
#include "zk/groth16/pce_compact.hpp"
#include "zk/util/pool_rank.hpp"

namespace cuzk::actors {

namespace {

struct synthesizer_state {
  synthesizer_state() = default;  // not an aggregate: CAF would construct it from the actor pointer
  std::uint32_t slot = 0;
  std::unique_ptr<fault_coin> coin;
  std::unique_ptr<zk::thread_pool> own_pool;  // threads > 0
  zk::thread_pool& pool() { return own_pool ? *own_pool : zk::default_pool(); }
  std::map<std::string, std::shared_ptr<const circuit_key>> local_keys;  // remote use only
};

using synth_ptr = synthesizer_actor::stateful_pointer<synthesizer_state>;

// The parsed C1 outputs of the PoRep jobs in flight, by their input (one per job, shared by the
// synthesizers of a process): the first asker reads, the others wait for its answer (or its error).
// An entry goes once its job's input is gone.
class c1_cache {
 public:
  std::shared_ptr<const fil::c1_output> get(const fil::circuit_ref& c, const std::shared_ptr<const fil::job_input>& in) {
    std::shared_future<std::shared_ptr<const fil::c1_output>> answer;
    std::promise<std::shared_ptr<const fil::c1_output>> mine;
    bool read = false;
    {
      std::lock_guard lock(mu_);
      for (auto it = entries_.begin(); it != entries_.end();)
        it = it->second.in.expired() ? entries_.erase(it) : std::next(it);
      auto it = entries_.find(in.get());
      if (it == entries_.end()) {
        answer = mine.get_future().share();
        entries_.emplace(in.get(), entry{in, answer});
        read = true;
      } else {
        answer = it->second.parsed;
      }
    }
    if (read) {
      try {
        mine.set_value(std::make_shared<const fil::c1_output>(fil::read_porep_c1(c, *in)));
      } catch (...) {
        mine.set_exception(std::current_exception());
      }
    }
    return answer.get();
  }
  // An input's C1 output read elsewhere (fil::check_job_input at submission).
  void put(const std::shared_ptr<const fil::job_input>& in, std::shared_ptr<const fil::c1_output> c1) {
    std::promise<std::shared_ptr<const fil::c1_output>> p;
    p.set_value(std::move(c1));
    std::lock_guard lock(mu_);
    for (auto it = entries_.begin(); it != entries_.end();)
      it = it->second.in.expired() ? entries_.erase(it) : std::next(it);
    entries_.insert_or_assign(in.get(), entry{in, p.get_future().share()});
  }
  void forget(const fil::job_input* in) {
    std::lock_guard lock(mu_);
    entries_.erase(in);
  }

 private:
  struct entry {
    std::weak_ptr<const fil::job_input> in;
    std::shared_future<std::shared_ptr<const fil::c1_output>> parsed;
  };
  std::mutex mu_;
  std::map<const fil::job_input*, entry> entries_;
};

c1_cache& porep_c1s() {
  static c1_cache cache;
  return cache;
}

std::shared_ptr<const circuit_key> resolve_key(synth_ptr self, const key_handle& h) {
  if (h.ptr && h.ptr->evaluator) return h.ptr;
  auto& slot = self->state.local_keys[h.path];
  if (!slot) {
    fil::key_options load;
    load.with_evaluator = true;
    slot = std::make_shared<circuit_key>(fil::load_circuit_key(h.path, load));
  }
  return slot;
}

// A PoRep partition into the key's kept buffers (see the header comment).
struct buffered_partition {
  std::shared_ptr<const zk::io::witness> witness;
  std::shared_ptr<zk::groth16::synthesis> synthesis;
};
buffered_partition synthesize_buffered(const zk::groth16::pce_compact& compact,
                                       const std::shared_ptr<zk::groth16::partition_buffers>& bufs,
                                       const fil::circuit_ref& circuit, const fil::job_input& in,
                                       std::uint32_t partition, zk::thread_pool& pool, const fil::c1_output* c1,
                                       bool witness_only) {
  // The larger kept vector takes the aux (which one a call hands out first is the buffers' business).
  auto aux_values = bufs->take_values(), in_values = bufs->take_values();
  if (in_values.capacity() > aux_values.capacity()) std::swap(in_values, aux_values);
  auto cs = zk::cs::constraint_system::witness_reusing(std::move(in_values), std::move(aux_values));
  struct values_back {  // the circuit's values go back to the buffers however this ends
    zk::cs::constraint_system& cs;
    zk::groth16::partition_buffers& bufs;
    ~values_back() {
      zk::cs::values in, aux;
      cs.release_values(in, aux);
      bufs.give_values(std::move(in));
      bufs.give_values(std::move(aux));
    }
  } back{cs, *bufs};
  fil::synthesize_partition_into(cs, circuit, in, partition, pool, c1);
  std::weak_ptr<zk::groth16::partition_buffers> home = bufs;
  buffered_partition out;
  out.synthesis = std::shared_ptr<zk::groth16::synthesis>(new zk::groth16::synthesis, [home](zk::groth16::synthesis* p) {
    if (auto b = home.lock()) {
      b->give_vector(std::move(p->a));
      b->give_vector(std::move(p->b));
      b->give_vector(std::move(p->c));
    }
    delete p;
  });
  auto& syn = *out.synthesis;
  if (!witness_only) {  // else the device evaluates them from the witness
    const std::size_t n = compact.domain_size();
    for (auto* v : {&syn.a, &syn.b, &syn.c}) {
      *v = bufs->take_vector();
      v->resize(n);
    }
    compact.evaluate_into(cs.inputs(), cs.aux(), syn.a, syn.b, syn.c, pool);
  }
  auto* w = new zk::io::witness;
  w->path = fil::partition_name(circuit, in, partition);
  // No reallocation (it may be pinned); a fresh one's pages written on the pool.
  w->values = bufs->take_witness(cs.inputs().size() + cs.aux().size(), &pool);
  out.witness = std::shared_ptr<const zk::io::witness>(w, [home](const zk::io::witness* p) {
    if (auto b = home.lock()) b->give_witness(std::move(const_cast<zk::io::witness*>(p)->values));
    delete p;
  });
  zk::cs::to_witness_values(cs, w->values, pool);
  return out;
}

synthesizer_actor::behavior_type synthesizer(synth_ptr self, std::uint32_t slot, unsigned threads,
                                             fault_settings faults, std::uint64_t generation) {
  self->state.slot = slot;
  if (threads > 0) self->state.own_pool = std::make_unique<zk::thread_pool>(threads);
  self->state.coin = std::make_unique<fault_coin>(faults.synth_throw,
                                                  faults.seed ^ (0x9e3779b97f4a7c15ULL * (slot + 1)) ^ (generation << 20));
  return {
      [self](synth_request& req) -> caf::result<synth_result> {
        try {
          zk::pool_rank rank(req.pool_rank);
          auto t0 = now_us();
          if (self->state.coin->flip())
            throw std::runtime_error("injected fault: synthesizer " + std::to_string(self->state.slot) + " threw");
          auto key = resolve_key(self, req.key);
          synth_result r;
          auto stage_done = [&r, t = now_us()](const char* name) mutable {
            const auto now = now_us();
            r.stage_names.emplace_back(name);
            r.stage_ms.push_back(double(now - t) / 1000);
            t = now;
          };
          auto& pool = self->state.pool();
          std::shared_ptr<const zk::io::witness> w = req.witness.data.ptr;
          // Non-const object behind a const handle: the device, as sole owner, may take it over.
          std::shared_ptr<zk::groth16::synthesis> syn;
          if (!w && req.witness.fil.ptr) {
            // The registered proof, not the key's file: API versions share a file, not challenges.
            const auto& in = *req.witness.fil.ptr;
            const auto circuit = fil::resolve_circuit(in.kind, in.registered_proof);
            std::shared_ptr<const fil::c1_output> c1;
            if (circuit.seal) c1 = porep_c1s().get(circuit, req.witness.fil.ptr);
            const auto* compact = key->evaluator->compact();
            if (compact && key->buffers) {
              auto made = synthesize_buffered(*compact, key->buffers, circuit, in, req.witness.fil.partition, pool,
                                              c1.get(), req.witness_only);
              w = std::move(made.witness);
              syn = std::move(made.synthesis);
            } else {
              zk::cs::constraint_system cs(zk::cs::mode::witness);
              fil::synthesize_partition_into(cs, circuit, in, req.witness.fil.partition, pool, c1.get());
              auto made = std::make_shared<zk::io::witness>();
              made->path = fil::partition_name(circuit, in, req.witness.fil.partition);
              zk::cs::to_witness_values(cs, made->values, pool);
              w = std::move(made);
            }
          }
          if (!w) w = std::make_shared<const zk::io::witness>(zk::io::witness::load(req.witness.path));
          // The kept-buffers path evaluated a, b, c from the circuit's values already; a witness-only
          // partition gets them on its device (empty vectors here).
          const bool witness_only = req.witness_only && key->evaluator->compact();
          stage_done(!req.witness.fil.ptr ? "witness"
                     : syn && !syn->a.empty() ? "C1 + witness + a/b/c"
                                              : "C1 + witness");
          zk::io::check_witness_matches(*key->zkey, *w);
          if (!syn && witness_only) syn = std::make_shared<zk::groth16::synthesis>();
          if (!syn) {
            syn = std::make_shared<zk::groth16::synthesis>(key->evaluator->evaluate(*w));
            stage_done("a/b/c");
          }
          r.task = req.task;
          r.synthesis.ptr = std::move(syn);
          r.witness.ptr = std::move(w);
          r.elapsed_us = now_us() - t0;
          return r;
        } catch (const zk::input_error& e) {
          return make_error(errc::bad_input, e.what());
        } catch (const fil::not_implemented& e) {
          return make_error(errc::invalid_request, e.what());
        } catch (const std::exception& e) {
          return make_error(errc::worker_failed, e.what());
        }
      },
  };
}

}  // namespace

void share_porep_c1(const std::shared_ptr<const fil::job_input>& in, std::shared_ptr<const fil::c1_output> c1) {
  if (in && c1) porep_c1s().put(in, std::move(c1));
}

std::shared_ptr<const fil::c1_output> porep_c1(const fil::circuit_ref& c, const std::shared_ptr<const fil::job_input>& in) {
  return porep_c1s().get(c, in);
}

void forget_porep_c1(const fil::job_input* in) { porep_c1s().forget(in); }

synthesizer_actor spawn_synthesizer(caf::actor_system& sys, std::uint32_t slot, unsigned threads,
                                    fault_settings faults, std::uint64_t generation) {
  return sys.spawn<caf::detached>(synthesizer, slot, threads, faults, generation);
}

// For a node that only serves synthesis over the middleman: on the node's scheduler threads. The
// middleman can hold messages (and so references) of a published actor past its exit, and a
// detached actor's thread waits for its last reference: published, it could block the node's
// shutdown. (Declared in engine/remote.cpp, its only user.)
synthesizer_actor spawn_synthesizer_for_node(caf::actor_system& sys) {
  return sys.spawn(synthesizer, std::uint32_t{0}, 0u, fault_settings{}, std::uint64_t{0});
}

}  // namespace cuzk::actors
