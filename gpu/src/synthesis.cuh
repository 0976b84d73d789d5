// Synthesis on the device: a = A·w, b = B·w, c = a∘b from the key's constraint matrices (the
// evaluator's CSR, kept resident like the points), so a proof uploads only its witness.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuzk/gpu/fields.cuh"

namespace cuzk::gpu {

// One matrix on the device, laid out as zk::groth16::csr_matrix.
struct csr_view {
  const uint64_t* row_start = nullptr;  // rows + 1
  const uint32_t* signal = nullptr;
  const fr_d* coeff = nullptr;           // stored coefficients (coef * R^2: see zk/groth16/pce.hpp)
  std::size_t rows = 0;
};

// w: canonical witness values (the stored coefficient times the raw bits is coef * w in
// Montgomery form). Rows past a matrix's last row are zero. a, b, c: n entries each.
void synthesize_device(const csr_view& A, const csr_view& B, const fr_d* w, std::size_t n, fr_d* a, fr_d* b, fr_d* c,
                       cudaStream_t s);

// out[i] = w[wires[i]] for i < count (32-byte scalars): the witness at a bellperson key's
// density-filtered A or B wires.
void gather_witness(const uint64_t* w, const uint32_t* wires, std::size_t count, uint64_t* out, cudaStream_t s);

}  // namespace cuzk::gpu
