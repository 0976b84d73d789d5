// Where a device key's shifted sets go (gpu/src/device_key.cu): host-only declarations, so that the
// placement rule and the bytes it implies are testable without a device.
#pragma once

#include <cstddef>
#include <cstdint>

#include "zk/groth16/backend.hpp"
#include "zk/groth16/pce.hpp"

namespace cuzk::gpu {

// How many shifted sets the sections get: their extra bytes (in all) within `budget`, and at load
// `keep_free` bytes plus the MSMs' scratch still free on the device. No sets when the MSM window is
// forced (tests).
struct shift_policy {
  std::size_t budget = 0;
  std::size_t keep_free = 0;
  bool window_forced = false;
  // What two staged partitions of the key take beside it (their witnesses, and a, b, c unless a
  // compact evaluator makes them on the device), for the room check at load; 0: not known, the
  // check assumes 8 scalars a point of the section.
  std::size_t staged = 0;
};

// The placement of shifted sets over a key's five sections (key order: A, B1, B2, C, H), a pure
// function of the sections' sizes and the policy, so that device_key_bytes and the constructor
// agree. Where sets gain most per byte first: H (full random scalars, the largest G1 MSM), then
// the others in the order their MSMs run (A, B1, B2, C: bit-split, their others fewer). Each
// section takes as many sets as the budget left allows (2 at least; at most one per window of
// the best window for them, and sets x points < 2^31 for the 31-bit point indices), trimmed to
// the fewest that give the same number of bucket arrays, with the window the cost model picks
// for that many (msm.cuh: window j uses set j mod S and bucket array j div S).
struct sets_plan {
  static constexpr int sections = 5;
  unsigned sets[sections] = {1, 1, 1, 1, 1};  // 1: plain
  unsigned c[sections] = {};                  // window bits of the sets (0: plain)
  std::size_t extra = 0;                      // bytes beyond the plain copies
};
sets_plan plan_shifted_sets(const std::size_t (&n)[sets_plan::sections],
                            const std::size_t (&point_bytes)[sets_plan::sections], const shift_policy& p);

// The bytes of a device key of `key` with every set of plan_shifted_sets (the most it may take: the
// constructor skips a section's sets only when the device lacks the free memory, so a grant of
// this much always covers it), with `pce`'s device form when it is a compact evaluator (its
// sections and the a, b, c vectors).
std::uint64_t device_key_bytes(const zk::groth16::key_points& key, const shift_policy& policy,
                               const zk::groth16::constraint_evaluator* pce = nullptr);

}  // namespace cuzk::gpu
