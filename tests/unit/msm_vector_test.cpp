// The AVX-512 IFMA bucket path (zk/msm/vector_buckets.cpp) against the scalar batch-affine and
// XYZZ paths and naive double-and-add, on inputs that hit its special lanes: repeated points
// (P + P inside a batch), cancellations (P - P), scalars that share every digit (one bucket hit
// by every point: the waiting queue and the XYZZ overflow), r - 1, and partial last groups.
// Skipped, with a message, on CPUs without AVX-512 IFMA.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "zk/bls12_381/curves.hpp"
#include "zk/msm/pippenger.hpp"
#include "msm_fixtures.hpp"

using namespace cuzk::zk;
using namespace cuzk::zk::bls12_381;

namespace {

using scalar = bigint<4>;

using msm_fixtures::random_points;
using msm_fixtures::random_scalar;

// n points and scalars with every special case the lanes must divert to scalar code.
template <class Curve>
void make_hard_input(std::size_t n, std::uint64_t seed, std::vector<affine_t<Curve>>& pts, std::vector<scalar>& ks) {
  std::mt19937_64 rng(seed);
  pts = random_points<Curve>(n, rng);
  ks.resize(n);
  scalar common = random_scalar(rng);
  scalar r_minus_1 = fr::P;
  r_minus_1.sub_in_place(scalar{{1, 0, 0, 0}});
  for (std::size_t i = 0; i < n; ++i) {
    switch (i % 11) {
      case 0: ks[i] = common; break;     // one bucket per window for all of these
      case 1: ks[i] = r_minus_1; break;  // negative digits everywhere
      default: ks[i] = random_scalar(rng);
    }
  }
  for (std::size_t i = 100; i + 40 < n; i += 997) {
    pts[i + 20] = pts[i], ks[i + 20] = ks[i];    // the same point and digits: a doubling in a batch
    pts[i + 40] = -pts[i], ks[i + 40] = ks[i];   // and its negation: the bucket cancels
  }
  pts[n / 2] = affine_t<Curve>::identity();
}

template <class Curve>
jacobian_t<Curve> run(const std::vector<affine_t<Curve>>& pts, const std::vector<scalar>& ks, msm_options opt) {
  return msm<Curve>(std::span<const affine_t<Curve>>(pts), std::span<const scalar>(ks), opt);
}

}  // namespace

TEST_CASE("msm on AVX-512 IFMA lanes agrees with the scalar paths", "[msm][vector]") {
  if (!msm_detail::vector_msm_available()) {
    WARN("SKIPPED: this CPU has no AVX-512 IFMA (or CUZK_NO_IFMA is set); the vector MSM path is untested here");
    return;
  }
  std::vector<g1_affine> pts;
  std::vector<scalar> ks;
  make_hard_input<g1_curve>(9001, 31, pts, ks);
  jacobian_t<g1_curve> naive = jacobian_t<g1_curve>::identity();
  for (std::size_t i = 0; i < pts.size(); ++i) naive += jacobian_t<g1_curve>(pts[i]).mul(ks[i]);
  for (unsigned c : {11u, 12u, 13u, 14u, 16u}) {  // (14: 19 windows, the last one split between 2 threads)
    for (unsigned t : {1u, 2u}) {
      INFO("G1, window " << c << ", threads " << t);
      auto vec = run<g1_curve>(pts, ks, msm_options{.threads = t, .window_bits = c});
      auto scal = run<g1_curve>(pts, ks, msm_options{.threads = t, .window_bits = c, .vectorized = false});
      CHECK(vec == naive);
      CHECK(scal == naive);
    }
  }
  CHECK(run<g1_curve>(pts, ks, msm_options{}) == naive);  // the window the MSM picks itself
}

TEST_CASE("msm G2 on AVX-512 IFMA lanes agrees with the scalar paths", "[msm][vector][g2]") {
  if (!msm_detail::vector_msm_available()) {
    WARN("SKIPPED: this CPU has no AVX-512 IFMA (or CUZK_NO_IFMA is set); the vector MSM path is untested here");
    return;
  }
  std::vector<g2_affine> pts;
  std::vector<scalar> ks;
  make_hard_input<g2_curve>(4500, 32, pts, ks);
  auto xyzz = run<g2_curve>(pts, ks, msm_options{.threads = 2, .window_bits = 11, .batch_affine = false});
  for (unsigned c : {11u, 12u}) {
    INFO("G2, window " << c);
    CHECK(run<g2_curve>(pts, ks, msm_options{.threads = 1, .window_bits = c}) == xyzz);
    CHECK(run<g2_curve>(pts, ks, msm_options{.threads = 2, .window_bits = c, .vectorized = false}) == xyzz);
  }
  CHECK(run<g2_curve>(pts, ks, msm_options{.threads = 2}) == xyzz);
}

// Few distinct scalars: a handful of buckets per window take thousands of points each, so the
// waiting queue fills and points go to the scalar overflow buckets, reduced sparsely (64 buckets)
// or densely (600 of 1024).
TEST_CASE("msm on IFMA lanes with crowded buckets (overflow paths)", "[msm][vector]") {
  if (!msm_detail::vector_msm_available()) {
    WARN("SKIPPED: this CPU has no AVX-512 IFMA (or CUZK_NO_IFMA is set); the vector MSM path is untested here");
    return;
  }
  std::mt19937_64 rng(33);
  const std::size_t n = 12000;
  auto pts = random_points<g1_curve>(n, rng);
  for (std::size_t distinct : {64u, 600u}) {
    std::vector<scalar> pool(distinct), ks(n);
    for (auto& k : pool) k = random_scalar(rng);
    for (auto& k : ks) k = pool[rng() % distinct];
    INFO(distinct << " distinct scalars");
    for (unsigned c : {11u, 13u}) {
      auto vec = run<g1_curve>(pts, ks, msm_options{.threads = 1, .window_bits = c});
      auto plain = run<g1_curve>(pts, ks, msm_options{.threads = 1, .window_bits = c, .batch_affine = false});
      CHECK(vec == plain);
    }
  }
}
