#include "zk/io/wtns.hpp"

#include "zk/io/binfile.hpp"
#include "zk/io/field_checks.hpp"

namespace cuzk::zk::io {

using bls12_381::fr;

namespace {

witness parse_wtns(std::shared_ptr<const file_bytes> bytes, std::string name) {
  binfile f(name, std::move(bytes), "wtns", 2);
  witness w;
  w.path = name;
  std::uint32_t n = 0;
  {
    section_reader r(f, 1, "header", f.bytes(1, "header"));
    expect_scalar_prime(r, "n8");
    n = r.u32("nWitness");
    r.expect_end();
  }
  auto s = f.bytes_exact(2, "values", std::uint64_t(n) * 32, std::to_string(n) + " values of 32 bytes");
  w.values.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    auto v = bigint<4>::from_le_bytes(s.data() + 32 * std::size_t(i));
    if (v >= fr::P) f.fail(section_label(2, "values") + " value " + std::to_string(i) + " is not below r");
    w.values[i] = v;
  }
  if (n == 0) f.fail("witness has no values (value 0 must be the constant 1)");
  if (w.values[0] != bigint<4>{{1, 0, 0, 0}})
    f.fail(section_label(2, "values") + " value 0 is " + w.values[0].to_decimal() + ", expected the constant 1");
  return w;
}

}  // namespace

witness witness::load(const std::string& path) { return parse_wtns(file_bytes::map(path), path); }

witness witness::parse(std::span<const std::uint8_t> bytes, std::string name) {
  return parse_wtns(file_bytes::copy(bytes), std::move(name));
}

}  // namespace cuzk::zk::io
