#include "fil/stacked/label.hpp"

#include <algorithm>

#include "fil/crypto/hashes.hpp"

namespace cuzk::fil::stacked {

domain create_label(const domain& replica_id, std::uint32_t layer, std::uint64_t node, const std::vector<domain>& parents) {
  crypto::sha256 h;
  std::uint8_t buf[64] = {};
  std::copy(replica_id.begin(), replica_id.end(), buf);
  for (int i = 0; i < 4; ++i) buf[32 + i] = std::uint8_t(layer >> (24 - 8 * i));
  for (int i = 0; i < 8; ++i) buf[36 + i] = std::uint8_t(node >> (56 - 8 * i));
  h.update(buf);
  for (const auto& p : parents) h.update(p);
  return fr32_safe(h.finish());
}

}  // namespace cuzk::fil::stacked
