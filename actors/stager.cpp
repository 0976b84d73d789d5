// Stager: one per device, on its own thread (spawned detached: an upload blocks on host copies into
// pinned memory). It places partition k+1's synthesis and witness on the device (for a GPU: device
// memory through its own stream and pinned buffers) while the device actor computes partition k,
// so the device's idle gap between partitions is a kernel launch, not a 2 GiB upload. The
// scheduler reserves the partition's VRAM before it asks; the grant travels with the staged
// handle until the device is done with it. For a CPU device staging keeps the buffers in place.
#include "actors/actors.hpp"
#include "actors/staging.hpp"
#include "caf/all.hpp"
#include "zk/error.hpp"
#include "zk/groth16/backend_registry.hpp"

namespace cuzk::actors {

namespace {

struct stager_state {
  stager_state() = default;  // not an aggregate: CAF would construct it from the actor pointer
  std::uint32_t slot = 0;
  std::unique_ptr<zk::groth16::stager> stager;
};

using stager_ptr = stager_actor::stateful_pointer<stager_state>;

stager_actor::behavior_type stager(stager_ptr self, std::uint32_t slot, std::string backend) {
  self->state.slot = slot;
  self->state.stager = zk::groth16::make_stager(backend);
  return {
      [self](stage_request& req) -> caf::result<stage_result> {
        auto t0 = now_us();
        try {
          stage_result r;
          r.task = req.task;
          r.staged = stage_partition(req.key, req.synthesis, req.witness,
                                     [self](zk::groth16::synthesis&& syn, std::span<const zk::groth16::scalar> w) {
                                       return self->state.stager->stage(std::move(syn), w);
                                     });
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

stager_actor spawn_stager(caf::actor_system& sys, std::uint32_t slot, std::string backend) {
  return sys.spawn<caf::detached>(stager, slot, std::move(backend));
}

}  // namespace cuzk::actors
