// storage-proofs-porep stacked/vanilla/create_label.rs, natively: a node's label on a layer is the
// SHA-256 of replica_id || layer (u32 big-endian) || node (u64 big-endian) padded to 64 bytes,
// followed by its parents' labels, with the top two bits cleared (fr32_safe). The vanilla checks and
// the synthetic C1 compute labels this way; fil/circuit/create_label is the same in constraints.
#pragma once

#include <cstdint>
#include <vector>

#include "fil/types.hpp"

namespace cuzk::fil::stacked {

domain create_label(const domain& replica_id, std::uint32_t layer, std::uint64_t node, const std::vector<domain>& parents);

}  // namespace cuzk::fil::stacked
