// The StackedDrg PoRep circuit (storage-proofs-porep stacked/circuit/{proof,params}.rs), constraint
// for constraint, for one partition.
//
// How to call it (cuzk fil c2, the synthesizer):
//   const auto& info = *c1.registered_proof;                   // fil/registered_proof
//   // structure, once per sector size (blank circuit, what parameter generation uses):
//   zk::cs::constraint_system rec(zk::cs::mode::record);
//   stacked_circuit(rec, blank_porep_partition(porep_shape_of(info)));
//   // witness of partition k from a C1 (throws zk::input_error naming partition/challenge/field):
//   zk::cs::constraint_system wit(zk::cs::mode::witness);
//   stacked_circuit(wit, porep_partition_from(c1, k));  // all cores; wit.inputs() / wit.aux()
// Public inputs come out in StackedCompound::generate_public_inputs' order (ONE first). Counts
// without storing anything: mode::count (a 32 GiB partition's 130M constraints in ~30 s, 7 MB).
//
// Layout (allocation order): replica_id, its input and its 255 bits; comm_d and comm_r (inputs);
// comm_r_last, comm_c and comm_r = Poseidon2(comm_c, comm_r_last); then per challenge:
//   data leaf, its SHA-256 binary inclusion in comm_d (index bits packed as one input);
//   6 DRG and 8 expander parent columns (one variable per layer), each hashed (hash_single_column)
//   and included in comm_c (one input each);
//   the challenge as 64 bits (one input);
//   per layer l: each parent's label unpacked to bits (6 DRG parents of layer l, and from layer 2 on
//   the 8 expander parents of layer l - 1), repeated to 37 and hashed with create_label;
//   encode(last label, data leaf) included in comm_r_last; the column of labels hashed and included
//   in comm_c (one input each).
// SHA-256 dominates: per challenge, `layers` labels of 20 compressions each.
#pragma once

#include <cstdint>
#include <vector>

#include "fil/circuit/por.hpp"
#include "fil/registered_proof.hpp"
#include "fil/seal_commit_phase1_output.hpp"
#include "zk/cs/constraint_system.hpp"
#include "zk/util/parallel.hpp"

namespace cuzk::fil::circuit {

struct porep_shape {
  std::uint64_t nodes = 0;      // graph size (sector size / 32)
  unsigned layers = 0;
  unsigned challenges = 0;      // per partition
  tree_arities tree;            // comm_r_last / comm_c trees
};
porep_shape porep_shape_of(const seal_proof_info& info);

struct column_witness {  // ColumnProof: the rows (one label per layer) and the path in comm_c
  std::vector<fr> rows;
  std::vector<path_level> path;
};

struct porep_challenge {  // circuit::params::Proof
  std::vector<path_level> comm_d_path;   // binary SHA-256 tree
  fr data_leaf;
  std::uint64_t challenge = 0;
  std::vector<path_level> comm_r_last_path, comm_c_path;
  std::vector<column_witness> drg_parents, exp_parents;  // 6 and 8
};

struct porep_partition {
  tree_arities tree;  // comm_r_last / comm_c trees
  fr replica_id, comm_d, comm_r, comm_r_last, comm_c;
  std::vector<porep_challenge> challenges;
  // Set by porep_partition_from: the synthesis then checks as it goes that every inclusion reaches its
  // root and comm_r = H(comm_c, comm_r_last), and throws zk::input_error naming `origin`, the
  // partition, the challenge and the field when not (a witness that would not satisfy the R1CS).
  bool check = false;
  unsigned partition = 0;
};

// StackedCompound::blank_circuit: zeros everywhere, the structure only.
porep_partition blank_porep_partition(const porep_shape& shape);

// StackedCompound::circuit for partition k of a C1 output. Throws zk::input_error (one line naming the
// partition, challenge and field) when a path has the wrong length or arity, a value is not a field
// element, or comm_r_last / comm_c differ between challenges.
porep_partition porep_partition_from(const seal_commit_phase1_output& c1, unsigned k);

// Witness and count modes run the challenges in parts on threads (record and check modes, and
// threads = 1, stay on this thread): `threads` 0 uses zk::default_pool() (all cores unless the
// process sized it), n > 1 a pool of n. Each challenge splits into its prefix (comm_d inclusion, the
// parent columns), one part per layer's labeling and its suffix; every part writes its own slice of
// the partition's values, preallocated from the per-part counts of the challenge's shape (counted
// once per shape and process). The witness is the same as on one thread: a part reads what earlier
// parts allocated only through values outside record mode.
void stacked_circuit(zk::cs::constraint_system& cs, const porep_partition& p, unsigned threads = 0);
// The same on a given pool (a pool of one: on this thread).
void stacked_circuit(zk::cs::constraint_system& cs, const porep_partition& p, zk::thread_pool& pool);

// The per-part counts of `shape`'s challenges that the parallel witness preallocates from, counted
// now on `pool` unless this process has them (a key's load calls it, so that the first partition's
// witness does not count them: 0.31 CPU-s at 32 GiB on one core of the dev VM, its 13 parts on the
// pool, the biggest alone on the first partition's path). True when
// this call counted them. A real partition of the shape finds them: its challenges have the blank
// ones' path arities and columns, and the replica id's bits are allocated whatever its value.
bool prepare_porep_layout(const porep_shape& shape, zk::thread_pool& pool);
// Challenge layouts counted so far in this process (by a witness, a count or prepare_porep_layout).
std::size_t porep_layouts_counted();

}  // namespace cuzk::fil::circuit
