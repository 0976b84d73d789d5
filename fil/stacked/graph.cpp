#include "fil/stacked/graph.hpp"

#include "fil/crypto/hashes.hpp"

namespace cuzk::fil::stacked {

stacked_bucket_graph::stacked_bucket_graph(std::uint64_t nodes, const domain& porep_id, api_version version)
    : base_(nodes, porep_id, version), legacy_(version == api_version::v1_0_0), pre_(crypto::feistel::precompute(exp_degree * nodes)) {
  const auto raw = crypto::sha256().update("Filecoin_Feistel").update(porep_id).finish();
  for (int k = 0; k < 4; ++k)
    for (int i = 7; i >= 0; --i) keys_[k] = keys_[k] << 8 | raw[8 * k + i];
}

void stacked_bucket_graph::expanded_parents(std::uint32_t node, std::span<std::uint32_t, exp_degree> out) const {
  const std::uint64_t n = size() * exp_degree;
  for (unsigned i = 0; i < exp_degree; ++i) {
    const std::uint64_t t = crypto::feistel::permute(n, std::uint64_t(node) * exp_degree + i, keys_, pre_);
    // API 1.0 truncated to u32 before dividing (its graphs never reach the upper half of 32 GiB+
    // sectors); since 1.1 the quotient, which is below `nodes`, is taken.
    out[i] = legacy_ ? static_cast<std::uint32_t>(t) / exp_degree : static_cast<std::uint32_t>(t / exp_degree);
  }
}

void stacked_bucket_graph::parents(std::uint32_t node, std::span<std::uint32_t, degree> out) const {
  base_.parents(node, out.first<base_degree>());
  expanded_parents(node, out.last<exp_degree>());
}

}  // namespace cuzk::fil::stacked
