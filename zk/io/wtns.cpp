#include "zk/io/wtns.hpp"

#include "zk/io/binfile.hpp"
#include "zk/io/field_checks.hpp"

namespace cuzk::zk::io {

using bls12_381::fr;

namespace {

// Validates the file; stores the values in *out when given. release: a mapped file's pages go
// from resident memory as the values are read (file_bytes::release), a window at a time.
std::uint32_t parse_wtns(std::shared_ptr<const file_bytes> bytes, std::string name, witness* out, bool release = false) {
  binfile f(name, std::move(bytes), "wtns", 2);
  std::uint32_t n = 0;
  {
    section_reader r(f, 1, "header", f.bytes(1, "header"));
    expect_scalar_prime(r, "n8");
    n = r.u32("nWitness");
    r.expect_end();
  }
  auto s = f.bytes_exact(2, "values", std::uint64_t(n) * 32, std::to_string(n) + " values of 32 bytes");
  if (n == 0) f.fail("witness has no values (value 0 must be the constant 1)");
  if (out) out->values.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    auto v = bigint<4>::from_le_bytes(s.data() + 32 * std::size_t(i));
    if (v >= fr::P) f.fail(section_label(2, "values") + " value " + std::to_string(i) + " is not below r");
    if (i == 0 && v != bigint<4>{{1, 0, 0, 0}})
      f.fail(section_label(2, "values") + " value 0 is " + v.to_decimal() + ", expected the constant 1");
    if (out) out->values[i] = v;
    constexpr std::uint32_t window = 1u << 15;  // values: 1 MiB
    if (release && (i + 1) % window == 0) f.data()->release(s.subspan(32 * std::size_t(i + 1 - window), 32 * std::size_t(window)));
  }
  return n;
}

}  // namespace

witness witness::load(const std::string& path) {
  witness w;
  w.path = path;
  parse_wtns(file_bytes::map(path), path, &w);
  return w;
}

witness witness::parse(std::span<const std::uint8_t> bytes, std::string name) {
  witness w;
  w.path = name;
  parse_wtns(file_bytes::view(bytes), std::move(name), &w);
  return w;
}

std::uint32_t witness::check(std::span<const std::uint8_t> bytes, std::string name) {
  return parse_wtns(file_bytes::view(bytes), std::move(name), nullptr);
}

std::uint32_t witness::check_file(const std::string& path, std::string name) {
  return parse_wtns(file_bytes::map(path, false), std::move(name), nullptr, true);
}

}  // namespace cuzk::zk::io
