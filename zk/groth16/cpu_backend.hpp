// The CPU compute backend: h by NTTs on the host thread pool, MSMs by Pippenger.
#pragma once

#include <map>
#include <memory>
#include <mutex>

#include "zk/groth16/backend.hpp"
#include "zk/ntt/domain.hpp"

namespace cuzk::zk::groth16 {

class cpu_backend : public backend {
 public:
  std::string name() const override { return "cpu"; }

  void compute_h(std::span<fr> a, std::span<fr> b, std::span<fr> c, std::span<scalar> h) override;
  g1_jacobian msm_g1(std::span<const g1_affine> bases, std::span<const scalar> scalars) override;
  g2_jacobian msm_g2(std::span<const g2_affine> bases, std::span<const scalar> scalars) override;

 private:
  const ntt::domain& domain_for(unsigned log_n);

  std::mutex domains_mutex_;
  std::map<unsigned, std::unique_ptr<ntt::domain>> domains_;  // small: a few field constants each
};

std::unique_ptr<backend> make_cpu_backend();

}  // namespace cuzk::zk::groth16
