// The three placements of a device key (placement_plan.hpp).
#include "cuzk/gpu/placement_plan.hpp"

#include <algorithm>

namespace cuzk::gpu {

const char* placement_name(key_placement p) {
  switch (p) {
    case key_placement::resident: return "resident";
    case key_placement::partly_resident: return "partly resident";
    case key_placement::streamed: return "streamed";
  }
  return "?";
}

namespace {
// The prefixes that fit `avail` bytes, in residency_order.
void fill_prefixes(placement_plan& p, const std::size_t (&pb)[placement_plan::sections], std::size_t avail) {
  p.device_points_bytes = 0;
  for (int k : residency_order) {
    const std::size_t take = pb[k] ? std::min(p.n[k], avail / pb[k]) : p.n[k];
    p.on_device[k] = take;
    p.device_points_bytes += take * pb[k];
    avail = take == p.n[k] ? avail - take * pb[k] : 0;  // the sections after a short one stream whole
  }
}
}  // namespace

placement_plan plan_placement(const std::size_t (&n)[placement_plan::sections],
                              const std::size_t (&pb)[placement_plan::sections], std::size_t room,
                              std::size_t chunk_most) {
  placement_plan p;
  std::size_t total = 0;
  for (int k = 0; k < placement_plan::sections; ++k) {
    p.n[k] = n[k];
    total += n[k] * pb[k];
  }
  if (total <= room) {
    for (int k = 0; k < placement_plan::sections; ++k) p.on_device[k] = n[k];
    p.device_points_bytes = total;
    return p;
  }
  // Buffers for G1 points first; if a G2 section then streams, for its points (and plan again).
  constexpr std::size_t least = std::size_t(1) << 16;
  for (std::size_t unit : {std::size_t(96), std::size_t(192)}) {
    std::size_t chunk = std::max<std::size_t>(chunk_most, 1);
    while (chunk > least && 2 * chunk * unit > room / 4) chunk /= 2;
    p.chunk = chunk;
    p.point_bytes_streamed = unit;
    if (p.stream_buffer_bytes() > room) {
      p.fits = false;
      fill_prefixes(p, pb, 0);
      break;
    }
    fill_prefixes(p, pb, room - p.stream_buffer_bytes());
    std::size_t widest = 0;
    for (int k = 0; k < placement_plan::sections; ++k)
      if (p.streamed(k)) widest = std::max(widest, pb[k]);
    if (widest <= unit) break;
  }
  p.host_bytes = 0;
  std::size_t resident_points = 0;
  for (int k = 0; k < placement_plan::sections; ++k) {
    p.host_bytes += p.streamed(k) * pb[k];
    resident_points += p.on_device[k];
  }
  p.kind = resident_points == 0 ? key_placement::streamed : key_placement::partly_resident;
  return p;
}

}  // namespace cuzk::gpu
