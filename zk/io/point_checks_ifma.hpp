// The key loader's on-curve test, eight points at a time on AVX-512 IFMA lanes: a 2^16 key has
// 327,680 points to check on every load, and the scalar test was half of `cuzk zkey export-vk`.
// Coordinates are taken as they are (the caller checks that they are below p), and the point at
// infinity (all zero) passes.
#pragma once

#include <cstdint>

#include "zk/bls12_381/curves.hpp"

namespace cuzk::zk::io {

// AVX-512 IFMA on this CPU, and allowed (zk::cpu_has_avx512_ifma): the functions below may be called.
bool lane_point_checks_available();

// Bit l set: eight[l] is not on the curve.
std::uint8_t off_curve_lanes(const bls12_381::g1_affine* eight);
std::uint8_t off_curve_lanes(const bls12_381::g2_affine* eight);

}  // namespace cuzk::zk::io
