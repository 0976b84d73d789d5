// A PoRep (or SnapDeals) circuit's compact recorded evaluator (zk/groth16/pce_compact.hpp) as a cache file:
// <params file stem>.cuzk-pce in a directory (default: the params file's own), recorded there by
// streaming the blank circuit when it is absent, of another format version or circuit, or damaged
// (the recorder writes temporaries and renames: a reader never sees half a file; a file whose bytes
// do not match the digest recorded in it is damaged). The directory must be this user's (or
// root's) and closed to others' writes: std::runtime_error naming it otherwise. The circuits of
// one sector size share one params file, and so one evaluator file: it is recorded once per size,
// then mapped. `cuzk fil c2` (fil/prove) and the engine's key store both come here.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "fil/registered_proof.hpp"
#include "fil/update/public_params.hpp"
#include "zk/groth16/pce_compact.hpp"

namespace cuzk::fil {

// The key a PoRep evaluator file is recorded under (its circuit: one per sector size and shape, the
// same for every registered proof that shares its params file).
std::string porep_evaluator_key(const seal_proof_info& info);
// The registered proof whose evaluator key this is (porep_evaluator_key's inverse), or null.
const seal_proof_info* porep_of_evaluator_key(std::string_view key);
// DIR/<params stem>.cuzk-pce; dir "" is the params file's directory.
std::string porep_evaluator_path(const std::string& params_path, const std::string& dir);
// Throws std::runtime_error saying why unless `dir` may hold evaluators: a directory of this user's
// (or root's) closed to others' writes (whoever can write there could swap what every proof reads).
void check_evaluator_dir(const std::string& dir);

struct porep_evaluator {
  std::shared_ptr<const zk::groth16::pce_compact> compact;
  bool recorded = false;  // recorded by this call (the file was absent or not this circuit's)
};
// Stage and progress of a recording: ("recording the circuit", done, total) in parts of the circuit
// recorded (on one thread: 0 of 1 before, 1 of 1 after). Called from one thread at a time, not always
// the caller's.
using evaluator_progress = std::function<void(std::string_view stage, std::size_t done, std::size_t total)>;
// The evaluator in `file`, recorded first when needed (see above) on `threads` threads (0: the
// process-wide pool, zk::default_pool; 1: this thread; n: a pool of n for the recording): the file is
// the same byte for byte whatever the count (fil/circuit/stacked's parallel record). Throws
// std::runtime_error on an I/O failure of the recording (naming the file).
porep_evaluator open_porep_evaluator(const seal_proof_info& info, const std::string& file,
                                     const evaluator_progress& progress = {}, unsigned threads = 0);
// Records the evaluator of `info`'s partition circuit into `file` (replacing it) on `threads`
// threads as above, whether or not one is there.
void record_porep_evaluator(const seal_proof_info& info, const std::string& file, unsigned threads = 0,
                            const evaluator_progress& progress = {});

// The same for a SnapDeals (EmptySectorUpdate) partition circuit: one file per sector size, keyed
// "cuzk update StackedDrg32GiBV1 partition" (recorded on one thread: the circuit is serial).
std::string update_evaluator_key(const update::update_proof_info& info);
const update::update_proof_info* update_of_evaluator_key(std::string_view key);
porep_evaluator open_update_evaluator(const update::update_proof_info& info, const std::string& file,
                                      const evaluator_progress& progress = {});
void record_update_evaluator(const update::update_proof_info& info, const std::string& file,
                             const evaluator_progress& progress = {});
// And a PoSt partition circuit's (its API versions share one file: keyed by the first's name).
// Benchmarks of a synthetic key (`cuzk bench fil --shape wpost-32GiB`) use it; the engine proves
// PoSt with the R1CS in memory.
std::string post_evaluator_key(const post_proof_info& info);
porep_evaluator open_post_evaluator(const post_proof_info& info, const std::string& file,
                                    const evaluator_progress& progress = {});

}  // namespace cuzk::fil
