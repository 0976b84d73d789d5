// The compact recorded evaluator (zk/groth16/pce_compact.hpp) on the device: a Filecoin key's A and B
// as recorded (u16 row lengths, the entry offset of every 4096-row block, u32 signals, u16
// coefficient indices, the table of distinct coefficients), uploaded once and kept with the key
// (device_key::compact), so that a partition uploads its witness only (4.2 GB at 32 GiB instead of
// 17 GB with a, b, c) and a = A·w, b = B·w, c = a∘b are computed here.
//
// The trick that keeps it at 6 bytes a non-zero on the device as on the host: no per-row offsets
// are stored. One thread block takes one 4096-row block: its threads read the block's 4096
// lengths, scan them in shared memory (the block's entry offset + the prefix sum gives every row's
// start). PoRep's rows are short but for a few: at 2 KiB, 99.7% of A's rows have 1-4 terms, while
// 0.1% (SHA-256's modular additions, 257-1024 terms of powers of two) hold 34% of its entries. A
// thread walking such a row alone holds its warp and its block for hundreds of dependent steps (the
// a thread per row took ~9x longer at 32 GiB: docs/benchmarks.md). So the block first lists its long rows (more than
// compact_kernel_options::long_row terms) and sums each with a whole warp (lane l takes entries
// l, l + 32, ...: coalesced index reads, 32 gathers in flight; a shuffle butterfly adds the lanes'
// sums), writing it to a or b; after a barrier thread t evaluates the short rows t, t + T, ...
// (neighbouring rows' entries are neighbours, so a warp's reads and its writes of a, b, c stay
// together) and reads the long rows' sums back for c. Field sums are exact, so the split changes
// no byte of the result. ±1 (indices 0 and 1) are added or subtracted without a product, as on the
// host; witness values and coefficients are read 16 bytes at a time through the read-only path.
//
// The witness is the staged one, canonical: each value is read as a Montgomery form (value / R) and
// each row's sum multiplied by R once (the product with R^2's limbs), the host's evaluate(witness)
// trick. Rows past the circuit's constraints are bellperson's input rows (a = input i) and zeros up
// to the domain size, as pce_compact::evaluate_into writes them.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "common.cuh"
#include "cuzk/gpu/cuda_backend.hpp"
#include "cuzk/gpu/fields.cuh"

namespace cuzk::zk::groth16 {
class pce_compact;
}

namespace cuzk::gpu {

struct device_context;

struct compact_matrix_d {
  const uint16_t* lens = nullptr;
  const uint64_t* blocks = nullptr;
  const uint32_t* signals = nullptr;
  const uint16_t* coeffs = nullptr;
};

// What the kernel reads: device pointers and the circuit's counts.
struct compact_view {
  compact_matrix_d a, b;
  const fr_d* table = nullptr;  // Montgomery
  uint32_t n_coeffs = 0;
  uint64_t n_inputs = 0, n_aux = 0, n_constraints = 0, n = 0;  // n: the domain size
  fr_d r2;  // the limbs of R^2 mod r: a product with them turns value / R into value
};

// One evaluator on one device: one allocation (lengths, blocks, signals, indices of A then B, the
// table; each part 256-byte aligned) that its owner (a device key) counts in its bytes.
struct device_compact {
  dbuf<unsigned char> dev;
  compact_view view;
  const zk::groth16::pce_compact* source = nullptr;
};

// The device bytes upload_compact takes for `e`.
std::size_t compact_device_bytes(const zk::groth16::pce_compact& e);

// Uploads `e` (on the context's staging stream; the compute stream waits for it by event), then
// checks every signal and coefficient index on the device once: throws std::runtime_error naming
// the matrix when one is out of range (a damaged file: the kernel would read outside the witness).
device_compact upload_compact(device_context& ctx, const zk::groth16::pce_compact& e);

// a, b, c (n entries each, Montgomery) from the canonical witness w (inputs then aux, 4 limbs each).
void evaluate_compact(const compact_view& e, const uint64_t* w, fr_d* a, fr_d* b, fr_d* c, cudaStream_t s,
                      const compact_kernel_options& k = {});

}  // namespace cuzk::gpu
