// Window and Winning PoSt SNARKs from vanilla proofs, as filecoin-proofs'
// generate_{window,winning}_post_with_vanilla make them: one Groth16 proof per partition in
// bellperson's convention, with Filecoin's published parameters.
//
// How to call it (the CLI's `cuzk fil post` does exactly this; the engine does the same per
// partition on its actors):
//   post_job job = make_post_job(*info, randomness, prover_id, vanilla_proofs);  // checks every proof
//   auto cs   = post_circuit(*info);                        // once per registered proof (record mode)
//   auto key  = load_key(post_params_file(dir, *info), cs); // fil/prove/circuit_key.hpp
//   for k in 0 .. partition_count(job):
//     auto p = synthesize_post_partition(job, k);           // witness mode: the wire values
//     proof  = zk::groth16::prove(key.key, key.pce, p.witness, rnd, backend)
//   verify every partition against p.public_inputs (zk::groth16::verify_batch), then the 192-byte
//   compressed proofs concatenated in partition order. prove_post() is that loop.
//
// Partitions (filecoin-proofs partition_vanilla_proofs): WindowPoSt splits the challenged sectors,
// sorted by id, into chunks of sector_count and pads a short last chunk with copies of its last
// sector; WinningPoSt has one partition whose circuit proves each of the one sector's 66 challenges
// as a sector of its own. Each partition's public inputs come from the witness itself and are
// checked against fil/post's generate_public_inputs (what a verifier computes from the randomness
// and the sectors' ids and comm_r): a vanilla proof for other leaves cannot slip through.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "fil/post/vanilla_proof.hpp"
#include "fil/prove/circuit_key.hpp"
#include "fil/registered_proof.hpp"
#include "fil/types.hpp"
#include "zk/groth16/backend.hpp"
#include "zk/groth16/types.hpp"
#include "zk/io/r1cs.hpp"
#include "zk/io/wtns.hpp"

namespace cuzk::fil::prove {

struct post_job {
  const post_proof_info* proof = nullptr;
  domain randomness{};  // a field element (filecoin-proofs' as_safe_commitment)
  domain prover_id{};   // not in the circuit; kept for the verifier's view of the job
  std::vector<post::fallback_post_sector_proof> sectors;  // sorted by sector id
};

// Checks and orders the vanilla proofs (`origins[i]` names vanilla_proofs[i] in messages, e.g. its
// file; may be empty). Throws zk::input_error with one line naming the vanilla proof, sector,
// partition, challenge and field when: the randomness is not a field element; WinningPoSt is not
// given exactly one sector; a sector id repeats; a proof's shape (tree, path lengths, challenge
// count) is not the registered proof's; a path proves another leaf than the randomness challenges;
// a leaf and its path do not hash to comm_r_last; comm_r is not Poseidon(comm_c, comm_r_last).
post_job make_post_job(const post_proof_info& proof, const domain& randomness, const domain& prover_id,
                       std::vector<post::fallback_post_sector_proof> vanilla_proofs,
                       const std::vector<std::string>& origins = {});

std::size_t partition_count(const post_job& job);

// The registered proof of this kind and API version whose tree a vanilla proof's first inclusion
// proof fits (Merkle shape and path length give the sector size); nullptr when none does.
const post_proof_info* post_proof_for(post_type type, api_version version, const post::fallback_post_sector_proof& p);

// The blank circuit of a registered PoSt proof, recorded (what its params were made for).
zk::io::r1cs post_circuit(const post_proof_info& proof);

// The params file of the proof in a parameter cache directory (its Filecoin name); throws
// zk::input_error naming the path looked for when it is missing.
std::string post_params_file(const std::string& params_dir, const post_proof_info& proof);

struct partition_witness {
  zk::io::witness witness;                 // wire values (ONE, public inputs, aux), canonical
  std::vector<zk::bigint<4>> public_inputs;  // without ONE, canonical: the verifier's inputs
};
// One partition in witness mode. Throws std::logic_error when the witness's public inputs are not
// what generate_public_inputs says (cannot happen for a job make_post_job accepted).
partition_witness synthesize_post_partition(const post_job& job, std::size_t partition);

// Stage names and progress of prove_post ("synthesizing", "proving", "verifying"; done of total).
using progress_fn = std::function<void(std::string_view stage, std::size_t done, std::size_t total)>;

struct post_proof {
  std::vector<std::uint8_t> bytes;    // 192 B per partition, concatenated; empty unless all verify
  std::size_t partitions = 0;
  std::vector<std::size_t> invalid;   // partitions whose proof did not verify (a bug or a bad key)
};
// Every partition synthesized and proved on `be`, then all verified in one batched check.
post_proof prove_post(const post_job& job, const circuit_key& key, zk::groth16::backend& be,
                      const progress_fn& progress = {});

}  // namespace cuzk::fil::prove
