#include "zk/ntt/domain.hpp"

#include "zk/ntt/ntt_ifma.hpp"
#include "zk/util/cpu_features.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace cuzk::zk::ntt {

namespace {

std::uint64_t reverse_bits(std::uint64_t x, unsigned bits) {
  x = ((x >> 1) & 0x5555555555555555ull) | ((x & 0x5555555555555555ull) << 1);
  x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
  x = ((x >> 4) & 0x0f0f0f0f0f0f0f0full) | ((x & 0x0f0f0f0f0f0f0f0full) << 4);
  x = __builtin_bswap64(x);
  return bits ? x >> (64 - bits) : 0;
}

inline void butterfly(fr& u, fr& v, const fr& w) {
  fr t = v * w;
  v = u - t;
  u = u + t;
}

// Stages with half-size below 2^kBlockLog run block by block (a block of 2^kBlockLog elements stays
// in L2 through all of them); larger stages run over chunks of twiddle indices.
constexpr unsigned kBlockLog = 12;
constexpr std::size_t kChunk = 4096;

}  // namespace

fr root_of_unity(unsigned k, std::uint64_t generator) {
  if (k > bls12_381::fr_two_adicity) throw std::invalid_argument("root_of_unity: k > 32");
  bigint<4> e = fr::P;
  e.sub_in_place(bigint<4>{{1, 0, 0, 0}});
  for (unsigned i = 0; i < k; ++i) e.shr1();
  return fr::from_u64(generator).pow(e);
}

domain::domain(unsigned log_size, bool vectorized, std::uint64_t root_generator)
    : log_n_(log_size), vectorized_(vectorized) {
  if (log_size > max_log_size)
    throw std::invalid_argument("ntt domain: log size " + std::to_string(log_size) + " > 28");
  omega_ = root_of_unity(log_size, root_generator);
  omega_inv_ = omega_.inverse();
  g_ = root_of_unity(log_size + 1, root_generator);
  n_inv_ = fr::from_u64(std::uint64_t{1} << log_size).inverse();
  if (log_size >= 1 && log_size <= max_table_log) {
    const std::size_t half = std::size_t{1} << (log_size - 1);
    powers_.resize(half);
    powers_inv_.resize(half);
    powers_[0] = powers_inv_[0] = fr::one();
    for (std::size_t j = 1; j < half; ++j) powers_[j] = powers_[j - 1] * omega_, powers_inv_[j] = powers_inv_[j - 1] * omega_inv_;
  }
}

void domain::transform(std::span<fr> a, const fr& w, const std::vector<fr>& powers, thread_pool& pool) const {
  const std::size_t n = size();
  if (a.size() != n) throw std::invalid_argument("ntt: input length differs from the domain size");
  if (n == 1) return;
  const unsigned L = log_n_;

  parallel_for(pool, n, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      std::size_t r = reverse_bits(i, L);
      if (i < r) std::swap(a[i], a[r]);
    }
  }, 1 << 14);

  if (vectorized_ && n >= 64 && cpu_has_avx512_ifma()) {
    if (!powers.empty()) {
      dit_stages_ifma(a, powers, pool);
      return;
    }
    // Above max_table_log the twiddles are made for this transform: n/2 products, a small
    // fraction of the (n/2) log n butterflies the vector stages save.
    std::vector<fr> made(n / 2);
    parallel_for(pool, made.size(), [&](std::size_t b, std::size_t e) {
      fr p = w.pow(std::uint64_t(b));
      for (std::size_t j = b; j < e; ++j, p *= w) made[j] = p;
    }, 1 << 14);
    dit_stages_ifma(a, made, pool);
    return;
  }

  // roots[s]: primitive 2^(s+1)-th root, for the stage of half-size 2^s.
  std::vector<fr> roots(L);
  roots[L - 1] = w;
  for (unsigned s = L - 1; s-- > 0;) roots[s] = roots[s + 1].sqr();

  // Small stages, block by block. tw[m + j] = roots[s]^j for m = 2^s.
  const unsigned small = std::min(L, kBlockLog);
  const std::size_t block = std::size_t{1} << small;
  std::vector<fr> tw(block);
  for (unsigned s = 0; s < small; ++s) {
    std::size_t m = std::size_t{1} << s;
    tw[m] = fr::one();
    for (std::size_t j = 1; j < m; ++j) tw[m + j] = tw[m + j - 1] * roots[s];
  }
  parallel_for(pool, n / block, [&](std::size_t b0, std::size_t b1) {
    for (std::size_t b = b0; b < b1; ++b) {
      fr* x = a.data() + b * block;
      for (unsigned s = 0; s < small; ++s) {
        std::size_t m = std::size_t{1} << s;
        for (std::size_t k = 0; k < block; k += 2 * m)
          for (std::size_t j = 0; j < m; ++j) butterfly(x[k + j], x[k + j + m], tw[m + j]);
      }
    }
  });

  // Large stages: chunks of kChunk twiddle indices, each applied to every block of the stage.
  for (unsigned s = small; s < L; ++s) {
    const std::size_t m = std::size_t{1} << s;
    const std::size_t chunks = m / kChunk;
    const fr ws = roots[s];
    const std::size_t blocks = n / (2 * m);
    if (!powers.empty()) {  // roots[s]^j = w^(j * stride) from the table
      const std::size_t stride = n / (2 * m);
      parallel_for(pool, chunks * blocks, [&](std::size_t t0, std::size_t t1) {
        for (std::size_t task = t0; task < t1; ++task) {
          std::size_t c = task / blocks, blk = task % blocks;
          std::size_t j0 = c * kChunk;
          fr* x = a.data() + blk * 2 * m + j0;
          const fr* t = powers.data() + j0 * stride;
          for (std::size_t j = 0; j < kChunk; ++j) butterfly(x[j], x[j + m], t[j * stride]);
        }
      });
      continue;
    }
    parallel_for(pool, chunks * blocks, [&](std::size_t t0, std::size_t t1) {
      std::vector<fr> t(kChunk);
      std::size_t have = ~std::size_t{0};
      for (std::size_t task = t0; task < t1; ++task) {
        std::size_t c = task / blocks, blk = task % blocks;  // neighbours share twiddles
        std::size_t j0 = c * kChunk;
        if (have != c) {
          t[0] = ws.pow(std::uint64_t(j0));
          for (std::size_t j = 1; j < kChunk; ++j) t[j] = t[j - 1] * ws;
          have = c;
        }
        fr* x = a.data() + blk * 2 * m + j0;
        for (std::size_t j = 0; j < kChunk; ++j) butterfly(x[j], x[j + m], t[j]);
      }
    });
  }
}

void domain::scale_powers(std::span<fr> a, const fr& scale, const fr& x, thread_pool& pool) const {
  parallel_for(pool, a.size(), [&](std::size_t b, std::size_t e) {
    fr p = scale * x.pow(std::uint64_t(b));
    for (std::size_t i = b; i < e; ++i) {
      a[i] *= p;
      p *= x;
    }
  }, 1024);
}

void domain::ntt(std::span<fr> a, thread_pool& pool) const { transform(a, omega_, powers_, pool); }

void domain::intt(std::span<fr> a, thread_pool& pool) const {
  transform(a, omega_inv_, powers_inv_, pool);
  scale_powers(a, n_inv_, fr::one(), pool);
}

void domain::to_odd_coset(std::span<fr> a, thread_pool& pool) const {
  transform(a, omega_inv_, powers_inv_, pool);
  scale_powers(a, n_inv_, g_, pool);  // 1/n of the inverse transform folded in
  transform(a, omega_, powers_, pool);
}

void domain::to_coset(std::span<fr> a, const fr& g, thread_pool& pool) const {
  transform(a, omega_inv_, powers_inv_, pool);
  scale_powers(a, n_inv_, g, pool);
  transform(a, omega_, powers_, pool);
}

void domain::from_coset(std::span<fr> a, const fr& g_inv, thread_pool& pool) const {
  transform(a, omega_inv_, powers_inv_, pool);
  scale_powers(a, n_inv_, g_inv, pool);
}

}  // namespace cuzk::zk::ntt
