// The byte hashes Filecoin's public logic uses (OpenSSL's libcrypto): SHA-256 (ids, challenges, domain
// seeds) and BLAKE2b-512 (the Feistel round function). Incremental SHA-256 can be copied, as Rust's
// `Sha256::clone()` is used to hash a common prefix once.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

namespace cuzk::fil::crypto {

using digest32 = std::array<std::uint8_t, 32>;

class sha256 {
 public:
  sha256();
  ~sha256();
  sha256(const sha256& other);
  sha256& operator=(const sha256&) = delete;

  sha256& update(std::span<const std::uint8_t> bytes);
  sha256& update(std::string_view text) {
    return update({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
  }
  sha256& update_u32_le(std::uint32_t v);
  sha256& update_u64_le(std::uint64_t v);
  sha256& update_u64_be(std::uint64_t v);
  digest32 finish();  // the object cannot be updated afterwards

 private:
  struct ctx;
  std::unique_ptr<ctx> ctx_;
};

digest32 sha256_of(std::span<const std::uint8_t> bytes);
std::array<std::uint8_t, 64> blake2b512(std::span<const std::uint8_t> bytes);

}  // namespace cuzk::fil::crypto
