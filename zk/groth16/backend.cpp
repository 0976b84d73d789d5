#include "zk/groth16/backend.hpp"

#include "zk/groth16/pce.hpp"

#include <chrono>
#include <stdexcept>

namespace cuzk::zk::groth16 {

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

}  // namespace

std::unique_ptr<staged_inputs> backend::synthesize(const constraint_evaluator& pce, std::span<const scalar> witness) {
  return stage(pce.evaluate(witness), witness);
}

proof_sums backend::prove_sums(const key_points& key, staged_inputs& in, prove_timings* timings) {
  auto* host = dynamic_cast<host_staged*>(&in);
  if (!host) throw std::invalid_argument(name() + " backend: inputs staged by another backend");
  auto& syn = host->syn;
  const std::size_t n = syn.a.size();
  prove_timings local;
  prove_timings& t = timings ? *timings : local;

  auto t0 = clock_type::now();
  std::vector<scalar> h(n);
  compute_h(syn.a, syn.b, syn.c, h);
  // The scratch goes now: the MSMs do not need it.
  std::vector<fr>().swap(syn.a);
  std::vector<fr>().swap(syn.b);
  std::vector<fr>().swap(syn.c);
  t.h = seconds_since(t0);

  auto ws = host->witness;
  proof_sums out;
  t0 = clock_type::now();
  out.a = msm_g1(key.a, ws);
  t.msm_a = seconds_since(t0);
  t0 = clock_type::now();
  out.b1 = msm_g1(key.b1, ws);
  t.msm_b1 = seconds_since(t0);
  t0 = clock_type::now();
  out.b2 = msm_g2(key.b2, ws);
  t.msm_b2 = seconds_since(t0);
  t0 = clock_type::now();
  out.c = msm_g1(key.c, ws.subspan(key.n_private_from));
  t.msm_c = seconds_since(t0);
  t0 = clock_type::now();
  out.h = msm_g1(key.h, h);
  t.msm_h = seconds_since(t0);
  return out;
}

}  // namespace cuzk::zk::groth16
