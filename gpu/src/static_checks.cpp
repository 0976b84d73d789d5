// The device fields' constants (cuzk/gpu/fields.cuh writes them out as 32-bit limbs) against the
// host's, which derive them from the modulus (zk/ff/montgomery.hpp): a typo in a device constant
// fails the build here, not a proof on the GPU. Compiled by the host compiler; nothing runs.
#include "cuzk/gpu/fields.cuh"
#include "zk/bls12_381/fields.hpp"

namespace cuzk::gpu {
namespace {

template <class Dev, class Host>
constexpr bool limbs_match(std::uint32_t (*dev)(int), const Host& host) {
  for (int i = 0; i < Dev::N; ++i) {
    const std::uint64_t w = host.limb[i / 2];
    if (dev(i) != std::uint32_t(i % 2 ? w >> 32 : w)) return false;
  }
  return true;
}

// -p^-1 mod 2^32 from the host's -p^-1 mod 2^64.
template <class Dev, class Host>
constexpr bool m0_matches() {
  return Dev::m0 == std::uint32_t(Host::INV);
}

using host_fr = zk::bls12_381::fr;
using host_fp = zk::bls12_381::fp;
static_assert(limbs_match<fr_params>(&fr_params::mod, host_fr::P), "fields.cuh: Fr modulus differs from zk's");
static_assert(limbs_match<fr_params>(&fr_params::one, host_fr::R1), "fields.cuh: Fr Montgomery one differs from zk's");
static_assert(m0_matches<fr_params, host_fr>(), "fields.cuh: Fr -p^-1 mod 2^32 differs from zk's");
static_assert(limbs_match<fp_params>(&fp_params::mod, host_fp::P), "fields.cuh: Fp modulus differs from zk's");
static_assert(limbs_match<fp_params>(&fp_params::one, host_fp::R1), "fields.cuh: Fp Montgomery one differs from zk's");
static_assert(m0_matches<fp_params, host_fp>(), "fields.cuh: Fp -p^-1 mod 2^32 differs from zk's");
static_assert(limbs_match<fp_params>(&fp_params::r2, host_fp::R2), "fields.cuh: Fp R^2 differs from zk's");

}  // namespace
}  // namespace cuzk::gpu
