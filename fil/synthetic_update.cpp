#include <random>

#include "fil/synthetic.hpp"
#include "fil/synthetic_tree.hpp"
#include "fil/update/challenges.hpp"

namespace cuzk::fil {

using namespace synthetic_detail;

synthetic_update synthetic_update_proofs(std::uint64_t sector_size, std::uint64_t seed) {
  const auto pp = update::from_sector_size(sector_size);
  std::mt19937_64 rng(seed);
  // TreeR: base levels of arity 8, then sub and top; a block of two base levels (64 leaves).
  const auto tree_r = make_tree_r(pp.sector_nodes, pp.tree, rng);
  // TreeD over zero data: every level is one value.
  const periodic_tree tree_d(std::vector<unsigned>(pp.challenge_bit_len, 2), {domain{}}, 0, sha254_of);

  synthetic_update out;
  const domain comm_c = random_domain(rng);
  out.comms.comm_r_old = out.comms.comm_r_new = crypto::poseidon2(comm_c, tree_r.root());
  out.comms.comm_d_new = tree_d.root();
  const fr comm_r_new = domain_to_fr(out.comms.comm_r_new, "comm_r_new");
  for (unsigned k = 0; k < pp.partition_count; ++k) {
    update::partition_proof p;
    p.comm_c = comm_c;
    for (unsigned a = 0; a < pp.apex_leaf_count; ++a)
      p.apex_leafs.push_back(tree_d.node(pp.path_len_to_apex_leaf(), std::uint64_t(k) * pp.apex_leaf_count + a));
    for (const std::uint32_t c : update::challenges(pp, comm_r_new, k)) {
      update::challenge_proof cp;
      cp.proof_r_old = cp.proof_r_new = tree_r.proof(c);
      cp.proof_d_new.data = merkle::single_proof{tree_d.root(), tree_d.node(0, c), tree_d.path(c, 0, pp.challenge_bit_len)};
      p.challenge_proofs.push_back(std::move(cp));
    }
    out.partitions.push_back(std::move(p));
  }
  return out;
}

}  // namespace cuzk::fil
