// Whole Groth16 proofs on the CUDA backend against the CPU backend, byte for byte with the same r
// and s: synthesized on the device, synthesized on the host and staged by the backend, staged by a
// stager on another thread (two partitions staged before either is proved, as the engine's stager
// does), in forced MSM chunks, and from host inputs.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <unistd.h>

#include "cuzk/gpu/cuda_backend.hpp"
#include "cuzk/gpu/key_placement.hpp"
#include "cuzk/gpu/placement_plan.hpp"
#include "cuzk/gpu/testgen.hpp"
#include "zk/bls12_381/compressed.hpp"
#include "zk/error.hpp"
#include "zk/groth16/bellperson_key.hpp"
#include "zk/groth16/cpu_backend.hpp"
#include "zk/groth16/prover.hpp"
#include "zk/groth16/setup.hpp"
#include "zk/groth16/verifier.hpp"
#include "zk/io/bellperson.hpp"

using namespace cuzk;
using namespace cuzk::zk::bls12_381;
namespace g16 = cuzk::zk::groth16;

namespace {

// x_{k+1} = (x_k + c_k) * x_k for k < n, x_n is the public output (wire 1), x_0 the private input.
struct chain {
  zk::io::r1cs cs;
  zk::io::witness w;
};

// A backend that keeps shifted sets of every section, and `key` resident on it with them.
struct shifted_resident {
  static gpu::cuda_options all_shifted() {
    gpu::cuda_options o;
    o.shifted_bases_bytes = SIZE_MAX;
    return o;
  }
  gpu::cuda_backend be{all_shifted()};
  std::unique_ptr<g16::resident_key> dk;
  shifted_resident(const zk::io::zkey& key, const g16::constraint_evaluator& pce)
      : dk(be.load_key(g16::points_of(key), &pce)) {
    CHECK(gpu::cuda_backend::shifted_bytes(*dk) > 0);
  }
};

chain make_chain(std::uint32_t n, std::uint64_t seed, std::uint64_t input_seed = 1) {
  chain ch;
  auto& cs = ch.cs;
  cs.n_pub_out = 1;
  cs.n_prv_in = 1;
  cs.n_wires = n + 2;
  cs.n_constraints = n;
  cs.n_labels = cs.n_wires;
  auto wire_of = [n](std::uint32_t k) { return k == n ? 1u : k + 2; };  // x_k
  std::uint64_t st = seed;
  std::vector<fr> x(n + 1);
  std::uint64_t in = input_seed;
  x[0] = gpu::testgen::random_fr(in);
  for (std::uint32_t k = 0; k < n; ++k) {
    fr c = gpu::testgen::random_fr(st);
    zk::io::r1cs::constraint con;
    con.a = {{wire_of(k), fr::one()}, {0, c}};
    con.b = {{wire_of(k), fr::one()}};
    con.c = {{wire_of(k + 1), fr::one()}};
    cs.constraints.push_back(std::move(con));
    x[k + 1] = (x[k] + c) * x[k];
  }
  ch.w.values.assign(cs.n_wires, {});
  ch.w.values[0] = fr::one().to_canonical();
  for (std::uint32_t k = 0; k <= n; ++k) ch.w.values[wire_of(k)] = x[k].to_canonical();
  return ch;
}

// `w` with its private wires 0 or 1 in nine of ten and the rest left random (not a satisfying
// witness: a proof needs none to be computed), so that a split has ones, others and zeros in
// every MSM; the same `seed`, the same witness.
zk::io::witness mostly_bits(zk::io::witness w, std::uint64_t seed) {
  for (std::size_t i = 2; i < w.values.size(); ++i) {
    std::uint64_t u = gpu::testgen::splitmix(seed);
    if (u % 10 < 9) w.values[i] = zk::bigint<4>{{u >> 63, 0, 0, 0}};
  }
  return w;
}

}  // namespace

TEST_CASE("device proofs equal the CPU backend's byte for byte, however staged", "[device][prove]") {
  if (!gpu::device_present()) {
    WARN("SKIP: no CUDA device present");
    return;
  }
  auto ch = make_chain((1u << 14) - 5, 41);
  auto key = g16::setup(ch.cs, g16::toxic_waste_from_seed(7));
  auto pce = g16::constraint_evaluator::build(key);
  std::uint64_t st = 99;
  g16::randomness rnd{gpu::testgen::random_fr(st), gpu::testgen::random_fr(st)};
  auto publics = g16::public_inputs(key, ch.w);

  g16::cpu_backend cpu;
  auto want = g16::prove(key, pce, ch.w, rnd, cpu);
  REQUIRE(g16::verify(key.vk, publics, want));

  gpu::cuda_backend be;
  SECTION("synthesized on the device (only the witness uploaded), with and without a device key") {
    g16::prove_timings t;
    REQUIRE(g16::prove(key, pce, ch.w, rnd, be, &t) == want);  // points and matrices for this proof only
    auto dk = be.load_key(g16::points_of(key), &pce);
    REQUIRE(dk);
    REQUIRE(dk->bytes() >= (3 * key.a.size() + key.c.size() + key.h.size()) * 96 + key.b2.size() * 192);
    REQUIRE(g16::prove(key, pce, ch.w, rnd, be, &t, dk.get()) == want);
    CHECK(t.h > 0);
    CHECK(t.msm_b2 > 0);
    // Another witness of the same circuit (x_0 changed): the device key's matrices serve it too.
    auto other = make_chain((1u << 14) - 5, 41, 2);
    REQUIRE(other.w.values != ch.w.values);
    REQUIRE(g16::prove(key, pce, other.w, rnd, be, nullptr, dk.get()) == g16::prove(key, pce, other.w, rnd, cpu));
    // A device key is refused for another key's points.
    auto other_key = g16::setup(other.cs, g16::toxic_waste_from_seed(8));
    auto other_pce = g16::constraint_evaluator::build(other_key);
    auto in = be.synthesize(other_pce, other.w.values);
    REQUIRE_THROWS_AS(g16::prove_staged(other_key, *in, rnd, be, nullptr, dk.get()), std::invalid_argument);
  }
  SECTION("synthesized on the host, staged by the backend") {
    REQUIRE(g16::prove_synthesized(key, pce.evaluate(ch.w), ch.w, rnd, be) == want);
  }
  SECTION("staged by a stager on another thread, two ahead") {
    auto stager = be.make_stager();
    auto stage = [&] {
      return std::async(std::launch::async, [&] { return stager->stage(pce.evaluate(ch.w), ch.w.values); }).get();
    };
    auto first = stage();
    auto second = stage();
    REQUIRE(first->device_bytes() > 0);
    REQUIRE(g16::prove_staged(key, *first, rnd, be) == want);
    REQUIRE(g16::prove_staged(key, *second, rnd, be) == want);
    auto dropped = stage();  // staged and never proved: its memory goes back on destruction
    dropped.reset();
    auto third = stage();
    REQUIRE(g16::prove_staged(key, *third, rnd, be) == want);
  }
  SECTION("MSMs in forced chunks") {
    gpu::cuda_options o;
    o.force_msm_chunk = 3000;
    gpu::cuda_backend chunked(o);
    REQUIRE(g16::prove(key, pce, ch.w, rnd, chunked) == want);
  }
  SECTION("device keys with precomputed shifted sets (the daemon's default), plain and chunked") {
    gpu::cuda_options o;
    o.shifted_bases_bytes = SIZE_MAX;
    gpu::cuda_backend shifted(o);
    auto dk = shifted.load_key(g16::points_of(key));
    REQUIRE(gpu::cuda_backend::shifted_bytes(*dk) > 0);
    REQUIRE(dk->bytes() <= shifted.resident_bytes(g16::points_of(key)));
    REQUIRE(g16::prove(key, pce, ch.w, rnd, shifted, nullptr, dk.get()) == want);
    REQUIRE(g16::prove(key, pce, ch.w, rnd, shifted, nullptr, dk.get()) == want);  // the sets reused
    o.force_msm_chunk = 3000;
    gpu::cuda_backend chunked(o);
    auto dk2 = chunked.load_key(g16::points_of(key));
    REQUIRE(g16::prove(key, pce, ch.w, rnd, chunked, nullptr, dk2.get()) == want);
    // A budget too small for any section's sets: plain points, the same proof.
    o.force_msm_chunk = 0;
    o.shifted_bases_bytes = 1000;
    gpu::cuda_backend small(o);
    auto dk3 = small.load_key(g16::points_of(key));
    REQUIRE(gpu::cuda_backend::shifted_bytes(*dk3) == 0);
    REQUIRE(g16::prove(key, pce, ch.w, rnd, small, nullptr, dk3.get()) == want);
    // An explicit size far above the room (a VRAM budget of the plain grant, the staged partitions
    // and four sets of H): trimmed to the room as "auto" is, not refused; the grant leaves the staged
    // partitions their room, the load makes what the grant covers, the report names the room.
    const auto kp = g16::points_of(key);
    gpu::cuda_options ob;
    const std::uint64_t plain_grant = gpu::cuda_backend(ob).resident_bytes(kp, false);
    const std::size_t staged = std::size_t(ob.staged_partitions) * g16::staged_bytes(kp.h.size(), kp.c.size() + kp.n_private_from, false);
    ob.vram_budget_bytes = plain_grant + staged + 4 * kp.h.size() * 96 + (std::size_t(64) << 20);
    ob.shifted_bases_bytes = std::size_t(1) << 50;
    gpu::cuda_backend trimmed(ob);
    const std::uint64_t grant = trimmed.resident_bytes(kp);
    CHECK(grant > plain_grant);
    CHECK(grant + staged <= ob.vram_budget_bytes);
    auto dk4 = trimmed.load_key(kp);
    CHECK(gpu::cuda_backend::shifted_bytes(*dk4) > 0);
    CHECK(dk4->bytes() <= grant);
    INFO(dk4->describe());
    CHECK(dk4->describe().find("room") != std::string::npos);
    REQUIRE(g16::prove(key, pce, ch.w, rnd, trimmed, nullptr, dk4.get()) == want);
  }
  SECTION("a witness of mostly bits: the split of its scalars (C from n_private_from on), split off, shifted") {
    auto w = mostly_bits(ch.w, 5);
    auto want_bits = g16::prove(key, pce, w, rnd, cpu);
    REQUIRE(g16::prove(key, pce, w, rnd, be) == want_bits);
    gpu::cuda_options o;
    o.msm_split_bits = false;
    gpu::cuda_backend unsplit(o);
    REQUIRE(g16::prove(key, pce, w, rnd, unsplit) == want_bits);
    o.msm_split_bits = true;
    o.shifted_bases_bytes = SIZE_MAX;
    gpu::cuda_backend shifted(o);
    auto dk = shifted.load_key(g16::points_of(key));
    REQUIRE(g16::prove(key, pce, w, rnd, shifted, nullptr, dk.get()) == want_bits);
    o.force_msm_chunk = 700;
    gpu::cuda_backend chunked(o);
    auto dk2 = chunked.load_key(g16::points_of(key));
    REQUIRE(g16::prove(key, pce, w, rnd, chunked, nullptr, dk2.get()) == want_bits);
  }
  SECTION("B2 on the host, split between host and device, on the device (b2_plan.hpp); auto's probe and plan") {
    // A witness of mostly bits too: the device's part of a split reads its own split vector, cut at k.
    auto w = mostly_bits(ch.w, 8);
    auto want_bits = g16::prove(key, pce, w, rnd, cpu);
    const std::size_t nb = key.b2.size();
    for (bool shifted : {false, true})
      for (bool split_bits : {true, false})
        for (auto [mode, share] : {std::pair{g16::b2_mode::host, 0.0}, std::pair{g16::b2_mode::split, 0.3},
                                   std::pair{g16::b2_mode::split, 0.999}, std::pair{g16::b2_mode::device, 0.0}}) {
          INFO("shifted " << shifted << ", split bits " << split_bits << ", b2 " << g16::b2_mode_name(mode) << " " << share);
          gpu::cuda_options o;
          o.b2 = mode;
          o.b2_split_share = share;
          o.b2_host_threads = 2;
          o.msm_split_bits = split_bits;
          o.shifted_bases_bytes = shifted ? SIZE_MAX : 0;
          gpu::cuda_backend b(o);
          auto dk = b.load_key(g16::points_of(key), &pce);
          g16::prove_timings t;
          REQUIRE(g16::prove(key, pce, ch.w, rnd, b, &t, dk.get()) == want);
          CHECK(t.b2_mode == g16::b2_mode_name(mode));
          CHECK(t.b2_points == nb);
          CHECK(t.b2_host_points == (mode == g16::b2_mode::host ? nb : std::size_t(share * double(nb))));
          CHECK((t.b2_host > 0) == (t.b2_host_points > 0));
          CHECK((t.msm_b2 > 0) == (t.b2_host_points < nb));
          CHECK(t.main_lane > 0);
          REQUIRE(g16::prove(key, pce, w, rnd, b, nullptr, dk.get()) == want_bits);
          REQUIRE(g16::prove(key, pce, w, rnd, b) == want_bits);  // a key made for this proof only
        }
    // auto: the first proof probes (a split with b2_probe_share on the host), the next ones follow
    // the model on the rates measured; every proof is the CPU backend's.
    gpu::cuda_options o;
    o.b2 = g16::b2_mode::automatic;
    o.b2_host_threads = 2;
    gpu::cuda_backend b(o);
    auto dk = b.load_key(g16::points_of(key), &pce);
    g16::prove_timings t;
    REQUIRE(g16::prove(key, pce, ch.w, rnd, b, &t, dk.get()) == want);
    CHECK(t.b2_mode == "split");
    CHECK(t.b2_host_points == std::size_t(g16::b2_probe_share * double(nb)));
    for (int i = 0; i < 3; ++i) {
      g16::prove_timings t2;
      REQUIRE(g16::prove(key, pce, ch.w, rnd, b, &t2, dk.get()) == want);
      CHECK(t2.b2_predicted > 0);
      CHECK_THAT(t2.b2_plan, Catch::StartsWith("auto chose " + t2.b2_mode + ":"));
    }
  }
  SECTION("B2's lane at a share of its points (b2_lane_share): its others in chunks on the side lane when more") {
    // Mostly bits (one in ten others, about 0.1 nb of B2's scalars), then random (all others).
    auto w = mostly_bits(ch.w, 11);
    auto want_bits = g16::prove(key, pce, w, rnd, cpu);
    const std::size_t nb = key.b2.size();
    for (bool shifted : {false, true})
      for (bool split_bits : {true, false})
        for (double share : {0.03, 0.5}) {
          INFO("shifted " << shifted << ", split bits " << split_bits << ", b2 lane share " << share);
          gpu::cuda_options o;
          o.b2_lane_share = share;
          o.msm_split_bits = split_bits;
          o.shifted_bases_bytes = shifted ? SIZE_MAX : 0;
          gpu::cuda_backend b(o);
          auto dk = b.load_key(g16::points_of(key), &pce);
          const std::size_t lane = gpu::b2_lane_points(nb, share);
          // B2's runs: its others (unsplit: all its points) in chunks of the lane's points.
          auto runs = [&](const g16::prove_timings& t) {
            if (!split_bits) CHECK(t.b2_others == nb);
            return (t.b2_others + lane - 1) / lane;
          };
          g16::prove_timings t;
          REQUIRE(g16::prove(key, pce, w, rnd, b, &t, dk.get()) == want_bits);
          CHECK(t.b2_chunks == runs(t));
          if (split_bits) CHECK(t.b2_others < nb / 5);
          if (share < 0.05) CHECK(t.b2_chunks >= 2);             // the others outnumber the lane
          if (split_bits && share == 0.5) CHECK(t.b2_chunks == 1);  // the others fit whole
          g16::prove_timings tr;
          REQUIRE(g16::prove(key, pce, ch.w, rnd, b, &tr, dk.get()) == want);
          CHECK(tr.b2_others + 2 >= nb);  // random: all others but the one-wire's
          CHECK(tr.b2_chunks == runs(tr));
          CHECK(tr.b2_chunks >= (share < 0.05 ? 30u : 2u));
        }
  }
  SECTION("host-staged inputs (the generic path)") {
    g16::host_stager host;
    auto in = host.stage(pce.evaluate(ch.w), ch.w.values);
    REQUIRE(g16::prove_staged(key, *in, rnd, be) == want);
  }
}

// bellperson's convention (coset h, density-filtered A/B queries, roots from 7) on the device: the
// coset NTTs with roots from 7, the division by Z on the coset, the witness gathered at the A/B
// wires; the proof equals the CPU backend's byte for byte however the inputs are staged, with and
// without a device key (shifted sets too), and the h alone equals the host's.
TEST_CASE("bellperson-convention proofs on the device equal the CPU backend's", "[device][prove][bellperson]") {
  if (!gpu::device_present()) {
    WARN("SKIP: no CUDA device present");
    return;
  }
  auto ch = make_chain((1u << 13) - 9, 43);
  auto key = g16::setup(ch.cs, g16::toxic_waste_from_seed(11), zk::io::key_convention::bellperson);
  REQUIRE(key.convention == zk::io::key_convention::bellperson);
  auto pce = g16::constraint_evaluator::build(key);
  std::uint64_t st = 5;
  g16::randomness rnd{gpu::testgen::random_fr(st), gpu::testgen::random_fr(st)};
  auto publics = g16::public_inputs(key, ch.w);
  g16::cpu_backend cpu;
  auto want = g16::prove(key, pce, ch.w, rnd, cpu);
  REQUIRE(g16::verify(key.vk, publics, want));
  gpu::cuda_backend be;
  CHECK(g16::prove(key, pce, ch.w, rnd, be) == want);
  CHECK(g16::prove_synthesized(key, pce.evaluate(ch.w), ch.w, rnd, be) == want);
  auto staged = be.stage(pce.evaluate(ch.w), ch.w.values);
  CHECK(g16::prove_staged(key, *staged, rnd, be) == want);
  g16::host_stager host;
  auto on_host = host.stage(pce.evaluate(ch.w), ch.w.values);
  CHECK(g16::prove_staged(key, *on_host, rnd, be) == want);

  shifted_resident sr(key, pce);
  CHECK(g16::prove(key, pce, ch.w, rnd, sr.be, nullptr, sr.dk.get()) == want);
  CHECK(g16::prove(key, pce, ch.w, rnd, sr.be, nullptr, sr.dk.get()) == want);

  // A witness of mostly bits: three splits (the A and B wires' gathered witness, the witness for
  // C), plain and shifted, against the CPU backend.
  auto w = mostly_bits(ch.w, 6);
  auto want_bits = g16::prove(key, pce, w, rnd, cpu);
  CHECK(g16::prove(key, pce, w, rnd, be) == want_bits);
  CHECK(g16::prove(key, pce, w, rnd, sr.be, nullptr, sr.dk.get()) == want_bits);

  // B2 on the host and split (b2_plan.hpp): the host gathers the witness at the B wires; the
  // device's part of a split has a fourth split vector (the B wires' scalars cut at k).
  for (auto [mode, share] : {std::pair{g16::b2_mode::host, 0.0}, std::pair{g16::b2_mode::split, 0.4}}) {
    INFO("b2 " << g16::b2_mode_name(mode));
    gpu::cuda_options ob;
    ob.b2 = mode;
    ob.b2_split_share = share;
    ob.b2_host_threads = 2;
    for (bool sh : {false, true}) {
      ob.shifted_bases_bytes = sh ? SIZE_MAX : 0;
      gpu::cuda_backend b(ob);
      auto dkb = b.load_key(g16::points_of(key), &pce);
      g16::prove_timings t;
      CHECK(g16::prove(key, pce, ch.w, rnd, b, &t, dkb.get()) == want);
      CHECK(t.b2_host_points > 0);
      CHECK(g16::prove(key, pce, w, rnd, b, nullptr, dkb.get()) == want_bits);
    }
  }

  // The h alone: device against host, on random evaluations.
  const std::size_t n = std::size_t(1) << 13;
  std::uint64_t hs = 77;
  std::vector<fr> a(n), b(n), c(n);
  for (std::size_t i = 0; i < n; ++i) a[i] = gpu::testgen::random_fr(hs), b[i] = gpu::testgen::random_fr(hs), c[i] = gpu::testgen::random_fr(hs);
  auto a2 = a, b2 = b, c2 = c;
  std::vector<zk::bigint<4>> h_cpu(n - 1), h_gpu(n - 1);
  g16::bellperson_h(a, b, c, h_cpu);
  be.compute_h_coset(a2, b2, c2, h_gpu);
  CHECK(h_cpu == h_gpu);
}

namespace {

std::vector<std::uint8_t> file_bytes_of(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}
void write_bytes(const std::string& path, const std::vector<std::uint8_t>& b) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const zk::input_error& e) {
    return e.what();
  }
  return "(no input_error)";
}

}  // namespace

// A bellperson .params key converted and checked on the device (file_points.cuh): the host does no
// per-point work. The device's points equal the host decoder's (a key's sections and random points
// of both groups), its proofs equal the CPU backend's byte for byte (per-proof and resident keys,
// shifted sets too), and a bad point (off the curve at the end of a section, the identity, a
// coordinate not below p) fails the proof with the host decoder's line for that point.
TEST_CASE("bellperson .params points converted and checked on the device", "[device][prove][bellperson]") {
  if (!gpu::device_present()) {
    WARN("SKIP: no CUDA device present");
    return;
  }
  using fpt = g16::file_points;
  auto ch = make_chain((1u << 12) - 9, 47);
  auto made = g16::setup(ch.cs, g16::toxic_waste_from_seed(13), zk::io::key_convention::bellperson);
  const auto dir = std::filesystem::temp_directory_path() / ("cuzk_gpu_file_points_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "k.params").string(), bad_path = (dir / "bad.params").string();
  zk::io::write_bellperson_params(path, made);
  auto params = zk::io::bellperson_params::open(path);
  auto host_key = g16::bellperson_proving_key(params, ch.cs);
  auto file_key = g16::bellperson_proving_key(params, ch.cs, false);
  REQUIRE(file_key.file_points);

  SECTION("the device's points are the host decoder's") {
    const auto& fp = *file_key.file_points;
    auto g1_same = [&](int sec, std::span<const g1_affine> want) {
      auto got = gpu::file_g1_on_device(0, fp.bytes[sec]);
      CHECK(got.first_bad == SIZE_MAX);
      CHECK(std::equal(got.points.begin(), got.points.end(), want.begin(), want.end()));
    };
    g1_same(fpt::a, host_key.a);
    g1_same(fpt::b1, host_key.b1);
    g1_same(fpt::c, host_key.c);
    g1_same(fpt::h, host_key.h);
    auto b2 = gpu::file_g2_on_device(0, fp.bytes[fpt::b2]);
    CHECK(b2.first_bad == SIZE_MAX);
    CHECK(std::equal(b2.points.begin(), b2.points.end(), host_key.b2.begin(), host_key.b2.end()));
    // Random points of both groups, written in the file's form; every 97th the identity (refused).
    auto p1 = gpu::testgen::progression<zk::bls12_381::g1_curve>(5000, 91, false).pts;
    auto p2 = gpu::testgen::progression<zk::bls12_381::g2_curve>(3000, 92, false).pts;
    std::vector<std::uint8_t> r1(p1.size() * 96), r2(p2.size() * 192);
    for (std::size_t i = 0; i < p1.size(); ++i) zk::bls12_381::write_uncompressed(p1[i], r1.data() + i * 96);
    for (std::size_t i = 0; i < p2.size(); ++i) zk::bls12_381::write_uncompressed(p2[i], r2.data() + i * 192);
    auto d1 = gpu::file_g1_on_device(0, r1);
    auto d2 = gpu::file_g2_on_device(0, r2);
    CHECK(d1.first_bad == SIZE_MAX);
    CHECK(d2.first_bad == SIZE_MAX);
    CHECK(d1.points == p1);
    CHECK(d2.points == p2);
    auto q1 = gpu::testgen::progression<zk::bls12_381::g1_curve>(300, 93, true).pts;  // identity at 5, 102, ...
    std::vector<std::uint8_t> s1(q1.size() * 96);
    for (std::size_t i = 0; i < q1.size(); ++i) zk::bls12_381::write_uncompressed(q1[i], s1.data() + i * 96);
    CHECK(gpu::file_g1_on_device(0, s1).first_bad == 5);
    s1[150 * 96 + 95] ^= 1;  // off the curve, after the first identity: the lowest index is still 5
    CHECK(gpu::file_g1_on_device(0, s1).first_bad == 5);
    // From point 103 (after the identity at 102): 150 is 47 here, before the identity at 199 (96).
    std::vector<std::uint8_t> t1(s1.begin() + 103 * 96, s1.end());
    CHECK(gpu::file_g1_on_device(0, t1).first_bad == 47);
  }

  auto pce = g16::constraint_evaluator::build(host_key);
  std::uint64_t st = 9;
  g16::randomness rnd{gpu::testgen::random_fr(st), gpu::testgen::random_fr(st)};
  g16::cpu_backend cpu;
  auto want = g16::prove(host_key, pce, ch.w, rnd, cpu);
  REQUIRE(g16::verify(host_key.vk, g16::public_inputs(host_key, ch.w), want));

  SECTION("proofs equal the CPU backend's, per proof and resident (shifted sets too)") {
    gpu::cuda_backend be;
    CHECK(be.takes_file_points());
    auto fpce = g16::constraint_evaluator::build(file_key);
    CHECK(g16::prove(file_key, fpce, ch.w, rnd, be) == want);
    CHECK(g16::prove_synthesized(file_key, fpce.evaluate(ch.w), ch.w, rnd, be) == want);
    shifted_resident sr(file_key, fpce);
    CHECK(g16::prove(file_key, fpce, ch.w, rnd, sr.be, nullptr, sr.dk.get()) == want);
    // The resident key was made from the file points: the host-decoded key's points are another key.
    CHECK_THROWS(g16::prove(host_key, pce, ch.w, rnd, sr.be, nullptr, sr.dk.get()));
    // B2 split with the host: the key's spans hold no points, so the host's part reads the B2
    // points back from the device key into the host copy given at load (once: the engine's key
    // store owns and budgets it); shifted sets on the device. Without a host copy B2 stays on the
    // device.
    gpu::cuda_options o;
    o.shifted_bases_bytes = SIZE_MAX;
    o.b2 = g16::b2_mode::split;
    o.b2_split_share = 0.5;
    o.b2_host_threads = 2;
    gpu::cuda_backend split(o);
    auto kp = g16::points_of(file_key);
    REQUIRE_FALSE(kp.points_on_host());
    kp.b2_host = std::make_shared<g16::b2_host_points>();
    auto dks = split.load_key(kp, &fpce);
    g16::prove_timings t;
    CHECK(g16::prove(file_key, fpce, ch.w, rnd, split, &t, dks.get()) == want);
    CHECK(t.b2_host_points == file_key.b2.size() / 2);
    CHECK(kp.b2_host->filled());
    CHECK(g16::prove(file_key, fpce, ch.w, rnd, split, nullptr, dks.get()) == want);
    auto dk_none = split.load_key(g16::points_of(file_key), &fpce);
    CHECK(g16::prove(file_key, fpce, ch.w, rnd, split, &t, dk_none.get()) == want);
    CHECK(t.b2_mode == "device");
    CHECK(t.b2_host_points == 0);
  }

  SECTION("a bad point fails the proof with the host decoder's line") {
    const auto bytes = file_bytes_of(path);
    auto device_error = [&](const std::vector<std::uint8_t>& t) {
      write_bytes(bad_path, t);
      auto opened = zk::io::bellperson_params::open(bad_path);  // headers only: fine
      const std::string host = error_of([&] { g16::bellperson_proving_key(opened, ch.cs); });
      auto k = g16::bellperson_proving_key(opened, ch.cs, false);  // no per-point work: fine too
      gpu::cuda_backend be;
      const std::string dev = error_of([&] { g16::prove(k, g16::constraint_evaluator::build(k), ch.w, rnd, be); });
      CHECK(dev == host);
      // The backend keeps working: the good key proves after the bad one.
      CHECK(g16::prove(file_key, g16::constraint_evaluator::build(file_key), ch.w, rnd, be) == want);
      return dev;
    };
    {  // off the curve at the end of section a
      auto t = bytes;
      t[params.a.offset + (params.a.count - 1) * 96 + 95] ^= 1;
      CHECK_THAT(device_error(t), Catch::StartsWith(bad_path + ": a[" + std::to_string(params.a.count - 1) + "]") &&
                                      Catch::Contains("not on the curve"));
    }
    {  // the identity (a valid encoding of it) in b_g2
      auto t = bytes;
      const std::uint64_t at = params.b_g2.offset + 3 * 192;
      std::fill(t.begin() + std::ptrdiff_t(at), t.begin() + std::ptrdiff_t(at + 192), 0);
      t[at] = 0x40;
      CHECK(device_error(t) == bad_path + ": b_g2[3] (offset " + std::to_string(at) + "): point at infinity");
    }
    {  // a coordinate not below p at the end of h, and an off-curve point in l: h is checked first
      auto t = bytes;
      const std::uint64_t at = params.h.offset + (params.h.count - 1) * 96;
      std::fill(t.begin() + std::ptrdiff_t(at), t.begin() + std::ptrdiff_t(at + 48), 0xff);
      t[at] = 0x1f;  // no flags, x = 2^381 - 1 > p
      t[params.l.offset + 95] ^= 1;
      CHECK_THAT(device_error(t), Catch::StartsWith(bad_path + ": h[" + std::to_string(params.h.count - 1) + "]"));
    }
    {  // truncated: refused at open, whichever backend proves
      auto t = bytes;
      t.pop_back();
      write_bytes(bad_path, t);
      CHECK_THROWS_WITH(zk::io::bellperson_params::open(bad_path), Catch::StartsWith(bad_path + ": section b_g2: count"));
    }
  }
  std::filesystem::remove_all(dir);
}

// The three placements of a key (key_placement.hpp), forced on small keys by a small room and
// short chunks: partly resident and streamed keys prove what the resident key and the CPU backend
// prove, byte for byte, with random witnesses and witnesses of mostly bits, in both conventions.
TEST_CASE("partly resident and streamed keys prove what resident keys prove", "[device][prove][placement]") {
  if (!gpu::device_present()) {
    WARN("SKIP: no CUDA device present");
    return;
  }
  for (auto convention : {zk::io::key_convention::snarkjs, zk::io::key_convention::bellperson}) {
    const bool bp = convention == zk::io::key_convention::bellperson;
    INFO((bp ? "bellperson" : "snarkjs") << " key");
    auto ch = make_chain((1u << 13) - 7, 47);
    auto key = g16::setup(ch.cs, g16::toxic_waste_from_seed(13), convention);
    auto pce = g16::constraint_evaluator::build(key);
    std::uint64_t st = 17;
    g16::randomness rnd{gpu::testgen::random_fr(st), gpu::testgen::random_fr(st)};
    g16::cpu_backend cpu;
    const auto w_bits = mostly_bits(ch.w, 9);
    const auto want = g16::prove(key, pce, ch.w, rnd, cpu);
    const auto want_bits = g16::prove(key, pce, w_bits, rnd, cpu);
    REQUIRE(g16::verify(key.vk, g16::public_inputs(key, ch.w), want));
    const auto kp = g16::points_of(key);
    std::size_t points = (kp.a.size() + kp.b1.size() + kp.c.size() + kp.h.size()) * 96 + kp.b2.size() * 192;
    const std::size_t chunk = 1000;  // several runs a section, not a power of two
    struct forced {
      const char* name;
      std::size_t room;
      gpu::key_placement kind;
    } cases[] = {{"partly resident", 2 * chunk * 192 + points / 2, gpu::key_placement::partly_resident},
                 {"streamed", 2 * chunk * 192, gpu::key_placement::streamed}};
    for (const auto& f : cases) {
      INFO(f.name);
      gpu::cuda_options o;
      o.key_room_bytes = f.room;
      o.stream_chunk_points = chunk;
      gpu::cuda_backend be(o);
      const auto report = be.placement(kp, &pce);
      CHECK(report.kind == gpu::placement_name(f.kind));
      auto dk = be.load_key(kp, &pce);
      REQUIRE(dk);
      CHECK(dk->describe().rfind(gpu::placement_name(f.kind), 0) == 0);
      CHECK(dk->bytes() <= be.resident_bytes(kp, true, &pce));
      for (int rep = 0; rep < 2; ++rep) {  // the second proof reuses the buffers and their events
        CHECK(g16::prove(key, pce, ch.w, rnd, be, nullptr, dk.get()) == want);
        CHECK(g16::prove(key, pce, w_bits, rnd, be, nullptr, dk.get()) == want_bits);
      }
    }
  }
}
