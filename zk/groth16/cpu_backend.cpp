#include "zk/groth16/cpu_backend.hpp"

#include <bit>
#include <stdexcept>

#include "zk/msm/pippenger.hpp"
#include "zk/util/parallel.hpp"

namespace cuzk::zk::groth16 {

const ntt::domain& cpu_backend::domain_for(unsigned log_n) {
  std::lock_guard lk(domains_mutex_);
  auto& d = domains_[log_n];
  if (!d) d = std::make_unique<ntt::domain>(log_n);
  return *d;
}

// snarkjs's h: a, b, c (evaluations over omega^i) moved to the odd coset g*omega^i, then
// h_i = A_i * B_i - C_i there, canonical. No division by Z: the zkey's H points absorb it.
void cpu_backend::compute_h(std::span<fr> a, std::span<fr> b, std::span<fr> c, std::span<scalar> h) {
  const std::size_t n = a.size();
  if (n == 0 || !std::has_single_bit(n) || b.size() != n || c.size() != n || h.size() != n)
    throw std::invalid_argument("compute_h: a, b, c, h must share one power-of-two length");
  const auto& d = domain_for(unsigned(std::countr_zero(n)));
  d.to_odd_coset(a);
  d.to_odd_coset(b);
  d.to_odd_coset(c);
  parallel_for(n, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) h[i] = (a[i] * b[i] - c[i]).to_canonical();
  }, 4096);
}

g1_jacobian cpu_backend::msm_g1(std::span<const g1_affine> bases, std::span<const scalar> scalars) {
  return msm<g1_curve>(bases, scalars);
}

g2_jacobian cpu_backend::msm_g2(std::span<const g2_affine> bases, std::span<const scalar> scalars) {
  return msm<g2_curve>(bases, scalars);
}

std::unique_ptr<backend> make_cpu_backend() { return std::make_unique<cpu_backend>(); }

}  // namespace cuzk::zk::groth16
