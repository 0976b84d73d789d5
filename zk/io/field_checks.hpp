// Checks shared by the readers: which prime a file declares, whether values are canonical, and whether
// point sections hold valid curve points (in parallel: a large key has millions of them).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "zk/bls12_381/curves.hpp"
#include "zk/io/binfile.hpp"

namespace cuzk::zk::io {

// BN254 (alt_bn128), the curve most circom/snarkjs files are made for: named in messages.
inline constexpr bigint<4> bn254_q =
    big<4>("21888242871839275222246405745257275088696311157297823662689037894645226208583");
inline constexpr bigint<4> bn254_r =
    big<4>("21888242871839275222246405745257275088548364400416034343698204186575808495617");
inline constexpr const char* bn254_message = "prime field is BN254's, cuzk proves on BLS12-381 only";

// Reads the scalar field prime (`n8` then n8 bytes) of a .wtns/.r1cs/.zkey header and checks it is
// BLS12-381's r. BN254's r is named.
void expect_scalar_prime(section_reader& r, std::string_view n8_field);

// Index of the first point whose coordinates are not canonical (Montgomery repr >= p) or which is
// not on the curve; `reason` says which. Returns points.size() when all are valid. Uses several
// threads for large spans.
template <class Point>
std::size_t find_invalid_point(std::span<const Point> points, const char** reason);

extern template std::size_t find_invalid_point(std::span<const bls12_381::g1_affine>, const char**);
extern template std::size_t find_invalid_point(std::span<const bls12_381::g2_affine>, const char**);

// Reads one point of the file layout (x || y, Montgomery little-endian) from unaligned bytes.
bls12_381::g1_affine read_g1(const std::uint8_t* p);
bls12_381::g2_affine read_g2(const std::uint8_t* p);
void write_g1(std::uint8_t* p, const bls12_381::g1_affine& a);
void write_g2(std::uint8_t* p, const bls12_381::g2_affine& a);

}  // namespace cuzk::zk::io
