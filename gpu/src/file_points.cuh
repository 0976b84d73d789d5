// A bellperson .params file's points made ours on the device (zk/groth16/types.hpp: file_points),
// so that the host does no per-point work for a GPU proof: the section's bytes are uploaded as the
// file stores them (through the pinned staging buffers, straight from the mapping, as a .zkey's
// points are) into the section's own device buffer, and one thread per point rewrites its point in
// place. The trick that makes in place work: a point in the file's form (big-endian x || y, G2
// coordinates c1 first) has exactly the size of ours (little-endian Montgomery x || y, c0 first):
// 96 bytes in G1, 192 in G2, so point i is read and written at the same offset.
//
// Per point, the host decoder's fast path (zk/io/bellperson.cpp), same verdicts: no flag bit set
// (byte 0's top three bits: compressed, infinity, sign), every coordinate below p, then into
// Montgomery form (a product with R^2), not (0, 0), and y^2 = x^3 + b. A point that fails lowers
// `bad` (atomicMin) to its index; the caller reads it after the section and asks the host to name
// the point (file_points::describe: the host decoder's message for that one point).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace cuzk::gpu {

// The n points (96-byte G1 or 192-byte G2) at `dev`, in place, on `stream`. *bad (device memory)
// must start at ~0 (no bad point) and ends at the lowest bad index.
void convert_file_points(void* dev, std::size_t n, bool g2, unsigned long long* bad, cudaStream_t stream);

}  // namespace cuzk::gpu
