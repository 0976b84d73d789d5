// A proving key with its constraint evaluator, and the one loader of keys by path: `cuzk fil
// c2/post/snap` (fil/prove), the engine's key store and remote synthesizers all load here. A path
// is a snarkjs .zkey, a Filecoin .params file named as parameters.json names it (its circuit from
// the name: fil/partition circuit_for_params), or a synthetic key path (zk/groth16/synthetic_srs.hpp:
// "synthetic:SEED:device|host:EVALUATOR", a key of the recorded circuit's shape, NOT A SETUP).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "fil/evaluator.hpp"
#include "zk/groth16/b2_plan.hpp"
#include "zk/groth16/partition_buffers.hpp"
#include "zk/groth16/pce.hpp"
#include "zk/io/zkey.hpp"

namespace cuzk::fil {

// A proving key with its constraint evaluator (the engine's key store hands it out as a lease: it
// evicts only keys whose handle nobody else holds).
struct circuit_key {
  std::shared_ptr<const zk::io::zkey> zkey;
  std::shared_ptr<const zk::groth16::constraint_evaluator> evaluator;
  std::uint64_t evaluator_bytes = 0;
  bool evaluator_recorded = false;  // its evaluator's cache file was recorded by this load (PoRep)
  // A PoRep key's partition buffers, kept between its partitions (evaluator_bytes counts them);
  // null for other keys (each partition allocates its own). The key store makes them.
  std::shared_ptr<zk::groth16::partition_buffers> buffers;
  // The host copy of its B2 points for B2's host part (zk/groth16/b2_plan.hpp), when B2 may run on
  // the host and the key's points are only on its devices (file form, synthetic made on a device);
  // evaluator_bytes counts its b2_host_bytes. Null otherwise. The key store makes it.
  std::shared_ptr<zk::groth16::b2_host_points> b2_host;
  std::uint64_t b2_host_bytes = 0;
};

struct key_options {
  // parameters.json's digests by file name ([filecoin] verify_params): a .params file's is checked
  // before it is read (null or empty: not checked).
  std::shared_ptr<const std::map<std::string, std::string>> param_digests;
  // Where PoRep and SnapDeals keys' compact evaluators are cached ("": next to each params file;
  // fil/evaluator.hpp).
  std::string evaluator_dir;
  unsigned record_threads = 0;  // a PoRep evaluator's recording: threads (0: the process pool)
  // Stage and progress of an evaluator's recording ("recording the circuit", done of total).
  evaluator_progress progress;
  // One line when an evaluator's recording starts and one when it ends (called on the loading thread).
  std::function<void(const std::string&)> on_event;
  // Build the evaluator where the load gives none (PoSt's and a .zkey's: build_evaluator) and count
  // its memory_bytes in evaluator_bytes; otherwise left to the caller (the key store builds it once
  // the host budget granted evaluator_bytes(key)).
  bool with_evaluator = false;
};

// The key at `path`. A .params file: checked to exist, its digest checked when the options list
// digests; PoRep and SnapDeals keys come with the compact recorded evaluator (fil/evaluator.hpp),
// mapped from its cache file or recorded into it first (evaluator_recorded says which), and the
// key's density from it; PoSt's circuit is recorded into an R1CS in memory and its evaluator built
// from it. A synthetic key comes with the compact evaluator it was made from. The key's point
// sections are checked against its wires and domain (zk::groth16::check_key) once, here. Blocking;
// throws zk::input_error naming the file ("PATH: section h has N, the circuit needs M (a key for
// another circuit?)"), fil::not_implemented for a circuit not implemented.
circuit_key load_circuit_key(const std::string& path, const key_options& options = {});

// The key's constraint evaluator: built from its coefficients, or for a synthetic key the compact
// recorded evaluator it was made from (mapped). Blocking.
std::shared_ptr<const zk::groth16::constraint_evaluator> build_evaluator(const zk::io::zkey& key);
// The host bytes build_evaluator's result holds plus one evaluation's a, b, c (for the host budget).
std::uint64_t evaluator_bytes(const zk::io::zkey& key);

}  // namespace cuzk::fil
