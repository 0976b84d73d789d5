#include "fil/io/update_bincode.hpp"

#include "fil/io/bincode.hpp"

namespace cuzk::fil::io {

update::partition_proof read_partition_proof(std::span<const std::uint8_t> bytes, const std::string& origin) {
  bincode_reader r(bytes, origin);
  update::partition_proof p;
  p.comm_c = r.dom("comm_c");
  const std::size_t n = r.len("apex_leafs", 32);
  p.apex_leafs.resize(n);
  for (std::size_t i = 0; i < n; ++i) p.apex_leafs[i] = r.dom("apex_leafs[" + std::to_string(i) + "]");
  // Three MerkleProofs of at least 4 + 64 + 8 bytes each.
  const std::size_t m = r.len("challenge_proofs", 3 * 76);
  p.challenge_proofs.resize(m);
  for (std::size_t i = 0; i < m; ++i) {
    const std::string f = "challenge_proofs[" + std::to_string(i) + "]";
    auto& c = p.challenge_proofs[i];
    c.proof_r_old = read_merkle(r, f + ".proof_r_old");
    c.proof_d_new = read_merkle(r, f + ".proof_d_new");
    c.proof_r_new = read_merkle(r, f + ".proof_r_new");
  }
  if (!r.at_end())
    r.fail("PartitionProof", std::to_string(bytes.size() - r.offset()) + " bytes after the end of the proof");
  return p;
}

std::vector<std::uint8_t> to_bincode(const update::partition_proof& p) {
  std::vector<std::uint8_t> o;
  put_dom(o, p.comm_c);
  put_u64(o, p.apex_leafs.size());
  for (const auto& d : p.apex_leafs) put_dom(o, d);
  put_u64(o, p.challenge_proofs.size());
  for (const auto& c : p.challenge_proofs) put_merkle(o, c.proof_r_old), put_merkle(o, c.proof_d_new), put_merkle(o, c.proof_r_new);
  return o;
}

}  // namespace cuzk::fil::io
