// The CUDA backend against the host implementations (zk/ntt, zk/msm, the CPU backend) and
// against discrete-log references (testgen.hpp), on random inputs and every special case. Each
// test needs a device: without one it WARNs "SKIP" and returns (ctest runs "[device]" through
// main.cpp, which exits 77 = skipped).
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <tuple>
#include <utility>

#include "cuzk/gpu/cuda_backend.hpp"
#include "cuzk/gpu/msm_waves.hpp"
#include "cuzk/gpu/testgen.hpp"
#include "zk/groth16/backend_registry.hpp"
#include "zk/groth16/cpu_backend.hpp"
#include "zk/msm/pippenger.hpp"
#include "zk/ntt/domain.hpp"

using namespace cuzk;
using namespace cuzk::zk::bls12_381;
using zk::bigint;

#define REQUIRE_DEVICE()                                   \
  do {                                                     \
    if (!gpu::device_present()) {                          \
      WARN("SKIP: no CUDA device present");                \
      return;                                              \
    }                                                      \
  } while (0)

namespace {

gpu::cuda_backend& shared_backend() {
  static auto be = std::make_unique<gpu::cuda_backend>();
  return *be;
}

struct device_vec {
  void* p;
  explicit device_vec(std::size_t bytes) : p(gpu::device_alloc(bytes)) {}
  device_vec(device_vec&& o) noexcept : p(std::exchange(o.p, nullptr)) {}
  device_vec(const device_vec&) = delete;
  device_vec& operator=(const device_vec&) = delete;
  ~device_vec() { gpu::device_free(p); }
};

// n bases that repeat a progression of D distinct points (testgen::expected knows each one's
// discrete log), with infinity among them.
template <class Curve>
struct repeated_bases {
  gpu::testgen::point_set<Curve> ps;
  std::vector<zk::affine_t<Curve>> pts;
  repeated_bases(std::size_t n, std::size_t D, std::uint64_t seed)
      : ps(gpu::testgen::progression<Curve>(D, seed, true)), pts(n) {
    for (std::size_t i = 0; i < n; ++i) pts[i] = ps.pts[i % D];
  }
  // A device copy of the bases.
  device_vec upload() const {
    device_vec d(pts.size() * sizeof(pts[0]));
    gpu::copy_to_device(d.p, pts.data(), pts.size() * sizeof(pts[0]));
    return d;
  }
};

// repeated_bases on the device for the device-resident entry points (cuda_backend::msm_device,
// shift_bases_device), with room for n scalars beside them: the fixture of the cases on shifted
// sets and split scalars.
template <class Curve>
struct device_bases {
  static constexpr bool g2 = std::is_same_v<Curve, g2_curve>;
  static constexpr const char* name = g2 ? "g2" : "g1";
  const repeated_bases<Curve> rb;
  const std::size_t n;
  device_vec db, ds;
  device_bases(std::size_t n_, std::size_t D, std::uint64_t seed)
      : rb(n_, D, seed), n(n_), db(rb.upload()), ds(n * 32) {}
  // The scalars (n of them) into ds, for msm().
  void put(const std::vector<bigint<4>>& scalars) const { gpu::copy_to_device(ds.p, scalars.data(), n * 32); }
  // The device MSM over db and ds (on shifted sets of db: `shifted`, `sets` of them, 0: one a window).
  zk::jacobian_t<Curve> msm(gpu::cuda_backend& be, bool shifted = false, unsigned sets = 0) const {
    return be.msm_device<Curve>(db.p, ds.p, n, shifted, sets);
  }
  // Shifted sets of db made ahead (`sets` of them, 0: one a window); their window bits.
  unsigned shift(gpu::cuda_backend& be, unsigned sets = 0) const { return be.shift_bases_device(db.p, n, g2, sets); }
  // sum s_i b_i from the bases' discrete logs.
  zk::jacobian_t<Curve> expected(const std::vector<bigint<4>>& scalars) const {
    return gpu::testgen::expected(rb.ps, std::span<const bigint<4>>(scalars));
  }
};

std::vector<fr> random_frs(std::size_t n, std::uint64_t seed) {
  std::vector<fr> v(n);
  std::uint64_t st = seed;
  for (auto& x : v) x = gpu::testgen::random_fr(st);
  return v;
}

// A random vector through the device NTT equals zk/ntt's transform, and the inverse brings it back.
void check_ntt_round_trip(gpu::cuda_backend& be, unsigned L, std::uint64_t seed) {
  const std::size_t n = std::size_t(1) << L;
  auto v = random_frs(n, seed);
  device_vec d(n * sizeof(fr));
  auto want = v;
  zk::ntt::domain(L).ntt(want);
  gpu::copy_to_device(d.p, v.data(), n * sizeof(fr));
  be.ntt_device(d.p, L, false);
  be.synchronize();
  std::vector<fr> got(n);
  gpu::copy_to_host(got.data(), d.p, n * sizeof(fr));
  REQUIRE(got == want);
  be.ntt_device(d.p, L, true);
  be.synchronize();
  gpu::copy_to_host(got.data(), d.p, n * sizeof(fr));
  REQUIRE(got == v);
}

template <class Curve>
void check_msm(gpu::cuda_backend& be, std::size_t n, std::size_t D, std::uint64_t seed, bool cpu_too,
               std::vector<bigint<4>> scalars = {}) {
  const repeated_bases<Curve> rb(n, D, seed);
  const auto& [ps, bases] = rb;
  if (scalars.empty()) scalars = gpu::testgen::random_scalars(n, seed + 1);
  auto want = gpu::testgen::expected(ps, scalars);
  zk::jacobian_t<Curve> got;
  if constexpr (std::is_same_v<Curve, g1_curve>) got = be.msm_g1(bases, scalars);
  else got = be.msm_g2(bases, scalars);
  INFO("n = " << n << ", D = " << D);
  REQUIRE(got == want);
  if (cpu_too) REQUIRE(got == zk::msm<Curve>(std::span<const zk::affine_t<Curve>>(bases), scalars));
}

// A G2 accumulation variant's inputs (seeds seed .. seed + 6): random, with infinity and repeats
// (P + P, P + (-P) in the buckets, empty buckets in the segments), runs of one point, more points
// than one slice (slices ending mid-run), every scalar r - 1, every scalar 0.
void check_g2_variant(gpu::cuda_backend& be, std::uint64_t seed) {
  check_msm<g2_curve>(be, 1, 1, seed, true);
  check_msm<g2_curve>(be, 1 << 10, 1 << 10, seed + 1, true);
  check_msm<g2_curve>(be, 4097, 512, seed + 2, true);
  check_msm<g2_curve>(be, 5000, 3, seed + 3, true);
  check_msm<g2_curve>(be, (1 << 18) + 5, 1 << 12, seed + 4, false);
  bigint<4> r_minus_1 = fr::P;
  r_minus_1.limb[0] -= 1;
  check_msm<g2_curve>(be, 3000, 3, seed + 5, true, std::vector<bigint<4>>(3000, r_minus_1));
  check_msm<g2_curve>(be, 3000, 3, seed + 6, true, std::vector<bigint<4>>(3000));
}

}  // namespace

TEST_CASE("device NTT and inverse NTT match zk/ntt", "[device][ntt]") {
  REQUIRE_DEVICE();
  auto& be = shared_backend();
  for (unsigned L : {1u, 2u, 3u, 5u, 8u, 10u, 11u, 12u, 15u, 16u, 18u, 19u, 20u, 22u}) {
    INFO("log n = " << L);
    check_ntt_round_trip(be, L, 1000 + L);
  }
}

TEST_CASE("device NTT, compute_h and compute_h_coset match the CPU in every pass configuration", "[device][ntt]") {
  REQUIRE_DEVICE();
  zk::groth16::cpu_backend cpu;
  // threads, uniform roots, compiled shapes (2^16 and 2^18 have 2^24's and 2^27's pass shapes),
  // the bit reversal fused into the last pass (forward, inverse and compute_h_coset out of place).
  for (auto [threads, uniform, shapes, fused] :
       {std::tuple{256u, false, false, false}, std::tuple{512u, true, false, false},
        std::tuple{512u, false, false, false}, std::tuple{256u, true, true, false}, std::tuple{256u, true, false, true},
        std::tuple{256u, true, true, true}, std::tuple{512u, true, false, true}}) {
    gpu::cuda_options o;
    o.ntt_threads = threads;
    o.ntt_uniform_roots = uniform;
    o.ntt_compiled_shapes = shapes;
    o.ntt_fused_reversal = fused;
    gpu::cuda_backend be(o);
    for (unsigned L : {3u, 11u, 12u, 14u, 16u, 17u, 18u, 19u, 20u}) {
      INFO("threads " << threads << ", uniform roots " << uniform << ", compiled shapes " << shapes
                      << ", fused bit reversal " << fused << ", log n = " << L);
      std::size_t n = std::size_t(1) << L;
      check_ntt_round_trip(be, L, 7000 + L + threads + uniform + fused);
      auto a = random_frs(n, 1 + L), b = random_frs(n, 2 + L), c = random_frs(n, 3 + L);
      auto a2 = a, b2 = b, c2 = c, a3 = a, b3 = b, c3 = c, a4 = a, b4 = b, c4 = c;
      std::vector<bigint<4>> hw(n), hg(n), cw(n - 1), cg(n - 1);
      cpu.compute_h(a, b, c, hw);
      be.compute_h(a2, b2, c2, hg);
      REQUIRE(hg == hw);
      cpu.compute_h_coset(a3, b3, c3, cw);
      be.compute_h_coset(a4, b4, c4, cg);
      REQUIRE(cg == cw);
    }
  }
}

TEST_CASE("device compute_h matches the CPU backend", "[device][ntt]") {
  REQUIRE_DEVICE();
  auto& be = shared_backend();
  zk::groth16::cpu_backend cpu;
  for (unsigned L : {0u, 1u, 4u, 10u, 13u, 17u, 20u}) {
    INFO("log n = " << L);
    std::size_t n = std::size_t(1) << L;
    auto a = random_frs(n, 1 + L), b = random_frs(n, 100 + L), c = random_frs(n, 200 + L);
    auto a2 = a, b2 = b, c2 = c;
    std::vector<bigint<4>> want(n), got(n);
    cpu.compute_h(a, b, c, want);
    be.compute_h(a2, b2, c2, got);
    REQUIRE(got == want);
  }
}

TEST_CASE("device compute_h_coset (bellperson's coset 7) matches the CPU backend", "[device][ntt]") {
  REQUIRE_DEVICE();
  auto& be = shared_backend();
  zk::groth16::cpu_backend cpu;
  for (unsigned L : {1u, 2u, 5u, 11u, 12u, 13u, 16u, 20u}) {
    INFO("log n = " << L);
    std::size_t n = std::size_t(1) << L;
    auto a = random_frs(n, 300 + L), b = random_frs(n, 400 + L), c = random_frs(n, 500 + L);
    auto a2 = a, b2 = b, c2 = c;
    std::vector<bigint<4>> want(n - 1), got(n - 1);
    cpu.compute_h_coset(a, b, c, want);
    be.compute_h_coset(a2, b2, c2, got);
    REQUIRE(got == want);
  }
}

TEST_CASE("device G1 MSM: random inputs 2^10..2^22, repeats and infinity", "[device][msm]") {
  REQUIRE_DEVICE();
  auto& be = shared_backend();
  check_msm<g1_curve>(be, 1 << 10, 1 << 10, 11, true);
  check_msm<g1_curve>(be, 1 << 12, 1000, 12, true);
  check_msm<g1_curve>(be, 12345, 4096, 13, true);
  check_msm<g1_curve>(be, 1 << 16, 1 << 14, 14, true);
  check_msm<g1_curve>(be, 1 << 18, 1 << 14, 15, false);
  check_msm<g1_curve>(be, 1 << 20, 1 << 16, 16, false);
  check_msm<g1_curve>(be, (1 << 22) + 3, 1 << 16, 17, false);
}

TEST_CASE("device G1 MSM special cases", "[device][msm]") {
  REQUIRE_DEVICE();
  auto& be = shared_backend();
  bigint<4> r_minus_1 = fr::P;
  r_minus_1.limb[0] -= 1;
  bigint<4> one{{1, 0, 0, 0}};
  for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(3), std::size_t(100), std::size_t(5000)}) {
    check_msm<g1_curve>(be, n, std::min<std::size_t>(n, 64), 20 + n, true);
    check_msm<g1_curve>(be, n, 7, 30 + n, true, std::vector<bigint<4>>(n));                // all zero
    check_msm<g1_curve>(be, n, 7, 40 + n, true, std::vector<bigint<4>>(n, r_minus_1));    // all r - 1
    check_msm<g1_curve>(be, n, 5, 50 + n, true, std::vector<bigint<4>>(n, one));          // all one
  }
  // Every digit at the +2^(c-1) edge, mixed zeros, one repeated point with a huge multiplicity.
  std::vector<bigint<4>> s(20000);
  std::uint64_t st = 99;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i % 3 == 0) s[i] = {};
    else if (i % 3 == 1) s[i] = {{0x8000800080008000ull, 0x8000800080008000ull, 0x8000800080008000ull, 0x0000800080008000ull}};
    else s[i] = gpu::testgen::random_scalar(st);
  }
  check_msm<g1_curve>(be, s.size(), 1, 60, true, s);
  check_msm<g1_curve>(be, s.size(), 3, 61, true, s);
  // P and -P in one sum: the same scalar on a point and its negation cancels.
  auto ps = gpu::testgen::progression<g1_curve>(8, 62, false);
  std::vector<g1_affine> bases = {ps.pts[1], -ps.pts[1], ps.pts[2], ps.pts[2]};
  std::vector<bigint<4>> sc = {r_minus_1, r_minus_1, one, one};
  auto got = be.msm_g1(bases, sc);
  REQUIRE(got == g1_jacobian(ps.pts[2]).dbl());
  // All points at infinity.
  std::vector<g1_affine> inf(300);
  REQUIRE(be.msm_g1(inf, gpu::testgen::random_scalars(300, 5)).is_identity());
}

TEST_CASE("device G1 MSM with forced windows and chunks", "[device][msm]") {
  REQUIRE_DEVICE();
  for (unsigned c : {3u, 7u, 13u, 16u}) {
    gpu::cuda_options o;
    o.force_window_bits = c;
    gpu::cuda_backend be(o);
    INFO("c = " << c);
    check_msm<g1_curve>(be, 3000, 999, 70 + c, true);
  }
  gpu::cuda_options o;
  o.force_msm_chunk = 777;
  gpu::cuda_backend be(o);
  check_msm<g1_curve>(be, 5000, 1234, 80, true);
  check_msm<g2_curve>(be, 2000, 100, 81, true);
}

TEST_CASE("device G2 MSM: random inputs and special cases", "[device][msm]") {
  REQUIRE_DEVICE();
  auto& be = shared_backend();
  check_msm<g2_curve>(be, 1, 1, 90, true);
  check_msm<g2_curve>(be, 1 << 10, 1 << 10, 91, true);
  check_msm<g2_curve>(be, 4097, 512, 92, true);
  check_msm<g2_curve>(be, 1 << 16, 1 << 12, 93, false);
  check_msm<g2_curve>(be, 1 << 20, 1 << 12, 94, false);
  bigint<4> r_minus_1 = fr::P;
  r_minus_1.limb[0] -= 1;
  check_msm<g2_curve>(be, 3000, 3, 95, true, std::vector<bigint<4>>(3000, r_minus_1));
  check_msm<g2_curve>(be, 3000, 3, 96, true, std::vector<bigint<4>>(3000));
}

TEST_CASE("device G2 MSM on shared-memory slots (msm_g2_smem) equals the CPU backend", "[device][msm][variants]") {
  REQUIRE_DEVICE();
  gpu::cuda_options o;
  o.msm_g2_smem = true;
  o.msm_g2_pair_add = 0;  // which would take the first level
  gpu::cuda_backend be(o);
  check_g2_variant(be, 190);
}

// G2's mixed additions shared by lane pairs (msm_g2_pair_add), each kernel (4, 6, 8 blocks an SM):
// the doubling (P + P) and cancellation (P + (-P)) branches taken by both lanes of a pair together.
TEST_CASE("device G2 MSM with pair additions (msm_g2_pair_add) equals the CPU backend", "[device][msm][variants]") {
  REQUIRE_DEVICE();
  for (unsigned blocks : {4u, 6u, 8u}) {
    INFO("blocks " << blocks);
    gpu::cuda_options o;
    o.msm_g2_pair_add = blocks;
    gpu::cuda_backend be(o);
    check_g2_variant(be, 390);
  }
}

// G2's bucket segments with full additions shared by lane pairs (msm_g2_pair_seg), with the
// first level on one thread a point and on pairs, in whole waves or not (msm_whole_waves).
TEST_CASE("device G2 MSM with pair segments (msm_g2_pair_seg) equals the CPU backend", "[device][msm][variants]") {
  REQUIRE_DEVICE();
  for (auto [pair_add, waves] : {std::pair{0u, true}, std::pair{8u, true}, std::pair{8u, false}}) {
    INFO("pair additions " << pair_add << ", whole waves " << waves);
    gpu::cuda_options o;
    o.msm_g2_pair_add = pair_add;
    o.msm_whole_waves = waves;
    o.msm_g2_pair_seg = true;
    gpu::cuda_backend be(o);
    check_g2_variant(be, 590);
  }
}

TEST_CASE("device MSM bases cache: same pointer and contents reuse the upload, new contents or size do not", "[device][msm]") {
  REQUIRE_DEVICE();
  gpu::cuda_backend be;
  auto ps = gpu::testgen::progression<g1_curve>(1000, 7, false);
  auto s = gpu::testgen::random_scalars(1000, 8);
  auto r1 = be.msm_g1(ps.pts, s);
  auto r2 = be.msm_g1(ps.pts, s);
  REQUIRE(r1 == r2);
  REQUIRE(r1 == gpu::testgen::expected(ps, std::span<const bigint<4>>(s)));
  auto r3 = be.msm_g1(std::span<const g1_affine>(ps.pts).first(500), std::span<const bigint<4>>(s).first(500));
  REQUIRE(r3 == zk::msm<g1_curve>(std::span<const g1_affine>(ps.pts).first(500), std::span<const bigint<4>>(s).first(500)));
  // Another key at the same address (an evicted mapping reused): every point negated in place.
  for (auto& p : ps.pts) p = -p;
  auto r4 = be.msm_g1(ps.pts, s);
  REQUIRE(r4 == -r1);
}

TEST_CASE("device G1 MSM from pinned host scalars (direct DMA) equals the pageable path", "[device][msm]") {
  REQUIRE_DEVICE();
  auto& be = shared_backend();
  const std::size_t n = 50000;
  auto ps = gpu::testgen::progression<g1_curve>(1000, 21, true);
  std::vector<g1_affine> bases(n);
  for (std::size_t i = 0; i < n; ++i) bases[i] = ps.pts[i % 1000];
  auto scalars = gpu::testgen::random_scalars(n, 22);
  void* pinned = nullptr;
  REQUIRE(cudaHostAlloc(&pinned, n * 32, cudaHostAllocDefault) == cudaSuccess);
  std::memcpy(pinned, scalars.data(), n * 32);
  std::span<const bigint<4>> pinned_scalars(static_cast<const bigint<4>*>(pinned), n);
  auto a = be.msm_g1(bases, pinned_scalars);
  auto b = be.msm_g1(bases, scalars);
  cudaFreeHost(pinned);
  REQUIRE(a == b);
  REQUIRE(a == gpu::testgen::expected(ps, std::span<const bigint<4>>(scalars)));
}

TEST_CASE("cuda backend is registered", "[device]") {
  REQUIRE_DEVICE();
  auto names = zk::groth16::registered_backends();
  REQUIRE(std::find(names.begin(), names.end(), "cuda") != names.end());
  REQUIRE(zk::groth16::backend_available("cuda"));
  REQUIRE(zk::groth16::make_backend("cuda")->name() == "cuda");
}

TEST_CASE("device MSM on precomputed shifted bases equals the plain MSM", "[device][msm][shifted]") {
  REQUIRE_DEVICE();
  auto& be = shared_backend();
  bigint<4> r_minus_1 = fr::P;
  r_minus_1.limb[0] -= 1;
  // Device-resident bases, shifted for the bases last named: random scalars, zeros, r - 1, infinity, repeats.
  auto run = [&](auto curve_tag, std::size_t n, std::size_t D, std::uint64_t seed, std::vector<bigint<4>> scalars) {
    const device_bases<decltype(curve_tag)> f(n, D, seed);
    if (scalars.empty()) scalars = gpu::testgen::random_scalars(n, seed + 1);
    f.put(scalars);
    INFO(f.name << " n = " << n << ", D = " << D);
    REQUIRE(f.msm(be, true) == f.expected(scalars));
    be.release_caches();
  };
  run(g1_curve{}, 1, 1, 300, {});
  run(g1_curve{}, 1 << 10, 1 << 10, 301, {});
  run(g1_curve{}, 12345, 4096, 302, {});
  run(g1_curve{}, 1 << 18, 1 << 14, 303, {});
  run(g1_curve{}, (1 << 20) + 3, 1 << 16, 304, {});
  run(g1_curve{}, 5000, 3, 305, std::vector<bigint<4>>(5000, r_minus_1));
  run(g1_curve{}, 5000, 3, 306, std::vector<bigint<4>>(5000));
  run(g2_curve{}, 4097, 512, 307, {});
  run(g2_curve{}, 3000, 3, 308, std::vector<bigint<4>>(3000, r_minus_1));

  // Key bases get their sets through a device key's policy: proof_test.cpp ("device keys with
  // precomputed shifted sets").
}

TEST_CASE("device MSM on S shifted sets shared by groups of windows equals the CPU backend",
          "[device][msm][shifted][sets]") {
  REQUIRE_DEVICE();
  auto& be = shared_backend();
  // S = 1 (plain), 2, 3, W - 1 and W (one set per window) on the same random scalars (no zeros),
  // and S = 2 and W - 1 on 90% bits (the split's others on the sets, or on set 0).
  auto run = [&](auto curve_tag, std::size_t n, std::size_t D, std::uint64_t seed, bool cpu_too) {
    using Curve = decltype(curve_tag);
    const device_bases<Curve> f(n, D, seed);
    const unsigned c_all = f.shift(be), W = (255 + c_all) / c_all;
    for (int mix = 0; mix < 2; ++mix) {
      auto scalars = mix ? gpu::testgen::bit_scalars(n, seed + 9, 0.9) : gpu::testgen::random_scalars(n, seed + 1);
      if (!mix)
        for (const auto& s : scalars) REQUIRE(!s.is_zero());
      f.put(scalars);
      const auto want = f.expected(scalars);
      if (cpu_too) REQUIRE(want == zk::msm<Curve>(std::span<const zk::affine_t<Curve>>(f.rb.pts), scalars));
      std::vector<unsigned> Ss = mix ? std::vector<unsigned>{2, W - 1} : std::vector<unsigned>{1, 2, 3, W - 1, W};
      for (unsigned S : Ss) {
        INFO(f.name << " n = " << n << ", S = " << S << " of W = " << W << (mix ? ", 90% bits" : ", random"));
        if (S == 1) {
          REQUIRE(f.msm(be) == want);
        } else {
          const unsigned c = f.shift(be, S);
          REQUIRE(S <= (255 + c) / c);
          REQUIRE(f.msm(be, true, S) == want);
        }
      }
    }
    be.release_caches();
  };
  run(g1_curve{}, 3000, 999, 500, true);
  run(g1_curve{}, (1 << 18) + 5, 1 << 14, 501, false);
  run(g1_curve{}, (1 << 20) + 3, 1 << 16, 502, false);
  run(g2_curve{}, 2000, 300, 503, true);
  run(g2_curve{}, (1 << 16) + 3, 1 << 12, 504, false);
}

TEST_CASE("device MSM with scalars that are bits (split into zeros, ones and the rest) equals the CPU backend",
          "[device][msm][bits]") {
  REQUIRE_DEVICE();
  gpu::cuda_options off;
  off.msm_split_bits = false;
  gpu::cuda_backend split_be, plain_be(off);
  struct mix {
    const char* name;
    double bits;
    bool ones_only;
  };
  const mix mixes[] = {{"random", 0.0, false}, {"90% bits", 0.9, false}, {"99% bits", 0.99, false},
                       {"all ones", 1.0, true}, {"only 0 and 1", 1.0, false}};
  auto run = [&](auto curve_tag, std::size_t n, std::size_t D, std::uint64_t seed, bool cpu_too) {
    using Curve = decltype(curve_tag);
    const device_bases<Curve> f(n, D, seed);
    const auto& bases = f.rb.pts;
    for (const mix& m : mixes) {
      auto scalars = gpu::testgen::bit_scalars(n, seed + 7, m.bits, m.ones_only);
      INFO(f.name << " n = " << n << ", D = " << D << ", scalars: " << m.name);
      auto want = f.expected(scalars);
      zk::jacobian_t<Curve> got, got_plain;
      if constexpr (device_bases<Curve>::g2)
        got = split_be.msm_g2(bases, scalars), got_plain = plain_be.msm_g2(bases, scalars);
      else got = split_be.msm_g1(bases, scalars), got_plain = plain_be.msm_g1(bases, scalars);
      REQUIRE(got == want);
      REQUIRE(got_plain == want);
      if (cpu_too) REQUIRE(got == zk::msm<Curve>(std::span<const zk::affine_t<Curve>>(bases), scalars));
      // On shifted sets of device-resident bases (made once for these bases).
      f.put(scalars);
      REQUIRE(f.msm(split_be, true) == want);
    }
    split_be.release_caches();
  };
  run(g1_curve{}, 1, 1, 400, true);
  run(g1_curve{}, 3000, 999, 401, true);
  run(g1_curve{}, (1 << 18) + 5, 1 << 14, 402, false);
  run(g1_curve{}, (1 << 21) + 1, 1 << 16, 403, false);
  run(g2_curve{}, 2000, 300, 404, true);
  run(g2_curve{}, (1 << 16) + 3, 1 << 12, 405, false);
  // Chunked: the others in chunks, the ones in one sum.
  gpu::cuda_options o;
  o.force_msm_chunk = 777;
  gpu::cuda_backend chunked(o);
  const repeated_bases<g1_curve> rb(6000, 500, 406);
  const auto& [ps, bases] = rb;
  auto scalars = gpu::testgen::bit_scalars(bases.size(), 407, 0.9);
  REQUIRE(chunked.msm_g1(bases, scalars) == gpu::testgen::expected(ps, std::span<const bigint<4>>(scalars)));
  // Half bits: the others in four chunks; the ones' sum (on the side lane) waits for the last one.
  scalars = gpu::testgen::bit_scalars(bases.size(), 408, 0.5);
  REQUIRE(chunked.msm_g1(bases, scalars) == gpu::testgen::expected(ps, std::span<const bigint<4>>(scalars)));
}

TEST_CASE("device split MSM: the ones' sum on the side lane from each start, urgent or not, any points per thread",
          "[device][msm][bits][ones]") {
  REQUIRE_DEVICE();
  using start = gpu::cuda_options::ones_start;
  const std::size_t n = (1 << 18) + 5, D = 1 << 14;
  const repeated_bases<g1_curve> rb(n, D, 430);
  const auto& [ps, bases] = rb;
  const repeated_bases<g2_curve> rb2(20000, 300, 431);
  const auto& [ps2, bases2] = rb2;
  for (start at : {start::serial, start::sorted, start::accumulated})
    for (bool urgent : {false, true})
      for (unsigned points : {0u, 3u, 8u}) {
        INFO("start " << int(at) << ", urgent " << urgent << ", points " << points);
        gpu::cuda_options o;
        o.msm_ones_start = at;
        o.msm_ones_urgent = urgent;
        o.msm_ones_points = points;
        gpu::cuda_backend be(o);
        for (double bits : {0.9, 0.5}) {
          auto scalars = gpu::testgen::bit_scalars(n, 432 + points, bits);
          REQUIRE(be.msm_g1(bases, scalars) == gpu::testgen::expected(ps, std::span<const bigint<4>>(scalars)));
        }
        auto s2 = gpu::testgen::bit_scalars(bases2.size(), 433, 0.9);
        REQUIRE(be.msm_g2(bases2, s2) == gpu::testgen::expected(ps2, std::span<const bigint<4>>(s2)));
        // The others in chunks; the sum waits for the last one's stage.
        o.force_msm_chunk = 9000;
        gpu::cuda_backend chunked(o);
        auto s3 = gpu::testgen::bit_scalars(60000, 434, 0.5);
        std::span<const g1_affine> b3(bases.data(), s3.size());
        REQUIRE(chunked.msm_g1(b3, s3) == gpu::testgen::expected(ps, std::span<const bigint<4>>(s3)));
      }
}

TEST_CASE("whole waves: the segment length fills the waves the planned segments fill, never more segments",
          "[msm_waves]") {
  using gpu::msm_whole_waves_segment;
  const std::size_t wave = 6 * 32 * 132;  // the lane pairs' segment kernel: 6 blocks of 32 pairs, 132 SMs
  // G2 2^24 shifted: one window of 2^21 buckets at 64: 1.29 waves -> one wave of 83.
  CHECK(msm_whole_waves_segment(1u << 21, 1, 64, wave) == 83);
  // Plain: 13 windows of 2^19 at 104: 2.59 waves -> two of 135.
  CHECK(msm_whole_waves_segment(1u << 19, 13, 104, wave) == 135);
  // Fewer segments than a wave, no wave: the planned length.
  CHECK(msm_whole_waves_segment(1000, 2, 64, wave) == 64);
  CHECK(msm_whole_waves_segment(1u << 21, 1, 64, 0) == 64);
  CHECK(msm_whole_waves_segment(1, 13, 8, 5) == 8);  // waves smaller than the windows
  // Any shape: at least L, at most the planned segments, whole waves when there was one, and the
  // smallest such length.
  for (unsigned b : {1u, 777u, 1u << 15, 1u << 19, 1u << 21})
    for (unsigned w : {1u, 3u, 13u})
      for (unsigned L : {8u, 64u, 104u})
        for (std::size_t wv : {std::size_t(1), std::size_t(5), std::size_t(999), wave}) {
          INFO("buckets " << b << ", windows " << w << ", L " << L << ", wave " << wv);
          const unsigned got = msm_whole_waves_segment(b, w, L, wv);
          auto segs = [&](unsigned len) { return std::size_t(w) * ((b + len - 1) / len); };
          REQUIRE(got >= L);
          const std::size_t waves = segs(L) / wv;
          REQUIRE(segs(got) <= std::max(segs(L), waves * wv));
          if (waves && waves * wv >= w) {  // (else not even one segment a window fits those waves)
            REQUIRE(segs(got) <= waves * wv);
            if (got > L) REQUIRE(segs(got - 1) > waves * wv);
          }
        }
}

TEST_CASE("whole waves: the slice fills the waves the planned threads fill, never more threads", "[msm_waves]") {
  using gpu::msm_whole_waves_slice;
  // G1 2^24 bits90's others: 16 windows of 1.68M points, 198 pairs a thread, 528 blocks of 128 a wave.
  const std::size_t wave = 528 * 128, M = 16 * std::size_t(1677722);
  CHECK((M + 197) / 198 > 2 * wave);  // planned: 2 waves and a few blocks
  const unsigned K = msm_whole_waves_slice(M, 198, wave);
  CHECK(K == 199);
  CHECK((M + K - 1) / K <= 2 * wave);
  CHECK((M + K - 2) / (K - 1) > 2 * wave);  // the smallest such slice
  // Fewer threads than a wave, no wave, or an exact fit: the planned slice.
  CHECK(msm_whole_waves_slice(1000, 8, wave) == 8);
  CHECK(msm_whole_waves_slice(M, 198, 0) == 198);
  CHECK(msm_whole_waves_slice(2 * wave * 100, 100, wave) == 100);
  // Any M, K, wave: at least K, at most the planned threads, whole waves when there was one.
  for (std::size_t m : {std::size_t(1), std::size_t(12345), wave * 7 + 3, std::size_t(1) << 29})
    for (unsigned k : {8u, 37u, 256u})
      for (std::size_t w : {std::size_t(1), std::size_t(33792), wave}) {
        INFO("M = " << m << ", K = " << k << ", wave = " << w);
        const unsigned s = msm_whole_waves_slice(m, k, w);
        const std::size_t planned = (m + k - 1) / k, threads = (m + s - 1) / s;
        CHECK(s >= k);
        CHECK(threads <= planned);
        if (planned >= w) CHECK(threads <= (planned / w) * w);
        else CHECK(s == k);
      }
}

TEST_CASE("device MSM with the first level in whole waves equals the CPU backend", "[device][msm][waves]") {
  REQUIRE_DEVICE();
  for (unsigned blocks : {0u, 4u}) {
    INFO("acc_blocks = " << blocks);
    gpu::cuda_options o;
    o.msm_whole_waves = true;
    o.msm_acc_blocks = blocks;
    gpu::cuda_backend be(o);
    // Several waves of threads (random 2^20: 2^20 x 15 pairs), a split MSM's others, G2, small.
    check_msm<g1_curve>(be, (1 << 20) + 7, 1 << 16, 540, false);
    check_msm<g1_curve>(be, (1 << 21) + 3, 1 << 16, 541, false, gpu::testgen::bit_scalars((1 << 21) + 3, 542, 0.9));
    check_msm<g2_curve>(be, (1 << 18) + 1, 1 << 12, 543, false);
    check_msm<g1_curve>(be, 3000, 999, 544, true);
  }
}

TEST_CASE("device MSM kernel variants (accumulation at 4 blocks per SM, split bucket segments) equal the CPU backend",
          "[device][msm][variants]") {
  REQUIRE_DEVICE();
  bigint<4> r_minus_1 = fr::P;
  r_minus_1.limb[0] -= 1;
  for (unsigned blocks : {0u, 4u})
    for (bool split_segments : {false, true}) {
      INFO("acc_blocks = " << blocks << ", segment split = " << split_segments);
      gpu::cuda_options o;
      o.msm_acc_blocks = blocks;
      o.msm_segment_split = split_segments;
      gpu::cuda_backend be(o);
      // Random (several windows and segments), repeated points, every scalar r - 1, 90% bits; G2.
      check_msm<g1_curve>(be, 3000, 999, 520, true);
      check_msm<g1_curve>(be, 5000, 3, 521, true);
      check_msm<g1_curve>(be, 3000, 3, 522, true, std::vector<bigint<4>>(3000, r_minus_1));
      check_msm<g1_curve>(be, 20000, 64, 523, true, gpu::testgen::bit_scalars(20000, 524, 0.9));
      check_msm<g1_curve>(be, (1 << 20) + 7, 1 << 16, 525, false);
      check_msm<g2_curve>(be, 2000, 100, 526, true);
      check_msm<g2_curve>(be, (1 << 16) + 1, 1 << 12, 527, false);
      // Shifted sets (one window of buckets, long segments), random scalars.
      const device_bases<g1_curve> f((1 << 18) + 3, 1 << 14, 528);
      auto scalars = gpu::testgen::random_scalars(f.n, 529);
      f.put(scalars);
      auto want = f.expected(scalars);
      REQUIRE(f.msm(be) == want);
      REQUIRE(f.msm(be, true) == want);
      be.release_caches();
    }
}

TEST_CASE("device MSM with batch-affine accumulation equals the CPU backend (collisions included)",
          "[device][msm][affine]") {
  REQUIRE_DEVICE();
  bigint<4> r_minus_1 = fr::P;
  r_minus_1.limb[0] -= 1;
  for (unsigned lanes : {1u, 5u, 128u}) {
    INFO("lanes = " << lanes);
    gpu::cuda_options o;
    o.msm_affine_lanes = lanes;
    gpu::cuda_backend be(o);
    // Random; repeated points (P + P in a batch); every scalar r - 1; zeros; 90% bits; infinity.
    check_msm<g1_curve>(be, 1, 1, 500, true);
    check_msm<g1_curve>(be, 3000, 999, 501, true);
    check_msm<g1_curve>(be, 5000, 3, 502, true);
    check_msm<g1_curve>(be, 3000, 3, 503, true, std::vector<bigint<4>>(3000, r_minus_1));
    check_msm<g1_curve>(be, 3000, 7, 504, true, std::vector<bigint<4>>(3000));
    check_msm<g1_curve>(be, 20000, 64, 505, true, gpu::testgen::bit_scalars(20000, 506, 0.9));
    check_msm<g1_curve>(be, (1 << 20) + 7, 1 << 16, 507, false);
    check_msm<g2_curve>(be, 2000, 100, 508, true);
    check_msm<g2_curve>(be, 3000, 3, 509, true, std::vector<bigint<4>>(3000, r_minus_1));
    check_msm<g2_curve>(be, (1 << 16) + 1, 1 << 12, 510, false);
    // P and -P with one scalar: they cancel inside one bucket.
    auto ps = gpu::testgen::progression<g1_curve>(8, 511, false);
    std::vector<g1_affine> bases = {ps.pts[1], -ps.pts[1], ps.pts[2], ps.pts[2], ps.pts[3]};
    bigint<4> one{{1, 0, 0, 0}}, seven{{7, 0, 0, 0}};
    std::vector<bigint<4>> sc = {seven, seven, seven, seven, seven};
    REQUIRE(be.msm_g1(bases, sc) == zk::msm<g1_curve>(std::span<const g1_affine>(bases), sc));
    sc = {r_minus_1, r_minus_1, one, one, r_minus_1};
    REQUIRE(be.msm_g1(bases, sc) == zk::msm<g1_curve>(std::span<const g1_affine>(bases), sc));
  }
  // Shifted sets with batch-affine accumulation and the split.
  gpu::cuda_options o;
  o.msm_affine_lanes = 64;
  gpu::cuda_backend be(o);
  for (double bits : {0.0, 0.9}) {
    const device_bases<g1_curve> f((1 << 18) + 3, 1 << 14, 512);
    auto scalars = gpu::testgen::bit_scalars(f.n, 513, bits);
    f.put(scalars);
    REQUIRE(f.msm(be, true) == f.expected(scalars));
    be.release_caches();
  }
}
