#include "common.cuh"
#include "synthesis.cuh"

namespace cuzk::gpu {

namespace {

__device__ __forceinline__ fr_d row_dot(const csr_view& m, std::size_t row, const fr_d* __restrict__ w) {
  fr_d acc = fr_d::zero();
  if (row >= m.rows) return acc;
  for (uint64_t k = m.row_start[row], end = m.row_start[row + 1]; k < end; ++k) acc += m.coeff[k] * w[m.signal[k]];
  return acc;
}

// One thread per row: a row has a handful of entries in the circuits we prove (the chain circuit
// three, Filecoin's a few), so a warp per row would idle most of its lanes.
__global__ void synthesize_kernel(csr_view A, csr_view B, const fr_d* __restrict__ w, std::size_t n, fr_d* a, fr_d* b,
                                  fr_d* c) {
  std::size_t row = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= n) return;
  fr_d x = row_dot(A, row, w), y = row_dot(B, row, w);
  a[row] = x;
  b[row] = y;
  c[row] = x * y;
}

__global__ void gather_kernel(const uint4* __restrict__ w, const uint32_t* __restrict__ wires, std::size_t count,
                              uint4* out) {
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const uint4* src = w + 2 * std::size_t(wires[i]);
  out[2 * i] = src[0];
  out[2 * i + 1] = src[1];
}

}  // namespace

void gather_witness(const uint64_t* w, const uint32_t* wires, std::size_t count, uint64_t* out, cudaStream_t s) {
  if (count == 0) return;
  gather_kernel<<<blocks_for(count, 256), 256, 0, s>>>(reinterpret_cast<const uint4*>(w), wires, count,
                                                       reinterpret_cast<uint4*>(out));
  CUZK_LAUNCHED();
}

void synthesize_device(const csr_view& A, const csr_view& B, const fr_d* w, std::size_t n, fr_d* a, fr_d* b, fr_d* c,
                       cudaStream_t s) {
  if (n == 0) return;
  synthesize_kernel<<<blocks_for(n, 256), 256, 0, s>>>(A, B, w, n, a, b, c);
  CUZK_LAUNCHED();
}

}  // namespace cuzk::gpu
