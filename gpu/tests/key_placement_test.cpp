// The placement of shifted sets over a key's sections (plan_shifted_sets) and the bytes it implies
// (device_key_bytes): host code only, no device needed.
#include <catch2/catch.hpp>

#include <cstdint>

#include "cuzk/gpu/key_placement.hpp"
#include "cuzk/gpu/placement_plan.hpp"
#include "cuzk/gpu/msm_groups.hpp"
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
    // 14 GB with 4 windows sorted at a time, not 33 GB with all 12) and two staged partitions:
    // 87.3 GB of sets.
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

namespace {
// A model of a proof's MSM lane scratch for the placement's room (the real one is msm.cuh's
// msm_scratch_bytes, which needs a device for CUB's temp): the sort's 16 B per digit pair of one
// group of bucket arrays (msm_group_arrays: at most msm_group_pairs, at least one array of S windows) and the arrays' buckets.
std::size_t model_lane(std::size_t n, unsigned S, unsigned c, std::size_t point_bytes) {
  if (S <= 1) c = 22, S = 1;
  const unsigned W = (255 + c) / c, arrays = (W + S - 1) / S;
  const std::size_t group = gpu::msm_group_arrays(n, S, arrays);
  const std::size_t pairs = n * std::min<std::size_t>(group * S, W);
  return 16 * pairs + std::size_t(arrays) * (std::size_t(1) << (c - 1)) * 2 * point_bytes;
}
}  // namespace

TEST_CASE("one budget for the plan and the load: the room counts each section's lane scratch", "[placement]") {
  const shaped_key key(129753620, 33112282, 130169893, (std::size_t(1) << 27) - 1);
  // The G1 lane's length: a proof's longest G1 MSM (bellperson's H runs over the domain, 2^27).
  const std::size_t g1_len = std::size_t(1) << 27, h_set = key.n(H) * 96;
  const std::uint64_t plain = gpu::device_key_bytes(key.kp, shift_policy{});
  auto with_lanes = [&](shift_policy p) {
    p.lane_scratch = [&](int k, unsigned S, unsigned c) {
      return k == B2 ? model_lane(key.n(B2), S, c, 192) : model_lane(g1_len, S, c, 96);
    };
    return p;
  };
  const shift_policy lanes_only = with_lanes(shift_policy{});
  const std::size_t plain_g1 = lanes_only.lane_scratch(H, 1, 0), plain_g2 = lanes_only.lane_scratch(B2, 1, 0);
  // The plan's lanes are what a proof's lanes take with its sets, and fit the room beside them.
  auto check = [&](const shift_policy& p, const sets_plan& plan) {
    std::size_t g1 = plain_g1, g2 = plain_g2;
    for (int k = 0; k < 5; ++k) {
      if (k == B2) g2 = std::max(g2, p.lane_scratch(k, plan.sets[k], plan.sets[k] > 1 ? plan.c[k] : 0));
      else g1 = std::max(g1, p.lane_scratch(k, plan.sets[k], plan.sets[k] > 1 ? plan.c[k] : 0));
    }
    CHECK(plan.lane[0] == g1);
    CHECK(plan.lane[1] == g2);
    CHECK(plan.scratch_extra == g1 + g2 - plain_g1 - plain_g2);
    CHECK(plan.extra + plan.scratch_extra <= p.room);
    CHECK(plan.extra <= p.budget);
    // The grant (device_key_bytes + a proof's scratch) is the plain key's, the sets' and the lanes'.
    CHECK(gpu::device_key_bytes(key.kp, p) == plain + plan.extra);
  };

  SECTION("no budget: plain lanes, no sets") {
    const sets_plan plan = key.plan(lanes_only);
    CHECK(plan.lane[0] == plain_g1);
    CHECK(plan.lane[1] == plain_g2);
    CHECK(plan.extra == 0);
    CHECK(plan.scratch_extra == 0);
  }
  SECTION("the H200 at 32 GiB with three staged partitions (~53 GB of room): H 4 sets whose scratch fits, not 6") {
    // 150.1 GB less the plain key with its device evaluator (63.5), a proof's plain scratch (~20),
    // three staged witnesses (12.5) and the margin (0.5), as the engine measured it
    // (docs/benchmarks.md "PoRep 32 GiB through the engine").
    shift_policy p = with_lanes(shift_policy{SIZE_MAX});
    p.room = std::size_t(53) * 1000000000;
    const sets_plan plan = key.plan(p);
    CHECK(plan.most[H] == 11);
    CHECK(plan.sets[H] == 4);  // 6 (64.4 GB of sets and ~5 GB more sort) does not fit
    CHECK(plan.c[H] == 24);
    CHECK(std::string(plan.fewer[H]) == "room");
    check(p, plan);
    // H's lane with 4 sets (one array of 4 windows sorted at a time) is no larger than the plain one.
    CHECK(p.lane_scratch(H, 4, 24) <= p.lane_scratch(H, 6, 24));
  }
  SECTION("room for 6 sets with their scratch: H 6") {
    shift_policy p = with_lanes(shift_policy{SIZE_MAX});
    const std::size_t grow = p.lane_scratch(H, 6, 24) - plain_g1;
    p.room = 5 * h_set + grow;
    const sets_plan plan = key.plan(p);
    CHECK(plan.sets[H] == 6);
    check(p, plan);
    // One byte less: the scratch does not fit whole, so 4 (the same 3 arrays as 5).
    p.room -= 1;
    const sets_plan fewer = key.plan(p);
    CHECK(fewer.sets[H] == 4);
    check(p, fewer);
  }
  SECTION("an explicit size above the room is trimmed to it, as auto") {
    shift_policy p = with_lanes(shift_policy{std::size_t(200) * 1000000000});
    p.room = std::size_t(53) * 1000000000;
    shift_policy autop = p;
    autop.budget = SIZE_MAX;
    const sets_plan plan = key.plan(p), as_auto = key.plan(autop);
    for (int k = 0; k < 5; ++k) CHECK(plan.sets[k] == as_auto.sets[k]);
    CHECK(plan.extra == as_auto.extra);
    check(p, plan);
    // An explicit size below the room decides: 36.1 GiB (38.8 GB) gives H 4 (38.7 GB) and nothing else.
    p.budget = std::size_t(361) * (std::size_t(1) << 30) / 10;
    p.room = SIZE_MAX - 1;
    const sets_plan small = key.plan(p);
    CHECK(small.sets[H] == 4);
    for (int k : {A, B1, B2, C}) CHECK(small.sets[k] == 1);
    CHECK(std::string(small.fewer[H]) == "budget");
    check(p, small);
  }
  SECTION("no room: no sets, whatever the budget") {
    shift_policy p = with_lanes(shift_policy{SIZE_MAX});
    p.room = 0;
    const sets_plan plan = key.plan(p);
    for (int k = 0; k < 5; ++k) CHECK(plan.sets[k] == 1);
    check(p, plan);
  }
}

TEST_CASE("a group of bucket arrays holds at most msm_group_pairs pairs, unless one array has more", "[placement][msm_groups]") {
  using gpu::msm_group_arrays;
  using gpu::msm_group_pairs;
  // PoRep's H at 2^27: four windows of plain bases, or one array of 4 sets, fill a group exactly.
  CHECK(msm_group_arrays(std::size_t(1) << 27, 1, 12) == 4);
  CHECK(msm_group_arrays(std::size_t(1) << 27, 4, 3) == 1);
  // One point fewer must not take one array more: before, 2^27 - 1 on 4 sets grouped two arrays.
  CHECK(msm_group_arrays((std::size_t(1) << 27) - 1, 4, 3) == 1);
  CHECK(msm_group_arrays((std::size_t(1) << 27) - 1, 1, 12) == 4);
  // A small MSM is one group of all its arrays; an array bigger than the cap is a group alone.
  CHECK(msm_group_arrays(std::size_t(1) << 24, 1, 13) == 13);
  CHECK(msm_group_arrays(std::size_t(1) << 28, 4, 3) == 1);
  for (std::size_t n : {std::size_t(1), std::size_t(1000), (std::size_t(1) << 26) + 1, (std::size_t(1) << 27) - 1,
                        std::size_t(3) << 25, std::size_t(1) << 30})
    for (unsigned sets : {1u, 2u, 4u, 11u})
      for (unsigned arrays : {1u, 3u, 12u, 22u}) {
        INFO("n = " << n << ", sets = " << sets << ", arrays = " << arrays);
        const unsigned g = msm_group_arrays(n, sets, arrays);
        CHECK(g >= 1);
        CHECK(g <= arrays);
        if (g > 1) CHECK(std::size_t(g) * sets * n <= msm_group_pairs);
        if (g < arrays) CHECK(std::size_t(g + 1) * sets * n > msm_group_pairs);
      }
}

// The 32 GiB PoRep key on the H200 (docs/benchmarks.md, "PoRep 32 GiB through the engine"): its
// sections, the G1 lane at 2^27 (bellperson's H over the domain), B2's lane at b2_lane_points, both
// by msm_lane_scratch, the proof's own formula (the sort's CUB temp modelled at 40 MB: the device's
// printed lanes, 14.4 and 11.1 GB, put it between ~25 and ~60 MB). The room is the device's figure for three staged
// partitions (its key store line: "room 22.5 GB, staged partitions 12.5 GB"), and what
// policy_for adds to it: a staged partition fewer (its witness, the compact evaluator's path), the
// plain G2 lane's bytes that a smaller B2 lane does not take.
TEST_CASE("the 32 GiB key on the H200: H's third set with two staged partitions, or with B2's lane at half its points",
          "[placement][staging]") {
  const shaped_key key(129753620, 33112282, 130169893, (std::size_t(1) << 27) - 1);
  const std::size_t g1_len = std::size_t(1) << 27, nb = key.n(B2), nv = key.n(C) + 328;
  constexpr int sms = 132;
  constexpr std::size_t cub_temp = std::size_t(40) << 20, GB = 1000000000;
  auto lanes = [&](double share) {
    shift_policy p{SIZE_MAX};
    p.lane_scratch = [=](int k, unsigned S, unsigned c) {
      const unsigned cs = S > 1 ? c : 0;
      return k == B2 ? gpu::msm_lane_scratch(true, gpu::b2_lane_points(nb, share), sms, cs, S, 0, 0, cub_temp)
                     : gpu::msm_lane_scratch(false, g1_len, sms, cs, S, 0, 0, cub_temp);
    };
    return p;
  };
  const std::size_t partition = zk::groth16::staged_bytes(g1_len, nv, true);
  CHECK(partition == nv * 32);  // 4.17 GB: the witness
  const shift_policy today = lanes(1);
  // The model gives the device's plain lanes: "the plan's MSM lane scratch G1 14.4 GB, G2 11.1 GB".
  const std::size_t g1_plain = today.lane_scratch(H, 1, 0), g2_plain = today.lane_scratch(B2, 1, 0);
  CHECK(g1_plain > std::size_t(14.35 * GB));
  CHECK(g1_plain < std::size_t(14.45 * GB));
  CHECK(g2_plain > std::size_t(11.05 * GB));
  CHECK(g2_plain < std::size_t(11.15 * GB));
  const std::size_t room3 = std::size_t(22.5 * GB), h_set = key.n(H) * 96;
  auto plan_at = [&](unsigned staged, double share) {
    shift_policy p = lanes(share);
    p.room = room3 + (3 - staged) * partition + g2_plain - p.lane_scratch(B2, 1, 0);
    return std::pair{p, key.plan(p)};
  };
  auto planned_in_room = [&](const shift_policy& p, const sets_plan& plan) {
    CHECK(plan.extra + plan.scratch_extra <= p.room);
    CHECK(plan.lane[0] == std::max(g1_plain, p.lane_scratch(H, plan.sets[H], plan.c[H])));
  };

  SECTION("three staged (device_depth + 1), B2's lane whole: the device's plan, H 2 sets (c 22) and B1 4") {
    auto [p, plan] = plan_at(3, 1);
    CHECK(plan.sets[H] == 2);
    CHECK(plan.c[H] == 22);
    CHECK(std::string(plan.fewer[H]) == "room");
    CHECK(plan.sets[B1] == 4);
    for (int k : {A, B2, C}) CHECK(plan.sets[k] == 1);
    CHECK(plan.extra == h_set + 3 * key.n(B1) * 96);  // 22.4 GB, the device's "plan's 22.4 GB"
    CHECK(plan.lane[0] == g1_plain);                  // H's lane on 2 sets is no larger than the plain one
    planned_in_room(p, plan);
    // H's third set (25.8 GB) is 3.3 GB beyond the room.
    CHECK(2 * h_set > p.room);
    CHECK(2 * h_set - p.room > std::size_t(3.2 * GB));
  }
  SECTION("two staged partitions (the engine's default at depth 2): H 3 sets (c 24, 4 bucket arrays), the rest plain") {
    auto [p, plan] = plan_at(2, 1);
    CHECK(plan.sets[H] == 3);
    CHECK(plan.c[H] == 24);
    for (int k : {A, B1, B2, C}) CHECK(plan.sets[k] == 1);
    CHECK(plan.extra == 2 * h_set);
    CHECK(plan.lane[0] == g1_plain);  // H's lane on 3 sets: no more than the plain one
    CHECK(plan.scratch_extra == 0);
    CHECK(p.room - plan.extra > std::size_t(0.8 * GB));  // 0.9 GB to spare
    // The device's room at two staged (as the key store reports it: "room 26.7 GB").
    CHECK(p.room > std::size_t(26.6 * GB));
    CHECK(p.room < std::size_t(26.8 * GB));
    planned_in_room(p, plan);
  }
  SECTION("three staged, B2's lane at half its points: H 3 sets; with two staged as well, B1 2 more") {
    const std::size_t half = gpu::b2_lane_points(nb, 0.5);
    CHECK(half == (nb + 1) / 2);
    auto [p, plan] = plan_at(3, 0.5);
    CHECK(g2_plain - p.lane_scratch(B2, 1, 0) > std::size_t(4 * GB));  // the lane 11.1 -> 6.8 GB
    CHECK(plan.sets[H] == 3);
    CHECK(plan.c[H] == 24);
    for (int k : {A, B1, B2, C}) CHECK(plan.sets[k] == 1);
    planned_in_room(p, plan);
    auto [p2, both] = plan_at(2, 0.5);
    CHECK(both.sets[H] == 3);
    CHECK(both.sets[B1] == 2);
    for (int k : {A, B2, C}) CHECK(both.sets[k] == 1);
    planned_in_room(p2, both);
  }
  SECTION("b2_lane_points: all of B2's points at a share of 1 or more, at least one, rounded up") {
    CHECK(gpu::b2_lane_points(nb, 1) == nb);
    CHECK(gpu::b2_lane_points(nb, 2) == nb);
    CHECK(gpu::b2_lane_points(10, 0.25) == 3);
    CHECK(gpu::b2_lane_points(10, 1e-9) == 1);
    CHECK(gpu::b2_lane_points(0, 0.5) == 0);
  }
}

namespace {
// A circuit's sections from its constraint count, in the proportions of the 32 GiB PoRep (A and L
// about every variable, B a quarter; H the domain less one).
struct circuit_shape {
  const char* name;
  std::size_t constraints;
  void sections(std::size_t (&n)[5]) const {
    std::size_t domain = 1;
    while (domain < constraints) domain <<= 1;
    n[A] = std::size_t(double(constraints) * 0.996);
    n[B1] = n[B2] = std::size_t(double(constraints) * 0.254);
    n[C] = std::size_t(double(constraints) * 0.999);
    n[H] = domain - 1;
  }
};
constexpr circuit_shape shapes[] = {
    {"porep-2KiB", 1199620},         {"porep-8MiB", 1459230},        {"porep-512MiB", 80000000},
    {"porep-32GiB", 130278869},      {"porep-64GiB", 134000000},     {"winning-post-32GiB", 3500000},
    {"window-post-2KiB", 27384},     {"window-post-32GiB", 125279217}};
constexpr std::size_t pbs[5] = {96, 96, 192, 96, 96};
}  // namespace

TEST_CASE("placement: resident where the key fits, else the buffers and the longest prefixes in residency order",
          "[placement]") {
  using gpu::key_placement;
  for (const auto& shape : shapes) {
    std::size_t n[5];
    shape.sections(n);
    std::size_t total = 0;
    for (int k = 0; k < 5; ++k) total += n[k] * pbs[k];
    for (std::size_t gb : {8, 12, 16, 20, 24, 32, 40, 48, 64, 80, 94, 141}) {
      const std::size_t room = gb * 1000000000;
      const gpu::placement_plan p = gpu::plan_placement(n, pbs, room);
      INFO(shape.name << " in " << gb << " GB: " << gpu::placement_name(p.kind));
      std::size_t on = 0, streamed = 0;
      for (int k = 0; k < 5; ++k) {
        CHECK(p.on_device[k] <= n[k]);
        on += p.on_device[k] * pbs[k];
        streamed += p.streamed(k) * pbs[k];
      }
      CHECK(on == p.device_points_bytes);
      if (total <= room) {
        CHECK(p.kind == key_placement::resident);
        CHECK(p.chunk == 0);
        CHECK(streamed == 0);
        CHECK(p.device_bytes() == total);
        continue;
      }
      REQUIRE(p.fits);
      CHECK(p.kind != key_placement::resident);
      CHECK(p.host_bytes == streamed);
      CHECK(on + streamed == total);
      CHECK(p.device_bytes() <= room);
      CHECK(p.stream_buffer_bytes() <= room / 4);
      CHECK(p.chunk >= (std::size_t(1) << 16));
      CHECK(p.chunk <= (std::size_t(1) << 22));
      // The buffers hold the widest point streamed.
      for (int k = 0; k < 5; ++k)
        if (p.streamed(k)) CHECK(pbs[k] <= p.point_bytes_streamed);
      // The first section that streams comes after every section before it in residency_order is
      // whole on the device, with less than one of its points of the room left; those after it
      // stream whole.
      bool short_seen = false;
      for (int k : gpu::residency_order) {
        if (short_seen) CHECK(p.on_device[k] == 0);
        if (p.streamed(k) && !short_seen) {
          CHECK(room - p.device_bytes() < pbs[k]);
          short_seen = true;
        }
      }
      CHECK(short_seen);
      CHECK((p.kind == key_placement::streamed) == (on == 0));
    }
  }
}

TEST_CASE("placement: the 32 GiB PoRep key on 80, 48, 24 and 16 GB of room", "[placement]") {
  using gpu::key_placement;
  const std::size_t n[5] = {129753620, 33112282, 33112282, 130169893, (std::size_t(1) << 27) - 1};
  // 47.37 GB of points: resident in 48 GB, H streamed in part at 40 GB, A alone at 16 GB.
  CHECK(gpu::plan_placement(n, pbs, 48000000000).kind == key_placement::resident);
  const gpu::placement_plan p40 = gpu::plan_placement(n, pbs, 40000000000);
  CHECK(p40.kind == key_placement::partly_resident);
  for (int k : {A, B1, C, B2}) CHECK(p40.streamed(k) == 0);
  CHECK(p40.streamed(H) > 0);
  CHECK(p40.point_bytes_streamed == 96);  // B2 stays: G1 buffers
  const gpu::placement_plan p16 = gpu::plan_placement(n, pbs, 16000000000);
  CHECK(p16.kind == key_placement::partly_resident);
  CHECK(p16.on_device[A] == n[A]);
  CHECK(p16.on_device[B1] > 0);
  for (int k : {B2, C, H}) CHECK(p16.on_device[k] == 0);
  CHECK(p16.point_bytes_streamed == 192);  // B2 streams: G2-sized buffers
  // Too small for two buffers of the least chunk: does not fit (the caller refuses the key).
  const gpu::placement_plan tiny = gpu::plan_placement(n, pbs, 2 * 96 * (std::size_t(1) << 16) - 1);
  CHECK_FALSE(tiny.fits);
}
