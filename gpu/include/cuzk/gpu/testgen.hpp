// Cheap, checkable MSM inputs for the GPU tests and benchmarks (host code, no CUDA).
//
// Points P_j = [a + j d] G for j < D (one scalar multiplication per thread, then one addition per
// point, normalized in batches), so the exact answer of sum_i s_i P_(i mod D) is
// [sum_i s_i (a + (i mod D) d)] G: a field sum and one scalar multiplication, at any size. Points
// repeat when n > D, and every 97th point is the point at infinity (k = 0) when asked.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "zk/bls12_381/curves.hpp"
#include "zk/util/parallel.hpp"

namespace cuzk::gpu::testgen {

using zk::bigint;
using zk::bls12_381::fr;

inline std::uint64_t splitmix(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

inline bigint<4> random_scalar(std::uint64_t& state) {
  for (;;) {
    bigint<4> s;
    for (auto& l : s.limb) l = splitmix(state);
    s.limb[3] &= 0x7fffffffffffffffull;
    if (s < fr::P) return s;
  }
}

inline fr random_fr(std::uint64_t& state) { return fr::from_canonical(random_scalar(state)); }

// Uniform canonical scalars below r, deterministic in (seed, index).
inline std::vector<bigint<4>> random_scalars(std::size_t n, std::uint64_t seed) {
  std::vector<bigint<4>> out(n);
  zk::parallel_for(n, [&](std::size_t b, std::size_t e) {
    std::uint64_t st = seed * 0x632be59bd9b4e019ull + b;
    for (std::size_t i = b; i < e; ++i) out[i] = random_scalar(st);
  }, 4096);
  return out;
}

// Scalars with a witness's mix: each is a bit with probability bit_share (0 or 1, or only 1 when
// ones_only), else uniform below r; deterministic in (seed, index).
inline std::vector<bigint<4>> bit_scalars(std::size_t n, std::uint64_t seed, double bit_share, bool ones_only = false) {
  std::vector<bigint<4>> out(n);
  const std::uint64_t threshold = std::uint64_t(bit_share * 0x1p53);
  zk::parallel_for(n, [&](std::size_t b, std::size_t e) {
    std::uint64_t st = seed * 0x9e3779b97f4a7c15ull + b;
    for (std::size_t i = b; i < e; ++i) {
      std::uint64_t u = splitmix(st);
      if ((u >> 11) < threshold) out[i] = bigint<4>{{ones_only ? 1u : (u & 1), 0, 0, 0}};
      else out[i] = random_scalar(st);
    }
  }, 4096);
  return out;
}

template <class Curve>
struct point_set {
  std::vector<zk::affine_t<Curve>> pts;
  std::vector<fr> k;  // pts[j] = [k[j]] G
};

template <class Curve>
point_set<Curve> progression(std::size_t D, std::uint64_t seed, bool with_infinity) {
  using jac = zk::jacobian_t<Curve>;
  std::uint64_t st = seed;
  fr a = random_fr(st), d = random_fr(st);
  point_set<Curve> out;
  out.pts.resize(D);
  out.k.resize(D);
  const jac g(Curve::generator());
  const jac step = g.mul(d.to_canonical());
  zk::parallel_for(D, [&](std::size_t b, std::size_t e) {
    std::vector<jac> js;
    js.reserve(e - b);
    fr kb = a + d * fr::from_u64(b);
    jac p = g.mul(kb.to_canonical());
    for (std::size_t j = b; j < e; ++j) {
      js.push_back(p);
      out.k[j] = kb;
      p += step;
      kb += d;
    }
    auto aff = zk::batch_normalize(js);
    for (std::size_t j = b; j < e; ++j) out.pts[j] = aff[j - b];
  }, 256);
  if (with_infinity)
    for (std::size_t j = 5; j < D; j += 97) out.pts[j] = {}, out.k[j] = fr::zero();
  return out;
}

// sum_i scalars[i] * pts[i mod D], from the discrete logs.
template <class Curve>
zk::jacobian_t<Curve> expected(const point_set<Curve>& ps, std::span<const bigint<4>> scalars) {
  std::size_t n = scalars.size(), D = ps.k.size();
  std::size_t parts = 64;
  std::vector<fr> partial(parts, fr::zero());
  zk::parallel_for(parts, [&](std::size_t pb, std::size_t pe) {
    for (std::size_t p = pb; p < pe; ++p) {
      fr acc = fr::zero();
      for (std::size_t i = p * n / parts; i < (p + 1) * n / parts; ++i)
        acc += fr::from_mont(scalars[i]) * ps.k[i % D];
      partial[p] = acc;
    }
  });
  fr total = fr::zero();
  for (auto& x : partial) total += x;
  // from_mont(s) * k = s * k / R: multiply by R^2 / R = R once to undo.
  total *= fr::from_mont(fr::R2);
  return zk::jacobian_t<Curve>(Curve::generator()).mul(total.to_canonical());
}

}  // namespace cuzk::gpu::testgen
