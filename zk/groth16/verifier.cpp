#include "zk/groth16/verifier.hpp"

#include <array>
#include <utility>

#include "zk/bls12_381/subgroup.hpp"

namespace cuzk::zk::groth16 {

bool verify(const verifying_key& vk, std::span<const bigint<4>> public_inputs, const proof& pi) {
  if (vk.ic.empty() || public_inputs.size() != vk.n_public()) return false;
  for (const auto& s : public_inputs)
    if (!fr::is_canonical(s)) return false;
  if (!pi.a.is_on_curve() || !pi.b.is_on_curve() || !pi.c.is_on_curve()) return false;
  if (!g1_in_subgroup(pi.a) || !g2_in_subgroup(pi.b) || !g1_in_subgroup(pi.c)) return false;

  g1_jacobian acc(vk.ic[0]);
  for (std::size_t i = 0; i < public_inputs.size(); ++i) acc += g1_jacobian(vk.ic[i + 1]).mul(public_inputs[i]);
  const g1_affine vk_x = acc.to_affine();

  const std::array<std::pair<g1_affine, g2_affine>, 4> pairs{{
      {-pi.a, pi.b},
      {vk_x, vk.gamma2},
      {pi.c, vk.delta2},
      {vk.alpha1, vk.beta2},
  }};
  return pairing_product_is_one(pairs);
}

fp12 alpha_beta(const verifying_key& vk) { return pairing(vk.alpha1, vk.beta2); }

}  // namespace cuzk::zk::groth16
