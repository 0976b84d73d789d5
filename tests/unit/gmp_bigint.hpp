// bigint <-> GMP conversions for tests that check arithmetic against mpz (limbs little-endian).
#pragma once

#include <catch2/catch.hpp>
#include <gmpxx.h>

#include "zk/ff/bigint.hpp"

namespace cuzk::test {

template <std::size_t N>
mpz_class to_mpz(const zk::bigint<N>& b) {
  mpz_class z;
  mpz_import(z.get_mpz_t(), N, -1, sizeof(std::uint64_t), 0, 0, b.limb.data());
  return z;
}

template <std::size_t N>
zk::bigint<N> from_mpz(const mpz_class& z) {
  zk::bigint<N> b{};
  REQUIRE(mpz_sizeinbase(z.get_mpz_t(), 2) <= 64 * N);
  std::size_t count = 0;
  mpz_export(b.limb.data(), &count, -1, sizeof(std::uint64_t), 0, 0, z.get_mpz_t());
  return b;
}

}  // namespace cuzk::test
