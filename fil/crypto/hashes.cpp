#include "fil/crypto/hashes.hpp"

#include <openssl/evp.h>

#include <stdexcept>

namespace cuzk::fil::crypto {

struct sha256::ctx {
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  ~ctx() { EVP_MD_CTX_free(md); }
};

sha256::sha256() : ctx_(std::make_unique<ctx>()) {
  if (!ctx_->md || EVP_DigestInit_ex(ctx_->md, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("sha256: EVP_DigestInit_ex failed");
}
sha256::~sha256() = default;
sha256::sha256(const sha256& other) : ctx_(std::make_unique<ctx>()) {
  if (!ctx_->md || EVP_MD_CTX_copy_ex(ctx_->md, other.ctx_->md) != 1)
    throw std::runtime_error("sha256: EVP_MD_CTX_copy_ex failed");
}

sha256& sha256::update(std::span<const std::uint8_t> bytes) {
  if (EVP_DigestUpdate(ctx_->md, bytes.data(), bytes.size()) != 1) throw std::runtime_error("sha256: update failed");
  return *this;
}
sha256& sha256::update_u32_le(std::uint32_t v) {
  std::uint8_t b[4];
  for (int i = 0; i < 4; ++i) b[i] = std::uint8_t(v >> (8 * i));
  return update(b);
}
sha256& sha256::update_u64_le(std::uint64_t v) {
  std::uint8_t b[8];
  for (int i = 0; i < 8; ++i) b[i] = std::uint8_t(v >> (8 * i));
  return update(b);
}
sha256& sha256::update_u64_be(std::uint64_t v) {
  std::uint8_t b[8];
  for (int i = 0; i < 8; ++i) b[i] = std::uint8_t(v >> (56 - 8 * i));
  return update(b);
}
digest32 sha256::finish() {
  digest32 out{};
  unsigned len = 0;
  if (EVP_DigestFinal_ex(ctx_->md, out.data(), &len) != 1 || len != 32) throw std::runtime_error("sha256: final failed");
  return out;
}

digest32 sha256_of(std::span<const std::uint8_t> bytes) { return sha256().update(bytes).finish(); }

std::array<std::uint8_t, 64> blake2b512(std::span<const std::uint8_t> bytes) {
  std::array<std::uint8_t, 64> out{};
  unsigned len = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), out.data(), &len, EVP_blake2b512(), nullptr) != 1 || len != 64)
    throw std::runtime_error("blake2b512: EVP_Digest failed");
  return out;
}

}  // namespace cuzk::fil::crypto
