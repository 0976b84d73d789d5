// Stager: one per device, on its own thread (uploads block on host copies). It places partition
// k+1's inputs on the device while the device proves k, so the gap between partitions is a launch,
// not an upload; the VRAM grant taken by the scheduler rides in the staged handle until the proof
// ends. A witness-only partition uploads its witness alone (the device evaluates a, b, c), by one
// DMA from the pinned kept vectors; one whose device cannot evaluate them gets them here, on the
// host. For a CPU device the buffers stay in place.
#include "actors/stager.hpp"
#include "caf/all.hpp"
#include "zk/error.hpp"
#include "zk/groth16/backend_registry.hpp"
#include "zk/groth16/pce.hpp"
#include "zk/groth16/prover.hpp"
#include "zk/io/zkey.hpp"

namespace cuzk::actors {

namespace {

struct stager_state {
  stager_state() = default;  // not an aggregate: CAF would construct it from the actor pointer
  std::uint32_t slot = 0;
  std::unique_ptr<zk::groth16::stager> stager;
};

using stager_ptr = stager_actor::stateful_pointer<stager_state>;

// Checks the inputs against the key, then stages them. The handle keeps the witness alive (host
// staging refers to it in place), and the synthesis' host-budget grant goes with the buffers:
// kept while host staging holds them, released as soon as a device has its own copy. (A key with
// kept buffers has its grant on the witness instead, the scheduler's doing: it goes with the
// witness to the buffers, partition_buffers.hpp.)
// The synthesis buffers are staged from the handle's own object when this is the last handle (the
// normal case: the scheduler hands its handle over), so that they go back where they came from
// (a PoRep key's kept buffers: the handle's deleter) as soon as a device has copied them, or, for
// host staging, which takes them over, when the proof is done; copied otherwise.
staged_handle stage_partition(zk::groth16::stager& stager, const key_handle& key, synthesis_handle& syn,
                              const witness_handle& witness, const resident_handle& resident, std::uint32_t slot) {
  if (!key.ptr || !key.ptr->zkey || !syn.ptr || !witness.ptr)
    throw std::runtime_error("staging: request without key, synthesis or witness");
  auto w = witness.ptr;
  // A key's kept witness vectors are pinned for this stager's uploads (once per vector: already when
  // the key went resident on the device, device.cpp's load; here for one staged without), and so is
  // this partition's witness if it is a fresh one from the buffers (it is kept after its proof:
  // pinning it now, ~130 ms for 4 GiB, beats a pageable copy on the pool synthesis keeps busy).
  if (key.ptr->buffers) {
    key.ptr->buffers->pin_witnesses(stager.pinner());
    key.ptr->buffers->pin_witness(w->values);
  }
  auto host_grant = syn.reservation.ptr;
  syn.reservation.ptr.reset();
  auto own = std::move(syn.ptr);
  std::unique_ptr<zk::groth16::staged_inputs> in;
  if (own->a.empty() && key.ptr->evaluator) {  // witness-only synthesis
    zk::io::check_witness_matches(*key.ptr->zkey, *w);  // the key itself was checked when it was loaded
    if (stages_witness_only(key, *own, resident, slot))
      in = stager.stage_witness(*key.ptr->evaluator, std::span(w->values), resident.ptr->key.get());
    if (!in) {
      auto abc = key.ptr->evaluator->evaluate(std::span<const zk::bigint<4>>(w->values));
      zk::groth16::check_synthesis(*key.ptr->zkey, abc, *w);
      in = stager.stage(std::move(abc), std::span(w->values));
    }
    own.reset();
    if (in->device_bytes() > 0) host_grant.reset();  // host staging holds a, b, c under it until the proof
    staged_handle h;
    h.ptr = std::shared_ptr<zk::groth16::staged_inputs>(in.release(),
                                                        [w, host_grant](zk::groth16::staged_inputs* p) { delete p; });
    return h;
  }
  zk::groth16::check_synthesis(*key.ptr->zkey, *own, *w);
  if (own.use_count() == 1) {
    auto& s = const_cast<zk::groth16::synthesis&>(*own);
    in = stager.stage(std::move(s), std::span(w->values));
  } else {
    in = stager.stage(zk::groth16::synthesis(*own), std::span(w->values));
    own.reset();
  }
  if (in->device_bytes() > 0) {
    host_grant.reset();
    own.reset();  // the device has its copy: the buffers go back now
  }
  staged_handle h;
  h.ptr = std::shared_ptr<zk::groth16::staged_inputs>(
      in.release(), [w, host_grant, own](zk::groth16::staged_inputs* p) {
        if (auto* hs = dynamic_cast<zk::groth16::host_staged*>(p); hs && own)
          const_cast<zk::groth16::synthesis&>(*own) = std::move(hs->syn);  // back to the handle's deleter
        delete p;
      });
  return h;
}

stager_actor::behavior_type stager(stager_ptr self, std::uint32_t slot, std::string backend) {
  self->state.slot = slot;
  self->state.stager = zk::groth16::make_stager(backend);
  return {
      [self](stage_request& req) -> caf::result<stage_result> {
        auto t0 = now_us();
        try {
          stage_result r;
          r.task = req.task;
          r.staged = stage_partition(*self->state.stager, req.key, req.synthesis, req.witness, req.resident,
                                     self->state.slot);
          req.resident = {};  // the partition keeps its own lease
          r.staged.device_reservation = std::move(req.device_reservation);
          r.elapsed_us = now_us() - t0;
          return r;
        } catch (const zk::input_error& e) {
          return make_error(errc::bad_input, e.what());
        } catch (const std::exception& e) {
          return make_error(errc::worker_failed, "stager " + std::to_string(self->state.slot) + ": " + e.what());
        }
      },
  };
}

}  // namespace

bool resident_synthesizes(const key_handle& key, const resident_handle& resident, std::uint32_t device) {
  return key.device_witness_bytes > 0 && key.ptr && key.ptr->evaluator && resident.ptr && resident.device == device &&
         resident.ptr->key && resident.ptr->key->synthesizes(*key.ptr->evaluator);
}

bool stages_witness_only(const key_handle& key, const zk::groth16::synthesis& syn, const resident_handle& resident,
                         std::uint32_t device) {
  return syn.a.empty() && resident_synthesizes(key, resident, device);
}

std::uint64_t staging_grant_bytes(const key_handle& key, bool witness_only) {
  return witness_only ? key.device_witness_bytes : key.device_bytes;
}

staging_reserve staging_reserve_for(const key_handle& key, const resident_handle& resident, std::uint32_t device,
                                    unsigned staged_partitions) {
  if (!resident.ptr || !resident.ptr->key || resident.device != device || !staged_partitions) return {};
  return {staging_grant_bytes(key, resident_synthesizes(key, resident, device)), staged_partitions};
}

stager_actor spawn_stager(caf::actor_system& sys, std::uint32_t slot, std::string backend) {
  return sys.spawn<caf::detached>(stager, slot, std::move(backend));
}

}  // namespace cuzk::actors
