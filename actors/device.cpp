// Device actor: owns one compute backend (a GPU's context and streams, or the CPU backend) and runs
// one partition's h and MSMs at a time: its mailbox is the old device mutex. Spawned detached, so
// the blocking kernels run on the device's own thread. Any number of devices: one actor each, with
// one VRAM budget each (the scheduler reserves a partition's device bytes there before dispatch).
//
// The inputs arrive staged by the device's stager actor (uploaded while the previous partition
// computed). The key's points on the device are a device key (backend::load_key) that this actor
// holds for the key it proved last, made again when another key comes (or this one was evicted
// from the key store and loaded anew); the backend itself keeps no copies.
#include "actors/actors.hpp"
#include "actors/faults.hpp"
#include "caf/all.hpp"
#include "zk/error.hpp"
#include "zk/groth16/backend_registry.hpp"
#include "zk/groth16/prover.hpp"
#include "zk/groth16/random.hpp"

namespace cuzk::actors {

namespace {

struct device_state {
  device_state() = default;  // not an aggregate: CAF would construct it from the actor pointer
  std::uint32_t slot = 0;
  std::string backend_name;
  std::unique_ptr<zk::groth16::backend> backend;
  std::unique_ptr<fault_coin> alloc_coin;
  std::uint32_t forced_alloc_failures = 0;  // fail_alloc_atom: the next N allocations fail
  std::uint64_t proofs = 0, failures = 0, busy_us = 0;
  // The device key of the key proved last; `resident_for` watches that key without holding it
  // (a lease held here would keep the key store from evicting it).
  std::weak_ptr<const circuit_key> resident_for;
  std::unique_ptr<zk::groth16::resident_key> resident;
};

using device_ptr = device_actor::stateful_pointer<device_state>;

device_actor::behavior_type device(device_ptr self, std::uint32_t slot, std::string backend_name,
                                   fault_settings faults, std::uint64_t generation) {
  auto& st = self->state;
  st.slot = slot;
  st.backend_name = backend_name;
  const std::uint64_t seed = faults.seed ^ (0xd1b54a32d192ed03ULL * (slot + 1)) ^ (generation << 24);
  st.backend = zk::groth16::make_backend(backend_name);
  if (faults.device_kernel_fail > 0)
    st.backend = std::make_unique<faulty_backend>(std::move(st.backend), faults.device_kernel_fail, seed);
  st.alloc_coin = std::make_unique<fault_coin>(faults.device_alloc_fail, seed ^ 0x5bd1e995);
  return {
      [self](prove_request& req) -> caf::result<device_result> {
        auto& st = self->state;
        auto t0 = now_us();
        try {
          // Forced failures (chaos hook) take the same path as the seeded ones.
          bool forced = st.forced_alloc_failures > 0;
          if (forced) --st.forced_alloc_failures;
          if (forced || st.alloc_coin->flip())
            throw std::runtime_error("injected fault: device " + std::to_string(st.slot) + " allocation failed");
          if (!req.key.ptr || !req.key.ptr->zkey || !req.witness.ptr || !req.staged.ptr)
            throw std::runtime_error("device: request without key, witness or staged inputs");
          const auto& key = *req.key.ptr->zkey;
          auto rnd = req.fixed_randomness ? req.randomness : zk::groth16::random_randomness();
          device_result r;
          r.task = req.task;
          r.started_us = t0;
          if (st.resident_for.expired() || st.resident_for.lock() != req.key.ptr) {
            st.resident.reset();  // its device memory back before the next key's
            st.resident_for.reset();
            st.resident = st.backend->load_key(zk::groth16::points_of(key));
            st.resident_for = req.key.ptr;
          }
          r.output.proof = zk::groth16::prove_staged(key, *req.staged.ptr, rnd, *st.backend, nullptr, st.resident.get());
          r.output.publics = zk::groth16::public_inputs(key, *req.witness.ptr);
          req.staged = {};  // the device memory and its VRAM grant go back now
          r.elapsed_us = now_us() - t0;
          st.busy_us += r.elapsed_us;
          ++st.proofs;
          return r;
        } catch (const zk::input_error& e) {
          ++st.failures;
          st.busy_us += now_us() - t0;
          return make_error(errc::bad_input, e.what());
        } catch (const std::exception& e) {
          ++st.failures;
          st.busy_us += now_us() - t0;
          return make_error(errc::worker_failed, "device " + std::to_string(st.slot) + ": " + e.what());
        }
      },
      [self](fail_alloc_atom, std::uint32_t n) -> std::uint32_t {
        return self->state.forced_alloc_failures += n;
      },
      [self](status_atom) -> device_status {
        auto& st = self->state;
        return device_status{"device" + std::to_string(st.slot), st.backend->name(), st.proofs, st.failures,
                             st.busy_us};
      },
  };
}

}  // namespace

device_actor spawn_device(caf::actor_system& sys, std::uint32_t slot, std::string backend, fault_settings faults,
                          std::uint64_t generation) {
  return sys.spawn<caf::detached>(device, slot, std::move(backend), faults, generation);
}

}  // namespace cuzk::actors
