#include "fil/circuit/fallback_post.hpp"

#include <string>

#include "zk/error.hpp"

#include "fil/circuit/poseidon.hpp"

namespace cuzk::fil::circuit {

using zk::cs::constraint_system;
using namespace zk::cs::gadgets;

post_sector blank_post_sector(const tree_arities& shape, std::uint64_t leaves, std::size_t challenges) {
  post_sector s{};
  s.leafs.assign(challenges, fr::zero());
  s.paths.assign(challenges, blank_path(shape, leaves));
  return s;
}

post_sector post_sector_from(const post::fallback_post_sector_proof& p, const tree_arities& shape) {
  const std::string id = "sector " + std::to_string(p.sector_id);
  if (p.vanilla_proof.sectors.size() != 1)
    throw zk::input_error(id + ": vanilla proof holds " + std::to_string(p.vanilla_proof.sectors.size()) +
                          " sector proofs, expected 1");
  const auto& sp = p.vanilla_proof.sectors[0];
  post_sector s;
  s.comm_r = domain_to_fr(p.comm_r, id + " comm_r");
  s.comm_c = domain_to_fr(sp.comm_c, id + " comm_c");
  s.comm_r_last = domain_to_fr(sp.comm_r_last, id + " comm_r_last");
  for (std::size_t i = 0; i < sp.inclusion_proofs.size(); ++i) {
    const auto& mp = sp.inclusion_proofs[i];
    const std::string what = id + " challenge " + std::to_string(i);
    s.leafs.push_back(domain_to_fr(mp.leaf(), what + " leaf"));
    s.paths.push_back(path_levels(mp, shape, what));
  }
  return s;
}

void fallback_post(constraint_system& cs, const tree_arities& shape, const std::vector<post_sector>& sectors) {
  constraint_system::scope outer(cs, "outer namespace");
  for (std::size_t k = 0; k < sectors.size(); ++k) {
    const post_sector& sec = sectors[k];
    constraint_system::scope s(cs, "sector_" + std::to_string(k));
    allocated_num comm_r_last, comm_c, comm_r;
    {
      constraint_system::scope n(cs, "comm_r_last");
      comm_r_last = allocated_num::alloc(cs, sec.comm_r_last);
    }
    {
      constraint_system::scope n(cs, "comm_c");
      comm_c = allocated_num::alloc(cs, sec.comm_c);
    }
    {
      constraint_system::scope n(cs, "comm_r");
      comm_r = allocated_num::alloc(cs, sec.comm_r);
    }
    {
      constraint_system::scope n(cs, "comm_r_input");
      comm_r.inputize(cs);
    }
    {
      allocated_num h;
      {
        constraint_system::scope n(cs, "H_comm_c_comm_r_last");
        const allocated_num pre[2] = {comm_c, comm_r_last};
        h = poseidon_hash(cs, pre);
      }
      constraint_system::scope n(cs, "enforce_comm_c_comm_r_last_hash_comm_r");
      enforce_equal(cs, comm_r, h);
    }
    for (std::size_t i = 0; i < sec.leafs.size(); ++i) {
      constraint_system::scope n(cs, "challenge_inclusion_" + std::to_string(i));
      por(cs, shape, sec.leafs[i], sec.paths[i], comm_r_last);
    }
  }
}

}  // namespace cuzk::fil::circuit
