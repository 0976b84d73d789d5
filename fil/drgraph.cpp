#include "fil/drgraph.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "fil/crypto/chacha8_rng.hpp"
#include "fil/crypto/hashes.hpp"
#include "zk/error.hpp"

namespace cuzk::fil {

bucket_graph::bucket_graph(std::uint64_t nodes, const domain& porep_id, api_version version)
    : nodes_(nodes), version_(version) {
  if (nodes < 2 || nodes > (std::uint64_t{1} << 32))
    throw zk::input_error("bucket graph: " + std::to_string(nodes) + " nodes is out of range");
  const auto raw = crypto::sha256().update("Filecoin_DRSample").update(porep_id).finish();
  std::copy_n(raw.begin(), 28, seed_.begin());
}

void bucket_graph::parents(std::uint32_t node, std::span<std::uint32_t, base_degree> out) const {
  if (node < 2) {
    std::fill(out.begin(), out.end(), 0u);
    return;
  }
  std::array<std::uint8_t, 32> seed{};
  std::copy(seed_.begin(), seed_.end(), seed.begin());
  for (int i = 0; i < 4; ++i) seed[28 + i] = std::uint8_t(node >> (8 * i));
  crypto::chacha8_rng rng(seed);

  constexpr std::uint64_t m_prime = base_degree - 1;
  const std::uint64_t metagraph_node = std::uint64_t(node) * m_prime;
  // Rust: (metagraph_node as f64).log2().ceil(); exact for these magnitudes (< 2^54).
  const auto n_buckets = static_cast<std::uint64_t>(std::ceil(std::log2(static_cast<double>(metagraph_node))));
  const bool legacy = version_ == api_version::v1_0_0;
  std::uint32_t* random = legacy ? out.data() : out.data() + 1;
  for (std::uint64_t k = 0; k < m_prime; ++k) {
    const std::uint64_t bucket_index = rng.next_u64() % n_buckets + 1;
    const std::uint64_t largest = std::min(metagraph_node, std::uint64_t{1} << bucket_index);
    const std::uint64_t smallest = std::max<std::uint64_t>(2, largest >> 1);
    const std::uint64_t distance = smallest + rng.next_u64() % (largest - smallest + 1);
    const auto mapped = static_cast<std::uint32_t>((metagraph_node - distance) / m_prime);
    random[k] = mapped == node ? node - 1 : mapped;
  }
  out[legacy ? m_prime : 0] = node - 1;
}

}  // namespace cuzk::fil
