// The eight-lane IFMA field (zk/ff/fp_ifma.hpp) against the scalar fp_t, on random values and the
// edges 0, 1, p - 1, and the radix-2^52 conversions. Skipped, with a message, without AVX-512 IFMA.
#include <catch2/catch.hpp>

#include <random>

#include "zk/ff/radix52.hpp"
#include "zk/io/point_checks_ifma.hpp"
#include "zk/msm/vector_buckets.hpp"
#include "zk/util/cpu_features.hpp"

#if defined(__x86_64__)
#include <immintrin.h>

#include "zk/ff/ifma_target.hpp"

CUZK_IFMA_TARGET_BEGIN

#include "zk/ff/fp_ifma.hpp"

namespace {

using namespace cuzk::zk;
using cuzk::zk::bls12_381::fp;

ifma::v8 load(const fp* xs) {
  alignas(64) ifma::fe52 e[8];
  const ifma::fe52* p[8];
  for (int i = 0; i < 8; ++i) e[i] = ifma::to_vec(xs[i]), p[i] = &e[i];
  return ifma::gather(p);
}

void store(const ifma::v8& v, fp* xs) {
  alignas(64) ifma::fe52 e[8];
  ifma::fe52* p[8];
  for (int i = 0; i < 8; ++i) p[i] = &e[i];
  ifma::scatter(v, p);
  for (int i = 0; i < 8; ++i) xs[i] = ifma::to_scalar(e[i]);
}

void check_lanes() {
  std::mt19937_64 rng(5);
  auto random_fp = [&] {
    bigint<6> r;
    for (auto& l : r.limb) l = rng();
    r.limb[5] &= (std::uint64_t{1} << 60) - 1;
    while (!(r < fp::P)) r.limb[5] >>= 1;
    return fp::from_mont(r);
  };
  const fp edges[] = {fp::zero(), fp::one(), -fp::one(), fp::from_u64(2)};
  int wrong = 0;
  for (int it = 0; it < 500; ++it) {
    fp a[8], b[8], r[8];
    for (int i = 0; i < 8; ++i) a[i] = random_fp(), b[i] = random_fp();
    if (it < 4)
      for (int i = 0; i < 8; ++i) a[i] = edges[i % 4], b[i] = edges[(i / 4 + it) % 4];
    ifma::v8 va = load(a), vb = load(b);
    store(ifma::mul(va, vb), r);
    for (int i = 0; i < 8; ++i) wrong += !(r[i] == a[i] * b[i]);
    store(ifma::sqr(va), r);
    for (int i = 0; i < 8; ++i) wrong += !(r[i] == a[i].sqr());
    store(ifma::add(va, vb), r);
    for (int i = 0; i < 8; ++i) wrong += !(r[i] == a[i] + b[i]);
    store(ifma::sub(va, vb), r);
    for (int i = 0; i < 8; ++i) wrong += !(r[i] == a[i] - b[i]);
    store(ifma::mul(ifma::add_unreduced(va, vb), ifma::neg(va)), r);
    for (int i = 0; i < 8; ++i) wrong += !(r[i] == (a[i] + b[i]) * -a[i]);
    // Lazy-reduction building blocks of the Fp2 product: a*b - b*a... with sums below 4p.
    ifma::v8 sa = ifma::add_unreduced(va, vb), sb = ifma::add_unreduced(vb, vb);
    store(ifma::redc(ifma::sub_wide(ifma::mul_wide(va, vb), ifma::mul_wide(vb, vb))), r);
    for (int i = 0; i < 8; ++i) wrong += !(r[i] == a[i] * b[i] - b[i] * b[i]);
    store(ifma::redc(ifma::sub_wide(ifma::mul_wide(sa, sb), ifma::mul_wide(va, va), ifma::mul_wide(vb, vb))), r);
    for (int i = 0; i < 8; ++i) wrong += !(r[i] == (a[i] + b[i]) * (b[i] + b[i]) - a[i] * a[i] - b[i] * b[i]);
    __mmask8 z = ifma::is_zero_mod_p(ifma::sub(va, va));
    wrong += z != 0xff;
  }
  CHECK(wrong == 0);
}

}  // namespace

CUZK_IFMA_TARGET_END

TEST_CASE("radix-2^52 form round-trips every scalar value", "[fp][vector]") {
  using namespace cuzk::zk;
  std::mt19937_64 rng(4);
  for (int i = 0; i < 1000; ++i) {
    bigint<6> x;
    for (auto& l : x.limb) l = rng();
    x.limb[5] >>= 4;
    CHECK(ifma::radix64(ifma::radix52(x)) == x);
    bls12_381::fp f = bls12_381::fp::from_u64(rng());
    CHECK(ifma::to_scalar(ifma::to_vec(f)) == f);
  }
}

TEST_CASE("fp on eight IFMA lanes matches the scalar field", "[fp][vector]") {
  if (!cuzk::zk::msm_detail::vector_msm_available()) {
    WARN("SKIPPED: this CPU has no AVX-512 IFMA");
    return;
  }
  check_lanes();
}
#endif

// The library reads no environment: the programs turn the IFMA paths off through this switch.
TEST_CASE("set_ifma_allowed(false) turns every IFMA path off, process-wide", "[fp][vector]") {
  using namespace cuzk::zk;
  const bool hardware = cpu_has_avx512_ifma();
  set_ifma_allowed(false);
  CHECK_FALSE(cpu_has_avx512_ifma());
  CHECK_FALSE(msm_detail::vector_msm_available());
  CHECK_FALSE(io::lane_point_checks_available());
  set_ifma_allowed(true);
  CHECK(cpu_has_avx512_ifma() == hardware);
  CHECK(msm_detail::vector_msm_available() == hardware);
  // How the programs read CUZK_NO_IFMA.
  CHECK(ifma_off_requested("1"));
  CHECK(ifma_off_requested("yes"));
  CHECK_FALSE(ifma_off_requested("0"));
  CHECK_FALSE(ifma_off_requested(""));
  CHECK_FALSE(ifma_off_requested(nullptr));
}
