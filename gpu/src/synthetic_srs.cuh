// The synthetic SRS generator on the device (zk/groth16/synthetic_srs.hpp; the walk is
// synthetic_srs_rng.hpp's): one thread per lane computes k_t G by double-and-add in XYZZ, then
// writes its run of points k_t G + j Q, each made affine with its own Fermat inversion (a lane's
// points are consecutive: writes coalesce poorly, but generation is compute-bound and runs once per
// key). Same bytes as the host generator.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstddef>

namespace cuzk::gpu {

// Points [first, first + count) of the n points of section `sec` (96-byte G1 or 192-byte G2 affine,
// Montgomery form) into device memory `dst` (dst[0] is point `first`), on `stream`: a key streamed
// from the host is made a chunk at a time, the same points as made whole. lanes 0:
// synthetic::lanes_for(n); count SIZE_MAX: to the end.
void synthetic_points(void* dst, std::size_t n, bool g2, std::uint64_t seed, std::uint32_t sec, std::uint64_t lanes,
                      cudaStream_t stream, std::size_t first = 0, std::size_t count = SIZE_MAX);

}  // namespace cuzk::gpu
