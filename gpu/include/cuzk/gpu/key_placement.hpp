// Where a device key's shifted sets go (gpu/src/device_key.cu): host-only declarations, so that the
// placement rule and the bytes it implies are testable without a device.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "zk/groth16/backend.hpp"
#include "zk/groth16/pce.hpp"

namespace cuzk::gpu {

// How many shifted sets the sections get. One budget for the plan (device_key_bytes, the grant the
// key store reserves) and the load (device_key's room check): the same numbers in both.
//  - budget: the bytes the sets may take beyond the plain copies (an explicit shifted_bases size;
//    SIZE_MAX: no cap of its own, the room decides).
//  - room: the device bytes left for the sets and for what they add to the MSM lanes' scratch,
//    once the plain key, a proof's plain scratch, the staged partitions, keep_free and the safety
//    margin are counted (cuda_backend's policy_for, from the VRAM budget); an explicit budget above
//    it is trimmed to it. SIZE_MAX: unbounded (tests of the order alone).
//  - lane_scratch(section, S, c): that section's MSM lane scratch with S sets of window c (S = 1, c
//    = 0: plain bases), as a proof sizes it (the G1 lane at the longest G1 run, B2's lane at
//    b2_lane_points); the G1 sections share one lane (its scratch: the most any of them needs).
//    Empty: the scratch is not counted (host tests of the order).
// No sets when the MSM window is forced (tests).
struct shift_policy {
  std::size_t budget = 0;
  std::size_t keep_free = 0;
  bool window_forced = false;
  // What the policy's staged partitions take beside the key, all of them (cuda_options::
  // staged_partitions x zk::groth16::staged_bytes: one partition's witness, and a, b, c unless a
  // compact evaluator makes them on the device); counted in the room, and again by the load's
  // check. The engine passes config::staged_partitions (by default max(2, device_depth)), the
  // number its key store admits a resident key with
  // (actors/key_store.cpp, admission_bytes): one rule for a key's staged room, with sets or without.
  std::size_t staged = 0;
  std::size_t room = SIZE_MAX;
  // A proof's scratch other than the two MSM lanes (NTT tables, the split's lists, result slots):
  // the load's check counts it beside the lanes.
  std::size_t fixed_scratch = 0;
  std::function<std::size_t(int section, unsigned sets, unsigned c)> lane_scratch = {};
};

// An MSM lane's scratch for n points on `sets` shifted sets of window c (sets 1: plain bases, with
// window c, or make_msm_shape's rule when c is 0; seg_len, affine_lanes: make_msm_shape's) on a
// device of `sms` SMs: the one formula of a proof's lanes (prover.cu's with_lanes, the plan's
// lane_scratch) and of the placement's host tests, which pass a cub_temp, the sort's temp bytes
// (SIZE_MAX: CUB's own figure, which needs a device). Defined in msm_common.cu.
std::size_t msm_lane_scratch(bool g2, std::size_t n, int sms, unsigned c, unsigned sets, unsigned seg_len = 0,
                             unsigned affine_lanes = 0, std::size_t cub_temp = SIZE_MAX);

// The points B2's lane (the side lane, the plan's G2 lane) is sized for: `share` of B2's nb points
// (cuda_options::b2_lane_share), at least one; share >= 1: all of them. A split B2's bucket method
// runs on its others only: in one run while they are at most this many, else in chunks of it.
inline std::size_t b2_lane_points(std::size_t nb, double share) {
  if (!(share < 1) || nb == 0) return nb;
  const double p = std::ceil(double(nb) * share);
  return p < 1 ? 1 : std::size_t(p);
}

// The placement of shifted sets over a key's five sections (key order: A, B1, B2, C, H), a pure
// function of the sections' sizes and the policy, so that device_key_bytes and the constructor
// agree. Where sets gain most per byte first: H (full random scalars, the largest G1 MSM), then
// the others in the order their MSMs run (A, B1, B2, C: bit-split, their others fewer). Each
// section takes the most sets (at most one per window of the best window for them, and sets x
// points < 2^31 for the 31-bit point indices) whose bytes fit the budget left and whose bytes plus
// the growth of their lane's scratch fit the room left, trimmed to the fewest that give the same
// number of bucket arrays, with the window the cost model picks for that many (msm.cuh: window j
// uses set j mod S and bucket array j div S). So a section never gets sets whose MSM would have to
// run in chunks for want of scratch beside the staged partitions.
struct sets_plan {
  static constexpr int sections = 5;
  unsigned sets[sections] = {1, 1, 1, 1, 1};  // 1: plain
  unsigned c[sections] = {};                  // window bits of the sets (0: plain)
  // The most sets the section's shape allows, before the budget and the room (1: none possible).
  unsigned most[sections] = {1, 1, 1, 1, 1};
  std::size_t extra = 0;          // bytes beyond the plain copies
  std::size_t lane[2] = {0, 0};   // the G1 and G2 lanes' scratch with these sets (0: not counted)
  std::size_t scratch_extra = 0;  // what the sets add to the lanes' scratch beyond the plain lanes'
  // Why a section got fewer than its most: "" (none fewer), "budget" (the explicit size), "room"
  // (the device beside the plain key, a proof's scratch and the staged partitions).
  const char* fewer[sections] = {"", "", "", "", ""};
};
sets_plan plan_shifted_sets(const std::size_t (&n)[sets_plan::sections],
                            const std::size_t (&point_bytes)[sets_plan::sections], const shift_policy& p);

// The sections' names in key order, for reports ("A", "B1", "B2", "L", "H").
const char* section_name(int k);

// The bytes of a device key of `key` with every set of plan_shifted_sets (the most it may take: the
// constructor skips a section's sets only when the device lacks the free memory, so a grant of
// this much always covers it), with `pce`'s device form when it is a compact evaluator (its
// sections and the a, b, c vectors).
std::uint64_t device_key_bytes(const zk::groth16::key_points& key, const shift_policy& policy,
                               const zk::groth16::constraint_evaluator* pce = nullptr);

}  // namespace cuzk::gpu
