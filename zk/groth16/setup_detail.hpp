// What the in-memory setup (setup.hpp) and the streaming one (streaming_setup.hpp) share: the
// Lagrange evaluations, fixed-base scalar multiplication, and the bellperson key's scalar formulas,
// so that both make the same points from the same toxic waste.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "zk/groth16/setup.hpp"
#include "zk/msm/vector_buckets.hpp"
#include "zk/util/parallel.hpp"

namespace cuzk::zk::groth16::detail {

// Montgomery's trick over a vector of nonzero elements, in place (on all cores).
void batch_invert(std::vector<fr>& v);

// out[i] = num * x_i / (tau - x_i) with x_i = first * step^i: the Lagrange basis evaluations
// L_i(tau) of a multiplicative coset when num = (tau^N - c^N) / N.
std::vector<fr> lagrange_at(const fr& tau, const fr& first, const fr& step, std::size_t count, const fr& num);

// A variable's QAP combination beta u + alpha v + w: over gamma its IC point, over delta its L point.
inline fr qap_combination(const toxic_waste& tw, const fr& u, const fr& v, const fr& w) {
  return tw.beta * u + tw.alpha * v + w;
}

// bellperson's H scalars tau^i Z(tau) / delta for i in [lo, hi) into out[0, hi - lo), with
// z = (tau^n - 1) / delta (Z the domain's vanishing polynomial).
void bellperson_h_scalars(const fr& tau, const fr& z, std::size_t lo, std::size_t hi, fr* out);

// A field element's lowest limb (of c0 in Fp2): equal coordinates are rare, so this settles almost
// every comparison before a whole one.
template <class F>
inline std::uint64_t low_limb(const F& x) {
  if constexpr (requires { x.c0; }) return x.c0.m.limb[0];
  else return x.m.limb[0];
}

// Fixed-base scalar multiplication: table[j][d] = d * 2^(w j) * G, so that k * G is one mixed
// addition per w-bit window of k. The key's points are all multiples of one generator with known
// scalars, so this replaces MSMs entirely.
template <class Curve>
class fixed_base {
 public:
  fixed_base(const affine_t<Curve>& g, unsigned window) : w_(window), windows_((fr::bits + window - 1) / window) {
    const std::size_t row = std::size_t{1} << w_;
    table_.resize(windows_ * row);
    std::vector<jacobian_t<Curve>> bases(windows_);
    jacobian_t<Curve> b(g);
    for (std::size_t j = 0; j < windows_; ++j) {
      bases[j] = b;
      for (unsigned i = 0; i < w_; ++i) b = b.dbl();
    }
    parallel_for(windows_, [&](std::size_t lo, std::size_t hi) {
      std::vector<jacobian_t<Curve>> rowpts(row);
      for (std::size_t j = lo; j < hi; ++j) {
        rowpts[0] = jacobian_t<Curve>::identity();
        for (std::size_t d = 1; d < row; ++d) rowpts[d] = rowpts[d - 1] + bases[j];
        auto aff = batch_normalize(rowpts);
        std::copy(aff.begin(), aff.end(), table_.begin() + j * row);
      }
    }, 1);
  }

  jacobian_t<Curve> mul(const bigint<4>& k) const {
    jacobian_t<Curve> acc = jacobian_t<Curve>::identity();
    const std::size_t row = std::size_t{1} << w_;
    for (std::size_t j = 0; j < windows_; ++j) {
      std::uint32_t d = k.window(j * w_, w_);
      if (d) acc += table_[j * row + d];
    }
    return acc;
  }

  // out[i] = scalars[i] * G. On AVX-512 IFMA lanes where the CPU has them (msm_detail::
  // vector_fixed_base, the table converted on first use). Otherwise accumulators stay affine: per
  // window, one batched inversion (Montgomery's trick) serves a whole block of additions, so an
  // addition costs about 6 multiplications instead of the 11 of a mixed Jacobian one. The rare
  // x1 == x2 cases (doubling, or a sum at infinity) go through Jacobian arithmetic.
  // `done(n)` is called after each block of n points, from the worker that made them.
  // mul_into: the same into `out` (scalars.size() points), for a caller that reuses its buffers.
  std::vector<affine_t<Curve>> mul_all(std::span<const fr> scalars,
                                       const std::function<void(std::size_t)>& done = {}) const {
    std::vector<affine_t<Curve>> out(scalars.size());
    mul_into(scalars, out, done);
    return out;
  }
  void mul_into(std::span<const fr> scalars, std::span<affine_t<Curve>> out,
                const std::function<void(std::size_t)>& done = {}) const {
    using F = typename Curve::field;
    using affine = affine_t<Curve>;
    constexpr std::size_t block = 1024;
    const std::size_t row = std::size_t{1} << w_;
    if (const auto* vec = vector_form()) {
      parallel_for(scalars.size(), [&](std::size_t lo, std::size_t hi) {
        std::vector<bigint<4>> k(block);
        for (std::size_t b = lo; b < hi; b += block) {
          const std::size_t m = std::min(hi, b + block) - b;
          for (std::size_t i = 0; i < m; ++i) k[i] = scalars[b + i].to_canonical();
          vec->mul(std::span<const bigint<4>>(k.data(), m), out.subspan(b, m));
          if (done) done(m);
        }
      }, block);
      return;
    }
    parallel_for(scalars.size(), [&](std::size_t lo, std::size_t hi) {
      std::vector<bigint<4>> k(block);
      std::vector<std::uint32_t> digit(block), todo(block);  // todo: indices (in the block) that add here
      std::vector<F> den(block), prefix(block);
      for (std::size_t b = lo; b < hi; b += block) {
        const std::size_t m = std::min(hi, b + block) - b;
        affine* acc = out.data() + b;
        std::fill(acc, acc + m, affine{});  // the identity (all zero)
        for (std::size_t i = 0; i < m; ++i) k[i] = scalars[b + i].to_canonical();
        for (std::size_t j = 0; j < windows_; ++j) {
          const affine* t = table_.data() + j * row;
          for (std::size_t i = 0; i < m; ++i) digit[i] = k[i].window(j * w_, w_);
          // The table is far bigger than the caches: each entry's two lines are asked for a few
          // points ahead, so that the misses overlap instead of stalling one after the other.
          constexpr std::size_t ahead = 8;
          auto fetch = [&](std::size_t i) {
            const char* e = reinterpret_cast<const char*>(t + digit[i]);
            __builtin_prefetch(e);
            __builtin_prefetch(e + sizeof(affine) - 1);
          };
          for (std::size_t i = 0; i < std::min(ahead, m); ++i) fetch(i);
          std::size_t n_todo = 0;
          for (std::size_t i = 0; i < m; ++i) {
            if (i + ahead < m) fetch(i + ahead);
            const std::uint32_t d = digit[i];
            if (!d) continue;
            const affine& q = t[d];
            if (acc[i].is_identity()) {
              acc[i] = q;
            } else if (low_limb(acc[i].x) == low_limb(q.x) && acc[i].x == q.x) {
              acc[i] = (jacobian_t<Curve>(acc[i]) + q).to_affine();  // doubling or infinity: rare
            } else {
              todo[n_todo++] = std::uint32_t(i);
            }
          }
          if (n_todo == 0) continue;
          F run = F::one();
          for (std::size_t u = 0; u < n_todo; ++u) {
            std::size_t i = todo[u];
            den[u] = t[digit[i]].x - acc[i].x;
            prefix[u] = run;
            run *= den[u];
          }
          F inv = run.inverse();
          for (std::size_t u = n_todo; u-- > 0;) {
            std::size_t i = todo[u];
            const affine& q = t[digit[i]];
            F inv_u = inv * prefix[u];
            inv *= den[u];
            F lambda = (q.y - acc[i].y) * inv_u;
            F x3 = lambda.sqr() - acc[i].x - q.x;
            F y3 = lambda * (acc[i].x - x3) - acc[i].y;
            acc[i] = affine::of(x3, y3);
          }
        }
        if (done) done(m);
      }
    }, block);
  }

  // The table as a device takes it: windows() rows of 2^window() points, row j entry d = d 2^(w j) G.
  unsigned window() const { return w_; }
  std::size_t windows() const { return windows_; }
  std::span<const affine_t<Curve>> table() const { return table_; }

 private:
  // The table in the vector form, made once by the first mul_into that can use it; null without
  // IFMA (or when set_ifma_allowed(false) said so).
  const msm_detail::vector_fixed_base<Curve>* vector_form() const {
    if constexpr (!msm_detail::has_vector_msm<Curve>) {
      return nullptr;
    } else {
      if (!msm_detail::vector_msm_available()) return nullptr;
      std::call_once(vec_->once, [&] {
        vec_->form = std::make_unique<msm_detail::vector_fixed_base<Curve>>(table_, w_, windows_, default_pool());
      });
      return vec_->form.get();
    }
  }
  struct vector_table {
    std::once_flag once;
    std::unique_ptr<msm_detail::vector_fixed_base<Curve>> form;
  };

  unsigned w_;
  std::size_t windows_;
  std::vector<affine_t<Curve>> table_;
  std::unique_ptr<vector_table> vec_ = std::make_unique<vector_table>();
};

// Window width that keeps the table (windows * 2^w additions) well below the work it saves.
inline unsigned window_for(std::size_t points, unsigned max_w) {
  unsigned w = 4;
  while (w < max_w && (std::size_t{1} << (w + 4)) <= points) ++w;
  return w;
}


// The windows of the key's two tables: G1 serves A, B1, L and H (3 points a variable and n), G2 B2.
inline unsigned g1_window(std::uint64_t n_vars, std::uint64_t n) { return window_for(n_vars * 3 + n, 16); }
inline unsigned g2_window(std::uint64_t n_vars) { return window_for(n_vars, 14); }

// The verifying key's fixed points (alpha, beta, delta in G1; beta, gamma, delta in G2); ic empty.
verifying_key fixed_vk_points(const toxic_waste& tw, const fixed_base<g1_curve>& g1, const fixed_base<g2_curve>& g2);

}  // namespace cuzk::zk::groth16::detail
