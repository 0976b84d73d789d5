#include "fil/stacked/public_inputs.hpp"

#include "fil/stacked/challenges.hpp"

namespace cuzk::fil::stacked {

std::vector<fr> generate_public_inputs(const stacked_bucket_graph& graph, const public_inputs& in,
                                       const std::vector<std::uint64_t>& challenges) {
  std::vector<fr> out;
  out.reserve(3 + 18 * challenges.size());
  out.push_back(domain_to_fr(in.replica_id, "replica_id"));
  out.push_back(domain_to_fr(in.comm_d, "comm_d"));
  out.push_back(domain_to_fr(in.comm_r, "comm_r"));
  std::array<std::uint32_t, degree> parents{};
  for (const std::uint64_t c : challenges) {
    const fr fc = fr::from_u64(c);
    out.push_back(fc);
    graph.parents(static_cast<std::uint32_t>(c), parents);
    for (const auto p : parents) out.push_back(fr::from_u64(p));
    out.push_back(fc);
    out.push_back(fc);
    out.push_back(fc);
  }
  return out;
}

std::vector<fr> generate_public_inputs(const seal_proof_info& proof, const stacked_bucket_graph& graph,
                                       const public_inputs& in, unsigned k) {
  return generate_public_inputs(graph, in, porep_challenges_for(proof, in.replica_id, in.seed, in.comm_r, k));
}

}  // namespace cuzk::fil::stacked
