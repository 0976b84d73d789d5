// The two prime fields of BLS12-381: Fp (coordinates, 381 bits) and Fr (scalars, 255 bits).
#pragma once

#include "zk/ff/montgomery.hpp"

namespace cuzk::zk::bls12_381 {

struct fp_params {
  static constexpr bigint<6> modulus = big<6>(
      "0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab");
};
struct fr_params {
  static constexpr bigint<4> modulus =
      big<4>("0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001");
};

using fp = fp_t<fp_params>;
using fr = fp_t<fr_params>;

// 2-adicity of r - 1 and snarkjs's root of unity source: w[32] = 5^((r-1)/2^32).
// snarkjs uses 5 (its smallest non-residue), not 7 as arkworks/bellman do: with 7, proofs fail.
inline constexpr unsigned fr_two_adicity = 32;
inline constexpr std::uint64_t fr_snarkjs_generator = 5;

}  // namespace cuzk::zk::bls12_381
