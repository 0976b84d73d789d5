#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "compact_evaluator.cuh"
#include "device_context.cuh"
#include "zk/groth16/pce_compact.hpp"

namespace cuzk::gpu {

namespace {

constexpr unsigned rows_per_block = zk::groth16::pce_block_rows;  // 4096
constexpr unsigned threads = 256, per_thread = rows_per_block / threads;
static_assert(rows_per_block % threads == 0);

constexpr std::size_t align256(std::size_t x) { return (x + 255) & ~std::size_t(255); }

std::uint64_t blocks_of(std::uint64_t rows) { return (rows + rows_per_block - 1) / rows_per_block; }

// One matrix row: the sum of its terms (see the header comment).
__device__ __forceinline__ fr_d row_sum(const compact_matrix_d& m, uint64_t k, uint32_t len, const compact_view& e,
                                        const fr_d* __restrict__ w) {
  fr_d acc = fr_d::zero();
  const fr_d* aux = w + e.n_inputs;
  for (const uint64_t end = k + len; k < end; ++k) {
    const uint32_t s = m.signals[k];
    const uint16_t ci = m.coeffs[k];
    const fr_d& v = (s & zk::groth16::pce_input_bit) ? w[s & ~zk::groth16::pce_input_bit] : aux[s];
    if (ci == 0) acc = acc + v;
    else if (ci == 1) acc = acc - v;
    else acc = acc + e.table[ci] * v;
  }
  return acc * e.r2;
}

// The block's row starts: `start[i]` = the entry offset of row r0 + i (lengths scanned in place).
template <class Scan>
__device__ __forceinline__ void row_starts(const uint16_t* lens, uint64_t r0, unsigned rows, uint32_t* start,
                                           typename Scan::TempStorage& tmp) {
  uint32_t items[per_thread];
  const unsigned first = threadIdx.x * per_thread;
#pragma unroll
  for (unsigned i = 0; i < per_thread; ++i) items[i] = first + i < rows ? lens[r0 + first + i] : 0;
  Scan(tmp).ExclusiveSum(items, items);
#pragma unroll
  for (unsigned i = 0; i < per_thread; ++i) start[first + i] = items[i];
}

__global__ void __launch_bounds__(threads) compact_rows_kernel(compact_view e, const fr_d* __restrict__ w, fr_d* a,
                                                                fr_d* b, fr_d* c) {
  using Scan = cub::BlockScan<uint32_t, threads>;
  __shared__ typename Scan::TempStorage tmp;
  __shared__ uint32_t start_a[rows_per_block + 1], start_b[rows_per_block + 1];
  const uint64_t j = blockIdx.x, r0 = j * rows_per_block;
  const uint64_t left = e.n_constraints - r0;
  const unsigned rows = left < rows_per_block ? unsigned(left) : rows_per_block;
  row_starts<Scan>(e.a.lens, r0, rows, start_a, tmp);
  __syncthreads();
  row_starts<Scan>(e.b.lens, r0, rows, start_b, tmp);
  __syncthreads();
  const uint64_t ka = e.a.blocks[j], kb = e.b.blocks[j];
  for (unsigned i = threadIdx.x; i < rows; i += threads) {
    const uint64_t r = r0 + i;
    const fr_d x = row_sum(e.a, ka + start_a[i], e.a.lens[r], e, w);
    const fr_d y = row_sum(e.b, kb + start_b[i], e.b.lens[r], e, w);
    a[r] = x;
    b[r] = y;
    c[r] = x * y;
  }
}

// Rows n_constraints .. n - 1: bellperson's input rows (a = input i), then zeros.
__global__ void compact_tail_kernel(compact_view e, const fr_d* __restrict__ w, fr_d* a, fr_d* b, fr_d* c) {
  const uint64_t t = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x, r = e.n_constraints + t;
  if (r >= e.n) return;
  a[r] = t < e.n_inputs ? w[t] * e.r2 : fr_d::zero();
  b[r] = fr_d::zero();
  c[r] = fr_d::zero();
}

// Counts the entries whose signal or coefficient index is out of range.
__global__ void compact_check_kernel(const uint32_t* signals, const uint16_t* coeffs, uint64_t entries,
                                     uint64_t n_inputs, uint64_t n_aux, uint32_t n_coeffs, unsigned long long* bad) {
  unsigned long long mine = 0;
  for (uint64_t k = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < entries; k += uint64_t(gridDim.x) * blockDim.x) {
    const uint32_t s = signals[k];
    const bool in = (s & zk::groth16::pce_input_bit) != 0;
    const uint64_t i = s & ~zk::groth16::pce_input_bit;
    if ((in ? i >= n_inputs : s >= n_aux) || coeffs[k] >= n_coeffs) ++mine;
  }
  if (mine) atomicAdd(bad, mine);
}

struct parts {
  std::size_t lens, blocks, signals, coeffs;
};
parts parts_of(const zk::groth16::pce_compact& e, const zk::groth16::pce_compact::matrix_view& m) {
  return {align256(e.n_constraints() * 2), align256(blocks_of(e.n_constraints()) * 8), align256(m.entries * 4),
          align256(m.entries * 2)};
}

}  // namespace

std::size_t compact_device_bytes(const zk::groth16::pce_compact& e) {
  std::size_t t = align256(e.coefficients() * sizeof(fr_d));
  for (const auto* m : {&e.matrix_a(), &e.matrix_b()}) {
    const parts p = parts_of(e, *m);
    t += p.lens + p.blocks + p.signals + p.coeffs;
  }
  return t;
}

device_compact upload_compact(device_context& ctx, const zk::groth16::pce_compact& e) {
  static_assert(sizeof(zk::bls12_381::fr) == sizeof(fr_d));
  device_compact d;
  d.source = &e;
  d.dev = ctx.alloc(compact_device_bytes(e), "cuda: the compact constraint evaluator");
  unsigned char* p = d.dev.get();
  auto put = [&](const void* src, std::size_t bytes, std::size_t room) {
    void* at = p;
    if (bytes) ctx.upload_async(at, src, bytes);
    p += room;
    return at;
  };
  auto matrix = [&](const zk::groth16::pce_compact::matrix_view& m, compact_matrix_d& out) {
    const parts q = parts_of(e, m);
    out.lens = static_cast<const uint16_t*>(put(m.lens, e.n_constraints() * 2, q.lens));
    out.blocks = static_cast<const uint64_t*>(put(m.blocks, blocks_of(e.n_constraints()) * 8, q.blocks));
    out.signals = static_cast<const uint32_t*>(put(m.signals, m.entries * 4, q.signals));
    out.coeffs = static_cast<const uint16_t*>(put(m.coeffs, m.entries * 2, q.coeffs));
  };
  compact_view& v = d.view;
  matrix(e.matrix_a(), v.a);
  matrix(e.matrix_b(), v.b);
  v.table = static_cast<const fr_d*>(put(e.table().data(), e.table().size_bytes(), align256(e.table().size_bytes())));
  v.n_coeffs = uint32_t(e.coefficients());
  v.n_inputs = e.n_inputs();
  v.n_aux = e.n_aux();
  v.n_constraints = e.n_constraints();
  v.n = e.domain_size();
  const auto r2 = zk::bls12_381::fr::R2;
  std::memcpy(&v.r2, r2.limb.data(), sizeof v.r2);

  // The one check of every entry, on the compute stream (after the uploads, by event).
  unsigned long long* bad = nullptr;
  CUZK_CUDA(cudaMallocAsync(&bad, 2 * sizeof(unsigned long long), ctx.compute));
  count_malloc_async(2 * sizeof(unsigned long long));
  CUZK_CUDA(cudaMemsetAsync(bad, 0, 2 * sizeof(unsigned long long), ctx.compute));
  const compact_matrix_d* ms[2] = {&v.a, &v.b};
  const std::uint64_t entries[2] = {e.matrix_a().entries, e.matrix_b().entries};
  for (int i = 0; i < 2; ++i)
    if (entries[i]) {
      compact_check_kernel<<<std::max(1u, std::min(4096u, blocks_for(entries[i], 256))), 256, 0, ctx.compute>>>(
          ms[i]->signals, ms[i]->coeffs, entries[i], v.n_inputs, v.n_aux, v.n_coeffs, bad + i);
      CUZK_LAUNCHED();
    }
  unsigned long long found[2] = {0, 0};
  CUZK_CUDA(cudaMemcpyAsync(found, bad, sizeof found, cudaMemcpyDeviceToHost, ctx.compute));
  CUZK_CUDA(cudaFreeAsync(bad, ctx.compute));
  CUZK_CUDA(cudaStreamSynchronize(ctx.compute));
  for (int i = 0; i < 2; ++i)
    if (found[i])
      throw std::runtime_error(std::string("compact evaluator: matrix ") + (i ? "B" : "A") + " has " +
                               std::to_string(found[i]) + " entries with a signal or coefficient index out of range");
  return d;
}

void evaluate_compact(const compact_view& e, const uint64_t* w, fr_d* a, fr_d* b, fr_d* c, cudaStream_t s) {
  const auto* wf = reinterpret_cast<const fr_d*>(w);
  const uint64_t blocks = blocks_of(e.n_constraints);
  if (blocks) {
    compact_rows_kernel<<<unsigned(blocks), threads, 0, s>>>(e, wf, a, b, c);
    CUZK_LAUNCHED();
  }
  if (e.n > e.n_constraints) {
    compact_tail_kernel<<<blocks_for(e.n - e.n_constraints, 256), 256, 0, s>>>(e, wf, a, b, c);
    CUZK_LAUNCHED();
  }
}

}  // namespace cuzk::gpu
