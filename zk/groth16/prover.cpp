#include "zk/groth16/prover.hpp"

#include <chrono>
#include <string>

#include "zk/error.hpp"

namespace cuzk::zk::groth16 {

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

void check_witness(const io::zkey& key, const io::witness& w) {
  if (w.values.size() != key.n_vars)
    throw input_error("witness has " + std::to_string(w.values.size()) + " values, the key expects nVars = " +
                      std::to_string(key.n_vars));
  if (w.values.empty() || w.values[0] != bigint<4>{{1, 0, 0, 0}})
    throw input_error("witness value 0 must be 1 (the constant wire)");
}

}  // namespace

proof prove(const io::zkey& key, const constraint_evaluator& pce, const io::witness& w, const randomness& rnd,
            backend& be, prove_timings* timings, const resident_key* resident) {
  check_witness(key, w);
  check_key(key);
  if (pce.n_vars() != key.n_vars || pce.domain_size() != key.domain_size)
    throw input_error("constraint evaluator does not match the key's nVars / domainSize");
  auto t0 = clock_type::now();
  // Synthesis gives the same evaluations in both conventions (row i at omega^i, whichever roots);
  // the backend computes h in the key's convention.
  auto staged = be.synthesize(pce, w.values, resident);
  if (timings) timings->synthesis = seconds_since(t0);
  return prove_staged(key, *staged, rnd, be, timings, resident);
}

void check_inputs(const io::zkey& key, const synthesis& syn, const io::witness& w) {
  check_synthesis(key, syn, w);
  check_key(key);
}

void check_synthesis(const io::zkey& key, const synthesis& syn, const io::witness& w) {
  check_witness(key, w);
  const std::size_t n = key.domain_size;
  if (syn.a.size() != n || syn.b.size() != n || syn.c.size() != n)
    throw input_error("synthesis has " + std::to_string(syn.a.size()) + " rows, the key's domain is " +
                      std::to_string(n));
}

void check_key(const io::zkey& key) {
  const std::size_t n_private_from = std::size_t{key.n_public} + 1;
  if (key.convention == io::key_convention::bellperson) {
    auto ascending_below = [&](const std::vector<std::uint32_t>& v) {
      for (std::size_t i = 0; i < v.size(); ++i)
        if (v[i] >= key.n_vars || (i && v[i] <= v[i - 1])) return false;
      return true;
    };
    if (key.a.size() != key.a_wires.size() || key.b1.size() != key.b_wires.size() ||
        key.b2.size() != key.b_wires.size() || key.n_vars < n_private_from ||
        key.c.size() != key.n_vars - n_private_from || key.domain_size < 2 || key.h.size() != key.domain_size - 1 ||
        !ascending_below(key.a_wires) || !ascending_below(key.b_wires))
      throw input_error("bellperson key: point sections do not match the circuit's wires / domain size");
    return;
  }
  if (key.a.size() != key.n_vars || key.b1.size() != key.n_vars || key.b2.size() != key.n_vars ||
      key.n_vars < n_private_from || key.c.size() != key.n_vars - n_private_from || key.h.size() != key.domain_size)
    throw input_error("zkey point sections do not match nVars / domainSize");
}

key_points points_of(const io::zkey& key) {
  key_points kp;
  kp.a = key.a;
  kp.b1 = key.b1;
  kp.c = key.c;
  kp.h = key.h;
  kp.b2 = key.b2;
  kp.n_private_from = std::size_t{key.n_public} + 1;
  kp.synthetic = key.synthetic;
  kp.synthetic_seed = key.synthetic_seed;
  kp.synthetic_on_host = key.synthetic_on_host;
  kp.file = key.file_points.get();
  if (key.convention == io::key_convention::bellperson) {
    kp.bellperson = true;
    kp.a_wires = key.a_wires;
    kp.b_wires = key.b_wires;
  }
  return kp;
}

proof prove_synthesized(const io::zkey& key, synthesis&& syn, const io::witness& w, const randomness& rnd,
                        backend& be, prove_timings* timings, const resident_key* resident) {
  check_inputs(key, syn, w);
  auto t0 = clock_type::now();
  auto staged = be.stage(std::move(syn), w.values);
  if (timings) timings->stage = seconds_since(t0);
  return prove_staged(key, *staged, rnd, be, timings, resident);
}

proof prove_staged(const io::zkey& key, staged_inputs& in, const randomness& rnd, backend& be,
                   prove_timings* timings, const resident_key* resident) {
  key_points kp = points_of(key);
  kp.resident = resident;
  proof_sums sums = be.prove_sums(kp, in, timings);

  auto t0 = clock_type::now();
  const bigint<4> r = rnd.r.to_canonical(), s = rnd.s.to_canonical();
  const bigint<4> rs = (rnd.r * rnd.s).to_canonical();
  const auto& vk = key.vk;

  g1_jacobian pi_a = sums.a + g1_jacobian(vk.alpha1) + g1_jacobian(vk.delta1).mul(r);
  g2_jacobian pi_b = sums.b2 + g2_jacobian(vk.beta2) + g2_jacobian(vk.delta2).mul(s);
  g1_jacobian pi_b1 = sums.b1 + g1_jacobian(vk.beta1) + g1_jacobian(vk.delta1).mul(s);
  g1_jacobian pi_c = sums.c + sums.h + pi_a.mul(s) + pi_b1.mul(r) - g1_jacobian(vk.delta1).mul(rs);

  proof p{pi_a.to_affine(), pi_b.to_affine(), pi_c.to_affine()};
  if (timings) timings->assemble = seconds_since(t0);
  return p;
}

std::vector<bigint<4>> public_inputs(const io::zkey& key, const io::witness& w) {
  if (w.values.size() < std::size_t{key.n_public} + 1)
    throw input_error("witness has " + std::to_string(w.values.size()) + " values, fewer than nPublic + 1 = " +
                      std::to_string(key.n_public + 1));
  return {w.values.begin() + 1, w.values.begin() + 1 + key.n_public};
}

}  // namespace cuzk::zk::groth16
