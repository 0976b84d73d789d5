#include "zk/groth16/setup.hpp"

#include <algorithm>
#include <atomic>
#include <functional>
#include <mutex>
#include <random>
#include <string>

#include "zk/error.hpp"
#include "zk/groth16/bellperson_key.hpp"
#include "zk/groth16/point_spans.hpp"
#include "zk/groth16/setup_detail.hpp"
#include "zk/ntt/domain.hpp"
#include "zk/util/parallel.hpp"

namespace cuzk::zk::groth16 {

namespace {

template <class Fn>
void parallel_blocks(std::size_t n, std::size_t min_block, Fn&& fn) {
  parallel_for(n, std::forward<Fn>(fn), min_block);
}

fr draw_nonzero(std::mt19937_64& rng) {
  for (;;) {
    bigint<4> v;
    for (auto& l : v.limb) l = rng();
    v.limb[3] &= (std::uint64_t{1} << 63) - 1;
    if (v >= fr::P || v.is_zero()) continue;
    return fr::from_canonical(v);
  }
}

// What the in-memory key's spans point into.
struct key_storage {
  std::vector<g1_affine> a, b1, c, h;
  std::vector<g2_affine> b2;
};

}  // namespace

namespace detail {

void batch_invert(std::vector<fr>& v) {
  parallel_blocks(v.size(), 1024, [&](std::size_t lo, std::size_t hi) {
    if (lo == hi) return;
    std::vector<fr> prefix(hi - lo);
    fr acc = fr::one();
    for (std::size_t i = lo; i < hi; ++i) {
      prefix[i - lo] = acc;
      acc *= v[i];
    }
    fr inv = acc.inverse();
    for (std::size_t i = hi; i-- > lo;) {
      fr vi = v[i];
      v[i] = inv * prefix[i - lo];
      inv *= vi;
    }
  });
}

std::vector<fr> lagrange_at(const fr& tau, const fr& first, const fr& step, std::size_t count, const fr& num) {
  std::vector<fr> x(count), den(count);
  parallel_blocks(count, 1024, [&](std::size_t lo, std::size_t hi) {
    fr xi = first * step.pow(std::uint64_t(lo));
    for (std::size_t i = lo; i < hi; ++i) {
      x[i] = xi;
      den[i] = tau - xi;
      xi *= step;
    }
  });
  batch_invert(den);
  parallel_blocks(count, 1024, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi; ++i) x[i] = num * x[i] * den[i];
  });
  return x;
}

void bellperson_h_scalars(const fr& tau, const fr& z, std::size_t lo, std::size_t hi, fr* out) {
  parallel_for(hi - lo, [&](std::size_t a, std::size_t b) {
    fr x = z * tau.pow(std::uint64_t(lo + a));
    for (std::size_t i = a; i < b; ++i, x *= tau) out[i] = x;
  }, 1024);
}

verifying_key fixed_vk_points(const toxic_waste& tw, const fixed_base<g1_curve>& g1, const fixed_base<g2_curve>& g2) {
  auto g1m = [&](const fr& x) { return g1.mul(x.to_canonical()).to_affine(); };
  auto g2m = [&](const fr& x) { return g2.mul(x.to_canonical()).to_affine(); };
  verifying_key vk;
  vk.alpha1 = g1m(tw.alpha);
  vk.beta1 = g1m(tw.beta);
  vk.delta1 = g1m(tw.delta);
  vk.beta2 = g2m(tw.beta);
  vk.gamma2 = g2m(tw.gamma);
  vk.delta2 = g2m(tw.delta);
  return vk;
}

}  // namespace detail

using detail::fixed_base;
using detail::lagrange_at;

toxic_waste toxic_waste_from_seed(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  toxic_waste tw;
  tw.tau = draw_nonzero(rng);
  tw.alpha = draw_nonzero(rng);
  tw.beta = draw_nonzero(rng);
  tw.gamma = fr::one();
  tw.delta = draw_nonzero(rng);
  return tw;
}

std::uint32_t snarkjs_domain_size(std::uint32_t n_constraints, std::uint32_t n_public) {
  std::uint64_t v = std::uint64_t{n_constraints} + n_public;
  unsigned floor_log = 0;
  while ((v >> (floor_log + 1)) != 0) ++floor_log;  // ffjavascript's log2: floor, and 0 for 0
  if (floor_log + 1 > 31) return 0;
  return std::uint32_t{1} << (floor_log + 1);
}

fr snarkjs_root_of_unity(unsigned k) {
  bigint<4> e = fr::P;
  e.sub_in_place(bigint<4>{{1, 0, 0, 0}});
  for (unsigned i = 0; i < fr_two_adicity; ++i) e.shr1();
  fr w = fr::from_u64(fr_snarkjs_generator).pow(e);
  for (unsigned i = k; i < fr_two_adicity; ++i) w = w.sqr();
  return w;
}

namespace {

// A coefficient (Montgomery form) as section 4 stores it: coef * R, i.e. times the element R.
fr stored_coefficient(const fr& coeff) { return coeff * fr::from_mont(fr::R2); }

// The nPublic + 1 rows `input_s * 0 = 0` (one A entry each) after the circuit's `rows`, from `at`.
void append_input_rows(std::vector<io::zkey_coefficient>& coefs, std::size_t at, std::size_t rows,
                       std::uint32_t n_public) {
  for (std::uint32_t s = 0; s <= n_public; ++s)
    coefs[at + s] = {0, std::uint32_t(rows + s), s, stored_coefficient(fr::one())};
}

}  // namespace

std::vector<io::zkey_coefficient> pce_coefficients(const io::r1cs& cs) {
  const std::uint32_t n_public = cs.n_public();
  const std::size_t rows = cs.constraints.size();
  // Where each constraint's entries start (a prefix sum), then the entries filled in parallel (a
  // 2^24-constraint circuit has tens of millions); the first bad wire in constraint order is named.
  std::vector<std::size_t> at(rows + 1, 0);
  for (std::size_t c = 0; c < rows; ++c) at[c + 1] = at[c] + cs.constraints[c].a.size() + cs.constraints[c].b.size();
  std::vector<io::zkey_coefficient> coefs(at[rows] + n_public + 1);
  std::atomic<std::size_t> first_bad{SIZE_MAX};
  parallel_for(rows, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t c = lo; c < hi && c < first_bad.load(std::memory_order_relaxed); ++c) {
      const auto& con = cs.constraints[c];
      std::size_t k = at[c];
      for (std::uint32_t m = 0; m < 2; ++m)
        for (const auto& t : m == 0 ? con.a : con.b) {
          if (t.wire >= cs.n_wires) {
            std::size_t cur = first_bad.load();
            while (c < cur && !first_bad.compare_exchange_weak(cur, c)) {
            }
            return;
          }
          coefs[k++] = {m, std::uint32_t(c), t.wire, stored_coefficient(t.coeff)};
        }
    }
  }, 4096);
  if (const std::size_t c = first_bad.load(); c != SIZE_MAX) {
    const auto& con = cs.constraints[c];
    std::uint32_t wire = 0;
    for (const auto* lc : {&con.a, &con.b})
      for (const auto& t : *lc)
        if (t.wire >= cs.n_wires && wire == 0) wire = t.wire;
    throw input_error("r1cs: constraint " + std::to_string(c) + " names wire " + std::to_string(wire) +
                      " >= nWires " + std::to_string(cs.n_wires));
  }
  append_input_rows(coefs, at[rows], rows, n_public);
  return coefs;
}

std::vector<io::zkey_coefficient> pce_coefficients(const io::r1cs_layout& l) {
  const std::size_t rows = l.header.n_constraints;
  // Each constraint's A + B term count (in parallel), their prefix sum, then the entries.
  std::vector<std::size_t> at(rows + 1, 0);
  parallel_for(rows, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t c = lo; c < hi; ++c) {
      const auto [na, pa] = l.terms(c, 0);
      at[c + 1] = na + io::load_u32(pa + std::size_t(na) * 36);
    }
  }, 4096);
  for (std::size_t c = 0; c < rows; ++c) at[c + 1] += at[c];
  std::vector<io::zkey_coefficient> coefs(at[rows] + l.header.n_public() + 1);
  std::atomic<std::size_t> first_bad{SIZE_MAX};  // a constraint, or the first of a later term
  std::mutex mu;
  std::string message;
  parallel_for(rows, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t c = lo; c < hi && c < first_bad.load(std::memory_order_relaxed); ++c) {
      std::size_t k = at[c];
      for (std::uint32_t m = 0; m < 2; ++m) {
        const auto [n, p] = l.terms(c, int(m));
        for (std::uint32_t t = 0; t < n; ++t) {
          std::uint32_t wire;
          bigint<4> v;
          if (!l.term(p + std::size_t(t) * 36, wire, v)) {
            std::string why = l.term_error(c, int(m), t);
            std::lock_guard lk(mu);
            if (c < first_bad) first_bad = c, message = std::move(why);
            return;
          }
          coefs[k++] = {m, std::uint32_t(c), wire, stored_coefficient(fr::from_canonical(v))};
        }
      }
    }
  }, 4096);
  if (first_bad != SIZE_MAX) l.fail(message);
  append_input_rows(coefs, at[rows], rows, l.header.n_public());
  return coefs;
}

io::zkey setup(const io::r1cs& cs, const toxic_waste& tw, io::key_convention convention, const setup_progress& progress) {
  const bool bp = convention == io::key_convention::bellperson;
  const std::uint32_t n_public = cs.n_public();
  const std::uint32_t n_vars = cs.n_wires;
  if (n_vars < n_public + 1)
    throw input_error("r1cs: nWires " + std::to_string(n_vars) + " < nPublic + 1");
  if (cs.constraints.size() != cs.n_constraints)
    throw input_error("r1cs: holds " + std::to_string(cs.constraints.size()) + " constraints, header says " +
                      std::to_string(cs.n_constraints));
  const std::uint32_t n = bp ? bellperson_domain_size(cs.n_constraints, n_public)
                             : snarkjs_domain_size(cs.n_constraints, n_public);
  if (n == 0 || n > (std::uint32_t{1} << 28))
    throw input_error("r1cs: " + std::to_string(cs.n_constraints) + " constraints need a domain above 2^28");
  unsigned k = 0;
  while ((std::uint32_t{1} << k) < n) ++k;

  if (progress) progress("QAP at tau", 0, 1);
  const fr omega = bp ? ntt::root_of_unity(k, ntt::bellperson_generator) : snarkjs_root_of_unity(k);
  const fr mu = snarkjs_root_of_unity(k + 1);
  const fr tau_n = tw.tau.pow(std::uint64_t(n));
  const fr tau_2n = tau_n.sqr();
  if (tau_2n == fr::one()) throw std::invalid_argument("setup: tau is a 2n-th root of unity; choose another seed");

  // L_j(tau) over the size-n domain: (tau^n - 1)/n * omega^j / (tau - omega^j).
  const fr lag_num = (tau_n - fr::one()) * fr::from_u64(n).inverse();
  std::vector<fr> lag = lagrange_at(tw.tau, fr::one(), omega, n, lag_num);

  // QAP polynomials at tau: u_s = sum_c A[c][s] L_c, and likewise v (B) and w (C).
  std::vector<fr> u(n_vars), v(n_vars), w(n_vars);
  std::vector<io::zkey_coefficient> coefs = pce_coefficients(cs);  // checks the wires
  for (std::uint32_t c = 0; c < cs.n_constraints; ++c) {
    const auto& con = cs.constraints[c];
    for (const auto& t : con.a) u[t.wire] += t.coeff * lag[c];
    for (const auto& t : con.b) v[t.wire] += t.coeff * lag[c];
    for (const auto& t : con.c) {
      if (t.wire >= n_vars)
        throw input_error("r1cs: constraint " + std::to_string(c) + " names wire " + std::to_string(t.wire) +
                          " >= nWires " + std::to_string(n_vars));
      w[t.wire] += t.coeff * lag[c];
    }
  }
  for (std::uint32_t s = 0; s <= n_public; ++s) u[s] += lag[cs.n_constraints + s];
  std::vector<fr>().swap(lag);

  // IC_s = (beta u_s + alpha v_s + w_s) / gamma; C_s the same over delta, for private wires.
  const fr gamma_inv = tw.gamma.inverse(), delta_inv = tw.delta.inverse();
  std::vector<fr> ic_s(n_public + 1), c_s(n_vars - n_public - 1);
  for (std::uint32_t s = 0; s < n_vars; ++s) {
    fr z = detail::qap_combination(tw, u[s], v[s], w[s]);
    if (s <= n_public) ic_s[s] = z * gamma_inv;
    else c_s[s - n_public - 1] = z * delta_inv;
  }
  std::vector<fr>().swap(w);

  // snarkjs: H_i = L^{(2n)}_{2i+1}(tau) / delta: the Lagrange basis of the 2n-th roots at the odd
  // ones, x = mu * omega^i, with numerator (tau^2n - 1) / 2n. bellperson: H_i = tau^i Z(tau) / delta,
  // i < n - 1, the monomial basis times the vanishing polynomial.
  std::vector<fr> h_s;
  if (bp) {
    h_s.resize(n - 1);
    detail::bellperson_h_scalars(tw.tau, (tau_n - fr::one()) * delta_inv, 0, n - 1, h_s.data());
  } else {
    const fr h_num = (tau_2n - fr::one()) * fr::from_u64(2 * std::uint64_t{n}).inverse() * delta_inv;
    h_s = lagrange_at(tw.tau, mu, omega, n, h_num);
  }
  // bellperson's a and b queries hold only the wires of its density.
  std::vector<std::uint32_t> a_wires, b_wires;
  if (bp) {
    // bellperson refuses the point at infinity anywhere in a .params file: an aux wire used by no
    // constraint would have one as its L point.
    for (std::size_t i = 0; i < c_s.size(); ++i)
      if (c_s[i].is_zero())
        throw input_error("r1cs: wire " + std::to_string(i + n_public + 1) +
                          " has a zero L point (used by no constraint): bellperson's format cannot hold it");
    query_density d = bellperson_density(cs);
    a_wires = std::move(d.a_wires);
    b_wires = std::move(d.b_wires);
    std::vector<fr> ua(a_wires.size()), vb(b_wires.size());
    for (std::size_t i = 0; i < a_wires.size(); ++i) ua[i] = u[a_wires[i]];
    for (std::size_t i = 0; i < b_wires.size(); ++i) vb[i] = v[b_wires[i]];
    u = std::move(ua);
    v = std::move(vb);
  }

  fixed_base<g1_curve> g1(g1_curve::generator(), detail::g1_window(n_vars, n));
  fixed_base<g2_curve> g2(g2_curve::generator(), detail::g2_window(n_vars));

  if (progress) progress("QAP at tau", 1, 1);

  // Each section's points with its stage's progress (workers report under one lock).
  std::mutex progress_mu;
  auto section = [&](const auto& base, const std::vector<fr>& scalars, std::string_view stage) {
    std::size_t made = 0;
    if (progress) progress(stage, 0, scalars.size());
    return base.mul_all(scalars, [&](std::size_t n) {
      if (!progress) return;
      std::lock_guard lk(progress_mu);
      made += n;
      progress(stage, made, scalars.size());
    });
  };
  auto store = std::make_shared<key_storage>();
  store->a = section(g1, u, "points A");
  store->b1 = section(g1, v, "points B (G1)");
  store->b2 = section(g2, v, "points B (G2)");
  store->c = section(g1, c_s, "points L");
  store->h = section(g1, h_s, "points H");

  io::zkey key;
  key.n_vars = n_vars;
  key.n_public = n_public;
  key.domain_size = n;
  key.log_domain = k;
  key.n_rows = cs.n_constraints + n_public + 1;
  key.convention = convention;
  key.a_wires = std::move(a_wires);
  key.b_wires = std::move(b_wires);
  key.vk = detail::fixed_vk_points(tw, g1, g2);
  key.vk.ic = g1.mul_all(ic_s);
  key.coefficients = std::move(coefs);
  adopt_points(key, std::move(store));
  return key;
}

}  // namespace cuzk::zk::groth16
