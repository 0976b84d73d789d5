// Lane form without a change of R: the lanes take the scalar field's Montgomery words m = x 2^384
// as they are, so they hold X = x 2^-32 (lane Montgomery form has R = 2^416). The curve equation
// y^2 = x^3 + b then reads Y^2 = X^3 2^32 + b 2^-64: one product by 2^32 (per coefficient) more,
// and the two products that would move x and y to R = 2^416 saved.
#include "zk/io/point_checks_ifma.hpp"

#include "zk/ff/radix52.hpp"
#include "zk/util/cpu_features.hpp"

#if defined(__x86_64__)
#include <immintrin.h>

#include "zk/ff/ifma_target.hpp"

namespace cuzk::zk::io {

bool lane_point_checks_available() { return cpu_has_avx512_ifma(); }

}  // namespace cuzk::zk::io

CUZK_IFMA_TARGET_BEGIN

#include "zk/ff/fp_ifma.hpp"
#include "zk/ff/vfield_ifma.hpp"

namespace cuzk::zk::io {

namespace {

using namespace ifma;

// 2^32 and b 2^-64 in lane form (as lane values: 2^448 and b 2^352 mod p); b = 4 for G1 and
// 4 + 4u for G2, so both need 4 * 2^352 = 2^354.
constexpr fe52 two_32 = k.up52;
constexpr fe52 b_scaled = radix52(detail::pow2_mod(fp::P, 354));

template <class Point>
std::uint8_t off_curve(const Point* eight) {
  using F = decltype(Point::x);
  using VF = vfield<F>;
  alignas(64) fe52 raw_x[8][VF::W], raw_y[8][VF::W];
  const fe52 *px[8], *py[8];
  for (int l = 0; l < 8; ++l) {
    VF::raw52(eight[l].x, raw_x[l]), VF::raw52(eight[l].y, raw_y[l]);
    px[l] = raw_x[l], py[l] = raw_y[l];
  }
  const auto x = VF::load(px), y = VF::load(py);
  const v8 t = broadcast(two_32), b = broadcast(b_scaled);
  auto rhs = VF::mul(VF::sqr(x), x);  // X^3 2^32 + b 2^-64, coefficient by coefficient
  if constexpr (VF::W == 1) {
    rhs = add(mul(rhs, t), b);
  } else {
    rhs.c0 = add(mul(rhs.c0, t), b);
    rhs.c1 = add(mul(rhs.c1, t), b);
  }
  const __mmask8 on = VF::zero_mask(VF::sub(VF::sqr(y), rhs));
  const __mmask8 infinity = VF::zero_mask(x) & VF::zero_mask(y);  // (all-zero words: x = y = 0)
  return std::uint8_t(~(on | infinity));
}

}  // namespace

std::uint8_t off_curve_lanes(const bls12_381::g1_affine* eight) { return off_curve(eight); }
std::uint8_t off_curve_lanes(const bls12_381::g2_affine* eight) { return off_curve(eight); }

}  // namespace cuzk::zk::io

CUZK_IFMA_TARGET_END

#else  // not x86-64: no lanes

namespace cuzk::zk::io {

bool lane_point_checks_available() { return false; }
std::uint8_t off_curve_lanes(const bls12_381::g1_affine*) { return 0xff; }
std::uint8_t off_curve_lanes(const bls12_381::g2_affine*) { return 0xff; }

}  // namespace cuzk::zk::io

#endif
