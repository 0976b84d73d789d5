// The compute backend of the prover: the h polynomial and the MSMs. The CPU backend lives in zk/;
// the CUDA backend in gpu/. Given the same inputs, every backend returns the same group elements.
//
// A proof's inputs go through two steps so that a device can overlap them: stage() places the
// synthesis and the witness where the backend computes (device memory, for a GPU), prove_sums()
// runs h and the five MSMs on them. A stager (make_stager) does the first step from another thread
// on its own stream, so partition k+1 uploads while partition k computes.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "zk/bls12_381/curves.hpp"
#include "zk/groth16/host_pinner.hpp"
#include "zk/groth16/types.hpp"

namespace cuzk::zk::groth16 {

using namespace cuzk::zk::bls12_381;
using scalar = bigint<4>;  // canonical (normal-form) scalar, < r

class constraint_evaluator;  // zk/groth16/pce.hpp
class b2_host_points;        // zk/groth16/b2_plan.hpp

// The evaluations of A·w, B·w and C·w = (A·w)∘(B·w) over the domain, Montgomery form, each of
// domain_size entries (rows past the last constraint are zero).
struct synthesis {
  std::vector<fr> a, b, c;
};

// Wall time of each stage of one proof, in seconds; filled when a caller passes one. A backend
// that runs the stages asynchronously reports its device time per stage (events), and the host
// time it waited for none of them.
struct prove_timings {
  // abc: a, b, c evaluated on the device from a staged witness, inside the proof (stage_witness).
  double synthesis = 0, stage = 0, abc = 0, h = 0, msm_a = 0, msm_b1 = 0, msm_b2 = 0, msm_c = 0, msm_h = 0, assemble = 0;
  double total() const { return synthesis + stage + abc + h + msm_a + msm_b1 + msm_b2 + msm_c + msm_h + assemble; }
  // Where B2 ran (a device backend that splits it, b2_plan.hpp): msm_b2 is then the device part's
  // span and b2_host the host part's wall time (concurrent with the device; not in total()), with
  // b2_host_points of b2_points on the host. main_lane: the device's h and G1 MSMs from the proof's
  // start to its last G1 MSM, B2 beside them or not. b2_plan: the mode, "device", "host" or
  // "split", and the cost model's line (its inputs and predictions), empty on a host backend.
  // b2_predicted_device / _host: the model's proof time with B2 wholly on the device / the host,
  // and b2_device_rate / b2_host_rate the rates it planned with (points per second); 0 without rates.
  double b2_host = 0, main_lane = 0, b2_predicted = 0;
  double b2_predicted_device = 0, b2_predicted_host = 0, b2_device_rate = 0, b2_host_rate = 0;
  std::size_t b2_points = 0, b2_host_points = 0;
  std::string b2_mode, b2_plan;
  // A device backend's account of the proof outside its lanes' events: before_lane, the device's
  // time from the proof's entry (after the device lock) to the main lane's first event (the host's
  // preparation, the wait for the staged inputs); sums_wall, the host's wall time of prove_sums
  // from its call to its return (the lock, the lanes, reading back and summing the results). The
  // MSMs' paths: msm_h_sets, the shifted sets MSM H ran on (1: plain); g1_chunks / b2_chunks,
  // device runs of the G1 lane's longest MSM and of B2 (1: whole; more: its scratch did not fit);
  // b2_others, B2's device scalars that are neither 0 nor 1 (its bucket method's points when split).
  double before_lane = 0, sums_wall = 0;
  unsigned msm_h_sets = 0, g1_chunks = 0, b2_chunks = 0;
  std::uint64_t b2_others = 0;
};

// A key's points held where a backend computes (a GPU's memory): made by backend::load_key, owned
// by whoever keeps the key resident (the engine's key store, under a grant of its bytes from that
// device's VRAM budget), released on destruction. Backends keep no copies of their own.
class resident_key {
 public:
  virtual ~resident_key() = default;
  virtual std::uint64_t bytes() const = 0;  // device memory it holds
  // One line on how it was laid out (a GPU key: its shifted sets per section), for the log; "" if
  // nothing to say.
  virtual std::string describe() const { return {}; }
  // Where its points are (gpu/include/cuzk/gpu/key_placement.hpp): "resident", "partly resident"
  // (some streamed from pinned host memory by each proof) or "streamed".
  virtual std::string placement() const { return "resident"; }
  // Whether it holds `pce`'s device form, so that a partition stages its witness only and the
  // device evaluates a, b, c (stager::stage_witness).
  virtual bool synthesizes(const constraint_evaluator& pce) const {
    (void)pce;
    return false;
  }
};

// The points of a proving key that the MSMs read; spans into the key, which stays mapped while
// any proof of it runs. `resident`: the backend's copy of them (load_key), or null, and then a
// device backend uploads them for this proof only.
//
// bellperson keys (io::key_convention::bellperson): h has n - 1 points and takes the coefficients
// from compute_h_coset; a holds the points of the wires listed in a_wires only, b1/b2 those in
// b_wires (density-filtered), so their scalars are the witness gathered at those wires.
struct key_points {
  std::span<const g1_affine> a, b1, c, h;
  std::span<const g2_affine> b2;
  std::size_t n_private_from = 0;  // c multiplies witness[n_private_from ..]
  bool bellperson = false;
  std::span<const std::uint32_t> a_wires, b_wires;  // bellperson only
  const resident_key* resident = nullptr;
  // A synthetic SRS (zk/groth16/synthetic_srs.hpp): a device generates the points from the seed
  // instead of copying the spans (which may be an unbacked zero mapping).
  bool synthetic = false;
  std::uint64_t synthetic_seed = 0;
  // A bellperson key's points in the .params file's form (io::zkey::file_points): a device converts
  // and checks them as it uploads them; the spans above then hold zeros (their sizes count).
  const file_points* file = nullptr;
  bool synthetic_on_host = false;  // a synthetic key whose spans hold its points (generated on the host)
  // Whether the spans hold the points (a zkey, a host-made synthetic key), or zeros / an unbacked
  // mapping whose points exist only where a device made them.
  bool points_on_host() const { return !file && (!synthetic || synthetic_on_host); }
  // Where B2's host part finds the B2 points when !points_on_host(): the hot key's host copy
  // (b2_plan.hpp), which a device key made by load_key keeps a lease of; null: B2 stays on the device.
  std::shared_ptr<b2_host_points> b2_host;
};

// The five MSM sums of one proof, before the blinding terms.
struct proof_sums {
  g1_jacobian a, b1, c, h;
  g2_jacobian b2;
};

// The device bytes of one staged proof: its witness (n_vars values) and, unless the device
// evaluates them from the witness (witness_only: a resident key's compact evaluator), a, b and c
// over the domain; 32 bytes a value. One formula for the CUDA backend's staging slot
// ([a | b | c | witness], gpu/src/staging.cuh), the room its shifted sets are planned beside and the
// engine's VRAM grant of a staged partition (actors/stager.hpp, staging_grant_bytes): a slot in use
// is exactly what its partition's grant accounts.
constexpr std::uint64_t staged_bytes(std::uint64_t domain_size, std::uint64_t n_vars, bool witness_only) {
  return ((witness_only ? 0 : 3 * domain_size) + n_vars) * 32;
}

// One proof's synthesis and witness where a backend computes on them. Consumed by prove_sums.
class staged_inputs {
 public:
  virtual ~staged_inputs() = default;
  virtual std::size_t device_bytes() const { return 0; }
};

// Host-memory staging: what the CPU backend (and any backend given host inputs) computes on. The
// witness is referenced, not copied: its owner keeps it alive until the proof is done.
class host_staged final : public staged_inputs {
 public:
  host_staged(synthesis&& s, std::span<const scalar> w) : syn(std::move(s)), witness(w) {}
  synthesis syn;
  std::span<const scalar> witness;
};

// Places proofs' inputs on one backend's device, from any one thread at a time.
class stager {
 public:
  virtual ~stager() = default;
  virtual std::unique_ptr<staged_inputs> stage(synthesis&& syn, std::span<const scalar> witness) = 0;
  // The witness alone, when `resident` holds pce's device form (resident_key::synthesizes): the
  // proof then evaluates a, b, c on the device. Null when this stager cannot (a host stager, another
  // key): the caller evaluates on the host and calls stage(). The witness must outlive the result.
  virtual std::unique_ptr<staged_inputs> stage_witness(const constraint_evaluator& pce, std::span<const scalar> witness,
                                                       const resident_key* resident) {
    (void)pce, (void)witness, (void)resident;
    return nullptr;
  }
  // Page-locks host buffers that this stager uploads from again and again (host_pinner.hpp); null
  // when uploads gain nothing from it (a host stager).
  virtual std::shared_ptr<host_pinner> pinner() { return nullptr; }
};

class host_stager final : public stager {
 public:
  std::unique_ptr<staged_inputs> stage(synthesis&& syn, std::span<const scalar> witness) override {
    return std::make_unique<host_staged>(std::move(syn), witness);
  }
};

class backend {
 public:
  virtual ~backend() = default;
  virtual std::string name() const = 0;

  // a, b, c: evaluations over the size-n domain (Montgomery form), n = a.size() a power of two.
  // Writes h_i = A_i * B_i - C_i at the odd 2n-th roots g * omega^i (snarkjs's convention),
  // canonical, into h. a, b, c may be clobbered.
  virtual void compute_h(std::span<fr> a, std::span<fr> b, std::span<fr> c, std::span<scalar> h) = 0;

  // bellperson's h: a, b, c (evaluations over omega^i, roots from 7) moved to the coset 7 omega^i,
  // (A B - C) / (7^n - 1) there, back to coefficients; h[0 .. n-2] gets them, canonical (the
  // degree is n - 2). The default runs on the host (bellperson_h below).
  virtual void compute_h_coset(std::span<fr> a, std::span<fr> b, std::span<fr> c, std::span<scalar> h);

  // sum scalars[i] * bases[i]; bases may contain the point at infinity, scalars may be zero.
  virtual g1_jacobian msm_g1(std::span<const g1_affine> bases, std::span<const scalar> scalars) = 0;
  virtual g2_jacobian msm_g2(std::span<const g2_affine> bases, std::span<const scalar> scalars) = 0;

  // stage() on this backend's own thread; make_stager() for another thread (its own stream and
  // staging buffers on the same device). The host versions by default. The witness must outlive
  // the staged inputs (host staging refers to it; a GPU's host part of B2 reads it there).
  virtual std::unique_ptr<staged_inputs> stage(synthesis&& syn, std::span<const scalar> witness) {
    return host_stager().stage(std::move(syn), witness);
  }
  virtual std::unique_ptr<stager> make_stager() { return std::make_unique<host_stager>(); }
  // The pinner of this backend's stagers (stager::pinner: the same page-locking), for the device
  // actor to pin a key's kept witness vectors when the key goes resident, before any staging; null
  // when uploads gain nothing from it (host backends).
  virtual std::shared_ptr<host_pinner> pinner() { return nullptr; }

  // Synthesis and staging in one step, where the backend computes: by default pce.evaluate on
  // the host, then stage(); the CUDA backend uploads only the witness and evaluates the key's
  // matrices on the device (kept resident there, like the points). The witness must outlive the
  // staged inputs.
  // `resident`: a key loaded with this evaluator's matrices (load_key), or null.
  virtual std::unique_ptr<staged_inputs> synthesize(const constraint_evaluator& pce, std::span<const scalar> witness,
                                                    const resident_key* resident = nullptr);

  // The key's points (and, given pce, its constraint matrices or its compact evaluator with the
  // a, b, c its proofs evaluate into) copied where this backend computes,
  // for as long as the caller keeps the result; null from a host backend (nothing to copy).
  // `sets`: with precomputed shifted sets where the backend's options allow them. resident_bytes:
  // the device memory a proof on such a key needs beyond its staged inputs (the key's bytes at
  // most, plus the proof's scratch), for a grant before loading; 0 from a host backend.
  virtual std::unique_ptr<resident_key> load_key(const key_points& key, const constraint_evaluator* pce = nullptr,
                                                 bool sets = true) {
    (void)key, (void)pce, (void)sets;
    return nullptr;
  }
  virtual std::uint64_t resident_bytes(const key_points& key, bool sets = true,
                                       const constraint_evaluator* pce = nullptr) const {
    (void)key, (void)sets, (void)pce;
    return 0;
  }

  // The reserve step of staging: the device's memory for `count` staged proofs of `bytes` each
  // (staged_bytes) made now, when a key goes resident (the engine: config::staged_partitions of that key's
  // partitions), so that no proof allocates it later. Slots of other sizes that sit idle go back
  // first when the device has no room for these. Best effort: as many as fit in the device's free
  // memory, never by taking another allocation's room; returns how many slots of `bytes` the device
  // holds now. A host backend stages in place: nothing to make (0).
  virtual unsigned reserve_staging(std::uint64_t bytes, unsigned count) {
    (void)bytes, (void)count;
    return 0;
  }
  // The reserve step's other half, before the slots: the scratch a proof on `key` takes beside its
  // staged inputs (for CUDA: both MSM lanes' arenas, the work buffer of the split scalars and
  // gathered wires, the result slots, the NTT tables), made now when `key.resident` is this
  // backend's key, sized by the very functions the proof sizes them with, so that the key's first
  // proof allocates nothing. That scratch is part of the key's grant (resident_bytes: the key's
  // bytes plus its proof's scratch), so making it takes no room the VRAM budget gave to anything
  // else; still best effort: what the device's free memory less its margin does not hold now is
  // made by the first proof as before, and nothing here fails a load. Returns the device bytes the
  // backend holds as proof scratch now (0: a host backend computes in place).
  virtual std::uint64_t reserve_proof(const key_points& key) {
    (void)key;
    return 0;
  }

  // h and the five MSMs of one proof. The default runs compute_h and the MSMs in sequence on
  // host_staged inputs; a device backend overrides it for its own staged inputs.
  virtual proof_sums prove_sums(const key_points& key, staged_inputs& in, prove_timings* t = nullptr);

  // Whether keys whose points are in a file's form (key_points::file) prove here: a device that
  // converts and checks them as it uploads them (the CUDA backend). The host backends refuse them.
  virtual bool takes_file_points() const { return false; }
};

// The staging slots of a reserve step: `count` of `bytes` each (staged_bytes); none for count 0.
struct staging_slots {
  std::uint64_t bytes = 0;
  unsigned count = 0;
  bool operator==(const staging_slots&) const = default;
};

// The reserve step that ends a key's load, in the one order every loader takes (the engine's device
// actor; `cuzk prove` and `cuzk bench prove` through load_for_proofs): first the proof's scratch for
// `resident`, the key just made by be.load_key (backend::reserve_proof, given `key` with
// key_points::resident set to it), then `slots` (backend::reserve_staging), so that the key's
// first proof allocates nothing. Nothing for a null `resident` (a host backend's load, or a key
// that is not resident): its proofs bring their points and staging with them.
void reserve_for_proofs(backend& be, key_points key, const resident_key* resident, staging_slots slots);

// A key made resident on `be` for proofs that run one at a time (the command line's: one staged
// while none waits), and its reserve step: load_key (pce's device form with it, the shifted sets
// where `sets` and the backend's settings allow), then reserve_for_proofs with one staging slot on
// the path its proofs stage (the witness alone when the key holds pce's device form,
// resident_key::synthesizes; a, b, c and the witness otherwise). Null from a host backend.
std::unique_ptr<resident_key> load_for_proofs(backend& be, const key_points& key, const constraint_evaluator& pce,
                                              bool sets = true);

// The host computation behind backend::compute_h_coset (h.size() >= n - 1).
void bellperson_h(std::span<fr> a, std::span<fr> b, std::span<fr> c, std::span<scalar> h);

}  // namespace cuzk::zk::groth16
