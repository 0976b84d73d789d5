// The three placements of a device key, as a pure planner: host code with no CUDA type, so the
// choice for any card and shape is testable without a device (cuzk_gpu_tests "[placement]").
#pragma once

#include <cstddef>

namespace cuzk::gpu {

// Where a device key's points live. Each section keeps a prefix of its points on the device; the
// rest stays in pinned host memory and is streamed through two device buffers of `chunk` points,
// the copy of chunk k + 1 under the MSM of chunk k. Resident: every point on the device (then the
// shifted sets of key_placement.hpp may add to it); partly resident: some; streamed: none.
enum class key_placement { resident, partly_resident, streamed };
const char* placement_name(key_placement p);

// The order in which sections keep their points on the device, those that save the most per byte
// first: A, B1 and L have bit scalars (their MSMs are mostly skipped zeros and summed ones, far
// faster than a copy of their points), then B2 (G2: twice the bytes a point, a slower MSM), then H
// last (dense scalars: its MSM takes about as long as the copy of its points, which hides under it).
inline constexpr int residency_order[5] = {0, 1, 3, 2, 4};

struct placement_plan {
  static constexpr int sections = 5;
  key_placement kind = key_placement::resident;
  std::size_t n[sections] = {};
  std::size_t on_device[sections] = {};  // each section's prefix on the device (points)
  // Points a streamed chunk, and the longest MSM run of a proof (0: whole: nothing streamed, the
  // MSMs as long as their lanes allow; a resident key whose whole proof scratch does not fit runs
  // its MSMs in runs of `chunk` with no buffers).
  std::size_t chunk = 0;
  std::size_t point_bytes_streamed = 0;  // the largest point streamed (96 or 192): the buffers' unit
  std::size_t device_points_bytes = 0;   // the prefixes' bytes
  std::size_t host_bytes = 0;            // the streamed points' bytes (pinned host; copied every proof)
  bool fits = true;                      // false: the room does not hold even the two buffers
  std::size_t streamed(int k) const { return n[k] - on_device[k]; }
  std::size_t stream_buffer_bytes() const { return 2 * chunk * point_bytes_streamed; }
  std::size_t device_bytes() const { return device_points_bytes + stream_buffer_bytes(); }
};

// The placement of sections of n[k] points of point_bytes[k] bytes in `room` device bytes: all of
// them when they fit (resident), else the two stream buffers of `chunk_most` points (halved while
// they would take more than a quarter of the room, not below 2^16) and, in residency_order, the
// longest prefixes the rest of the room holds. Pure, so that a key's grant, its load and a report
// (`cuzk doctor`) compute the same plan from the same numbers.
placement_plan plan_placement(const std::size_t (&n)[placement_plan::sections],
                              const std::size_t (&point_bytes)[placement_plan::sections], std::size_t room,
                              std::size_t chunk_most = std::size_t(1) << 22);

}  // namespace cuzk::gpu
