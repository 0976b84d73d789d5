// Whole Groth16 proofs on the CUDA backend against the CPU backend, byte for byte with the same r
// and s: synthesized on the device, synthesized on the host and staged by the backend, staged by a
// stager on another thread (two partitions staged before either is proved, as the engine's stager
// does), in forced MSM chunks, and from host inputs.
#include <catch2/catch.hpp>

#include <future>
#include <memory>

#include "cuzk/gpu/cuda_backend.hpp"
#include "cuzk/gpu/testgen.hpp"
#include "zk/groth16/cpu_backend.hpp"
#include "zk/groth16/prover.hpp"
#include "zk/groth16/setup.hpp"
#include "zk/groth16/verifier.hpp"

using namespace cuzk;
using namespace cuzk::zk::bls12_381;
namespace g16 = cuzk::zk::groth16;

namespace {

// x_{k+1} = (x_k + c_k) * x_k for k < n, x_n is the public output (wire 1), x_0 the private input.
struct chain {
  zk::io::r1cs cs;
  zk::io::witness w;
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
  }
  SECTION("a witness of mostly bits: the split of its scalars (C from n_private_from on), split off, shifted") {
    // Not a satisfying witness (a proof needs none to be computed): the private wires are 0 and 1
    // in nine of ten, the rest random, so the split has ones, others and zeros in every MSM.
    auto w = ch.w;
    std::uint64_t bs = 5;
    for (std::size_t i = 2; i < w.values.size(); ++i) {
      std::uint64_t u = gpu::testgen::splitmix(bs);
      if (u % 10 < 9) w.values[i] = zk::bigint<4>{{u >> 63, 0, 0, 0}};
    }
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

  gpu::cuda_options o;
  o.shifted_bases_bytes = SIZE_MAX;
  gpu::cuda_backend shifted(o);
  auto dk = shifted.load_key(g16::points_of(key), &pce);
  CHECK(gpu::cuda_backend::shifted_bytes(*dk) > 0);
  CHECK(g16::prove(key, pce, ch.w, rnd, shifted, nullptr, dk.get()) == want);
  CHECK(g16::prove(key, pce, ch.w, rnd, shifted, nullptr, dk.get()) == want);

  // A witness of mostly bits (not satisfying: a proof needs none): three splits (the A and B wires'
  // gathered witness, the witness for C), plain and shifted, against the CPU backend.
  auto w = ch.w;
  std::uint64_t bs = 6;
  for (std::size_t i = 2; i < w.values.size(); ++i) {
    std::uint64_t u = gpu::testgen::splitmix(bs);
    if (u % 10 < 9) w.values[i] = zk::bigint<4>{{u >> 63, 0, 0, 0}};
  }
  auto want_bits = g16::prove(key, pce, w, rnd, cpu);
  CHECK(g16::prove(key, pce, w, rnd, be) == want_bits);
  CHECK(g16::prove(key, pce, w, rnd, shifted, nullptr, dk.get()) == want_bits);

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
