#include "fil/crypto/poseidon.hpp"

#include <array>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace cuzk::fil::crypto {

namespace {

constexpr unsigned full_rounds = 8;

unsigned partial_rounds(unsigned arity) {
  switch (arity) {
    case 2: return 55;
    case 4: return 56;
    case 8: return 57;
    case 11: return 57;
  }
  throw std::invalid_argument("poseidon: unsupported arity " + std::to_string(arity));
}

class grain {
 public:
  grain(unsigned t, unsigned r_f, unsigned r_p) {
    auto append = [&](unsigned bits, std::uint64_t v) {
      for (int i = int(bits) - 1; i >= 0; --i) state_.push_back((v >> i) & 1);
    };
    append(2, 1), append(4, 1), append(12, 255), append(12, t), append(10, r_f), append(10, r_p);
    append(30, (1u << 30) - 1);
    for (int i = 0; i < 160; ++i) step();
  }
  bool next() {
    for (;;) {
      const bool a = step();
      const bool b = step();
      if (a) return b;
    }
  }

 private:
  bool step() {
    const bool b = state_[pos_ + 62] ^ state_[pos_ + 51] ^ state_[pos_ + 38] ^ state_[pos_ + 23] ^ state_[pos_ + 13] ^
                   state_[pos_ + 0];
    state_.push_back(b);
    ++pos_;
    if (pos_ > 4096) {  // keep the window small
      state_.erase(state_.begin(), state_.begin() + std::ptrdiff_t(pos_));
      pos_ = 0;
    }
    return b;
  }
  std::vector<bool> state_;
  std::size_t pos_ = 0;
};

}  // namespace

namespace {

using constants = poseidon_constants;

constants make_constants(unsigned arity) {
  constants c;
  c.t = arity + 1;
  c.r_p = partial_rounds(arity);
  grain g(c.t, full_rounds, c.r_p);
  const std::size_t n = std::size_t(full_rounds + c.r_p) * c.t;
  while (c.round.size() < n) {
    fr::repr r{};  // 255 bits, most significant first
    for (int bit = 254; bit >= 0; --bit)
      if (g.next()) r.limb[std::size_t(bit) / 64] |= std::uint64_t{1} << (bit % 64);
    if (fr::is_canonical(r)) c.round.push_back(fr::from_canonical(r));
  }
  c.mds.resize(std::size_t(c.t) * c.t);
  for (unsigned i = 0; i < c.t; ++i)
    for (unsigned j = 0; j < c.t; ++j) c.mds[i * c.t + j] = fr::from_u64(i + c.t + j).inverse();
  return c;
}

}  // namespace

const poseidon_constants& poseidon_constants_for(unsigned arity) {
  static std::once_flag once[12];
  static constants table[12];
  if (arity >= 12) throw std::invalid_argument("poseidon: unsupported arity " + std::to_string(arity));
  std::call_once(once[arity], [&] { table[arity] = make_constants(arity); });
  return table[arity];
}

namespace {

fr pow5(const fr& x) {
  const fr x2 = x * x;
  return x2 * x2 * x;
}

}  // namespace

fr poseidon(std::span<const fr> inputs) {
  return poseidon(inputs, fr::from_u64((std::uint64_t{1} << inputs.size()) - 1));  // HashType::MerkleTree
}

fr gen_randomness_tag() { return fr::from_u64(std::uint64_t{1} << 40); }

fr poseidon(std::span<const fr> inputs, const fr& domain_tag) {
  const unsigned arity = static_cast<unsigned>(inputs.size());
  const auto& c = poseidon_constants_for(arity);
  std::vector<fr> s(c.t), next(c.t);
  s[0] = domain_tag;
  for (unsigned i = 0; i < arity; ++i) s[i + 1] = inputs[i];
  std::size_t k = 0;
  const unsigned half = full_rounds / 2, rounds = full_rounds + c.r_p;
  for (unsigned r = 0; r < rounds; ++r) {
    const bool full = r < half || r >= half + c.r_p;
    for (unsigned i = 0; i < c.t; ++i) s[i] = s[i] + c.round[k++];
    if (full)
      for (auto& x : s) x = pow5(x);
    else
      s[0] = pow5(s[0]);
    for (unsigned j = 0; j < c.t; ++j) {
      fr acc = fr::zero();
      for (unsigned i = 0; i < c.t; ++i) acc = acc + c.mds[i * c.t + j] * s[i];
      next[j] = acc;
    }
    s.swap(next);
  }
  return s[1];
}

domain poseidon2(const domain& a, const domain& b) {
  const fr in[2] = {domain_to_fr(a, "poseidon input"), domain_to_fr(b, "poseidon input")};
  return fr_to_domain(poseidon(in));
}

}  // namespace cuzk::fil::crypto
