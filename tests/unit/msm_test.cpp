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

scalar r_minus(std::uint64_t k) {
  scalar s = fr::P;
  s.sub_in_place(scalar{{k, 0, 0, 0}});
  return s;
}

template <class Curve>
jacobian_t<Curve> naive_msm(const std::vector<affine_t<Curve>>& bases, const std::vector<scalar>& scalars) {
  jacobian_t<Curve> acc = jacobian_t<Curve>::identity();
  for (std::size_t i = 0; i < bases.size(); ++i) acc += jacobian_t<Curve>(bases[i]).mul(scalars[i]);
  return acc;
}

template <class Curve>
jacobian_t<Curve> run_msm(const std::vector<affine_t<Curve>>& bases, const std::vector<scalar>& scalars,
                          msm_options opt = {}) {
  return msm<Curve>(std::span<const affine_t<Curve>>(bases), std::span<const scalar>(scalars), opt);
}

template <class Curve>
void check_random(std::size_t n, std::uint64_t seed, msm_options opt = {}) {
  std::mt19937_64 rng(seed);
  auto bases = random_points<Curve>(n, rng);
  std::vector<scalar> scalars(n);
  for (auto& s : scalars) s = random_scalar(rng);
  auto got = run_msm<Curve>(bases, scalars, opt);
  auto want = naive_msm<Curve>(bases, scalars);
  CHECK(got.is_on_curve());
  CHECK(got == want);
  CHECK_FALSE(got.is_identity());
}

// Every special case in one input: infinity points, zero / one / two / r-1 scalars, repeated
// points (same digit in the same bucket must double), P next to -P (a bucket cancels to zero).
template <class Curve>
void check_special(std::uint64_t seed, msm_options opt = {}) {
  std::mt19937_64 rng(seed);
  auto pts = random_points<Curve>(8, rng);
  std::vector<affine_t<Curve>> bases;
  std::vector<scalar> scalars;
  auto add = [&](const affine_t<Curve>& p, const scalar& s) { bases.push_back(p), scalars.push_back(s); };
  scalar k = random_scalar(rng);
  add(pts[0], k);
  add(pts[0], k);               // P + P in a bucket
  add(pts[0], k);               // and again
  add(pts[1], r_minus(1));      // r - 1
  add(pts[1], r_minus(2));
  add(affine_t<Curve>::identity(), random_scalar(rng));
  add(pts[2], scalar{});        // zero scalar
  add(pts[3], scalar{{1, 0, 0, 0}});
  add(pts[3], scalar{{1, 0, 0, 0}});  // ones summed directly, also repeated
  add(pts[4], scalar{{2, 0, 0, 0}});
  add(pts[5], k);
  add(-pts[5], k);              // cancels
  add(pts[6], scalar{{0xffffffffffffffffull, 0, 0, 0}});  // all-ones low windows: carries everywhere
  add(affine_t<Curve>::identity(), scalar{});
  add(pts[7], r_minus(0x8000));
  auto got = run_msm<Curve>(bases, scalars, opt);
  CHECK(got == naive_msm<Curve>(bases, scalars));
}

}  // namespace

TEST_CASE("msm signed digits reconstruct the scalar", "[msm]") {
  std::mt19937_64 rng(7);
  for (unsigned c = 1; c <= 16; ++c)
    for (int t = 0; t < 20; ++t) {
      scalar s = t == 0 ? r_minus(1) : random_scalar(rng);
      // sum_w d_w 2^(c w) over the integers, as a signed accumulation in two bigints.
      bigint<5> pos{}, neg{};
      unsigned nw = msm_detail::num_windows(c);
      for (unsigned w = nw; w-- > 0;) {
        for (unsigned k = 0; k < c; ++k) pos.add_in_place(pos), neg.add_in_place(neg);
        int d = msm_detail::signed_digit(s, w, c);
        REQUIRE(d >= -(1 << (c - 1)));
        REQUIRE(d <= (1 << (c - 1)));
        bigint<5> dd{{std::uint64_t(d < 0 ? -d : d), 0, 0, 0, 0}};
        (d < 0 ? neg : pos).add_in_place(dd);
      }
      pos.sub_in_place(neg);
      bigint<5> want{{s.limb[0], s.limb[1], s.limb[2], s.limb[3], 0}};
      REQUIRE(pos == want);
    }
}

TEST_CASE("msm G1 matches naive double-and-add on random inputs", "[msm][g1]") {
  for (std::size_t n : {1, 2, 3, 100, 1000}) check_random<g1_curve>(n, 100 + n);
  check_random<g1_curve>(4096, 4096);
}

TEST_CASE("msm G2 matches naive double-and-add on random inputs", "[msm][g2]") {
  for (std::size_t n : {1, 2, 3, 100}) check_random<g2_curve>(n, 200 + n);
  check_random<g2_curve>(1000, 1000);
}

TEST_CASE("msm G2 at 2^12", "[msm][g2][slow]") { check_random<g2_curve>(4096, 4097); }

TEST_CASE("msm special cases, every window size and thread count", "[msm]") {
  for (unsigned c = 1; c <= 16; ++c) check_special<g1_curve>(c, msm_options{.threads = 1, .window_bits = c});
  for (unsigned c : {1u, 2u, 3u, 5u, 8u, 12u}) check_special<g2_curve>(c, msm_options{.threads = 1, .window_bits = c});
  for (unsigned t : {1u, 2u, 3u}) {
    check_special<g1_curve>(50 + t, msm_options{.threads = t});
    check_random<g1_curve>(777, 60 + t, msm_options{.threads = t});
  }
}

TEST_CASE("msm sizes 0 and 1, all-zero and all-infinity inputs", "[msm]") {
  std::mt19937_64 rng(11);
  std::vector<g1_affine> none;
  std::vector<scalar> no_scalars;
  CHECK(run_msm<g1_curve>(none, no_scalars).is_identity());

  auto pts = random_points<g1_curve>(64, rng);
  scalar k = random_scalar(rng);
  CHECK(run_msm<g1_curve>({pts[0]}, {k}) == g1_jacobian(pts[0]).mul(k));
  CHECK(run_msm<g1_curve>({pts[0]}, {scalar{{1, 0, 0, 0}}}) == g1_jacobian(pts[0]));
  CHECK(run_msm<g1_curve>({pts[0]}, {r_minus(1)}) == -g1_jacobian(pts[0]));

  std::vector<scalar> zeros(64);
  CHECK(run_msm<g1_curve>(pts, zeros).is_identity());
  std::vector<g1_affine> infs(64);
  std::vector<scalar> ks(64);
  for (auto& s : ks) s = random_scalar(rng);
  CHECK(run_msm<g1_curve>(infs, ks).is_identity());

  // Only 0/1 scalars (the PoRep shape): sum of the selected points.
  std::vector<scalar> bits(64);
  g1_jacobian want = g1_jacobian::identity();
  for (std::size_t i = 0; i < 64; ++i)
    if (rng() & 1) bits[i] = scalar{{1, 0, 0, 0}}, want += pts[i];
  CHECK(run_msm<g1_curve>(pts, bits) == want);

  // The same point everywhere with the same scalar: n * k * P.
  std::vector<g1_affine> same(300, pts[1]);
  std::vector<scalar> same_k(300, k);
  CHECK(run_msm<g1_curve>(same, same_k) == g1_jacobian(pts[1]).mul(k).mul(scalar{{300, 0, 0, 0}}));

  CHECK_THROWS(run_msm<g1_curve>(pts, std::vector<scalar>(3)));
}

TEST_CASE("msm batch-affine buckets agree with XYZZ buckets, also with heavy bucket collisions", "[msm]") {
  std::mt19937_64 rng(21);
  const std::size_t n = 5000;
  auto pts = random_points<g1_curve>(n, rng);
  std::vector<scalar> ks(n);
  scalar common = random_scalar(rng);
  for (std::size_t i = 0; i < n; ++i) {
    switch (i % 5) {
      case 0: ks[i] = common; break;          // same digits: the same bucket in every window
      case 1: ks[i] = r_minus(1); break;      // the circuit's -1
      default: ks[i] = random_scalar(rng);
    }
  }
  pts[7] = pts[3];                            // repeated point with the same scalar: doubling in a batch
  ks[7] = ks[3] = random_scalar(rng);
  pts[9] = -pts[4];                           // cancellation inside a batch
  ks[9] = ks[4];
  auto want = naive_msm<g1_curve>(pts, ks);
  for (unsigned c : {8u, 10u, 12u}) {
    auto got = run_msm<g1_curve>(pts, ks, msm_options{.threads = 1, .window_bits = c});
    auto plain = run_msm<g1_curve>(pts, ks, msm_options{.threads = 1, .window_bits = c, .batch_affine = false});
    CHECK(got == want);
    CHECK(plain == want);
  }
  CHECK(run_msm<g1_curve>(pts, ks, msm_options{.threads = 2}) == want);
}

TEST_CASE("msm G2 through batch-affine buckets", "[msm][g2]") {
  std::mt19937_64 rng(22);
  const std::size_t n = 1200;
  auto pts = random_points<g2_curve>(n, rng);
  std::vector<scalar> ks(n);
  for (auto& k : ks) k = random_scalar(rng);
  for (std::size_t i = 0; i < n; i += 3) ks[i] = ks[0];
  auto got = run_msm<g2_curve>(pts, ks, msm_options{.threads = 1, .window_bits = 9});
  auto plain = run_msm<g2_curve>(pts, ks, msm_options{.threads = 1, .window_bits = 9, .batch_affine = false});
  CHECK(got == plain);
  CHECK(got == naive_msm<g2_curve>(pts, ks));
}
