#include "fil/circuit/fallback_post.hpp"

#include <string>

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
