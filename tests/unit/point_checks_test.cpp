// The key loader's point checks (zk/io/field_checks.cpp): the IFMA lanes
// (zk/io/point_checks_ifma.cpp) against the scalar curve equation, and find_invalid_point naming
// the first bad point and why, wherever it sits among the groups of eight and the threads' ranges.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "msm_fixtures.hpp"
#include "zk/io/field_checks.hpp"
#include "zk/io/point_checks_ifma.hpp"

using namespace cuzk::zk;
using namespace cuzk::zk::bls12_381;

namespace {

// Valid points, every fifth the point at infinity, and every seventh (after those) moved off the
// curve by y + 1.
template <class Curve>
std::vector<affine_t<Curve>> mixed_points(std::size_t n, std::mt19937_64& rng) {
  auto pts = msm_fixtures::random_points<Curve>(n, rng);
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 5 == 0) pts[i] = affine_t<Curve>::identity();
    else if (i % 7 == 0) pts[i].y += Curve::field::one();
  }
  return pts;
}

template <class Curve>
void check_lanes_against_scalar(std::mt19937_64& rng) {
  auto pts = mixed_points<Curve>(800, rng);
  std::size_t off = 0;
  for (std::size_t g = 0; g + 8 <= pts.size(); g += 8) {
    std::uint8_t expected = 0;
    for (int l = 0; l < 8; ++l)
      if (!pts[g + l].is_on_curve()) expected |= std::uint8_t(1u << l), ++off;
    INFO("group at " << g);
    CHECK(io::off_curve_lanes(&pts[g]) == expected);
  }
  CHECK(off > 50);  // (the test does see points off the curve)
}

template <class Curve>
void check_first_invalid(std::mt19937_64& rng) {
  const std::size_t n = 20000;
  auto pts = msm_fixtures::random_points<Curve>(n, rng);
  for (std::size_t i = 0; i < n; i += 3) pts[i] = affine_t<Curve>::identity();
  const char* reason = nullptr;
  CHECK(io::find_invalid_point(std::span<const affine_t<Curve>>(pts), &reason) == n);
  for (std::size_t bad : {std::size_t{0}, std::size_t{13}, std::size_t{8191}, n / 2 + 3, n - 1}) {
    auto copy = pts;
    copy[bad].x += Curve::field::one();  // (the point at infinity moves off the curve too)
    copy[bad + (bad + 1 < n ? 1 : 0)].y += Curve::field::one();  // and, for most, the next one
    INFO("bad point at " << bad);
    CHECK(io::find_invalid_point(std::span<const affine_t<Curve>>(copy), &reason) == bad);
    CHECK(std::string(reason) == "is not on the curve");
  }
  // A coordinate >= p (the Montgomery word p itself: 0 mod p), ahead of an off-curve point.
  auto copy = pts;
  copy[9000].y += Curve::field::one();
  if constexpr (std::is_same_v<Curve, g1_curve>) copy[5000].x.m = fp::P;
  else copy[5000].x.c1.m = fp::P;
  CHECK(io::find_invalid_point(std::span<const affine_t<Curve>>(copy), &reason) == 5000);
  CHECK(std::string(reason) == "has a coordinate >= p");
}

}  // namespace

TEST_CASE("on-curve checks on IFMA lanes agree with the curve equation", "[io][vector]") {
  if (!io::lane_point_checks_available()) {
    WARN("SKIPPED: this CPU has no AVX-512 IFMA; the lane checks are untested here");
    return;
  }
  std::mt19937_64 rng(41);
  check_lanes_against_scalar<g1_curve>(rng);
  check_lanes_against_scalar<g2_curve>(rng);
}

// On any CPU (with IFMA the lanes and then the scalar tail; without, the scalar loop only).
TEST_CASE("find_invalid_point names the first bad point and why", "[io]") {
  std::mt19937_64 rng(42);
  check_first_invalid<g1_curve>(rng);
  check_first_invalid<g2_curve>(rng);
}
