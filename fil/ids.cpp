#include "fil/ids.hpp"

#include "fil/crypto/hashes.hpp"

namespace cuzk::fil {

domain prover_id(std::uint64_t id) {
  domain d{};
  std::size_t i = 0;
  do {
    d[i++] = std::uint8_t((id & 0x7f) | (id >= 0x80 ? 0x80 : 0));
    id >>= 7;
  } while (id != 0);
  return d;
}

domain porep_id(const seal_proof_info& proof) {
  domain d{};
  for (int i = 0; i < 8; ++i) d[i] = std::uint8_t(proof.id >> (8 * i));
  // nonce (bytes 8..16) is 0 for every registered proof
  return d;
}

domain replica_id(const domain& prover, std::uint64_t sector_id, const domain& ticket, const domain& comm_d,
                  const domain& porep) {
  return fr32_safe(crypto::sha256().update(prover).update_u64_be(sector_id).update(ticket).update(comm_d).update(porep).finish());
}

}  // namespace cuzk::fil
