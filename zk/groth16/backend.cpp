#include "zk/groth16/backend.hpp"

#include "zk/groth16/pce.hpp"

#include <bit>
#include <chrono>
#include <stdexcept>

#include "zk/ntt/domain.hpp"
#include "zk/util/parallel.hpp"

namespace cuzk::zk::groth16 {

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

}  // namespace

std::unique_ptr<staged_inputs> backend::synthesize(const constraint_evaluator& pce, std::span<const scalar> witness,
                                                   const resident_key*) {
  return stage(pce.evaluate(witness), witness);
}

void reserve_for_proofs(backend& be, key_points key, const resident_key* resident, staging_slots slots) {
  if (!resident) return;
  key.resident = resident;
  be.reserve_proof(key);
  if (slots.count) be.reserve_staging(slots.bytes, slots.count);
}

std::unique_ptr<resident_key> load_for_proofs(backend& be, const key_points& key, const constraint_evaluator& pce,
                                              bool sets) {
  auto resident = be.load_key(key, &pce, sets);
  if (resident)
    reserve_for_proofs(be, key, resident.get(),
                       {staged_bytes(pce.domain_size(), pce.n_vars(), resident->synthesizes(pce)), 1});
  return resident;
}

void bellperson_h(std::span<fr> a, std::span<fr> b, std::span<fr> c, std::span<scalar> h) {
  const std::size_t n = a.size();
  if (n < 2 || !std::has_single_bit(n) || b.size() != n || c.size() != n || h.size() + 1 < n)
    throw std::invalid_argument("bellperson_h: a, b, c must share one power-of-two length n >= 2, h n - 1");
  const ntt::domain d(unsigned(std::countr_zero(n)), true, ntt::bellperson_generator);
  const fr g = fr::from_u64(ntt::bellperson_generator);
  d.to_coset(a, g);
  d.to_coset(b, g);
  d.to_coset(c, g);
  const fr z_inv = (g.pow(std::uint64_t(n)) - fr::one()).inverse();  // Z(g omega^i) = g^n - 1 for every i
  parallel_for(n, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi; ++i) a[i] = (a[i] * b[i] - c[i]) * z_inv;
  }, 4096);
  d.from_coset(a, g.inverse());
  parallel_for(n - 1, [&](std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi; ++i) h[i] = a[i].to_canonical();
  }, 4096);
}

void backend::compute_h_coset(std::span<fr> a, std::span<fr> b, std::span<fr> c, std::span<scalar> h) {
  bellperson_h(a, b, c, h);
}

proof_sums backend::prove_sums(const key_points& key, staged_inputs& in, prove_timings* timings) {
  auto* host = dynamic_cast<host_staged*>(&in);
  if (!host) throw std::invalid_argument(name() + " backend: inputs staged by another backend");
  if (key.file)
    throw std::invalid_argument(name() + " backend: the key's points are in the .params file's form (a key made for "
                                "a device that converts them); make it with its points on the host");
  auto& syn = host->syn;
  const std::size_t n = syn.a.size();
  prove_timings local;
  prove_timings& t = timings ? *timings : local;

  auto t0 = clock_type::now();
  std::vector<scalar> h(n);
  if (key.bellperson) {
    compute_h_coset(syn.a, syn.b, syn.c, h);
    h.pop_back();  // n - 1 coefficients for the n - 1 points
  } else {
    compute_h(syn.a, syn.b, syn.c, h);
  }
  // The scratch goes now: the MSMs do not need it.
  std::vector<fr>().swap(syn.a);
  std::vector<fr>().swap(syn.b);
  std::vector<fr>().swap(syn.c);
  t.h = seconds_since(t0);

  auto ws = host->witness;
  proof_sums out;
  t0 = clock_type::now();
  // bellperson's density-filtered queries take the witness gathered at their wires.
  std::vector<scalar> wa, wb;
  auto gather = [&](std::span<const std::uint32_t> wires, std::vector<scalar>& out_w) {
    out_w.resize(wires.size());
    parallel_for(wires.size(), [&](std::size_t lo, std::size_t hi) {
      for (std::size_t i = lo; i < hi; ++i) out_w[i] = ws[wires[i]];
    }, 1 << 14);
    return std::span<const scalar>(out_w);
  };
  const std::span<const scalar> sa = key.bellperson ? gather(key.a_wires, wa) : ws;
  const std::span<const scalar> sb = key.bellperson ? gather(key.b_wires, wb) : ws;
  out.a = msm_g1(key.a, sa);
  t.msm_a = seconds_since(t0);
  t0 = clock_type::now();
  out.b1 = msm_g1(key.b1, sb);
  t.msm_b1 = seconds_since(t0);
  t0 = clock_type::now();
  out.b2 = msm_g2(key.b2, sb);
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
