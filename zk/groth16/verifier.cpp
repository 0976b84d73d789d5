#include "zk/groth16/verifier.hpp"

#include <array>
#include <optional>
#include <utility>

#include "zk/bls12_381/subgroup.hpp"

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

fp12 alpha_beta(const verifying_key& vk) { return pairing(vk.alpha1, vk.beta2); }

}  // namespace cuzk::zk::groth16
