#include "zk/cs/gadgets/sha256.hpp"

#include <stdexcept>
#include <string>

namespace cuzk::zk::cs::gadgets {

namespace {

constexpr std::uint32_t round_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};
constexpr std::uint32_t iv_words[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                       0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

std::array<uint32, 8> iv() {
  std::array<uint32, 8> s;
  for (unsigned i = 0; i < 8; ++i) s[i] = uint32::constant(iv_words[i]);
  return s;
}

// A word that is either known (Concrete) or the addends of a sum not yet taken (Deferred).
struct maybe {
  bool deferred = false;
  uint32 concrete;
  std::vector<uint32> addends;
  uint32 compute(multi_eq& meq, std::span<const uint32> others) {
    if (!deferred) return concrete;
    addends.insert(addends.end(), others.begin(), others.end());
    return uint32::addmany(meq, addends);
  }
};

std::vector<boolean> digest_bits(const std::array<uint32, 8>& h) {
  std::vector<boolean> out;
  out.reserve(256);
  for (const auto& w : h) w.append_bits_be(out);
  return out;
}

}  // namespace

std::array<uint32, 8> sha256_compression(constraint_system& cs, std::span<const boolean> block,
                                         const std::array<uint32, 8>& state) {
  if (block.size() != 512) throw std::logic_error("sha256_compression: a block of " + std::to_string(block.size()) + " bits");
  std::vector<uint32> w;
  w.reserve(64);
  for (unsigned i = 0; i < 16; ++i) w.push_back(uint32::from_bits_be(block.subspan(32 * i, 32)));
  multi_eq meq(cs);
  for (unsigned i = 16; i < 64; ++i) {
    constraint_system::scope s(cs, "w extension");
    uint32 s0 = w[i - 15].rotr(7).xor_(cs, w[i - 15].rotr(18)).xor_(cs, w[i - 15].shr(3));
    uint32 s1 = w[i - 2].rotr(17).xor_(cs, w[i - 2].rotr(19)).xor_(cs, w[i - 2].shr(10));
    const uint32 ops[4] = {w[i - 16], s0, w[i - 7], s1};
    w.push_back(uint32::addmany(meq, ops));
  }
  maybe a{false, state[0], {}}, e{false, state[4], {}};
  uint32 b = state[1], c = state[2], d = state[3], f = state[5], g = state[6], h = state[7];
  for (unsigned i = 0; i < 64; ++i) {
    constraint_system::scope s(cs, "compression round");
    const uint32 new_e = e.compute(meq, {});
    const uint32 s1 = new_e.rotr(6).xor_(cs, new_e.rotr(11)).xor_(cs, new_e.rotr(25));
    const uint32 ch = uint32::sha256_ch(cs, new_e, f, g);
    std::vector<uint32> temp1 = {h, s1, ch, uint32::constant(round_constants[i]), w[i]};
    const uint32 new_a = a.compute(meq, {});
    const uint32 s0 = new_a.rotr(2).xor_(cs, new_a.rotr(13)).xor_(cs, new_a.rotr(22));
    const uint32 maj = uint32::sha256_maj(cs, new_a, b, c);
    h = g;
    g = f;
    f = new_e;
    e.deferred = true;
    e.addends = temp1;
    e.addends.push_back(d);
    d = c;
    c = b;
    b = new_a;
    a.deferred = true;
    a.addends = std::move(temp1);
    a.addends.push_back(s0);
    a.addends.push_back(maj);
  }
  constraint_system::scope s(cs, "final additions");
  std::array<uint32, 8> out;
  out[0] = a.compute(meq, std::span(&state[0], 1));
  auto add2 = [&](const uint32& x, const uint32& y) {
    const uint32 ops[2] = {x, y};
    return uint32::addmany(meq, ops);
  };
  out[1] = add2(state[1], b);
  out[2] = add2(state[2], c);
  out[3] = add2(state[3], d);
  out[4] = e.compute(meq, std::span(&state[4], 1));
  out[5] = add2(state[5], f);
  out[6] = add2(state[6], g);
  out[7] = add2(state[7], h);
  meq.flush();
  return out;
}

std::vector<boolean> sha256_block_no_padding(constraint_system& cs, std::span<const boolean> block) {
  return digest_bits(sha256_compression(cs, block, iv()));
}

std::vector<boolean> sha256(constraint_system& cs, std::span<const boolean> message) {
  if (message.size() % 8 != 0) throw std::logic_error("sha256: a message of " + std::to_string(message.size()) + " bits");
  std::vector<boolean> padded(message.begin(), message.end());
  const std::uint64_t len = message.size();
  padded.push_back(boolean::constant(true));
  while ((padded.size() + 64) % 512 != 0) padded.push_back(boolean::constant(false));
  for (int i = 63; i >= 0; --i) padded.push_back(boolean::constant(((len >> i) & 1) != 0));
  std::array<uint32, 8> cur = iv();
  for (std::size_t k = 0; k < padded.size() / 512; ++k) {
    constraint_system::scope s(cs, "block " + std::to_string(k));
    cur = sha256_compression(cs, std::span(padded).subspan(512 * k, 512), cur);
  }
  return digest_bits(cur);
}

}  // namespace cuzk::zk::cs::gadgets
