// Seeded fault injection for the engine's tests: a coin with a fixed probability, and a compute
// backend that fails its "kernels" (h, MSMs) on that coin, as a GPU whose launches fail would.
#pragma once

#include <memory>
#include <random>
#include <stdexcept>
#include <string>

#include "zk/groth16/backend.hpp"

namespace cuzk::actors {

class fault_coin {
 public:
  fault_coin(double p, std::uint64_t seed) : p_(p), rng_(seed) {}
  bool flip() { return p_ > 0 && std::uniform_real_distribution<double>(0, 1)(rng_) < p_; }

 private:
  double p_;
  std::mt19937_64 rng_;
};

class faulty_backend final : public zk::groth16::backend {
 public:
  faulty_backend(std::unique_ptr<zk::groth16::backend> inner, double p, std::uint64_t seed)
      : inner_(std::move(inner)), coin_(p, seed) {}
  std::string name() const override { return inner_->name() + "+faults"; }
  void compute_h(std::span<zk::groth16::fr> a, std::span<zk::groth16::fr> b, std::span<zk::groth16::fr> c,
                 std::span<zk::groth16::scalar> h) override {
    kernel("compute_h");
    inner_->compute_h(a, b, c, h);
  }
  zk::groth16::g1_jacobian msm_g1(std::span<const zk::groth16::g1_affine> bases,
                                  std::span<const zk::groth16::scalar> scalars) override {
    kernel("msm_g1");
    return inner_->msm_g1(bases, scalars);
  }
  zk::groth16::g2_jacobian msm_g2(std::span<const zk::groth16::g2_affine> bases,
                                  std::span<const zk::groth16::scalar> scalars) override {
    kernel("msm_g2");
    return inner_->msm_g2(bases, scalars);
  }
  // Host inputs go through this wrapper's kernels (each may fail); the inner backend's own staged
  // inputs get one coin for the whole proof.
  zk::groth16::proof_sums prove_sums(const zk::groth16::key_points& key, zk::groth16::staged_inputs& in,
                                     zk::groth16::prove_timings* t) override {
    if (dynamic_cast<zk::groth16::host_staged*>(&in)) return backend::prove_sums(key, in, t);
    kernel("prove");
    return inner_->prove_sums(key, in, t);
  }
  std::unique_ptr<zk::groth16::resident_key> load_key(const zk::groth16::key_points& key,
                                                      const zk::groth16::constraint_evaluator* pce,
                                                      bool sets) override {
    kernel("load_key");
    return inner_->load_key(key, pce, sets);
  }
  std::uint64_t resident_bytes(const zk::groth16::key_points& key, bool sets,
                               const zk::groth16::constraint_evaluator* pce) const override {
    return inner_->resident_bytes(key, sets, pce);
  }
  unsigned reserve_staging(std::uint64_t bytes, unsigned count) override { return inner_->reserve_staging(bytes, count); }
  std::uint64_t reserve_proof(const zk::groth16::key_points& key) override { return inner_->reserve_proof(key); }

 private:
  void kernel(const char* what) {
    if (coin_.flip()) throw std::runtime_error(std::string("injected fault: kernel ") + what + " failed");
  }
  std::unique_ptr<zk::groth16::backend> inner_;
  fault_coin coin_;
};

}  // namespace cuzk::actors
