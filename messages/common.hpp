// The engine's shared vocabulary: atoms, error codes, the handles that carry large immutable
// buffers (proving keys, witnesses, a/b/c, staged inputs, resident keys) and a partition attempt
// (task_ref). Job ids, states, roles and every report (a job's outcome, each actor's status) are
// plain CAF-free structs in messages/status.hpp, which the engine facade shares with its callers. Each actor's own messages
// and typed interface sit beside it (actors/<actor>.hpp); messages/cluster.hpp is the protocol
// between a coordinator and its nodes.
//
// Messages are plain structs with CAF `inspect` functions (CAF 0.17 style). The large buffers
// travel in-process as shared_ptr<const T> handles and are never copied. Across processes a handle
// serializes its contents (witness, synthesis) or only its name (a proving key, which every node
// loads itself). No actor handles here.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "caf/atom.hpp"
#include "caf/error.hpp"
#include "fil/key.hpp"
#include "fil/partition.hpp"
#include "messages/status.hpp"
#include "messages/zk_inspect.hpp"
#include "zk/groth16/backend.hpp"
#include "zk/groth16/partition_buffers.hpp"
#include "zk/groth16/pce.hpp"
#include "zk/groth16/types.hpp"
#include "zk/io/wtns.hpp"
#include "zk/io/zkey.hpp"

namespace cuzk::msg {


// ---- atoms (10 characters at most) ------------------------------------------------------------
using status_atom = caf::atom_constant<caf::atom("status")>;
using release_atom = caf::atom_constant<caf::atom("release")>;
using acquire_atom = caf::atom_constant<caf::atom("acquire")>;
using load_atom = caf::atom_constant<caf::atom("load")>;
using build_atom = caf::atom_constant<caf::atom("build")>;
using evict_atom = caf::atom_constant<caf::atom("evict")>;
using await_atom = caf::atom_constant<caf::atom("await")>;
using cancel_atom = caf::atom_constant<caf::atom("cancel")>;
using forget_atom = caf::atom_constant<caf::atom("forget")>;
using roster_atom = caf::atom_constant<caf::atom("roster")>;
using kill_atom = caf::atom_constant<caf::atom("killworker")>;
using shutdown_atom = caf::atom_constant<caf::atom("shutdown")>;
using describe_atom = caf::atom_constant<caf::atom("describe")>;
using ping_atom = caf::atom_constant<caf::atom("ping")>;
using tick_atom = caf::atom_constant<caf::atom("tick")>;
using node_lost_atom = caf::atom_constant<caf::atom("nodelost")>;
using fail_alloc_atom = caf::atom_constant<caf::atom("failalloc")>;
using place_atom = caf::atom_constant<caf::atom("place")>;  // can any place prove this key (a coordinator_only engine)?
using b2_plan_atom = caf::atom_constant<caf::atom("b2plan")>;  // a device's B2 plan for a key, to the key store  // chaos: fail the next N allocations

// ---- errors -----------------------------------------------------------------------------------
enum class errc : std::uint8_t {
  none = 0,
  invalid_request,  // the request cannot be run (no partitions, unknown circuit, ...)
  queue_full,       // intake's limit on queued jobs
  unknown_job,
  bad_input,        // a file or witness is unusable: retrying cannot help
  worker_failed,    // a synthesizer or device threw, or an injected fault
  proof_invalid,    // the assembler's verification failed
  over_budget,      // a reservation larger than the whole budget
  shutting_down,
  refused,          // a cluster join with the wrong secret or another build
  node_lost,        // a cluster node stopped answering
  withdrawn,        // a queued budget request that its requester took back (cancel_atom)
  failed_precondition,  // nothing here or in the cluster can prove it (no local device, no node with its key)
};
caf::error make_error(errc x, std::string what = {});
const char* to_string(errc x);
// "bad_input: circuit.zkey: ..." for any caf::error, ours or CAF's.
std::string describe(const caf::error& e);
// CAF's request_receiver_down: the actor a request went to died under it.
bool receiver_down(const caf::error& e);

// ---- handles to large immutable buffers -------------------------------------------------------

// Keeps something alive (a budget reservation, a key lease) while a handle travels. Never
// serialized: what it guards is local to the process that made it.
struct keepalive {
  std::shared_ptr<const void> ptr;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, keepalive&) {
  return f(caf::meta::type_name("keepalive"));
}

// A proving key with its constraint evaluator (fil/key.hpp: its one loader makes it), as the key
// store hands it out.
using circuit_key = fil::circuit_key;

struct key_handle {
  std::string path;                   // the zkey file: the name every node resolves on its own
  std::uint64_t synthesis_bytes = 0;  // host bytes one partition's synthesis holds
  std::uint64_t device_bytes = 0;     // device bytes one staged partition takes (zk::groth16::staged_bytes)
  // The same when the device evaluates a, b, c from the witness (a Filecoin key's compact evaluator
  // resident on a GPU): the staged witness alone. 0: the key has no such evaluator.
  std::uint64_t device_witness_bytes = 0;
  std::shared_ptr<const circuit_key> ptr;  // in-process only
  bool operator==(const key_handle& o) const {
    return path == o.path && synthesis_bytes == o.synthesis_bytes && device_bytes == o.device_bytes &&
           device_witness_bytes == o.device_witness_bytes;
  }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, key_handle& x) {
  return f(caf::meta::type_name("key_handle"), x.path, x.synthesis_bytes, x.device_bytes, x.device_witness_bytes);
}

// A key's points on one device: the key store's tier above "hot". The device's backend made them
// (backend::load_key: for a GPU a device key holding the points, their shifted sets and the proof's
// scratch allowance), only after that device's VRAM budget granted `bytes`; the grant travels with
// them and returns when the last handle goes. In-process only. A handle is a lease: the key store
// evicts an entry only when nobody else holds it.
struct device_resident {
  std::shared_ptr<const zk::groth16::resident_key> key;  // null where the backend keeps nothing (a CPU)
  std::uint64_t bytes = 0;
  keepalive grant;
};

struct resident_handle {
  std::string path;
  std::uint32_t device = 0;
  std::shared_ptr<const device_resident> ptr;  // in-process only
  bool operator==(const resident_handle& o) const { return path == o.path && device == o.device && ptr == o.ptr; }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, resident_handle& x) {
  return f(caf::meta::type_name("resident_handle"), x.path, x.device);
}

// A verifying key, in-process only (the assembler checks every partition proof against it).
struct verifier_handle {
  std::shared_ptr<const zk::groth16::verifying_key> ptr;
  bool operator==(const verifier_handle& o) const { return ptr == o.ptr; }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, verifier_handle&) {
  return f(caf::meta::type_name("verifier_handle"));
}

struct witness_handle {
  std::shared_ptr<const zk::io::witness> ptr;
  bool operator==(const witness_handle& o) const {
    if (!ptr || !o.ptr) return !ptr && !o.ptr;
    return ptr == o.ptr || ptr->values == o.ptr->values;
  }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, witness_handle& x) {
  bool present = false;
  std::vector<std::uint64_t> words;
  if constexpr (Inspector::reads_state) {
    present = bool(x.ptr);
    if (x.ptr) words = detail::to_words(x.ptr->values.data(), x.ptr->values.size());
  }
  auto load = caf::meta::load_callback([&]() -> caf::error {
    if (!present) {
      x.ptr.reset();
      return caf::none;
    }
    auto w = std::make_shared<zk::io::witness>();
    w->values.resize(words.size() / 4);
    if (!detail::from_words(words, w->values.data(), w->values.size()))
      return caf::make_error(caf::sec::invalid_argument);
    x.ptr = std::move(w);
    return caf::none;
  });
  return f(caf::meta::type_name("witness_handle"), present, words, load);
}

// A Filecoin partition's inputs (fil/partition.hpp): the job's vanilla proofs, shared by its
// partitions in-process, and which partition this is. The synthesizer computes the witness.
struct fil_input_handle {
  std::shared_ptr<const fil::job_input> ptr;
  std::uint32_t partition = 0;
  bool operator==(const fil_input_handle& o) const {
    if (!ptr || !o.ptr) return !ptr && !o.ptr && partition == o.partition;
    return partition == o.partition && (ptr == o.ptr || *ptr == *o.ptr);
  }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, fil_input_handle& x) {
  bool present = false;
  fil::job_input in;
  std::uint8_t kind = 0;
  std::vector<std::uint8_t> randomness, comms;  // comms: SnapDeals' comm_r_old, comm_r_new, comm_d_new
  if constexpr (Inspector::reads_state) {
    present = bool(x.ptr);
    if (x.ptr) in = *x.ptr;
    kind = static_cast<std::uint8_t>(in.kind);
    randomness.assign(in.randomness.begin(), in.randomness.end());
    for (const auto* d : {&in.comm_r_old, &in.comm_r_new, &in.comm_d_new}) comms.insert(comms.end(), d->begin(), d->end());
  }
  auto load = caf::meta::load_callback([&]() -> caf::error {
    if (!present) {
      x.ptr.reset();
      return caf::none;
    }
    if (randomness.size() != in.randomness.size() || comms.size() != 3 * in.comm_r_old.size())
      return caf::make_error(caf::sec::invalid_argument);
    in.kind = static_cast<fil::proof_kind>(kind);
    std::copy(randomness.begin(), randomness.end(), in.randomness.begin());
    auto at = comms.begin();
    for (auto* d : {&in.comm_r_old, &in.comm_r_new, &in.comm_d_new}) {
      std::copy(at, at + std::ptrdiff_t(d->size()), d->begin());
      at += std::ptrdiff_t(d->size());
    }
    x.ptr = std::make_shared<const fil::job_input>(std::move(in));
    return caf::none;
  });
  return f(caf::meta::type_name("fil_input_handle"), present, kind, in.registered_proof, in.miner_id,
           in.sector_number, randomness, in.partition_index, in.vanilla_proofs, in.c1, comms, x.partition, load);
}

// A partition's witness: a file to load, values already in memory, or Filecoin vanilla proofs.
struct witness_source {
  std::string path;
  witness_handle data;
  fil_input_handle fil;
  bool operator==(const witness_source&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, witness_source& x) {
  return f(caf::meta::type_name("witness_source"), x.path, x.data, x.fil);
}

// a = A·w, b = B·w, c = a∘b of one partition. `reservation` is the host-budget grant that
// accounts for these bytes: it is released when the last holder of the handle lets go.
struct synthesis_handle {
  std::shared_ptr<const zk::groth16::synthesis> ptr;
  keepalive reservation;
  bool operator==(const synthesis_handle& o) const {
    if (!ptr || !o.ptr) return !ptr && !o.ptr;
    return ptr == o.ptr || (ptr->a == o.ptr->a && ptr->b == o.ptr->b && ptr->c == o.ptr->c);
  }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, synthesis_handle& x) {
  bool present = false;
  std::vector<std::uint64_t> a, b, c;
  if constexpr (Inspector::reads_state) {
    present = bool(x.ptr);
    if (x.ptr) {
      a = detail::to_words(x.ptr->a.data(), x.ptr->a.size());
      b = detail::to_words(x.ptr->b.data(), x.ptr->b.size());
      c = detail::to_words(x.ptr->c.data(), x.ptr->c.size());
    }
  }
  auto load = caf::meta::load_callback([&]() -> caf::error {
    x.reservation.ptr.reset();
    if (!present) {
      x.ptr.reset();
      return caf::none;
    }
    auto s = std::make_shared<zk::groth16::synthesis>();
    s->a.resize(a.size() / 4);
    s->b.resize(b.size() / 4);
    s->c.resize(c.size() / 4);
    if (!detail::from_words(a, s->a.data(), s->a.size()) || !detail::from_words(b, s->b.data(), s->b.size()) ||
        !detail::from_words(c, s->c.data(), s->c.size()))
      return caf::make_error(caf::sec::invalid_argument);
    x.ptr = std::move(s);
    return caf::none;
  });
  return f(caf::meta::type_name("synthesis_handle"), present, a, b, c, load);
}

// A partition's inputs placed on a device by its stager (zk::groth16::staged_inputs: device memory
// for a GPU), in-process only. Whoever holds the last handle owns the memory, and the VRAM grant
// that accounts for it travels with it.
struct staged_handle {
  std::shared_ptr<zk::groth16::staged_inputs> ptr;
  keepalive device_reservation;
  bool operator==(const staged_handle& o) const { return ptr == o.ptr; }
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, staged_handle&) {
  return f(caf::meta::type_name("staged_handle"));
}

// ---- jobs -------------------------------------------------------------------------------------

// One attempt at one partition. `ticket` is unique per dispatch: a late answer whose ticket is not
// the partition's current one belongs to an abandoned attempt and is dropped.
struct task_ref {
  job_id job = 0;
  std::uint32_t index = 0;
  std::uint32_t attempt = 0;
  std::uint64_t ticket = 0;
  bool operator==(const task_ref&) const = default;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, task_ref& x) {
  return f(caf::meta::type_name("task_ref"), x.job, x.index, x.attempt, x.ticket);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, job_timings& x) {
  return f(caf::meta::type_name("job_timings"), x.queue_us, x.key_us, x.synthesis_us, x.device_us, x.total_us,
           x.device_start_us);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, partition_output& x) {
  return f(caf::meta::type_name("partition_output"), x.proof, x.publics);
}

}  // namespace cuzk::msg
