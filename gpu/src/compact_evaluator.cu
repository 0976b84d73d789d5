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

constexpr std::size_t align256(std::size_t x) { return (x + 255) & ~std::size_t(255); }

std::uint64_t blocks_of(std::uint64_t rows) { return (rows + rows_per_block - 1) / rows_per_block; }

// 32 bytes in two 16-byte loads through the read-only path (the witness and the coefficient table
// are 32-byte aligned: device allocations are 256-aligned), and the store the same way.
__device__ __forceinline__ fr_d load_fr(const fr_d* p) {
  const uint4* s = reinterpret_cast<const uint4*>(p);
  const uint4 lo = __ldg(s), hi = __ldg(s + 1);
  fr_d r;
  r.v[0] = lo.x, r.v[1] = lo.y, r.v[2] = lo.z, r.v[3] = lo.w;
  r.v[4] = hi.x, r.v[5] = hi.y, r.v[6] = hi.z, r.v[7] = hi.w;
  return r;
}
__device__ __forceinline__ void store_fr(fr_d* p, const fr_d& x) {
  uint4* d = reinterpret_cast<uint4*>(p);
  d[0] = make_uint4(x.v[0], x.v[1], x.v[2], x.v[3]);
  d[1] = make_uint4(x.v[4], x.v[5], x.v[6], x.v[7]);
}

// acc += coefficient ci times the value of signal s (see the header comment: ±1 without a product).
__device__ __forceinline__ void add_term(fr_d& acc, uint32_t s, uint16_t ci, const compact_view& e,
                                        const fr_d* __restrict__ w) {
  const fr_d v = load_fr(w + ((s & zk::groth16::pce_input_bit) ? (s & ~zk::groth16::pce_input_bit) : e.n_inputs + s));
  if (ci == 0) acc = acc + v;
  else if (ci == 1) acc = acc - v;
  else acc = acc + load_fr(e.table + ci) * v;
}

// One matrix row by one thread: the sum of its terms times R (the canonical witness read as value / R).
__device__ __forceinline__ fr_d row_sum(const compact_matrix_d& m, uint64_t k, uint32_t len, const compact_view& e,
                                        const fr_d* __restrict__ w) {
  fr_d acc = fr_d::zero();
  for (const uint64_t end = k + len; k < end; ++k) add_term(acc, __ldg(m.signals + k), __ldg(m.coeffs + k), e, w);
  return acc * e.r2;
}

// The same by the 32 lanes of a warp, lane l taking entries l, l + 32, ... (one coalesced read of
// signals and indices per step), then a butterfly of shuffles: every lane ends with the sum. The
// field's sums are exact, so the order changes no byte of the result.
__device__ __forceinline__ fr_d warp_row_sum(const compact_matrix_d& m, uint64_t k, uint32_t len,
                                             const compact_view& e, const fr_d* __restrict__ w) {
  const unsigned lane = threadIdx.x & 31;
  fr_d acc = fr_d::zero();
  for (uint64_t i = k + lane, end = k + len; i < end; i += 32)
    add_term(acc, __ldg(m.signals + i), __ldg(m.coeffs + i), e, w);
#pragma unroll
  for (unsigned off = 16; off; off >>= 1) {
    fr_d o;
#pragma unroll
    for (int l = 0; l < 8; ++l) o.v[l] = __shfl_xor_sync(0xffffffffu, acc.v[l], off);
    acc = acc + o;
  }
  return acc * e.r2;
}

// The block's row starts: `start[i]` = the entry offset of row r0 + i within its block (lengths
// scanned in place); rows of more than `long_row` terms in either matrix are listed in `longs`.
template <unsigned Threads, class Scan>
__device__ __forceinline__ void row_starts(const uint16_t* lens, uint64_t r0, unsigned rows, uint32_t* start,
                                           typename Scan::TempStorage& tmp, uint32_t long_row, uint16_t* longs,
                                           unsigned* n_longs, bool list) {
  constexpr unsigned per_thread = rows_per_block / Threads;
  uint32_t items[per_thread];
  const unsigned first = threadIdx.x * per_thread;
#pragma unroll
  for (unsigned i = 0; i < per_thread; ++i) items[i] = first + i < rows ? lens[r0 + first + i] : 0;
  if (list) {
#pragma unroll
    for (unsigned i = 0; i < per_thread; ++i)
      if (items[i] > long_row) longs[atomicAdd(n_longs, 1u)] = uint16_t(first + i);
  }
  Scan(tmp).ExclusiveSum(items, items);
#pragma unroll
  for (unsigned i = 0; i < per_thread; ++i) start[first + i] = items[i];
}

// The rows of one 4096-row block (see the header comment). Long rows first, a warp each, their sums
// written to a and b; then a thread per row for the rest, which reads the long rows' sums back
// (written by this block before the barrier) for c.
template <unsigned Threads>
__global__ void __launch_bounds__(Threads) compact_rows_kernel(compact_view e, const fr_d* __restrict__ w, fr_d* a,
                                                                fr_d* b, fr_d* c, uint32_t long_row) {
  using Scan = cub::BlockScan<uint32_t, Threads>;
  __shared__ typename Scan::TempStorage tmp;
  __shared__ uint32_t start_a[rows_per_block], start_b[rows_per_block];
  __shared__ uint16_t longs[rows_per_block];  // the block's long rows of A
  __shared__ unsigned n_longs;
  const uint64_t j = blockIdx.x, r0 = j * rows_per_block;
  const uint64_t left = e.n_constraints - r0;
  const unsigned rows = left < rows_per_block ? unsigned(left) : rows_per_block;
  if (threadIdx.x == 0) n_longs = 0;
  __syncthreads();
  // A's long rows are listed while A is scanned; B's are found again by the warps from their lengths.
  row_starts<Threads, Scan>(e.a.lens, r0, rows, start_a, tmp, long_row, longs, &n_longs, true);
  __syncthreads();
  row_starts<Threads, Scan>(e.b.lens, r0, rows, start_b, tmp, long_row, longs, &n_longs, false);
  __syncthreads();
  const uint64_t ka = e.a.blocks[j], kb = e.b.blocks[j];
  const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  constexpr unsigned warps = Threads / 32;
  // Long rows of A (listed), a warp each.
  for (unsigned i = warp; i < n_longs; i += warps) {
    const unsigned q = longs[i];
    const fr_d x = warp_row_sum(e.a, ka + start_a[q], e.a.lens[r0 + q], e, w);
    if (lane == 0) store_fr(a + r0 + q, x);
  }
  // Long rows of B: each warp looks through its share of the block's B lengths (a ballot per 32 rows).
  for (unsigned base = warp * 32; base < rows; base += Threads) {
    const unsigned q = base + lane;
    const bool is_long = q < rows && e.b.lens[r0 + q] > long_row;
    for (unsigned mask = __ballot_sync(0xffffffffu, is_long); mask; mask &= mask - 1) {
      const unsigned p = base + __ffs(mask) - 1;
      const fr_d y = warp_row_sum(e.b, kb + start_b[p], e.b.lens[r0 + p], e, w);
      if (lane == 0) store_fr(b + r0 + p, y);
    }
  }
  __syncthreads();  // the long rows' sums are visible to the block
  for (unsigned i = threadIdx.x; i < rows; i += Threads) {
    const uint64_t r = r0 + i;
    const uint32_t la = e.a.lens[r], lb = e.b.lens[r];
    fr_d x, y;
    if (la > long_row) {
      x = a[r];
    } else {
      x = row_sum(e.a, ka + start_a[i], la, e, w);
      store_fr(a + r, x);
    }
    if (lb > long_row) {
      y = b[r];
    } else {
      y = row_sum(e.b, kb + start_b[i], lb, e, w);
      store_fr(b + r, y);
    }
    store_fr(c + r, x * y);
  }
}

// The first kernel, kept for comparison (cuzk bench abc --kernel thread): a thread walks each of its
// rows whole, long ones included.
__global__ void __launch_bounds__(256) compact_rows_thread_kernel(compact_view e, const fr_d* __restrict__ w, fr_d* a,
                                                                   fr_d* b, fr_d* c) {
  using Scan = cub::BlockScan<uint32_t, 256>;
  __shared__ typename Scan::TempStorage tmp;
  __shared__ uint32_t start_a[rows_per_block], start_b[rows_per_block];
  const uint64_t j = blockIdx.x, r0 = j * rows_per_block;
  const uint64_t left = e.n_constraints - r0;
  const unsigned rows = left < rows_per_block ? unsigned(left) : rows_per_block;
  row_starts<256, Scan>(e.a.lens, r0, rows, start_a, tmp, 0, nullptr, nullptr, false);
  __syncthreads();
  row_starts<256, Scan>(e.b.lens, r0, rows, start_b, tmp, 0, nullptr, nullptr, false);
  __syncthreads();
  const uint64_t ka = e.a.blocks[j], kb = e.b.blocks[j];
  for (unsigned i = threadIdx.x; i < rows; i += 256) {
    const uint64_t r = r0 + i;
    const fr_d x = row_sum(e.a, ka + start_a[i], e.a.lens[r], e, w);
    const fr_d y = row_sum(e.b, kb + start_b[i], e.b.lens[r], e, w);
    store_fr(a + r, x);
    store_fr(b + r, y);
    store_fr(c + r, x * y);
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

  // The one check of every entry, on the compute stream (after the uploads, by event), counted in
  // the context's two device counters.
  unsigned long long* bad = ctx.counters.get();
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
  CUZK_CUDA(cudaStreamSynchronize(ctx.compute));
  for (int i = 0; i < 2; ++i)
    if (found[i])
      throw std::runtime_error(std::string("compact evaluator: matrix ") + (i ? "B" : "A") + " has " +
                               std::to_string(found[i]) + " entries with a signal or coefficient index out of range");
  return d;
}

void evaluate_compact(const compact_view& e, const uint64_t* w, fr_d* a, fr_d* b, fr_d* c, cudaStream_t s,
                      const compact_kernel_options& k) {
  const auto* wf = reinterpret_cast<const fr_d*>(w);
  const uint64_t blocks = blocks_of(e.n_constraints);
  if (blocks) {
    if (k.row_per_thread) compact_rows_thread_kernel<<<unsigned(blocks), 256, 0, s>>>(e, wf, a, b, c);
    else if (k.threads == 512) compact_rows_kernel<512><<<unsigned(blocks), 512, 0, s>>>(e, wf, a, b, c, k.long_row);
    else if (k.threads == 256) compact_rows_kernel<256><<<unsigned(blocks), 256, 0, s>>>(e, wf, a, b, c, k.long_row);
    else if (k.threads == 128) compact_rows_kernel<128><<<unsigned(blocks), 128, 0, s>>>(e, wf, a, b, c, k.long_row);
    else throw std::invalid_argument("compact evaluator: threads per block must be 128, 256 or 512");
    CUZK_LAUNCHED();
  }
  if (e.n > e.n_constraints) {
    compact_tail_kernel<<<blocks_for(e.n - e.n_constraints, 256), 256, 0, s>>>(e, wf, a, b, c);
    CUZK_LAUNCHED();
  }
}

}  // namespace cuzk::gpu
