// BLS12-381's groups: G1 over Fp (y^2 = x^3 + 4) and G2 over Fp2 (the M-twist y^2 = x^3 + 4(1 + u)).
#pragma once

#include "zk/bls12_381/fields.hpp"
#include "zk/curve/short_weierstrass.hpp"
#include "zk/ff/fp2.hpp"

namespace cuzk::zk::bls12_381 {

using fp2 = fp2_t<fp>;

namespace detail {
constexpr fp fp_hex(std::string_view h) { return fp::from_canonical(*bigint<6>::parse(h)); }
}  // namespace detail

struct g1_curve {
  using field = fp;
  static constexpr fp b() { return fp::from_u64(4); }
  static constexpr affine_t<g1_curve> generator() {
    return affine_t<g1_curve>::of(
        detail::fp_hex("0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"),
        detail::fp_hex("0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1"));
  }
};

struct g2_curve {
  using field = fp2;
  static constexpr fp2 b() { return {fp::from_u64(4), fp::from_u64(4)}; }
  static constexpr affine_t<g2_curve> generator() {
    return affine_t<g2_curve>::of(
        {detail::fp_hex("0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"),
         detail::fp_hex("0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e")},
        {detail::fp_hex("0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"),
         detail::fp_hex("0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be")});
  }
};

using g1_affine = affine_t<g1_curve>;
using g1_jacobian = jacobian_t<g1_curve>;
using g1_xyzz = xyzz_t<g1_curve>;
using g2_affine = affine_t<g2_curve>;
using g2_jacobian = jacobian_t<g2_curve>;
using g2_xyzz = xyzz_t<g2_curve>;

// Prime-order subgroup membership, by the definition [r]P = O. Costs one 255-bit scalar
// multiplication: used for untrusted proof points and compressed inputs, not for every key point.
template <class Curve>
bool in_prime_subgroup(const affine_t<Curve>& p) {
  return jacobian_t<Curve>(p).mul(fr::P).is_identity();
}

}  // namespace cuzk::zk::bls12_381
