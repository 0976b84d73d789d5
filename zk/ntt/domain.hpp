// Radix-2 number-theoretic transforms over BLS12-381's Fr on a domain of size 2^k, with snarkjs's
// roots of unity: omega_k = 5^((r-1)/2^k) (5, not 7: snarkjs's choice, which proofs depend on).
//
// Natural order in and out. The coset step (to_odd_coset) maps evaluations over omega^i to
// evaluations at g * omega^i with g = omega_{k+1}: the odd 2n-th roots where snarkjs evaluates h.
//
// bellperson (through blstrs) takes its roots from 7 instead, Fr's multiplicative generator, and
// evaluates h on the coset 7 * omega^i: a domain built with root_generator = 7 and to_coset(a, 7)
// / from_coset(a, 1/7) give that convention (the two families differ from 2^3 on).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "zk/bls12_381/fields.hpp"
#include "zk/util/parallel.hpp"

namespace cuzk::zk::ntt {

using bls12_381::fr;

inline constexpr unsigned max_log_size = 28;

// generator^((r-1)/2^k): a primitive 2^k-th root of unity, k <= 32. snarkjs's w[k] with 5, bellperson's
// with 7 (bellperson_generator).
inline constexpr std::uint64_t bellperson_generator = 7;
fr root_of_unity(unsigned k, std::uint64_t generator = bls12_381::fr_snarkjs_generator);

class domain {
 public:
  // log_size <= max_log_size. vectorized = false keeps the scalar butterflies even where the
  // CPU has AVX-512 IFMA (tests compare the two).
  explicit domain(unsigned log_size, bool vectorized = true,
                  std::uint64_t root_generator = bls12_381::fr_snarkjs_generator);

  unsigned log_size() const { return log_n_; }
  std::size_t size() const { return std::size_t{1} << log_n_; }
  const fr& omega() const { return omega_; }
  const fr& omega_inv() const { return omega_inv_; }
  const fr& coset_generator() const { return g_; }  // omega_{k+1}, g^2 = omega
  const fr& size_inv() const { return n_inv_; }

  // Coefficients -> evaluations: a_i <- sum_j a_j omega^(i j). a.size() must equal size().
  void ntt(std::span<fr> a, thread_pool& pool = default_pool()) const;
  // Evaluations -> coefficients (the exact inverse of ntt, 1/n included).
  void intt(std::span<fr> a, thread_pool& pool = default_pool()) const;
  // Evaluations at omega^i -> evaluations at g * omega^i: intt, coefficient j times g^j, ntt.
  void to_odd_coset(std::span<fr> a, thread_pool& pool = default_pool()) const;
  // Evaluations at omega^i -> evaluations at g * omega^i for any g (intt, times g^j, ntt).
  void to_coset(std::span<fr> a, const fr& g, thread_pool& pool = default_pool()) const;
  // Evaluations at g * omega^i -> coefficients: intt, then coefficient j times g_inv^j.
  void from_coset(std::span<fr> a, const fr& g_inv, thread_pool& pool = default_pool()) const;

 private:
  // The unscaled transform with root w (omega or omega^-1); powers: w^j for j < n/2, or empty.
  void transform(std::span<fr> a, const fr& w, const std::vector<fr>& powers, thread_pool& pool) const;
  // a_j <- a_j * scale * x^j.
  void scale_powers(std::span<fr> a, const fr& scale, const fr& x, thread_pool& pool) const;

  unsigned log_n_;
  bool vectorized_;
  fr omega_, omega_inv_, g_, n_inv_;
  // omega^j and omega^-j for j < n/2, the twiddles of the large stages (2^(k-1) x 32 bytes each;
  // kept up to 2^max_table_log: 32 MB at 2^20; above it made per transform).
  static constexpr unsigned max_table_log = 20;
  std::vector<fr> powers_, powers_inv_;
};

}  // namespace cuzk::zk::ntt
