#include "fil/types.hpp"

#include "zk/error.hpp"

namespace cuzk::fil {

fr domain_to_fr(const domain& d, std::string_view what) {
  fr::repr r{};
  for (std::size_t i = 0; i < 32; ++i) r.limb[i / 8] |= std::uint64_t(d[i]) << (8 * (i % 8));
  if (!fr::is_canonical(r)) throw zk::input_error(std::string(what) + ": not a field element (>= r)");
  return fr::from_canonical(r);
}

domain fr_to_domain(const fr& x) {
  const auto r = x.to_canonical();
  domain d{};
  for (std::size_t i = 0; i < 32; ++i) d[i] = std::uint8_t(r.limb[i / 8] >> (8 * (i % 8)));
  return d;
}

std::string to_hex(std::span<const std::uint8_t> bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s;
  s.reserve(2 * bytes.size());
  for (auto b : bytes) {
    s.push_back(digits[b >> 4]);
    s.push_back(digits[b & 15]);
  }
  return s;
}

domain domain_from_hex(std::string_view hex, std::string_view what) {
  if (hex.starts_with("0x") || hex.starts_with("0X")) hex.remove_prefix(2);
  if (hex.size() != 64) throw zk::input_error(std::string(what) + ": expected 64 hex digits");
  auto nibble = [&](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    throw zk::input_error(std::string(what) + ": not a hex digit: '" + std::string(1, c) + "'");
  };
  domain d{};
  for (std::size_t i = 0; i < 32; ++i) d[i] = std::uint8_t(nibble(hex[2 * i]) << 4 | nibble(hex[2 * i + 1]));
  return d;
}

}  // namespace cuzk::fil
