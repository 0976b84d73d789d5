#include "zk/groth16/verifier.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <utility>

#include "zk/bls12_381/subgroup.hpp"
#include "zk/groth16/random.hpp"

namespace cuzk::zk::groth16 {

namespace {

// Everything but the pairing equation; returns vk_x = IC[0] + sum_i s_i IC[i+1] when all pass.
std::optional<g1_affine> check_and_combine(const verifying_key& vk, std::span<const bigint<4>> public_inputs,
                                           const proof& pi) {
  if (vk.ic.empty() || public_inputs.size() != vk.n_public()) return std::nullopt;
  for (const auto& s : public_inputs)
    if (!fr::is_canonical(s)) return std::nullopt;
  if (!pi.a.is_on_curve() || !pi.b.is_on_curve() || !pi.c.is_on_curve()) return std::nullopt;
  if (!g1_in_subgroup(pi.a) || !g2_in_subgroup(pi.b) || !g1_in_subgroup(pi.c)) return std::nullopt;

  g1_jacobian acc(vk.ic[0]);
  for (std::size_t i = 0; i < public_inputs.size(); ++i) acc += g1_jacobian(vk.ic[i + 1]).mul(public_inputs[i]);
  return acc.to_affine();
}

}  // namespace

bool verify(const verifying_key& vk, std::span<const bigint<4>> public_inputs, const proof& pi) {
  auto vk_x = check_and_combine(vk, public_inputs, pi);
  if (!vk_x) return false;
  const std::array<std::pair<g1_affine, g2_affine>, 4> pairs{{
      {-pi.a, pi.b},
      {*vk_x, vk.gamma2},
      {pi.c, vk.delta2},
      {vk.alpha1, vk.beta2},
  }};
  return pairing_product_is_one(pairs);
}

prepared_verifying_key prepare(const verifying_key& vk) {
  return {vk, alpha_beta(vk).inverse(), prepare_g2(vk.gamma2), prepare_g2(vk.delta2)};
}

bool verify(const prepared_verifying_key& pvk, std::span<const bigint<4>> public_inputs, const proof& pi) {
  auto vk_x = check_and_combine(pvk.vk, public_inputs, pi);
  if (!vk_x) return false;
  const g2_prepared b = prepare_g2(pi.b);
  const std::array<std::pair<g1_affine, const g2_prepared*>, 3> pairs{{
      {-pi.a, &b},
      {*vk_x, &pvk.gamma2},
      {pi.c, &pvk.delta2},
  }};
  // e(-A, B) e(vk_x, gamma) e(C, delta) = e(alpha, beta)^-1
  return final_exponentiation(multi_miller_loop(pairs)) == pvk.alpha_beta_inverse;
}

batch_verdict verify_batch(const prepared_verifying_key& pvk, std::span<const std::vector<bigint<4>>> public_inputs,
                           std::span<const proof> proofs) {
  batch_verdict out;
  if (public_inputs.size() != proofs.size() || proofs.empty()) {
    for (std::size_t i = 0; i < proofs.size(); ++i) out.invalid.push_back(i);
    return out;
  }
  std::vector<std::size_t> batch;
  std::vector<g1_affine> vk_x;
  for (std::size_t i = 0; i < proofs.size(); ++i) {
    auto x = check_and_combine(pvk.vk, public_inputs[i], proofs[i]);
    if (x) batch.push_back(i), vk_x.push_back(*x);
    else out.invalid.push_back(i);
  }
  if (!batch.empty()) {
    std::vector<g2_prepared> bs;
    bs.reserve(batch.size());
    std::vector<std::pair<g1_affine, const g2_prepared*>> pairs;
    pairs.reserve(batch.size() + 2);
    g1_jacobian sum_x = g1_jacobian::identity(), sum_c = g1_jacobian::identity();
    bigint<4> sum_z{};
    fr sum_zf = fr::zero();
    for (std::size_t j = 0; j < batch.size(); ++j) {
      const proof& pi = proofs[batch[j]];
      bigint<4> z{};
      detail::os_random_bytes(z.limb.data(), 16);  // 128 bits
      if (z.is_zero()) z.limb[0] = 1;
      sum_zf += fr::from_canonical(z);
      bs.push_back(prepare_g2(pi.b));
      pairs.push_back({(-g1_jacobian(pi.a).mul(z)).to_affine(), nullptr});
      sum_x += g1_jacobian(vk_x[j]).mul(z);
      sum_c += g1_jacobian(pi.c).mul(z);
    }
    for (std::size_t j = 0; j < batch.size(); ++j) pairs[j].second = &bs[j];
    pairs.push_back({sum_x.to_affine(), &pvk.gamma2});
    pairs.push_back({sum_c.to_affine(), &pvk.delta2});
    sum_z = sum_zf.to_canonical();
    const bool batch_ok = final_exponentiation(multi_miller_loop(pairs)) == pvk.alpha_beta_inverse.pow(sum_z);
    if (!batch_ok)
      for (std::size_t j = 0; j < batch.size(); ++j)
        if (!verify(pvk, public_inputs[batch[j]], proofs[batch[j]])) out.invalid.push_back(batch[j]);
  }
  std::sort(out.invalid.begin(), out.invalid.end());
  out.all_valid = out.invalid.empty();
  return out;
}

fp12 alpha_beta(const verifying_key& vk) { return pairing(vk.alpha1, vk.beta2); }

}  // namespace cuzk::zk::groth16
