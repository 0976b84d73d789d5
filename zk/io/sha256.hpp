// SHA-256 and HMAC-SHA-256 (OpenSSL's libcrypto), for key fingerprints and the cluster's join
// handshake. Hex output, lower case.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace cuzk::zk::io {

class sha256 {
 public:
  sha256();
  ~sha256();
  sha256(const sha256&) = delete;
  sha256& operator=(const sha256&) = delete;

  void update(std::span<const std::uint8_t> bytes);
  void update(std::string_view text) { update({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()}); }
  std::string hex();  // finishes the digest

 private:
  struct ctx;
  std::unique_ptr<ctx> ctx_;
};

std::string hmac_sha256_hex(std::string_view key, std::string_view message);
// Constant-time comparison of two strings of equal length (false when the lengths differ).
bool equal_constant_time(std::string_view a, std::string_view b);
// `bytes` random bytes from the operating system's generator, as hex.
std::string random_hex(std::size_t bytes);

}  // namespace cuzk::zk::io
