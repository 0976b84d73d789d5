// One Filecoin proof partition as the engine proves it, from what a Curio node sends:
//  - the circuit: a proof kind (Curio's proof_kind numbers) and a registered proof (its serde name,
//    or the abi number Curio sends) name one circuit and so one parameter file, found by its
//    Filecoin name (fil/parameter_cache.hpp) in the parameter cache; conversely a parameter file's
//    name says which circuit it is for (V1 / V1_1 / V1_2 variants of one size share a file and a
//    circuit), which is how the engine's key store builds the key of a `.params` path;
//  - the key: the circuit recorded once (record mode, blank, as bellperson's parameter generation
//    synthesizes it) joined to the mapped .params (groth16::bellperson_proving_key): an io::zkey
//    of the bellperson convention that the constraint evaluator and every backend take as is;
//  - the witness of one partition (witness mode) from the vanilla proofs. PoSt: every sector proof
//    is checked first against the challenges that the randomness and sector id give (shape, leaf
//    indices, comm_r = Poseidon(comm_c, comm_r_last), each Merkle path recomputed to comm_r_last),
//    so that a wrong vanilla proof fails with one line naming the sector, challenge and field rather
//    than with a proof that does not verify; the circuit's public inputs are then compared with the
//    ones Filecoin's verifier computes (fil/post/fallback.hpp).
// PoRep C2: the C1 output (Curio's wrapper) is read and checked (shape, registered proof against the
// request's, replica_id against the miner and sector), partition k goes through the StackedDrg
// circuit (fil/circuit/stacked.hpp, which checks every path as it goes), and the circuit's public
// inputs are compared with generate_public_inputs'. (Each partition reads the C1 again.)
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fil/registered_proof.hpp"
#include "fil/seal_commit_phase1_output.hpp"
#include "fil/types.hpp"
#include "fil/update/public_params.hpp"
#include "fil/update/vanilla_verify.hpp"
#include "zk/cs/constraint_system.hpp"
#include "zk/io/r1cs.hpp"
#include "zk/io/wtns.hpp"
#include "zk/io/zkey.hpp"
#include "zk/util/parallel.hpp"

namespace cuzk::fil {

// Curio's SubmitProofRequest.proof_kind numbers.
enum class proof_kind : std::uint8_t { porep_seal_commit = 1, snap_deals_update = 2, window_post_partition = 3, winning_post = 4 };
const char* to_string(proof_kind k);  // "PoRep C2", "SnapDeals", "WindowPoSt", "WinningPoSt"

// What cannot be proven (a kind the engine has no circuit for): the engine answers "unimplemented: ...".
class not_implemented : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The serde name of a registered proof from its abi number (go-state-types abi.RegisteredSealProof
// for PoRep, abi.RegisteredPoStProof for PoSt: Winning 0-4, Window V1 5-9, Window V1_1 = the
// proofs API's V1_2 10-14, abi.RegisteredUpdateProof for SnapDeals: 2 KiB .. 64 GiB 0-4). Throws
// zk::input_error naming the number.
std::string_view registered_proof_name(proof_kind kind, std::uint64_t abi_number);

// A registered proof of one kind: its circuit and its parameter file.
struct circuit_ref {
  proof_kind kind = proof_kind::window_post_partition;
  const seal_proof_info* seal = nullptr;  // PoRep
  const post_proof_info* post = nullptr;  // PoSt
  const update::update_proof_info* update = nullptr;  // SnapDeals (EmptySectorUpdate)

  std::string params_file() const;  // "v28-...params" (parameters.json's name)
  std::string vk_file() const;      // "v28-...vk"
  unsigned partitions() const;      // one job's partitions: PoRep the proof's (10 at 32 GiB), PoSt 1, SnapDeals 1..16
  std::uint64_t sector_size() const;
  bool implemented() const;         // PoSt, PoRep and SnapDeals
  std::string describe() const;     // "WindowPoSt StackedDrgWindow2KiBV1_2"
};

// Throws zk::input_error for an unknown name, a name of another kind, or a sector size that does
// not match `sector_size` (when non-zero).
circuit_ref resolve_circuit(proof_kind kind, std::string_view registered_proof, std::uint64_t sector_size = 0);
// The SnapDeals circuit of a RegisteredUpdateProof name ("StackedDrg2KiBV1"); throws
// zk::input_error for another name.
circuit_ref resolve_update_circuit(std::string_view registered_proof);
// The circuit a parameter file is for, by its file name (any directory; ".params" or ".vk"), or
// nullopt when the name is none of the registered proofs'.
std::optional<circuit_ref> circuit_for_params(std::string_view path);

// The circuit synthesized blank (no witness, as bellperson's parameter generation synthesizes it)
// into `cs` of any mode; PoRep's challenges on `pool` where the mode runs them in parts.
void synthesize_blank(zk::cs::constraint_system& cs, const circuit_ref& c, zk::thread_pool& pool);
// The circuit's R1CS (blank, record mode).
zk::io::r1cs record_circuit(const circuit_ref& c);
// The proving key of a .params file for its circuit (throws input_error naming the file when the
// file's shape is not the circuit's). Costs the recording plus decoding every point.
zk::io::zkey proving_key(const std::string& params_path, const circuit_ref& c);

// The most partitions a miner's deadline may hold (builtin-actors' policy): a WindowPoSt's
// partition_index is below it.
constexpr std::uint32_t max_partitions_per_deadline = 3000;

// The inputs of one job (all its partitions share them): what Curio's SubmitProofRequest carries.
struct job_input {
  proof_kind kind = proof_kind::window_post_partition;
  std::string registered_proof;     // serde name
  std::uint64_t miner_id = 0;
  std::uint64_t sector_number = 0;  // PoRep
  domain randomness{};              // PoSt: 32 bytes, an Fr element (lotus/Curio clear its top bits)
  std::uint32_t partition_index = 0;  // WindowPoSt: this partition's index in the deadline's proof
  // PoSt: one bincode FallbackPoStSectorProof per sector of the partition (WinningPoSt: exactly 1).
  // SnapDeals: one bincode PartitionProof per partition, in partition order.
  std::vector<std::vector<std::uint8_t>> vanilla_proofs;
  // PoRep: Curio's C1 wrapper JSON {"SectorNum","Phase1Out","SectorSize"}.
  std::vector<std::uint8_t> c1;
  // SnapDeals: the sector's commitments (32 bytes each, field elements).
  domain comm_r_old{}, comm_r_new{}, comm_d_new{};
  update::commitments commitments() const { return {comm_r_old, comm_d_new, comm_r_new}; }
  bool operator==(const job_input&) const = default;
};

// A job's inputs as bytes and back (what a daemon journals so that an accepted Filecoin job
// survives a restart): "CUZKFILJ", u32 version 2, u8 kind, u32 length + registered proof name,
// u64 miner_id, u64 sector_number, 32 B randomness, u32 partition_index, u32 count + (u64 length +
// bytes) per vanilla proof, u64 length + C1 bytes, then comm_r_old, comm_r_new, comm_d_new (32 B
// each; version 1 ends before them: zero); little-endian. decode throws zk::input_error naming
// `origin` and the field.
std::vector<std::uint8_t> encode(const job_input& in);
job_input decode_job_input(std::span<const std::uint8_t> bytes, const std::string& origin);

// Reads and checks the job's vanilla proofs without synthesizing or hashing (cheap: what a service
// does before it accepts a job): counts, shapes, comm_r, leaf indices against the challenges.
// PoRep: the C1 is parsed and its claims checked (not its paths). SnapDeals: every PartitionProof
// parsed and checked whole (update::check_partition_proof, paths included: a few thousand hashes a
// partition, less than parsing a PoRep C1), the commitments field elements. Throws zk::input_error
// naming the field.
// PoRep: returns the C1 output it read (the synthesizers of the job need not read it again), PoSt: null.
// `parsed`: PoRep's in.c1 as io::read_c1 read it already (the daemon's request check): its claims
// are checked against the request and it is returned, in.c1 is not read again (same errors).
std::shared_ptr<const c1_output> check_job_input(const circuit_ref& c, const job_input& in,
                                                 std::shared_ptr<const c1_output> parsed = nullptr);

// Partition `partition` of the job (PoSt: 0) in witness mode, its vanilla proofs checked first (see
// above, Merkle paths included). Throws zk::input_error naming the sector, challenge and field.
// `threads`: PoRep's challenges run in parts on this many threads (0: zk::default_pool(); see
// circuit::stacked_circuit).
zk::io::witness synthesize_partition(const circuit_ref& c, const job_input& in, std::uint32_t partition,
                                     unsigned threads = 0);
// The same, its values left in `cs` (a witness-mode system the caller made, e.g. reusing its value
// vectors: zk::cs::constraint_system::witness_reusing), PoRep's challenges on `pool`: what the
// engine's synthesizer evaluates a, b, c from before it converts the witness.
// PoRep: `c1`, when given, is the job's C1 output as read_porep_c1 gave it (read once per job and
// shared by its partitions; otherwise each partition reads it again).
void synthesize_partition_into(zk::cs::constraint_system& cs, const circuit_ref& c, const job_input& in,
                               std::uint32_t partition, zk::thread_pool& pool, const c1_output* c1 = nullptr);
// PoRep: the job's C1 output read and its claims checked against the request (registered proof,
// sector number, replica_id of the miner and sector); paths are checked as partitions synthesize.
// Throws zk::input_error naming the field. Read on `pool` (null: zk::default_pool(); io::read_c1).
c1_output read_porep_c1(const circuit_ref& c, const job_input& in, zk::thread_pool* pool = nullptr);
// read_porep_c1's checks of a C1 output read already (io::read_c1 of in.c1).
void check_porep_c1(const circuit_ref& c, const job_input& in, const c1_output& c1);
// The public inputs Filecoin's verifier computes for partition `partition` of the job (ONE not
// included): what a proof of that partition must verify against, from the job's input alone (no
// path is hashed). PoRep: the C1's replica_id, seed, comm_d and comm_r (generate_public_inputs; `c1`:
// the job's C1 output as read_porep_c1 gave it, else in.c1 is read and checked); PoSt: the
// randomness, partition_index and the vanilla proofs' sector ids and comm_r; SnapDeals: the
// commitments (update::public_inputs). Throws zk::input_error naming the field.
std::vector<fr> verifier_public_inputs(const circuit_ref& c, const job_input& in, std::uint32_t partition,
                                       const c1_output* c1 = nullptr);
// "PoRep C2 StackedDrg2KiBV1_1 partition 0": what the witness of a partition is called in messages.
std::string partition_name(const circuit_ref& c, const job_input& in, std::uint32_t partition);

}  // namespace cuzk::fil
