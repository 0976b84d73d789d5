// BLS12-381's fields for device code: Fr (8 x 32-bit limbs), Fp (12), Fp2. The constants are
// written out here, once (device code cannot read zk::fp's constexpr tables); gpu/src/static_checks.cpp
// checks every one against zk/bls12_381/fields.hpp at compile time.
#pragma once

#include "cuzk/gpu/mont.cuh"

namespace cuzk::gpu {

struct fr_params {
  static constexpr int N = 8;
  static constexpr uint32_t m0 = 0xffffffffu;
  CUZK_HD static constexpr uint32_t mod(int i) {
    constexpr uint32_t p[N] = {0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402,
                               0x09a1d805, 0x3339d808, 0x299d7d48, 0x73eda753};
    return p[i];
  }
  CUZK_HD static constexpr uint32_t one(int i) {
    constexpr uint32_t r[N] = {0xfffffffe, 0x00000001, 0x00034802, 0x5884b7fa,
                               0xecbc4ff5, 0x998c4fef, 0xacc5056f, 0x1824b159};
    return r[i];
  }
};

struct fp_params {
  static constexpr int N = 12;
  static constexpr uint32_t m0 = 0xfffcfffdu;
  CUZK_HD static constexpr uint32_t mod(int i) {
    constexpr uint32_t p[N] = {0xffffaaab, 0xb9feffff, 0xb153ffff, 0x1eabfffe, 0xf6b0f624, 0x6730d2a0,
                               0xf38512bf, 0x64774b84, 0x434bacd7, 0x4b1ba7b6, 0x397fe69a, 0x1a0111ea};
    return p[i];
  }
  CUZK_HD static constexpr uint32_t one(int i) {
    constexpr uint32_t r[N] = {0x0002fffd, 0x76090000, 0xc40c0002, 0xebf4000b, 0x53c758ba, 0x5f489857,
                               0x70525745, 0x77ce5853, 0xa256ec6d, 0x5c071a97, 0xfa80e493, 0x15f65ec3};
    return r[i];
  }
  // R^2 mod p: a Montgomery product with it takes a canonical integer into Montgomery form.
  CUZK_HD static constexpr uint32_t r2(int i) {
    constexpr uint32_t r[N] = {0x1c341746, 0xf4df1f34, 0x09d104f1, 0x0a76e6a6, 0x4c95b6d5, 0x8de5476c,
                               0x939d83c0, 0x67eb88a9, 0xb519952d, 0x9a793e85, 0x92cae3aa, 0x11988fe5};
    return r[i];
  }
};

using fr_d = mont_t<fr_params>;
using fp_d = mont_t<fp_params>;
using fp2_dev = fp2_d<fp_d>;

static_assert(sizeof(fr_d) == 32 && sizeof(fp_d) == 48 && sizeof(fp2_dev) == 96);

}  // namespace cuzk::gpu
