// Device actor: owns one compute backend (a GPU's context and streams, or the CPU backend) and
// proves one staged partition at a time (h and the MSMs): its mailbox is the device mutex. Spawned
// detached, so blocking kernels run on its own thread. Answers describe and load for the key
// store (a load ends with the reserve step: the key's proof scratch, then its staging slots, which
// stay across evictions as free memory) and prove requests, which carry the resident key's lease
// (without one, the points are uploaded for that proof). A Filecoin key resident here also
// evaluates a witness-only partition's a, b, c on the device.
#include "actors/device.hpp"
#include "actors/faults.hpp"
#include "actors/stager.hpp"
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
  unsigned staged_partitions = 0;  // backend_settings::staged_partitions: the reserve step's slots
};

using device_ptr = device_actor::stateful_pointer<device_state>;

// The evaluator a resident key carries to the device: a Filecoin key's compact recorded one when
// the engine synthesizes on its devices (key_handle::device_witness_bytes: its partitions then stage
// their witness only and the device evaluates a, b, c); a zkey's CSR stays on the host (its
// synthesizers evaluate, as before).
const zk::groth16::constraint_evaluator* device_evaluator(const key_handle& k) {
  return k.device_witness_bytes > 0 && k.ptr->evaluator && k.ptr->evaluator->compact() ? k.ptr->evaluator.get() : nullptr;
}

device_actor::behavior_type device(device_ptr self, std::uint32_t slot, std::string backend_name,
                                   zk::groth16::backend_settings settings, fault_settings faults,
                                   std::uint64_t generation) {
  auto& st = self->state;
  st.slot = slot;
  st.backend_name = backend_name;
  st.staged_partitions = settings.staged_partitions;
  const std::uint64_t seed = faults.seed ^ (0xd1b54a32d192ed03ULL * (slot + 1)) ^ (generation << 24);
  st.backend = zk::groth16::make_backend(backend_name, settings);
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
          const zk::groth16::resident_key* resident =
              req.resident.ptr && req.resident.device == st.slot ? req.resident.ptr->key.get() : nullptr;
          if (key.synthetic && !key.synthetic_on_host && !resident)
            throw std::runtime_error("device: a synthetic key's points exist only where a GPU made them (no residency here)");
          zk::groth16::prove_timings pt;
          r.output.proof = zk::groth16::prove_staged(key, *req.staged.ptr, rnd, *st.backend, &pt, resident);
          if (pt.abc > 0) {  // a, b, c evaluated here from a witness-only staging
            r.stage_names.emplace_back("a/b/c (device)");
            r.stage_ms.push_back(pt.abc * 1000);
          }
          const std::pair<const char*, double> stages[] = {{"H/NTT", pt.h},        {"MSM A", pt.msm_a},
                                                           {"MSM B1", pt.msm_b1},  {"MSM L", pt.msm_c},
                                                           {"MSM H", pt.msm_h},    {"B2 (G2)", pt.msm_b2},
                                                           {"assemble", pt.assemble}};
          for (auto [name, s] : stages) {
            r.stage_names.emplace_back(name);
            r.stage_ms.push_back(s * 1000);
          }
          if (!pt.b2_mode.empty()) {  // a GPU backend's B2 plan (zk/groth16/b2_plan.hpp) and its figures
            const double share = pt.b2_points ? 100.0 * double(pt.b2_host_points) / double(pt.b2_points) : 0;
            const std::pair<const char*, double> b2[] = {{"B2 host part", pt.b2_host * 1000},
                                                         {"main lane", pt.main_lane * 1000},
                                                         {"B2 host share (%)", share},
                                                         {"B2 predicted", pt.b2_predicted * 1000}};
            for (auto [name, v] : b2) {
              r.stage_names.emplace_back(name);
              r.stage_ms.push_back(v);
            }
            // The plan for the key store's status and log (the scheduler forwards it).
            r.b2 = b2_plan_status{st.slot,           pt.b2_mode,          pt.b2_points,         pt.b2_host_points,
                                  pt.b2_predicted * 1e3, pt.b2_predicted_device * 1e3, pt.b2_predicted_host * 1e3,
                                  pt.b2_device_rate, pt.b2_host_rate,     pt.msm_b2 * 1e3,      pt.b2_host * 1e3,
                                  pt.main_lane * 1e3, 0,                  pt.b2_plan};
          }
          if (pt.sums_wall > 0) {
            // Where the dispatch-to-answer time goes beside the lanes' events (the device's wait
            // before the first event, the host's wall of prove_sums, the rest of this handler: the
            // proof's host finish, the release of the staged inputs) and the MSMs' paths.
            const std::pair<const char*, double> gap[] = {{"before lane (device)", pt.before_lane * 1000},
                                                          {"prove_sums (host wall)", pt.sums_wall * 1000},
                                                          {"MSM H sets", double(pt.msm_h_sets)},
                                                          {"G1 lane chunks", double(pt.g1_chunks)},
                                                          {"B2 chunks", double(pt.b2_chunks)},
                                                          {"B2 others", double(pt.b2_others)}};
            for (auto [name, v] : gap) {
              r.stage_names.emplace_back(name);
              r.stage_ms.push_back(v);
            }
          }
          const auto sums_us = std::uint64_t(pt.sums_wall * 1e6);
          req.resident = {};  // the lease goes back now
          r.output.publics = zk::groth16::public_inputs(key, *req.witness.ptr);
          req.staged = {};  // the device memory and its VRAM grant go back now
          r.elapsed_us = now_us() - t0;
          if (pt.sums_wall > 0) {
            r.stage_names.emplace_back("outside prove_sums (host)");
            r.stage_ms.push_back(r.elapsed_us > sums_us ? double(r.elapsed_us - sums_us) / 1000 : 0.0);
          }
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
      [self](describe_atom, const key_handle& k, bool sets) -> caf::result<std::uint64_t> {
        if (!k.ptr || !k.ptr->zkey) return make_error(errc::worker_failed, "device: describe of a key that is not loaded");
        try {
          return self->state.backend->resident_bytes(zk::groth16::points_of(*k.ptr->zkey), sets, device_evaluator(k));
        } catch (const std::exception& e) {
          return make_error(errc::worker_failed, "device " + std::to_string(self->state.slot) + ": " + e.what());
        }
      },
      [self](load_atom, const key_handle& k, bool sets) -> caf::result<resident_handle> {
        auto& st = self->state;
        if (!k.ptr || !k.ptr->zkey) return make_error(errc::worker_failed, "device: load of a key that is not loaded");
        try {
          auto res = std::make_shared<device_resident>();
          auto kp = zk::groth16::points_of(*k.ptr->zkey);
          kp.b2_host = k.ptr->b2_host;  // the hot key's host copy of its B2 points (null: none needed or allowed)
          res->key = st.backend->load_key(kp, device_evaluator(k), sets);
          res->bytes = res->key ? res->key->bytes() : 0;
          resident_handle made{k.path, st.slot, std::move(res)};
          // The reserve step, after the key's own allocations (its shifted sets plan beside these):
          // first its proof's scratch (part of the key's grant), then the staging slots of its
          // partitions (their grants), so that the key's first proof allocates nothing.
          zk::groth16::reserve_for_proofs(*st.backend, kp, made.ptr->key.get(),
                                          staging_reserve_for(k, made, st.slot, st.staged_partitions));
          // The key's kept witness vectors (prefilled at its load) page-locked now, with the pinner
          // its stager uses (partition_buffers keeps the first one given and pins each vector once):
          // its first partition's staging then uploads from pinned memory with nothing to pin.
          if (k.ptr->buffers) k.ptr->buffers->pin_witnesses(st.backend->pinner());
          return made;
        } catch (const std::exception& e) {
          return make_error(errc::worker_failed, "device " + std::to_string(st.slot) + ": load " + k.path + ": " + e.what());
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

device_actor spawn_device(caf::actor_system& sys, std::uint32_t slot, std::string backend,
                          zk::groth16::backend_settings settings, fault_settings faults, std::uint64_t generation) {
  return sys.spawn<caf::detached>(device, slot, std::move(backend), settings, faults, generation);
}

}  // namespace cuzk::actors
