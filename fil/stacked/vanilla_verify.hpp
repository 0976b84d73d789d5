// Verifying C1's vanilla proofs natively (storage-proofs-porep Proof::verify), before a GPU spends
// a C2 on them: for every challenge c of every partition
//   - comm_d_proofs: the SHA-256 path from the data leaf reaches comm_d;
//   - comm_r_last_proof: the Poseidon path from the replica leaf reaches comm_r_last;
//   - every column (c_x, 6 DRG and 8 expander parents): its leaf is Poseidon(rows) (arity = layers)
//     and its path reaches comm_c;
//   - labeling: for each layer l, SHA-256(replica_id || l u32 BE || c u64 BE || 20 zero bytes ||
//     37 parent labels) with the top two bits cleared is c_x's row l;
//   - encoding: the last layer's label (the key) + the data leaf == the replica leaf (in Fr);
// and comm_r = Poseidon(comm_c, comm_r_last). Partitions are checked in parallel.
#pragma once

#include <functional>
#include <string>

#include "fil/seal_commit_phase1_output.hpp"

namespace cuzk::fil::stacked {

// Empty when everything holds, else one line naming the first failing proof and field
// ("vanilla_proofs[3][7].replica_column_proofs.drg_parents[2].inclusion_proof: path does not reach comm_c").
// `progress(done, total)` is called as challenges are verified (from worker threads, serialized).
std::string verify_vanilla_proofs(const seal_commit_phase1_output& c1,
                                  const std::function<void(std::size_t, std::size_t)>& progress = {});

}  // namespace cuzk::fil::stacked
