// The bit gadgets of zk/cs/gadgets (UInt32, MultiEq, SHA-256) and fil/circuit/sha256 without the
// oracle: digests equal OpenSSL's, every recorded constraint holds, the constraint counts are
// bellpepper's own test figures (one compression of allocated bits: 25,840; a padded 512-bit
// message: 44,874; an all-constant block: 0), and witness mode yields the same values.
// (The R1CS itself, term by term, is judged against fil-oracle in fil.r1cs.)
#include <catch2/catch.hpp>

#include <random>

#include "fil/circuit/sha256.hpp"
#include "fil/crypto/hashes.hpp"
#include "fil/types.hpp"
#include "zk/cs/gadgets/sha256.hpp"

using namespace cuzk;
using zk::cs::constraint_system;
using zk::cs::fr;
using namespace zk::cs::gadgets;

namespace {

std::uint64_t unsatisfied(const constraint_system& cs) {
  std::uint64_t bad = 0;
  for (const auto& c : cs.constraints())
    if (!(cs.eval(c.a) * cs.eval(c.b) == cs.eval(c.c))) ++bad;
  return bad;
}

std::vector<boolean> alloc_bits(constraint_system& cs, const std::vector<std::uint8_t>& bytes) {
  std::vector<boolean> bits;
  for (auto byte : bytes)
    for (int i = 7; i >= 0; --i) bits.push_back(boolean::from(allocated_bit::alloc(cs, ((byte >> i) & 1) != 0)));
  return bits;
}

std::vector<std::uint8_t> to_bytes(const std::vector<boolean>& bits) {
  std::vector<std::uint8_t> out(bits.size() / 8);
  for (std::size_t i = 0; i < bits.size(); ++i)
    if (bits[i].value) out[i / 8] |= std::uint8_t(0x80 >> (i % 8));
  return out;
}

}  // namespace

TEST_CASE("SHA-256 gadget: digests and bellpepper's constraint counts", "[fil][circuit][sha256]") {
  std::mt19937_64 rng(7);
  for (std::size_t len : {0, 1, 3, 55, 56, 64, 100, 200}) {
    std::vector<std::uint8_t> msg(len);
    for (auto& b : msg) b = std::uint8_t(rng());
    constraint_system cs(zk::cs::mode::record);
    const auto bits = alloc_bits(cs, msg);
    const auto digest = to_bytes(sha256(cs, bits));
    const auto want = fil::crypto::sha256_of(msg);
    INFO("message of " << len << " bytes");
    CHECK(std::equal(digest.begin(), digest.end(), want.begin(), want.end()));
    CHECK(unsatisfied(cs) == 0);
    if (len == 64) CHECK(cs.num_constraints() - 512 == 44874);
    constraint_system w(zk::cs::mode::witness);
    const auto wd = to_bytes(sha256(w, alloc_bits(w, msg)));
    CHECK(wd == digest);
    CHECK(w.aux() == cs.aux());
    CHECK(w.num_constraints() == cs.num_constraints());
  }
}

TEST_CASE("SHA-256 compression: one block of allocated bits, and a constant block", "[fil][circuit][sha256]") {
  std::mt19937_64 rng(11);
  std::vector<std::uint8_t> block(64);
  for (auto& b : block) b = std::uint8_t(rng());
  constraint_system cs(zk::cs::mode::record);
  const auto bits = alloc_bits(cs, block);
  sha256_block_no_padding(cs, bits);
  CHECK(cs.num_constraints() - 512 == 25840);
  CHECK(unsatisfied(cs) == 0);

  // The padding block of the empty message, all constants: no constraint, the empty digest.
  constraint_system c2(zk::cs::mode::record);
  std::vector<boolean> pad(512, boolean::constant(false));
  pad[0] = boolean::constant(true);
  const auto d = to_bytes(sha256_block_no_padding(c2, pad));
  const auto want = fil::crypto::sha256_of(std::span<const std::uint8_t>{});
  CHECK(std::equal(d.begin(), d.end(), want.begin(), want.end()));
  CHECK(c2.num_constraints() == 0);
  CHECK(c2.aux().empty());
}

TEST_CASE("UInt32 addmany: sums mod 2^32, constants fold, MultiEq packs the equalities", "[fil][circuit][sha256]") {
  std::mt19937_64 rng(3);
  constraint_system cs(zk::cs::mode::record);
  std::uint64_t equalities = 0;
  {
    multi_eq meq(cs);
    for (unsigned n = 2; n <= 10; ++n) {
      std::vector<uint32> ops;
      std::uint32_t sum = 0;
      for (unsigned k = 0; k < n; ++k) {
        const std::uint32_t v = std::uint32_t(rng());
        sum += v;
        ops.push_back(k % 3 == 2 ? uint32::constant(v) : uint32::alloc(cs, v));
      }
      const auto r = uint32::addmany(meq, ops);
      CHECK(r.value == sum);
      std::uint32_t from_bits = 0;
      for (unsigned i = 0; i < 32; ++i) from_bits |= std::uint32_t(r.bits[i].value) << i;
      CHECK(from_bits == sum);
      ++equalities;
    }
    const std::uint32_t c[3] = {0xffffffffu, 7u, 0x12345678u};
    const uint32 cs3[3] = {uint32::constant(c[0]), uint32::constant(c[1]), uint32::constant(c[2])};
    const std::uint64_t before = cs.aux().size();
    const auto k = uint32::addmany(meq, cs3);
    CHECK(k.value == std::uint32_t(c[0] + c[1] + c[2]));
    CHECK(cs.aux().size() == before);
  }
  CHECK(unsatisfied(cs) == 0);
  // 9 equalities of 33..36 bits: 7 fit in one 254-bit pack, the rest in a second one.
  std::uint64_t packs = 0;
  for (const auto& c : cs.constraints())
    if (c.b.terms().size() == 1 && c.b.terms()[0].first == zk::cs::one_var && c.a.terms().size() > 1) ++packs;
  CHECK(packs == 2);
  CHECK(equalities == 9);
}

TEST_CASE("Sha256Function hash2 circuit equals the native hash trimmed to Fr", "[fil][circuit][sha256]") {
  std::mt19937_64 rng(5);
  fil::domain a{}, b{};
  for (auto& x : a) x = std::uint8_t(rng());
  for (auto& x : b) x = std::uint8_t(rng());
  a = fil::fr32_safe(a);
  b = fil::fr32_safe(b);
  constraint_system cs(zk::cs::mode::record);
  const allocated_num an = allocated_num::alloc(cs, fil::domain_to_fr(a, "a"));
  const allocated_num bn = allocated_num::alloc(cs, fil::domain_to_fr(b, "b"));
  const allocated_num leaves[2] = {an, bn};
  const auto h = fil::circuit::sha256_hash_multi_leaf(cs, leaves);
  std::vector<std::uint8_t> pre(a.begin(), a.end());
  pre.insert(pre.end(), b.begin(), b.end());
  const auto want = fil::fr32_safe(fil::crypto::sha256_of(pre));
  CHECK(h.value == fil::domain_to_fr(want, "want"));
  CHECK(unsatisfied(cs) == 0);
}
