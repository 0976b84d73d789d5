// Whole Filecoin proofs from the command line's inputs, on top of the engine's per-partition API
// (fil/partition.hpp: a circuit_ref names the circuit and its params file; synthesize_partition
// checks the vanilla proofs and makes one partition's witness). What is added here:
//  - the params file looked up in a directory, its absence one line naming the path;
//  - the key loaded once with its constraint evaluator (fil/key.hpp load_circuit_key, the engine's
//    loader too: PoRep's and SnapDeals' compact evaluator cached beside the params or in an
//    evaluator directory, PoSt's R1CS recorded in memory);
//  - PoSt: the challenged sectors' vanilla proofs sorted by sector id (as the verifier lists them)
//    and cut into partitions of sector_count (filecoin-proofs partition_vanilla_proofs), each a
//    job_input of its own with its partition_index;
//  - PoRep C2: every partition of a C1 output (fil/circuit/stacked), its public inputs checked
//    against fil/stacked's (what verify-seal computes);
//  - proving every partition, then one batched verification before anything is returned.
// How to call it (`cuzk fil post` / `cuzk fil c2`):
//   auto c   = fil::resolve_circuit(kind, name);
//   auto key = load_circuit_key(find_params(dir, c), options);          // options.with_evaluator
//   auto in  = post_partitions(c, randomness, miner_id, files);         // PoSt
//   auto out = prove_partitions(key, n, [&](k) { return synthesize_partition(c, in[k], 0); }, be);
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fil/key.hpp"
#include "fil/partition.hpp"
#include "fil/registered_proof.hpp"
#include "fil/seal_commit_phase1_output.hpp"
#include "fil/types.hpp"
#include "fil/update/vanilla_proof.hpp"
#include "fil/update/vanilla_verify.hpp"
#include "zk/groth16/pce_compact.hpp"
#include "zk/io/r1cs.hpp"
#include "zk/groth16/backend.hpp"
#include "zk/groth16/pce.hpp"
#include "zk/io/wtns.hpp"
#include "zk/io/zkey.hpp"

namespace cuzk::fil::prove {

// DIR/<params file of c>, checked to exist; throws zk::input_error naming the path looked for
// ("DIR/v28-...params: no such file (the WindowPoSt StackedDrgWindow2KiBV1_2 parameters)").
std::string find_params(const std::string& dir, const circuit_ref& c);

// The blank StackedDrg PoRep circuit of a registered seal proof, recorded (its params' circuit).
zk::io::r1cs porep_circuit(const seal_proof_info& info);

// Stage names and progress ("recording the circuit", "synthesizing", "proving", "verifying"; done of total).
using progress_fn = std::function<void(std::string_view stage, std::size_t done, std::size_t total)>;
// The compact recorded evaluator of info's circuit in `file`: opened, or first recorded there (a
// "recording the circuit" stage) when absent or not this circuit's (fil/evaluator.hpp).
std::shared_ptr<const zk::groth16::pce_compact> porep_evaluator(const seal_proof_info& info, const std::string& file,
                                                                const progress_fn& progress = {});

// The registered PoSt proof of this type and API version whose tree a bincode vanilla proof's first
// inclusion proof fits (Merkle shape and path length give the sector size); nullptr when none.
const post_proof_info* post_proof_for(post_type type, api_version version, std::span<const std::uint8_t> vanilla,
                                      const std::string& origin);

struct named_bytes {
  std::string name;  // the file: messages name it
  std::vector<std::uint8_t> bytes;
};
struct post_job {
  std::vector<job_input> partitions;              // one job_input per partition
  std::vector<std::vector<std::string>> names;    // names[k][i]: partition k's vanilla_proofs[i]
};
// Sorted by sector id, cut into partitions. Throws zk::input_error naming the file when a proof
// cannot be read or a sector id repeats.
post_job post_partitions(const circuit_ref& c, const domain& randomness, std::uint64_t miner_id,
                         std::vector<named_bytes> vanilla);
// check_job_input of every partition (shapes, leaf indices, comm_r; no hashing), and
// synthesize_partition(c, job.partitions[k], 0) (Merkle paths recomputed too): their errors name
// the partition and the file ("partition 0: v-2.bin (sector 2): challenge 0 (leaf 6): ...").
void check_post_job(const circuit_ref& c, const post_job& job);
zk::io::witness synthesize_post_partition(const circuit_ref& c, const post_job& job, std::size_t k);

// Partition k of a C1 output in witness mode; its public inputs checked against fil/stacked's
// generate_public_inputs for the sector's replica_id, seed, comm_d and comm_r. Throws
// zk::input_error naming the partition, challenge and field (fil/circuit/stacked.hpp).
zk::io::witness synthesize_porep_partition(const seal_commit_phase1_output& c1, unsigned k);

// SnapDeals: one bincode PartitionProof per partition, in partition order (fil/io/update_bincode),
// for the update circuit c and the sector's commitments.
struct update_job {
  update::public_params pp;
  update::commitments comms;
  std::vector<update::partition_proof> partitions;
  std::vector<std::string> names;  // the files
};
// Parsed and checked (update::check_partition_proof: counts, shapes, comm_r_old / comm_r_new,
// challenges, paths, the encoding, comm_d_new); throws zk::input_error naming the field, and the file.
update_job update_partitions(const circuit_ref& c, const update::commitments& comms, std::vector<named_bytes> vanilla);
// Partition k in witness mode; its public inputs checked against update::public_inputs (what
// verify-update computes).
zk::io::witness synthesize_update_partition(const update_job& job, std::size_t k);

struct proof_result {
  std::vector<std::uint8_t> bytes;   // 192 B per partition, concatenated; empty unless all verify
  std::vector<std::size_t> invalid;  // partitions whose proof did not verify (a bug or a bad key)
};
// Wall seconds by stage, summed over the partitions: synthesize(k) (the witness), a, b, c (the
// evaluator), the rest of the proof (h and the MSMs), the batched verification.
struct stage_seconds {
  double witness = 0, abc = 0, prove = 0, verify = 0;
  double h = 0, msm = 0;  // prove's parts: h (the NTTs) and the five MSMs
};
// Each partition's witness from synthesize(k), proved on `be`; then all verified in one batch
// against the witnesses' public inputs (wires 1 .. n_public).
proof_result prove_partitions(const circuit_key& key, std::size_t partitions,
                              const std::function<zk::io::witness(std::size_t)>& synthesize,
                              zk::groth16::backend& be, const progress_fn& progress = {},
                              stage_seconds* times = nullptr);

}  // namespace cuzk::fil::prove
