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

// True, with a visible warning, where the vector path cannot run.
bool no_vector_msm() {
  if (msm_detail::vector_msm_available()) return false;
  WARN("SKIPPED: this CPU has no AVX-512 IFMA; the vector MSM path is untested here");
  return true;
}

template <class Curve>
jacobian_t<Curve> run(const std::vector<affine_t<Curve>>& pts, const std::vector<scalar>& ks, msm_options opt) {
  return msm<Curve>(std::span<const affine_t<Curve>>(pts), std::span<const scalar>(ks), opt);
}

}  // namespace

TEST_CASE("msm on AVX-512 IFMA lanes agrees with the scalar paths", "[msm][vector]") {
  if (no_vector_msm()) return;
  std::vector<g1_affine> pts;
  std::vector<scalar> ks;
  make_hard_input<g1_curve>(9001, 31, pts, ks);
  jacobian_t<g1_curve> naive = jacobian_t<g1_curve>::identity();
  for (std::size_t i = 0; i < pts.size(); ++i) naive += jacobian_t<g1_curve>(pts[i]).mul(ks[i]);
  // 14: 19 windows, the last one split between 2 threads; 11 to 15: a narrow top window whose
  // bucket copies are folded (15: one logical bucket); 16: a full top window.
  for (unsigned c : {11u, 12u, 13u, 14u, 15u, 16u}) {
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
  if (no_vector_msm()) return;
  std::vector<g2_affine> pts;
  std::vector<scalar> ks;
  make_hard_input<g2_curve>(4500, 32, pts, ks);
  auto xyzz = run<g2_curve>(pts, ks, msm_options{.threads = 2, .window_bits = 11, .batch_affine = false});
  for (unsigned c : {11u, 12u, 15u}) {
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
  if (no_vector_msm()) return;
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

// Every base a small multiple of one point: the buckets, the reduction's running sums and the top
// window's bucket copies are all multiples of P too, so equal and opposite points (doublings and
// cancellations) turn up in every phase, each finished in scalar code. The reference is one
// scalar multiplication by sum_i k_i m_i mod r.
TEST_CASE("msm on IFMA lanes with every base a multiple of one point", "[msm][vector]") {
  if (no_vector_msm()) return;
  std::mt19937_64 rng(34);
  auto check = [&]<class Curve>(std::size_t n, std::initializer_list<unsigned> windows) {
    using J = jacobian_t<Curve>;
    const J p = J(Curve::generator()).mul(random_scalar(rng));
    const affine_t<Curve> multiples[4] = {p.to_affine(), p.dbl().to_affine(), (p.dbl() + p).to_affine(),
                                          (-p).to_affine()};
    const fr weights[4] = {fr::from_u64(1), fr::from_u64(2), fr::from_u64(3), -fr::from_u64(1)};
    std::vector<affine_t<Curve>> pts(n);
    std::vector<scalar> ks(n);
    fr total = fr::zero();
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t m = rng() % 4;
      pts[i] = multiples[m], ks[i] = random_scalar(rng);
      total += weights[m] * fr::from_canonical(ks[i]);
    }
    const J expected = p.mul(total.to_canonical());
    for (unsigned c : windows) {
      INFO("window " << c);
      CHECK(run<Curve>(pts, ks, msm_options{.threads = 1, .window_bits = c}) == expected);
    }
  };
  check.operator()<g1_curve>(5000, {11u, 13u, 15u, 16u});
  check.operator()<g2_curve>(4100, {12u, 15u});
}

// Scalars that share their top bits: the top window (c = 13: bits 247..254, 256 logical buckets
// spread over 16 copies each) sees two digits only, so its 32 buckets crowd and points go to the
// XYZZ overflow, which the fold must carry from the copies into the logical buckets.
TEST_CASE("msm on IFMA lanes with a crowded top window", "[msm][vector]") {
  if (no_vector_msm()) return;
  std::mt19937_64 rng(35);
  const std::size_t n = 12000;
  auto pts = random_points<g1_curve>(n, rng);
  std::vector<scalar> ks(n);
  for (auto& k : ks) {
    k = random_scalar(rng);
    k.limb[3] = (k.limb[3] & ((std::uint64_t{1} << 55) - 1)) | (std::uint64_t{0x40} << 55);  // bits 247..254 = 0x40
  }
  auto plain = run<g1_curve>(pts, ks, msm_options{.threads = 1, .window_bits = 13, .batch_affine = false});
  CHECK(run<g1_curve>(pts, ks, msm_options{.threads = 1, .window_bits = 13}) == plain);
  CHECK(run<g1_curve>(pts, ks, msm_options{.threads = 2, .window_bits = 13}) == plain);
}

// Hidden (run with `cuzk_tests "[stress]"`): random sizes, windows and thread counts, vector
// against XYZZ-only buckets. Minutes, not for every CI run.
template <class Curve>
void random_shapes(std::size_t max_n, int rounds, std::mt19937_64& rng) {
  auto pts = random_points<Curve>(max_n, rng);
  std::vector<scalar> ks(max_n);
  for (auto& k : ks) k = random_scalar(rng);
  for (int round = 0; round < rounds; ++round) {
    const std::size_t n = 4096 + rng() % (max_n - 4096);
    const unsigned c = 11 + unsigned(rng() % 6), t = 1 + unsigned(rng() % 2);
    std::span<const affine_t<Curve>> p(pts.data(), n);
    std::span<const scalar> k(ks.data(), n);
    INFO("n " << n << ", window " << c << ", threads " << t);
    CHECK(msm<Curve>(p, k, msm_options{.threads = t, .window_bits = c}) ==
          msm<Curve>(p, k, msm_options{.threads = t, .window_bits = c, .batch_affine = false}));
  }
}

TEST_CASE("msm on IFMA lanes, random shapes", "[.][stress][vector]") {
  if (no_vector_msm()) return;
  std::mt19937_64 rng(36);
  random_shapes<g1_curve>(std::size_t{1} << 17, 40, rng);
  random_shapes<g2_curve>(std::size_t{1} << 15, 8, rng);
}
