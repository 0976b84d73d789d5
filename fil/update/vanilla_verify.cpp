#include "fil/update/vanilla_verify.hpp"

#include <variant>

#include "fil/circuit/por.hpp"
#include "fil/crypto/hashes.hpp"
#include "fil/crypto/poseidon.hpp"
#include "fil/merkle/verify.hpp"
#include "fil/update/challenges.hpp"
#include "zk/error.hpp"

namespace cuzk::fil::update {

namespace {

domain sha254(const domain& l, const domain& r) { return fr32_safe(crypto::sha256().update(l).update(r).finish()); }

std::string hex_of(const domain& d) { return to_hex(d); }

}  // namespace

std::vector<fr> public_inputs(const public_params& pp, unsigned k, const commitments& c) {
  return {fr::from_u64(std::uint64_t(k) | pp.h_select() << pp.partition_bit_len),
          domain_to_fr(c.comm_r_old, "comm_r_old"), domain_to_fr(c.comm_d_new, "comm_d_new"),
          domain_to_fr(c.comm_r_new, "comm_r_new")};
}

void check_partition_proof(const public_params& pp, unsigned k, const commitments& comms, const partition_proof& p,
                           const std::string& origin) {
  auto fail = [&](const std::string& what) { throw zk::input_error(origin + ": " + what); };
  if (k >= pp.partition_count)
    fail("partition " + std::to_string(k) + " of " + std::to_string(pp.partition_count));
  const fr comm_r_old = domain_to_fr(comms.comm_r_old, "comm_r_old");
  const fr comm_r_new = domain_to_fr(comms.comm_r_new, "comm_r_new");
  const fr comm_d_new = domain_to_fr(comms.comm_d_new, "comm_d_new");
  if (p.apex_leafs.size() != pp.apex_leaf_count)
    fail("apex_leafs: " + std::to_string(p.apex_leafs.size()) + ", expected " + std::to_string(pp.apex_leaf_count));
  if (p.challenge_proofs.size() != pp.challenge_count)
    fail("challenge_proofs: " + std::to_string(p.challenge_proofs.size()) + ", expected " +
         std::to_string(pp.challenge_count));
  const circuit::tree_arities tr{pp.tree.base, pp.tree.sub, pp.tree.top}, td{2, 0, 0};
  // Shapes and values first: every path as the circuit will read it.
  for (std::size_t i = 0; i < p.challenge_proofs.size(); ++i) {
    const auto& cp = p.challenge_proofs[i];
    const std::string c = "challenge " + std::to_string(i);
    circuit::path_levels_from(cp.proof_r_old, tr, pp.sector_nodes, c + " proof_r_old");
    circuit::path_levels_from(cp.proof_r_new, tr, pp.sector_nodes, c + " proof_r_new");
    circuit::path_levels_from(cp.proof_d_new, td, pp.sector_nodes, c + " proof_d_new");
    domain_to_fr(cp.proof_r_old.leaf(), origin + ": " + c + " proof_r_old leaf");
    domain_to_fr(cp.proof_r_new.leaf(), origin + ": " + c + " proof_r_new leaf");
    domain_to_fr(cp.proof_d_new.leaf(), origin + ": " + c + " proof_d_new leaf");
  }
  const domain root_r_old = p.challenge_proofs[0].proof_r_old.root();
  const domain root_r_new = p.challenge_proofs[0].proof_r_new.root();
  if (crypto::poseidon2(p.comm_c, root_r_old) != comms.comm_r_old)
    fail("comm_r_old " + hex_of(comms.comm_r_old) + " is not Poseidon(comm_c, TreeROld root " + hex_of(root_r_old) +
         "): the proof is of another sector or its paths do not open to comm_r_old");
  if (crypto::poseidon2(p.comm_c, root_r_new) != comms.comm_r_new)
    fail("comm_r_new " + hex_of(comms.comm_r_new) + " is not Poseidon(comm_c, TreeRNew root " + hex_of(root_r_new) + ")");

  // The apex tree and the partition path (challenge 0's top partition_bit_len levels) to comm_d_new.
  std::vector<domain> row = p.apex_leafs;
  for (std::size_t i = 0; i < row.size(); ++i) domain_to_fr(row[i], origin + ": apex_leafs[" + std::to_string(i) + "]");
  while (row.size() > 1) {
    std::vector<domain> next;
    for (std::size_t i = 0; i + 1 < row.size(); i += 2) next.push_back(sha254(row[i], row[i + 1]));
    row = std::move(next);
  }
  const auto& path0 = std::get<merkle::single_proof>(p.challenge_proofs[0].proof_d_new.data).path.path;
  const unsigned top_from = pp.challenge_bit_len - pp.partition_bit_len;
  domain node = row[0];
  for (unsigned l = top_from; l < pp.challenge_bit_len; ++l)
    node = path0[l].index == 0 ? sha254(node, path0[l].hashes[0]) : sha254(path0[l].hashes[0], node);
  if (node != comms.comm_d_new)
    fail("comm_d_new " + hex_of(comms.comm_d_new) + " is not the root of this partition's apex tree and partition path");

  const auto cs = challenges(pp, comm_r_new, k);
  const fr ph = phi(comm_d_new, comm_r_old);
  const unsigned to_apex = pp.path_len_to_apex_leaf();
  for (std::size_t i = 0; i < p.challenge_proofs.size(); ++i) {
    const auto& cp = p.challenge_proofs[i];
    const std::uint32_t c = cs[i];
    const std::string at = "challenge " + std::to_string(i) + " (node " + std::to_string(c) + ")";
    struct named {
      const merkle::merkle_proof& proof;
      const char* name;
      unsigned arity;
      merkle::tree_hasher hasher;
      const domain& root;
    };
    for (const named& n : {named{cp.proof_r_old, "proof_r_old", 0, merkle::tree_hasher::poseidon, root_r_old},
                           named{cp.proof_d_new, "proof_d_new", 2, merkle::tree_hasher::sha256, comms.comm_d_new},
                           named{cp.proof_r_new, "proof_r_new", 0, merkle::tree_hasher::poseidon, root_r_new}}) {
      const auto levels = circuit::path_levels(n.proof, n.arity ? circuit::tree_arities{2, 0, 0} : tr, at);
      std::uint64_t idx = 0, scale = 1;
      for (const auto& lv : levels) {
        idx += lv.index * scale;
        scale *= lv.arity;
      }
      if (idx != c)
        fail(at + ": " + n.name + " proves node " + std::to_string(idx) + ", the challenge is " + std::to_string(c));
      if (n.proof.root() != n.root)
        fail(at + ": " + n.name + " has root " + hex_of(n.proof.root()) + ", expected " + hex_of(n.root));
      if (!merkle::verify(n.proof, n.hasher))
        fail(at + ": " + n.name + ": the path does not lead from the leaf to the root");
    }
    const auto& pd = std::get<merkle::single_proof>(cp.proof_d_new.data).path.path;
    for (unsigned l = top_from; l < pp.challenge_bit_len; ++l)
      if (pd[l] != path0[l]) fail(at + ": proof_d_new's partition path differs from challenge 0's");
    domain d = cp.proof_d_new.leaf();
    for (unsigned l = 0; l < to_apex; ++l) d = pd[l].index == 0 ? sha254(d, pd[l].hashes[0]) : sha254(pd[l].hashes[0], d);
    const std::uint32_t apex = (c >> to_apex) & (pp.apex_leaf_count - 1);
    if (d != p.apex_leafs[apex])
      fail(at + ": proof_d_new does not reach apex leaf " + std::to_string(apex));
    const fr old_leaf = domain_to_fr(cp.proof_r_old.leaf(), "leaf"), d_leaf = domain_to_fr(cp.proof_d_new.leaf(), "leaf");
    const fr r = rho(ph, c >> (pp.challenge_bit_len - pp.h));
    if (fr_to_domain(old_leaf + d_leaf * r) != cp.proof_r_new.leaf())
      fail(at + ": proof_r_new's leaf is not leaf_r_old + leaf_d_new * rho (not this update's encoding)");
  }
}

}  // namespace cuzk::fil::update
