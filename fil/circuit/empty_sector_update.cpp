#include "fil/circuit/empty_sector_update.hpp"

#include <variant>

#include "fil/circuit/apex_por.hpp"
#include "fil/circuit/gen_challenge_bits.hpp"
#include "fil/circuit/get_challenge_high_bits.hpp"
#include "fil/circuit/insertion.hpp"
#include "fil/circuit/label_r_new.hpp"
#include "fil/circuit/por.hpp"
#include "fil/circuit/poseidon.hpp"
#include "fil/crypto/poseidon.hpp"
#include "zk/cs/gadgets/multipack.hpp"

namespace cuzk::fil::circuit {

using zk::cs::constraint_system;
using zk::cs::linear_combination;
using zk::cs::one_var;
using namespace zk::cs::gadgets;

namespace {

std::vector<std::vector<fr>> blank_levels(const update::public_params& pp) {
  std::vector<std::vector<fr>> out;
  for (const auto& lv : blank_path({pp.tree.base, pp.tree.sub, pp.tree.top}, pp.sector_nodes))
    out.push_back(lv.siblings);
  return out;
}

std::vector<std::vector<fr>> siblings_of(const merkle::merkle_proof& m, const tree_arities& t, std::uint64_t leaves,
                                         const std::string& what) {
  std::vector<std::vector<fr>> out;
  for (auto& lv : path_levels_from(m, t, leaves, what)) out.push_back(std::move(lv.siblings));
  return out;
}

allocated_num alloc_named(constraint_system& cs, const std::string& name, const fr& v) {
  constraint_system::scope s(cs, name);
  return allocated_num::alloc(cs, v);
}

}  // namespace

update_partition blank_update_partition(const update::public_params& pp) {
  update_partition p;
  p.pp = pp;
  p.apex_leafs.assign(pp.apex_leaf_count, fr::zero());
  update_challenge c;
  c.path_r_old = c.path_r_new = blank_levels(pp);
  c.path_d_new.assign(pp.challenge_bit_len, fr::zero());
  p.challenges.assign(pp.challenge_count, c);
  return p;
}

update_partition update_partition_from(const update::public_params& pp, unsigned k, const update::commitments& comms,
                                       const update::partition_proof& proof, const std::string& origin) {
  update::check_partition_proof(pp, k, comms, proof, origin);
  update_partition p;
  p.pp = pp;
  p.k = k;
  p.comm_r_old = domain_to_fr(comms.comm_r_old, "comm_r_old");
  p.comm_d_new = domain_to_fr(comms.comm_d_new, "comm_d_new");
  p.comm_r_new = domain_to_fr(comms.comm_r_new, "comm_r_new");
  p.comm_c = domain_to_fr(proof.comm_c, origin + ": comm_c");
  p.root_r_old = domain_to_fr(proof.challenge_proofs[0].proof_r_old.root(), origin + ": root_r_old");
  p.root_r_new = domain_to_fr(proof.challenge_proofs[0].proof_r_new.root(), origin + ": root_r_new");
  for (const auto& a : proof.apex_leafs) p.apex_leafs.push_back(domain_to_fr(a, origin + ": apex leaf"));
  const tree_arities tr{pp.tree.base, pp.tree.sub, pp.tree.top};
  for (std::size_t i = 0; i < proof.challenge_proofs.size(); ++i) {
    const auto& cp = proof.challenge_proofs[i];
    const std::string at = origin + ": challenge " + std::to_string(i);
    update_challenge c;
    c.leaf_r_old = domain_to_fr(cp.proof_r_old.leaf(), at + " leaf_r_old");
    c.leaf_d_new = domain_to_fr(cp.proof_d_new.leaf(), at + " leaf_d_new");
    c.leaf_r_new = domain_to_fr(cp.proof_r_new.leaf(), at + " leaf_r_new");
    c.path_r_old = siblings_of(cp.proof_r_old, tr, pp.sector_nodes, at + " proof_r_old");
    c.path_r_new = siblings_of(cp.proof_r_new, tr, pp.sector_nodes, at + " proof_r_new");
    for (auto& lv : siblings_of(cp.proof_d_new, {2, 0, 0}, pp.sector_nodes, at + " proof_d_new"))
      c.path_d_new.push_back(lv.at(0));
    p.challenges.push_back(std::move(c));
  }
  return p;
}

void empty_sector_update(constraint_system& cs, const update_partition& part) {
  const update::public_params& pp = part.pp;
  const tree_arities tree_r{pp.tree.base, pp.tree.sub, pp.tree.top}, tree_d{2, 0, 0};
  const unsigned pbits = pp.partition_bit_len, hbits = unsigned(pp.hs.size());
  const fr k_and_h_select_value = fr::from_u64(std::uint64_t(part.k) | pp.h_select() << pbits);
  const fr tag = crypto::gen_randomness_tag();

  const allocated_num k_and_h_select = alloc_named(cs, "k_and_h_select", k_and_h_select_value);
  {
    constraint_system::scope s(cs, "k_and_h_select (public input)");
    k_and_h_select.inputize(cs);
  }
  std::vector<allocated_bit> kh_bits;
  {
    const auto v = k_and_h_select.value.to_canonical();
    for (unsigned i = 0; i < pbits + hbits; ++i) {
      constraint_system::scope s(cs, "k_and_h_select_bit_" + std::to_string(i));
      kh_bits.push_back(allocated_bit::alloc(cs, v.bit(i)));
    }
    linear_combination lc;
    for (unsigned i = 0; i < kh_bits.size(); ++i) lc.add(kh_bits[i].var, pow2(i));
    constraint_system::scope s(cs, "k_and_h_select binary decomp");
    cs.enforce(std::move(lc), linear_combination(one_var), linear_combination(k_and_h_select.var));
  }
  const std::vector<allocated_bit> partition_bits(kh_bits.begin(), kh_bits.begin() + pbits);
  const std::vector<allocated_bit> h_select_bits(kh_bits.begin() + pbits, kh_bits.end());
  allocated_num partition;
  {
    std::vector<boolean> b;
    for (const auto& x : partition_bits) b.push_back(boolean::from(x));
    constraint_system::scope s(cs, "pack partition bits");
    partition = pack_bits(cs, b);
  }
  auto public_num = [&](const char* name, const std::string& input_name, const fr& v) {
    const allocated_num n = alloc_named(cs, name, v);
    constraint_system::scope s(cs, input_name);
    n.inputize(cs);
    return n;
  };
  const allocated_num comm_r_old = public_num("comm_r_old", "comm_r_old_input", part.comm_r_old);
  const allocated_num comm_d_new = public_num("comm_d_new", "comm_d_new_input", part.comm_d_new);
  const allocated_num comm_r_new = public_num("comm_r_new", "comm_r_new_input", part.comm_r_new);
  allocated_num phi;
  {
    constraint_system::scope s(cs, "phi");
    const allocated_num pre[2] = {comm_d_new, comm_r_old};
    phi = poseidon_hash(cs, pre, tag);
  }
  const allocated_num comm_c = alloc_named(cs, "comm_c", part.comm_c);
  const allocated_num root_r_old = alloc_named(cs, "root_r_old", part.root_r_old);
  const allocated_num root_r_new = alloc_named(cs, "root_r_new", part.root_r_new);
  std::vector<allocated_num> apex_leafs;
  for (std::size_t i = 0; i < part.apex_leafs.size(); ++i)
    apex_leafs.push_back(alloc_named(cs, "apex_leaf_" + std::to_string(i), part.apex_leafs[i]));
  std::vector<std::vector<allocated_num>> partition_path;
  {
    const auto& d0 = part.challenges.at(0).path_d_new;
    for (unsigned i = 0; i < pbits; ++i)
      partition_path.push_back(
          {alloc_named(cs, "partition_path_sibling_" + std::to_string(i), d0.at(pp.challenge_bit_len - pbits + i))});
  }
  auto comm_r_check = [&](const char* name, const char* eq, const allocated_num& root, const allocated_num& comm_r) {
    allocated_num calc;
    {
      constraint_system::scope s(cs, name);
      const allocated_num pre[2] = {comm_c, root};
      calc = poseidon_hash(cs, pre);
    }
    constraint_system::scope s(cs, eq);
    enforce_equal(cs, calc, comm_r);
  };
  comm_r_check("comm_r_old_calc", "enforce comm_r_old_calc == comm_r_old", root_r_old, comm_r_old);
  comm_r_check("comm_r_new_calc", "enforce comm_r_new_calc == comm_r_new", root_r_new, comm_r_new);
  {
    constraint_system::scope s(cs, "apex_gadget");
    apex_por(cs, apex_leafs, partition_bits, partition_path, comm_d_new);
  }
  std::vector<std::vector<allocated_bit>> generated;
  {
    constraint_system::scope s(cs, "gen_challenge_bits");
    generated = gen_challenge_bits(cs, comm_r_new, partition, pp.challenge_count, pp.challenge_bit_len - pbits);
  }
  const unsigned to_apex = pp.path_len_to_apex_leaf();
  for (std::size_t ci = 0; ci < generated.size(); ++ci) {
    const update_challenge& ch = part.challenges.at(ci);
    const std::string at = "(c_index=" + std::to_string(ci) + ")";
    std::vector<allocated_bit> c_bits = generated[ci];
    c_bits.insert(c_bits.end(), partition_bits.begin(), partition_bits.end());
    allocated_num c_high, rho;
    {
      constraint_system::scope s(cs, "get_challenge_high_bits " + at);
      c_high = get_challenge_high_bits(cs, c_bits, h_select_bits, pp.hs);
    }
    {
      constraint_system::scope s(cs, "rho " + at);
      const allocated_num pre[2] = {phi, c_high};
      rho = poseidon_hash(cs, pre, tag);
    }
    const allocated_num leaf_r_old = alloc_named(cs, "leaf_r_old " + at, ch.leaf_r_old);
    const allocated_num leaf_d_new = alloc_named(cs, "leaf_d_new " + at, ch.leaf_d_new);
    allocated_num leaf_r_new;
    {
      constraint_system::scope s(cs, "leaf_r_new " + at);
      leaf_r_new = label_r_new(cs, leaf_r_old, leaf_d_new, rho);
    }
    auto tree_r_por = [&](const char* which, const std::vector<std::vector<fr>>& path, const allocated_num& leaf,
                          const allocated_num& root) {
      std::vector<std::vector<allocated_num>> vars(path.size());
      for (std::size_t row = 0; row < path.size(); ++row)
        for (std::size_t i = 0; i < path[row].size(); ++i)
          vars[row].push_back(alloc_named(cs, std::string("path_") + which + " sibling " + at, path[row][i]));
      constraint_system::scope s(cs, std::string("por tree_") + which + " " + at);
      por_no_challenge_input(cs, tree_r, tree_hash::poseidon, c_bits, leaf, vars, root);
    };
    tree_r_por("r_old", ch.path_r_old, leaf_r_old, root_r_old);
    tree_r_por("r_new", ch.path_r_new, leaf_r_new, root_r_new);
    allocated_num apex_leaf;
    {
      std::vector<boolean> bits;
      for (unsigned i = to_apex; i < to_apex + pp.apex_leaf_bit_len; ++i) bits.push_back(boolean::from(c_bits[i]));
      constraint_system::scope s(cs, "select_apex_leaf " + at);
      apex_leaf = select(cs, apex_leafs, bits);
    }
    std::vector<std::vector<allocated_num>> path_to_apex;
    for (unsigned row = 0; row < to_apex; ++row)
      path_to_apex.push_back({alloc_named(cs, "path_to_apex_leaf sibling " + at, ch.path_d_new.at(row))});
    constraint_system::scope s(cs, "por to_apex_leaf " + at);
    por_no_challenge_input(cs, tree_d, tree_hash::sha256, std::span<const allocated_bit>(c_bits).first(to_apex),
                           leaf_d_new, path_to_apex, apex_leaf);
  }
}

}  // namespace cuzk::fil::circuit
