// The chain circuit of tests/cli/make_chain_circuit.py (same wire layout, same constraint shape,
// other pseudo-random constants), written fast enough for 2^24 constraints: the device run makes
// its `cuzk setup` keys from these (the files are too large to travel).
//   chain_circuit N_CONSTRAINTS OUT.r1cs OUT.wtns [SEED]
// Constraint k: (p1 + a_k) * (b_k * p2 + 1) = next; the last result is wire 1 (public output).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "zk/bls12_381/fields.hpp"

namespace {

using cuzk::zk::bls12_381::fr;

std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

fr random_fr(std::uint64_t& s) {  // 4 random limbs, top cleared: < 2^254 < r
  fr::repr v;
  for (auto& l : v.limb) l = splitmix(s);
  v.limb[3] &= (1ull << 62) - 1;
  return fr::from_canonical(v);
}

struct out_file {
  std::FILE* f;
  explicit out_file(const std::string& path) : f(std::fopen(path.c_str(), "wb")) {
    if (!f) { std::perror(path.c_str()); std::exit(2); }
    std::setvbuf(f, nullptr, _IOFBF, 1 << 24);
  }
  ~out_file() { std::fclose(f); }
  void bytes(const void* p, std::size_t n) { std::fwrite(p, 1, n, f); }
  void u32(std::uint32_t v) { bytes(&v, 4); }
  void u64(std::uint64_t v) { bytes(&v, 8); }
  void fe(const fr& x) { auto c = x.to_canonical(); bytes(c.limb.data(), 32); }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) { std::fprintf(stderr, "usage: chain_circuit N OUT.r1cs OUT.wtns [SEED]\n"); return 2; }
  std::uint64_t n = std::strtoull(argv[1], nullptr, 10), seed = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 1;
  if (n < 1) return 2;
  std::uint64_t n_wires = 4 + (n - 1);
  std::vector<fr> values(n_wires, fr::zero());
  values[0] = fr::one();
  values[2] = random_fr(seed);
  values[3] = random_fr(seed);
  // r, little-endian, for the headers.
  static const std::uint8_t r_le[32] = {0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe,
                                        0xff, 0x02, 0xa4, 0xbd, 0x53, 0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8,
                                        0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73};
  const std::uint64_t cons_bytes = n * (4 + 4 + 32 + 4 + 32 + 4 + 4 + 32 + 4 + 32 + 4 + 4 + 32);
  {
    out_file f(argv[2]);
    f.bytes("r1cs", 4); f.u32(1); f.u32(3);
    // section 1: header
    f.u32(1); f.u64(4 + 32 + 4 * 4 + 8 + 4);
    f.u32(32); f.bytes(r_le, 32);
    f.u32(std::uint32_t(n_wires)); f.u32(1); f.u32(1); f.u32(1); f.u64(n_wires); f.u32(std::uint32_t(n));
    // section 2: constraints
    f.u32(2); f.u64(cons_bytes);
    std::uint64_t p2 = 2, p1 = 3;
    for (std::uint64_t k = 0; k < n; ++k) {
      fr a = random_fr(seed), b = random_fr(seed);
      std::uint64_t next = k == n - 1 ? 1 : 4 + k;
      values[next] = (values[p1] + a) * (b * values[p2] + fr::one());
      f.u32(2); f.u32(std::uint32_t(p1)); f.fe(fr::one()); f.u32(0); f.fe(a);
      f.u32(2); f.u32(std::uint32_t(p2)); f.fe(b); f.u32(0); f.fe(fr::one());
      f.u32(1); f.u32(std::uint32_t(next)); f.fe(fr::one());
      p2 = p1; p1 = next;
    }
    // section 3: labels
    f.u32(3); f.u64(8 * n_wires);
    for (std::uint64_t i = 0; i < n_wires; ++i) f.u64(i);
  }
  {
    out_file f(argv[3]);
    f.bytes("wtns", 4); f.u32(2); f.u32(2);
    f.u32(1); f.u64(4 + 32 + 4);
    f.u32(32); f.bytes(r_le, 32); f.u32(std::uint32_t(n_wires));
    f.u32(2); f.u64(32 * n_wires);
    for (const auto& v : values) f.fe(v);
  }
  return 0;
}
