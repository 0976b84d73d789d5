// The batch-affine bucket accumulation of a BLS12-381 MSM window, eight additions at a time on
// AVX-512 IFMA lanes (zk/ff/fp_ifma.hpp). Same algorithm as batch_affine.hpp (one shared
// inversion per batch, colliding points wait for the next batch, XYZZ overflow buckets when a
// bucket is hit too often), with the field work of each group of eight pending additions done in
// vector registers: the slope, the new x and y and the inversion's prefix products.
//
// The vector code lives in vector_buckets.cpp, the only translation unit built with AVX-512
// flags; everything here is plain C++, so pippenger.hpp may include it anywhere. The MSM uses it
// when vector_msm<Curve> exists (G1 and G2 of BLS12-381), the CPU has AVX-512 IFMA, and neither
// msm_options::vectorized = false nor zk::set_ifma_allowed(false) (cpu_features.hpp) turned it off.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>

#include "zk/bls12_381/curves.hpp"
#include "zk/util/parallel.hpp"

namespace cuzk::zk::msm_detail {

// AVX-512 F/VL/BW/DQ/IFMA on this CPU with the OS saving ZMM state, and allowed (cpu_has_avx512_ifma).
bool vector_msm_available();

template <class Curve>
inline constexpr bool has_vector_msm =
    std::is_same_v<Curve, bls12_381::g1_curve> || std::is_same_v<Curve, bls12_381::g2_curve>;

// One MSM's non-trivial bases (those `active` names, in that order) in the vector form, and the
// per-window accumulation over them.
template <class Curve>
class vector_msm {
 public:
  using affine = affine_t<Curve>;
  using xyzz = xyzz_t<Curve>;

  vector_msm(std::span<const affine> bases, std::span<const bigint<4>> scalars,
             std::span<const std::uint32_t> active, thread_pool& pool, std::size_t batch = 0);
  ~vector_msm();
  vector_msm(const vector_msm&) = delete;
  vector_msm& operator=(const vector_msm&) = delete;

  // sum_b (b + 1) * bucket_b over window w of c bits, for the active points [begin, end).
  xyzz window_sum(unsigned w, unsigned c, std::size_t begin, std::size_t end) const;

 private:
  struct prepared;
  std::span<const affine> bases_;
  std::span<const bigint<4>> scalars_;
  std::span<const std::uint32_t> active_;
  std::size_t batch_ = 0;  // 0: by the window's bucket count
  std::unique_ptr<prepared> prep_;
};

extern template class vector_msm<bls12_381::g1_curve>;
extern template class vector_msm<bls12_381::g2_curve>;

// Fixed-base multiplication (zk/groth16/setup_detail.hpp's fixed_base) on IFMA lanes: eight
// scalars at a time, each lane an XYZZ accumulator that takes one table entry per window, the
// results made affine through one batched inversion per call.
template <class Curve>
class vector_fixed_base {
 public:
  using affine = affine_t<Curve>;

  // table: `windows` rows of 2^window affine points, row j entry d = d 2^(window j) G (entry 0,
  // the identity, never read). Converted to the vector form once, on `pool`.
  vector_fixed_base(std::span<const affine> table, unsigned window, std::size_t windows, thread_pool& pool);
  ~vector_fixed_base();
  vector_fixed_base(const vector_fixed_base&) = delete;
  vector_fixed_base& operator=(const vector_fixed_base&) = delete;

  // out[i] = k[i] G for canonical k[i] (below r), on the calling thread.
  void mul(std::span<const bigint<4>> k, std::span<affine> out) const;

 private:
  struct prepared;
  unsigned w_;
  std::size_t windows_;
  std::unique_ptr<prepared> prep_;
};

extern template class vector_fixed_base<bls12_381::g1_curve>;
extern template class vector_fixed_base<bls12_381::g2_curve>;

}  // namespace cuzk::zk::msm_detail
