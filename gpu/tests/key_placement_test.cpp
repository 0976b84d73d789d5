// The placement of shifted sets over a key's sections (plan_shifted_sets) and the bytes it implies
// (device_key_bytes): host code only, no device needed.
#include <catch2/catch.hpp>

#include <cstdint>

#include "cuzk/gpu/key_placement.hpp"
#include "zk/util/zero_mapping.hpp"

using namespace cuzk;
using gpu::plan_shifted_sets;
using gpu::sets_plan;
using gpu::shift_policy;

namespace {
// A key of the given section sizes whose spans read as zeros (only their sizes count here).
struct shaped_key {
  zk::zero_mapping g1, g2;
  zk::groth16::key_points kp;
  shaped_key(std::size_t a, std::size_t b, std::size_t c, std::size_t h)
      : g1(std::max<std::size_t>(std::max({a, b, c, h}), 1) * sizeof(zk::groth16::g1_affine)),
        g2(std::max<std::size_t>(b, 1) * sizeof(zk::groth16::g2_affine)) {
    auto* p1 = static_cast<const zk::groth16::g1_affine*>(g1.p);
    kp.a = {p1, a};
    kp.b1 = {p1, b};
    kp.c = {p1, c};
    kp.h = {p1, h};
    kp.b2 = {static_cast<const zk::groth16::g2_affine*>(g2.p), b};
  }
  std::size_t n(int k) const { return k == 0 ? kp.a.size() : k == 1 ? kp.b1.size() : k == 2 ? kp.b2.size() : k == 3 ? kp.c.size() : kp.h.size(); }
  sets_plan plan(const shift_policy& p) const {
    const std::size_t ns[5] = {n(0), n(1), n(2), n(3), n(4)};
    return plan_shifted_sets(ns, {96, 96, 192, 96, 96}, p);
  }
};
constexpr int A = 0, B1 = 1, B2 = 2, C = 3, H = 4;
}  // namespace

TEST_CASE("shifted sets go to H first, as many as the budget allows, and device_key_bytes agrees", "[placement]") {
  // The 32 GiB PoRep shape (docs/benchmarks.md): A 129,753,620, B 33,112,282 (B1 in G1, B2 in
  // G2), L 130,169,893, H 2^27 - 1.
  const shaped_key key(129753620, 33112282, 130169893, (std::size_t(1) << 27) - 1);
  const std::size_t h_set = key.n(H) * 96, a_set = key.n(A) * 96;
  const std::uint64_t plain = gpu::device_key_bytes(key.kp, shift_policy{});
  CHECK(plain == (key.n(A) + key.n(B1) + key.n(C) + key.n(H)) * 96 + key.n(B2) * 192);
  auto check_bytes = [&](const shift_policy& p, const sets_plan& plan) {
    std::size_t extra = 0;
    for (int k = 0; k < 5; ++k) extra += std::size_t(plan.sets[k] - 1) * key.n(k) * (k == B2 ? 192 : 96);
    CHECK(plan.extra == extra);
    CHECK(plan.extra <= p.budget);
    CHECK(gpu::device_key_bytes(key.kp, p) == plain + plan.extra);
  };

  SECTION("no budget, or a forced window: no sets") {
    for (shift_policy p : {shift_policy{}, shift_policy{SIZE_MAX, 0, true}}) {
      const sets_plan plan = key.plan(p);
      for (int k = 0; k < 5; ++k) CHECK(plan.sets[k] == 1);
      CHECK(gpu::device_key_bytes(key.kp, p) == plain);
    }
  }
  SECTION("three sets' worth: H takes 4 sets (c = 24, 11 windows in 3 arrays), nothing else") {
    const shift_policy p{3 * h_set};
    const sets_plan plan = key.plan(p);
    CHECK(plan.sets[H] == 4);
    CHECK(plan.c[H] == 24);
    for (int k : {A, B1, B2, C}) CHECK(plan.sets[k] == 1);
    check_bytes(p, plan);
  }
  SECTION("4.5 sets' worth: H trimmed to 4 (5 gives the same 3 arrays), then A 2 and B1 3 from what is left") {
    const shift_policy p{9 * h_set / 2};
    const sets_plan plan = key.plan(p);
    CHECK(plan.sets[H] == 4);
    CHECK(plan.sets[A] == 2);
    CHECK(plan.c[A] == 22);  // 12 windows in 6 arrays beat 11 in 6 at c = 24
    CHECK(plan.sets[B1] == 3);  // 6.9 GB left: two more sets of 3.2 GB
    CHECK(plan.extra == 3 * h_set + a_set + 2 * key.n(B1) * 96);
    for (int k : {B2, C}) CHECK(plan.sets[k] == 1);  // 0.5 GB left
    check_bytes(p, plan);
  }
  SECTION("the H200's auto budget at 32 GiB once the MSMs sort 2^29 pairs at a time (87 GB): H 6 sets, A 2, B1 4") {
    // policy_for's budget: the device's 150 GB beside the plain key, a proof's scratch (G1 at 2^27:
    // 14 GB with 4 windows sorted at a time, not 33 GB with all 12) and two staged partitions
    // (docs/benchmarks.md, "MSM sorts one group of bucket arrays at a time": 87.3 GB of sets).
    const shift_policy p{std::size_t(87) * 1000000000};
    const sets_plan plan = key.plan(p);
    CHECK(plan.sets[H] == 6);
    CHECK(plan.c[H] == 24);  // 11 windows in 2 arrays
    CHECK(plan.sets[A] == 2);
    CHECK(plan.sets[B1] == 4);
    for (int k : {B2, C}) CHECK(plan.sets[k] == 1);
    check_bytes(p, plan);
  }
  SECTION("as much as fits: every section one set per window (H: 11 at c = 24)") {
    const shift_policy p{SIZE_MAX};
    const sets_plan plan = key.plan(p);
    CHECK(plan.sets[H] == 11);
    CHECK(plan.c[H] == 24);
    for (int k = 0; k < 5; ++k) {
      CHECK(plan.sets[k] == (255 + plan.c[k]) / plan.c[k]);
      CHECK(std::size_t(plan.sets[k]) * key.n(k) < (std::size_t(1) << 31));
    }
    check_bytes(p, plan);
  }
  SECTION("the 31-bit point indices bound the sets of a large section") {
    const shaped_key big(0, 0, 0, std::size_t(1) << 28);
    const sets_plan plan = big.plan(shift_policy{SIZE_MAX});
    CHECK(plan.sets[H] >= 2);
    CHECK(std::size_t(plan.sets[H]) * big.n(H) < (std::size_t(1) << 31));
    CHECK(plan.sets[H] <= (255 + plan.c[H]) / plan.c[H]);
  }
}
