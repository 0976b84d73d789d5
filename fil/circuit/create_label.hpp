// storage-proofs-porep stacked/circuit/create_label.rs: a node's label in the circuit, the SHA-256 of
//   replica_id (256 bits) || layer (u32 BE) || node (u64 BE) || 160 zero bits || 37 parent labels
// (256 bits each) = 39 x 256 bits, every Fr given as its 255 unpacked bits in "reversed bit
// numbering" (bits reversed within each byte, the last byte padded: the value's little-endian bytes
// as SHA-256 reads them), then packed back into an Fr from the digest's first 254 bits, again in
// reversed bit numbering (the native label's two cleared top bits). With 39 x 256 bits and padding,
// 20 compressions of which the constant parts fold.
#pragma once

#include <vector>

#include "fil/circuit/uint64.hpp"
#include "zk/cs/gadgets/num.hpp"

namespace cuzk::fil::circuit {

// storage-proofs-core util::reverse_bit_numbering: padded to whole bytes, bits reversed within each byte.
std::vector<zk::cs::gadgets::boolean> reverse_bit_numbering(std::vector<zk::cs::gadgets::boolean> bits);

// create_label_circuit(replica_id bits, 37 parents' bits, layer, node): the label as a new variable.
zk::cs::gadgets::allocated_num create_label(zk::cs::constraint_system& cs,
                                            const std::vector<zk::cs::gadgets::boolean>& replica_id,
                                            const std::vector<const std::vector<zk::cs::gadgets::boolean>*>& parents,
                                            std::uint32_t layer, const uint64_bits& node);

}  // namespace cuzk::fil::circuit
