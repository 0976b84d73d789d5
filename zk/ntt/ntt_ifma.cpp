// Eight butterflies at a time. The data goes once into lanes (radix 2^52, eight elements per
// block of five vectors), runs every stage there, and comes back once. Stages of half-size
// 1, 2 and 4 pair lanes inside a block (a lane permutation); larger stages pair whole blocks.
#include "zk/ntt/ntt_ifma.hpp"

#include <memory>

#if defined(__x86_64__)
#include <immintrin.h>

#include "zk/ff/ifma_target.hpp"

CUZK_IFMA_TARGET_BEGIN

#include "zk/ff/fr_ifma.hpp"

namespace cuzk::zk::ntt {

namespace {

using namespace ifma_fr;

v5 twiddle_lanes(std::span<const fr> powers, std::size_t first, std::size_t step) {
  alignas(64) fr w[8];
  for (std::size_t i = 0; i < 8; ++i) w[i] = powers[first + i * step];
  return twiddles(w);
}

// Stages of half-size m = 1, 2, 4 on one block: lane i pairs with lane i ^ m (the "v" lane has
// bit m set) and both use twiddle w_m^(i mod m).
v5 small_stage(const v5& x, __m512i swap, __mmask8 v_lanes, const v5* w) {
  v5 p, u, v, out;
  for (int j = 0; j < limbs; ++j) {
    p.l[j] = _mm512_permutexvar_epi64(swap, x.l[j]);
    v.l[j] = _mm512_mask_blend_epi64(v_lanes, p.l[j], x.l[j]);  // the pair's v value, in both lanes
    u.l[j] = _mm512_mask_blend_epi64(v_lanes, x.l[j], p.l[j]);  // the pair's u value
  }
  v5 t = w ? mul(v, *w) : v;
  v5 s = add(u, t), d = sub(u, t);
  for (int j = 0; j < limbs; ++j) out.l[j] = _mm512_mask_blend_epi64(v_lanes, s.l[j], d.l[j]);
  return out;
}

inline void butterfly(v5& x, v5& y, const v5& w) {
  v5 t = mul(y, w);
  y = sub(x, t);
  x = add(x, t);
}

}  // namespace

void dit_stages_ifma(std::span<fr> a, std::span<const fr> powers, thread_pool& pool) {
  const std::size_t n = a.size(), nb = n / 8;
  std::unique_ptr<v5[]> blocks(new v5[nb]);
  v5* b = blocks.get();
  parallel_for(pool, nb, [&](std::size_t g0, std::size_t g1) {
    for (std::size_t g = g0; g < g1; ++g) b[g] = load8(a.data() + 8 * g);
  }, 256);

  // Half-sizes 1, 2, 4: twiddles w_2m^j = w^(j * n / 2m).
  alignas(64) fr t2[8], t4[8];
  for (std::size_t i = 0; i < 8; ++i) t2[i] = powers[(i & 1) * (n / 4)], t4[i] = powers[(i & 3) * (n / 8)];
  const v5 tw2 = twiddles(t2), tw4 = twiddles(t4);
  const __m512i swap1 = _mm512_set_epi64(6, 7, 4, 5, 2, 3, 0, 1), swap2 = _mm512_set_epi64(5, 4, 7, 6, 1, 0, 3, 2),
                swap4 = _mm512_set_epi64(3, 2, 1, 0, 7, 6, 5, 4);
  parallel_for(pool, nb, [&](std::size_t g0, std::size_t g1) {
    for (std::size_t g = g0; g < g1; ++g) {
      v5 x = small_stage(b[g], swap1, 0xaa, nullptr);
      x = small_stage(x, swap2, 0xcc, &tw2);
      b[g] = small_stage(x, swap4, 0xf0, &tw4);
    }
  }, 256);

  // Half-sizes m >= 8: blocks g and g + m/8 of each group of 2m, twiddles w^(j * n / 2m).
  for (std::size_t m = 8; m < n; m *= 2) {
    const std::size_t half = m / 8, groups = n / (2 * m), stride = n / (2 * m);
    if (half >= groups) {  // few, long groups: one twiddle vector per task index, all groups
      parallel_for(pool, half, [&](std::size_t t0, std::size_t t1) {
        for (std::size_t t = t0; t < t1; ++t) {
          v5 w = twiddle_lanes(powers, 8 * t * stride, stride);
          for (std::size_t k = 0; k < groups; ++k) butterfly(b[k * 2 * half + t], b[k * 2 * half + t + half], w);
        }
      }, 16);
    } else {  // many short groups: the twiddle vectors once, then the groups in parallel
      std::unique_ptr<v5[]> w(new v5[half]);  // (not std::vector: its code is compiled baseline)
      for (std::size_t t = 0; t < half; ++t) w[t] = twiddle_lanes(powers, 8 * t * stride, stride);
      parallel_for(pool, groups, [&](std::size_t k0, std::size_t k1) {
        for (std::size_t k = k0; k < k1; ++k)
          for (std::size_t t = 0; t < half; ++t) butterfly(b[k * 2 * half + t], b[k * 2 * half + t + half], w[t]);
      }, 64);
    }
  }

  parallel_for(pool, nb, [&](std::size_t g0, std::size_t g1) {
    for (std::size_t g = g0; g < g1; ++g) store8(b[g], a.data() + 8 * g);
  }, 256);
}

}  // namespace cuzk::zk::ntt

CUZK_IFMA_TARGET_END

#else

#include <stdexcept>

namespace cuzk::zk::ntt {
void dit_stages_ifma(std::span<bls12_381::fr>, std::span<const bls12_381::fr>, thread_pool&) {
  throw std::logic_error("dit_stages_ifma: not built for this CPU");
}
}  // namespace cuzk::zk::ntt

#endif
