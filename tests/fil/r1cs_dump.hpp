// Reader of fil-oracle's R1CS dump (docs/formats.md "The R1CS dump", version 1): the header, then
// constraints one at a time (a dump can be large), then the witness when present.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "zk/cs/linear_combination.hpp"

namespace cuzk::test {

class r1cs_dump_reader {
 public:
  using term = std::pair<std::uint64_t, zk::cs::fr::repr>;
  using lc = std::vector<term>;
  struct constraint {
    lc a, b, c;
  };

  explicit r1cs_dump_reader(const std::string& path) : path_(path), in_(path, std::ios::binary) {
    if (!in_) fail("cannot open");
    char magic[8];
    read(magic, 8);
    if (std::memcmp(magic, "CUZKR1CS", 8) != 0) fail("magic is not CUZKR1CS");
    if (u32() != 1) fail("version is not 1");
    flags_ = u32();
    num_inputs = u64(), num_aux = u64(), num_constraints = u64();
  }
  bool has_witness() const { return (flags_ & 1) != 0; }
  constraint next() {
    constraint c;
    c.a = read_lc(), c.b = read_lc(), c.c = read_lc();
    return c;
  }
  // After all constraints: inputs then aux, canonical.
  std::vector<zk::cs::fr::repr> witness() {
    std::vector<zk::cs::fr::repr> w(num_inputs + num_aux);
    for (auto& x : w) x = fr_repr();
    return w;
  }

  std::uint64_t num_inputs = 0, num_aux = 0, num_constraints = 0;

 private:
  [[noreturn]] void fail(const std::string& why) const { throw std::runtime_error(path_ + ": " + why); }
  void read(void* p, std::size_t n) {
    if (!in_.read(static_cast<char*>(p), std::streamsize(n))) fail("truncated");
  }
  std::uint32_t u32() {
    std::uint8_t b[4];
    read(b, 4);
    return std::uint32_t(b[0]) | std::uint32_t(b[1]) << 8 | std::uint32_t(b[2]) << 16 | std::uint32_t(b[3]) << 24;
  }
  std::uint64_t u64() {
    const std::uint64_t lo = u32();
    return lo | std::uint64_t(u32()) << 32;
  }
  zk::cs::fr::repr fr_repr() {
    zk::cs::fr::repr r{};
    for (auto& limb : r.limb) limb = u64();
    return r;
  }
  lc read_lc() {
    lc r(u32());
    for (auto& t : r) t.first = u64(), t.second = fr_repr();
    return r;
  }
  std::string path_;
  std::ifstream in_;
  std::uint32_t flags_ = 0;
};

}  // namespace cuzk::test
