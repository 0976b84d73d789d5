// The PoRep vanilla proof of one challenge (storage-proofs-porep `stacked/vanilla`: Proof, Column,
// ColumnProof, ReplicaColumnProof, LabelingProof, EncodingProof), field for field, so that circuit
// synthesis can take its witness from it:
//   comm_d_proofs          SHA-256 binary inclusion of the data node in comm_d
//   comm_r_last_proof      Poseidon inclusion of the replica (encoded) node in comm_r_last
//   replica_column_proofs  the challenged column c_x and the 6 DRG + 8 expander parent columns, each
//                          the node's label in every layer (rows) and its inclusion in comm_c
//   labeling_proofs        per layer 1..L: the 37 parent labels (14 parents repeated) that label the node
//   encoding_proof         the last layer's labeling inputs, for key + data = replica
#pragma once

#include <cstdint>
#include <vector>

#include "fil/merkle/proof.hpp"
#include "fil/types.hpp"

namespace cuzk::fil::stacked {

struct column {  // Column (its PhantomData `_h` serializes as null)
  std::uint32_t index = 0;
  std::vector<domain> rows;  // one label per layer
  bool operator==(const column&) const = default;
};

struct column_proof {  // ColumnProof
  stacked::column column;
  merkle::merkle_proof inclusion_proof;
  bool operator==(const column_proof&) const = default;
};

struct replica_column_proof {  // ReplicaColumnProof
  column_proof c_x;
  std::vector<column_proof> drg_parents, exp_parents;
  bool operator==(const replica_column_proof&) const = default;
};

struct labeling_proof {  // LabelingProof
  std::vector<domain> parents;
  std::uint32_t layer_index = 0;
  std::uint64_t node = 0;
  bool operator==(const labeling_proof&) const = default;
};

struct encoding_proof {  // EncodingProof
  std::vector<domain> parents;
  std::uint32_t layer_index = 0;
  std::uint64_t node = 0;
  bool operator==(const encoding_proof&) const = default;
};

struct proof {  // Proof<Tree, DefaultPieceHasher> (RawVanillaSealProof)
  merkle::merkle_proof comm_d_proofs, comm_r_last_proof;
  stacked::replica_column_proof replica_column_proofs;
  std::vector<labeling_proof> labeling_proofs;
  stacked::encoding_proof encoding_proof;
  bool operator==(const proof&) const = default;

  std::uint64_t challenge() const { return replica_column_proofs.c_x.column.index; }
  const domain& comm_r_last() const { return comm_r_last_proof.root(); }
  const domain& comm_c() const { return replica_column_proofs.c_x.inclusion_proof.root(); }
};

}  // namespace cuzk::fil::stacked
