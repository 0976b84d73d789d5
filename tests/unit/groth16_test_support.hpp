// Helpers shared by the prover / PCE / setup tests: random satisfiable R1CS, a naive backend, and a
// trapdoor check of Groth16 proofs (needs no pairing: with the toxic waste known, the verification
// equation can be checked on the scalars behind the points).
#pragma once

#include <random>
#include <vector>

#include "zk/groth16/backend.hpp"
#include "zk/groth16/setup.hpp"
#include "zk/io/r1cs.hpp"
#include "zk/io/wtns.hpp"

namespace cuzk::zk::test {

using namespace cuzk::zk::bls12_381;

inline fr random_fr(std::mt19937_64& rng) {
  for (;;) {
    bigint<4> v;
    for (auto& l : v.limb) l = rng();
    v.limb[3] &= (std::uint64_t{1} << 63) - 1;
    if (v < fr::P) return fr::from_canonical(v);
  }
}

struct random_circuit {
  io::r1cs cs;
  std::vector<fr> values;  // a satisfying assignment, values[0] = 1
  io::witness witness() const {
    io::witness w;
    for (const auto& v : values) w.values.push_back(v.to_canonical());
    return w;
  }
};

// n_inputs public wires and n_private free private wires, then one new wire per constraint:
// C = k * new + (random terms) and new = (a*b - others) / k. Some constraints are linear (empty A).
inline random_circuit make_random_circuit(std::mt19937_64& rng, std::uint32_t n_public, std::uint32_t n_free,
                                          std::uint32_t n_constraints) {
  random_circuit rc;
  auto& cs = rc.cs;
  cs.n_pub_out = n_public / 2;
  cs.n_pub_in = n_public - cs.n_pub_out;
  cs.n_prv_in = n_free;
  rc.values.push_back(fr::one());
  for (std::uint32_t i = 0; i < n_public + n_free; ++i) rc.values.push_back(random_fr(rng));
  auto random_lc = [&](std::size_t max_terms) {
    io::r1cs::linear_combination lc;
    std::size_t t = 1 + rng() % max_terms;
    for (std::size_t i = 0; i < t; ++i) {
      fr coef = (rng() % 3 == 0) ? fr::one() : random_fr(rng);
      lc.push_back({std::uint32_t(rng() % rc.values.size()), coef});
    }
    return lc;
  };
  auto eval = [&](const io::r1cs::linear_combination& lc) {
    fr acc = fr::zero();
    for (const auto& t : lc) acc += t.coeff * rc.values[t.wire];
    return acc;
  };
  for (std::uint32_t c = 0; c < n_constraints; ++c) {
    io::r1cs::constraint con;
    bool linear = rng() % 5 == 0;
    if (!linear) con.a = random_lc(3);
    con.b = random_lc(3);
    io::r1cs::linear_combination others = (rng() % 2) ? random_lc(2) : io::r1cs::linear_combination{};
    fr k = random_fr(rng);
    if (k.is_zero()) k = fr::one();
    fr ab = eval(con.a) * eval(con.b);
    fr nw = (ab - eval(others)) * k.inverse();
    std::uint32_t wire = std::uint32_t(rc.values.size());
    rc.values.push_back(nw);
    con.c = others;
    con.c.push_back({wire, k});
    cs.constraints.push_back(std::move(con));
  }
  cs.n_wires = std::uint32_t(rc.values.size());
  cs.n_constraints = n_constraints;
  return rc;
}

// O(n^2) reference backend: h by naive interpolation and evaluation, MSMs by double-and-add.
class naive_backend : public groth16::backend {
 public:
  std::string name() const override { return "naive"; }
  void compute_h(std::span<fr> a, std::span<fr> b, std::span<fr> c, std::span<groth16::scalar> h) override {
    std::size_t n = a.size();
    unsigned k = 0;
    while ((std::size_t{1} << k) < n) ++k;
    fr omega = groth16::snarkjs_root_of_unity(k), mu = groth16::snarkjs_root_of_unity(k + 1);
    fr omega_inv = omega.inverse(), n_inv = fr::from_u64(n).inverse();
    auto at_odd = [&](std::span<fr> vals) {
      std::vector<fr> coef(n), out(n);
      for (std::size_t j = 0; j < n; ++j) {  // coef_j = 1/n sum_i vals_i omega^{-ij}
        fr acc = fr::zero(), step = omega_inv.pow(std::uint64_t(j)), x = fr::one();
        for (std::size_t i = 0; i < n; ++i, x *= step) acc += vals[i] * x;
        coef[j] = acc * n_inv;
      }
      for (std::size_t i = 0; i < n; ++i) {  // evaluate at mu * omega^i (Horner)
        fr x = mu * omega.pow(std::uint64_t(i)), acc = fr::zero();
        for (std::size_t j = n; j-- > 0;) acc = acc * x + coef[j];
        out[i] = acc;
      }
      return out;
    };
    auto A = at_odd(a), B = at_odd(b), C = at_odd(c);
    for (std::size_t i = 0; i < n; ++i) h[i] = (A[i] * B[i] - C[i]).to_canonical();
  }
  g1_jacobian msm_g1(std::span<const g1_affine> bases, std::span<const groth16::scalar> s) override {
    return msm(bases, s);
  }
  g2_jacobian msm_g2(std::span<const g2_affine> bases, std::span<const groth16::scalar> s) override {
    return msm(bases, s);
  }

 private:
  template <class Curve>
  static jacobian_t<Curve> msm(std::span<const affine_t<Curve>> bases, std::span<const groth16::scalar> s) {
    jacobian_t<Curve> acc = jacobian_t<Curve>::identity();
    for (std::size_t i = 0; i < bases.size(); ++i) acc += jacobian_t<Curve>(bases[i]).mul(s[i]);
    return acc;
  }
};

// Lagrange basis L_j(tau) over the size-n snarkjs domain by the product formula (O(n^2)),
// independent of setup()'s closed form.
inline std::vector<fr> naive_lagrange(const fr& tau, std::size_t n) {
  unsigned k = 0;
  while ((std::size_t{1} << k) < n) ++k;
  fr omega = groth16::snarkjs_root_of_unity(k);
  std::vector<fr> xs(n);
  xs[0] = fr::one();
  for (std::size_t i = 1; i < n; ++i) xs[i] = xs[i - 1] * omega;
  std::vector<fr> out(n);
  for (std::size_t j = 0; j < n; ++j) {
    fr num = fr::one(), den = fr::one();
    for (std::size_t m = 0; m < n; ++m)
      if (m != j) {
        num *= tau - xs[m];
        den *= xs[j] - xs[m];
      }
    out[j] = num * den.inverse();
  }
  return out;
}

// The Groth16 equation on scalars: with a = log A, b = log B (known from the trapdoor and the
// witness), the proof is valid iff C = (a b - alpha beta - sum_pub w_i (beta u_i + alpha v_i + w_i)) / delta.
// Returns whether the proof equals the one these scalars predict for A, B and satisfies it for C.
inline bool trapdoor_check(const io::r1cs& cs, const groth16::toxic_waste& tw, std::uint32_t domain,
                           const std::vector<fr>& values, const groth16::randomness& rnd, const groth16::proof& p) {
  auto lag = naive_lagrange(tw.tau, domain);
  std::vector<fr> u(cs.n_wires), v(cs.n_wires), w(cs.n_wires);
  for (std::uint32_t c = 0; c < cs.n_constraints; ++c) {
    for (auto& t : cs.constraints[c].a) u[t.wire] += t.coeff * lag[c];
    for (auto& t : cs.constraints[c].b) v[t.wire] += t.coeff * lag[c];
    for (auto& t : cs.constraints[c].c) w[t.wire] += t.coeff * lag[c];
  }
  for (std::uint32_t s = 0; s <= cs.n_public(); ++s) u[s] += lag[cs.n_constraints + s];
  fr a = tw.alpha + rnd.r * tw.delta, b = tw.beta + rnd.s * tw.delta, pub = fr::zero();
  for (std::uint32_t i = 0; i < cs.n_wires; ++i) {
    a += values[i] * u[i];
    b += values[i] * v[i];
    if (i <= cs.n_public()) pub += values[i] * (tw.beta * u[i] + tw.alpha * v[i] + w[i]);
  }
  fr c = (a * b - tw.alpha * tw.beta - pub) * tw.delta.inverse();
  auto g1 = [](const fr& x) { return g1_jacobian(g1_curve::generator()).mul(x.to_canonical()).to_affine(); };
  auto g2 = [](const fr& x) { return g2_jacobian(g2_curve::generator()).mul(x.to_canonical()).to_affine(); };
  return p.a == g1(a) && p.b == g2(b) && p.c == g1(c);
}

}  // namespace cuzk::zk::test
