// Synthesizer: one partition's witness -> a = A·w, b = B·w, c = a∘b, on its own thread (spawned
// detached: the CPU-heavy evaluation never blocks CAF's scheduler threads). A pool is several of
// these; the scheduler hands each one partition at a time.
//
// In-process the key arrives as a lease (the key store's evaluator). A synthesizer on another node
// receives only the key's path and loads the key and builds its evaluator itself, once.
//
// A Filecoin partition brings no witness: its vanilla proofs (fil_input_handle) go through the
// circuit in witness mode here (fil::synthesize_partition), then the same a, b, c.
#include <map>

#include "actors/synthesizer.hpp"
#include "actors/key_store.hpp"
#include "actors/faults.hpp"
#include "caf/all.hpp"
#include "fil/partition.hpp"
#include "zk/error.hpp"

namespace cuzk::actors {

namespace {

struct synthesizer_state {
  synthesizer_state() = default;  // not an aggregate: CAF would construct it from the actor pointer
  std::uint32_t slot = 0;
  std::unique_ptr<fault_coin> coin;
  std::map<std::string, std::shared_ptr<const circuit_key>> local_keys;  // remote use only
};

using synth_ptr = synthesizer_actor::stateful_pointer<synthesizer_state>;

std::shared_ptr<const circuit_key> resolve_key(synth_ptr self, const key_handle& h) {
  if (h.ptr && h.ptr->evaluator) return h.ptr;
  auto& slot = self->state.local_keys[h.path];
  if (!slot) {
    auto ck = std::make_shared<circuit_key>();
    ck->zkey = load_proving_key(h.path, nullptr);
    ck->evaluator = build_evaluator(*ck->zkey);
    ck->evaluator_bytes = ck->evaluator->memory_bytes();
    slot = std::move(ck);
  }
  return slot;
}

synthesizer_actor::behavior_type synthesizer(synth_ptr self, std::uint32_t slot, fault_settings faults,
                                             std::uint64_t generation) {
  self->state.slot = slot;
  self->state.coin = std::make_unique<fault_coin>(faults.synth_throw,
                                                  faults.seed ^ (0x9e3779b97f4a7c15ULL * (slot + 1)) ^ (generation << 20));
  return {
      [self](synth_request& req) -> caf::result<synth_result> {
        try {
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
          std::shared_ptr<const zk::io::witness> w = req.witness.data.ptr;
          if (!w && req.witness.fil.ptr) {
            // The registered proof, not the key's file: API versions share a file, not challenges.
            const auto& in = *req.witness.fil.ptr;
            w = std::make_shared<const zk::io::witness>(fil::synthesize_partition(
                fil::resolve_circuit(in.kind, in.registered_proof), in, req.witness.fil.partition));
          }
          if (!w) w = std::make_shared<const zk::io::witness>(zk::io::witness::load(req.witness.path));
          stage_done(req.witness.fil.ptr ? "C1 + witness" : "witness");
          zk::io::check_witness_matches(*key->zkey, *w);
          // Non-const object behind a const handle: the device, as sole owner, may take it over.
          auto syn = std::make_shared<zk::groth16::synthesis>(key->evaluator->evaluate(*w));
          stage_done("a/b/c");
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

synthesizer_actor spawn_synthesizer(caf::actor_system& sys, std::uint32_t slot, fault_settings faults,
                                    std::uint64_t generation) {
  return sys.spawn<caf::detached>(synthesizer, slot, faults, generation);
}

// For a node that only serves synthesis over the middleman: on the node's scheduler threads. The
// middleman can hold messages (and so references) of a published actor past its exit, and a
// detached actor's thread waits for its last reference: published, it could block the node's
// shutdown. (Declared in engine/remote.cpp, its only user.)
synthesizer_actor spawn_synthesizer_for_node(caf::actor_system& sys) {
  return sys.spawn(synthesizer, std::uint32_t{0}, fault_settings{}, std::uint64_t{0});
}

}  // namespace cuzk::actors
