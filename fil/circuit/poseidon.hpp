// neptune's legacy Poseidon circuit (`circuit::poseidon_hash`, what filecoin-hashers' PoseidonFunction
// synthesizes), constraint for constraint. The trick is neptune's optimized form of the permutation:
//  - round constants are "compressed": each round's constants are moved through M^-1 so that a full
//    round adds them after its S-boxes (the first round also before), and the partial rounds' constants
//    are folded backwards until each partial round adds a single constant to element 0;
//  - the partial rounds multiply by sparse matrices (first row and column dense, identity elsewhere):
//    M is factored into a dense "pre-sparse" matrix, applied after the last initial full round, and
//    R_P sparse ones, so a partial round costs one S-box and linear combinations only;
//  - linear layers never allocate: elements stay Nums (linear combinations) until an S-box needs its
//    input as a variable (one constraint `lc * ONE = v`); the domain tag's first S-box is folded into
//    a constant.
// Per S-box: x^2, x^4, x^5 (+ key) as three constraints; constants come from fil/crypto/poseidon.
#pragma once

#include <span>
#include <vector>

#include "fil/types.hpp"
#include "zk/cs/gadgets/num.hpp"

namespace cuzk::fil::circuit {

namespace cs = zk::cs;

// neptune's PoseidonConstants (optimized part) for one arity; computed once per arity.
struct poseidon_optimized {
  unsigned t = 0, r_f = 0, r_p = 0;
  fr domain_tag;
  std::vector<fr> compressed_round_constants;    // R_F t + R_P
  std::vector<std::vector<fr>> pre_sparse;        // t x t, [row][column]
  std::vector<std::vector<fr>> mds;               // t x t
  struct sparse {
    std::vector<fr> w_hat;   // column 0 (t entries)
    std::vector<fr> v_rest;  // row 0 without its first entry (t - 1)
  };
  std::vector<sparse> sparse_matrices;  // R_P
};
const poseidon_optimized& poseidon_optimized_for(unsigned arity);

// poseidon_hash(cs, preimage, constants) with the Merkle-tree domain tag; arity = preimage.size().
cs::gadgets::allocated_num poseidon_hash(cs::constraint_system& cs,
                                         std::span<const cs::gadgets::allocated_num> preimage);
// The same with another domain tag (storage-proofs-update's gen-randomness constants: the tag is
// only the constant element 0, so the constraints differ from the Merkle hash's in that value).
cs::gadgets::allocated_num poseidon_hash(cs::constraint_system& cs,
                                         std::span<const cs::gadgets::allocated_num> preimage, const fr& domain_tag);

}  // namespace cuzk::fil::circuit
