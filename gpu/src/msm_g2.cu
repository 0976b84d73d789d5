// G2 instantiation of the device MSM (its own translation unit: compiles beside msm_g1.cu).
//
// Code size, not just instruction count: the G2 kernels keep their field products out of line.
// The base field is a wrapper whose product is one out-of-line device function (same bytes as
// fp_d; Fp2 squarings, the rest of the formulas), and the Fp2 product is one more (fp2_mul_call:
// the lazy Karatsuba of mont.cuh, its double-width products and two REDCs inlined: 1,265 SASS
// instructions): one Fp2 call beats three Fp calls and beats every product inlined, which also
// takes nvcc's front end many minutes (docs/gpu.md, "Compile time" and "Measured dead ends").
// At 255 registers the accumulation keeps 8 warps an SM; g2_pair_add_acc (the default) gives it
// more without extra multiplications: a lane pair shares each mixed addition, half its products a
// lane (xyzz_pair.cuh), and g2_pair_seg does the same for the bucket segments' full additions.
// Their hot loop must also fit the instruction cache: one product body (fp2_mul_at) serves
// products and squarings alike.
#include "msm.cuh"
#include "msm_entry.hpp"
#include "cuzk/gpu/xyzz_pair.cuh"
#include "cuzk/gpu/xyzz_slots.cuh"

namespace cuzk::gpu {

namespace {

__device__ __noinline__ fp_d fp_mul_call(const fp_d a, const fp_d b) { return a * b; }

struct fp_call {
  fp_d f;
  CUZK_HD static fp_call zero() { return {fp_d::zero()}; }
  CUZK_HD static fp_call one() { return {fp_d::one()}; }
  CUZK_HD bool is_zero() const { return f.is_zero(); }
  friend __device__ __forceinline__ fp_call operator+(const fp_call& a, const fp_call& b) { return {a.f + b.f}; }
  friend __device__ __forceinline__ fp_call operator-(const fp_call& a, const fp_call& b) { return {a.f - b.f}; }
  __device__ __forceinline__ fp_call operator-() const { return {-f}; }
  __device__ __forceinline__ fp_call dbl() const { return {f.dbl()}; }
  friend __device__ __forceinline__ fp_call operator*(const fp_call& a, const fp_call& b) { return {fp_mul_call(a.f, b.f)}; }
  __device__ __forceinline__ fp_call sqr() const { return {fp_mul_call(f, f)}; }
  __device__ __forceinline__ fp_call inverse() const { return {f.inverse()}; }
};
static_assert(sizeof(fp_call) == sizeof(fp_d));
using fp2_call = fp2_d<fp_call>;
static_assert(sizeof(fp2_call) == sizeof(fp2_dev));

// The Fp2 product as one out-of-line function: Karatsuba with lazy reduction (mont.cuh), its
// double-width products and reductions inlined.
__device__ __noinline__ fp2_dev fp2_mul_call(const fp2_dev a, const fp2_dev b) { return fp2_dev::mul_lazy(a, b); }

}  // namespace

template <>
struct fp2_product<fp_call> {
  static __device__ __forceinline__ fp2_call mul(const fp2_call& a, const fp2_call& b) {
    fp2_dev r = fp2_mul_call({a.c0.f, a.c1.f}, {b.c0.f, b.c1.f});
    return {{r.c0}, {r.c1}};
  }
};

namespace {

// Fp2 values in memory: 6 x 16 bytes, part k at p[k * s] (a base point's coordinate: s = 1; a
// thread's shared-memory slot: s = the block's threads, so that a warp's threads read consecutive
// 16-byte words).
__device__ __forceinline__ fp2_dev ld2(const uint4* p, unsigned s) {
  fp2_dev r;
  uint4* d = reinterpret_cast<uint4*>(&r);
#pragma unroll
  for (int k = 0; k < 6; ++k) d[k] = p[k * s];
  return r;
}
__device__ __forceinline__ void st2(uint4* p, unsigned s, const fp2_dev& v) {
  const uint4* d = reinterpret_cast<const uint4*>(&v);
#pragma unroll
  for (int k = 0; k < 6; ++k) p[k * s] = d[k];
}
// r = a b on operands in memory (r may be a or b): the caller holds no Fp2 value across the call.
//
// Squarings take this product too (g2_mem::sqr), not a squaring of their own: the kernels' hot
// loop is then one body of products (~20 KB of code) and the loop around it, not two. A squaring
// body beside it made the warps wait on instruction fetch; with the product alone they run ~10%
// faster on ~5% more instructions. Any second out-of-line body in that loop costs the same way
// (docs/gpu.md, "Measured dead ends").
__device__ __noinline__ void fp2_mul_at(const uint4* a, unsigned sa, const uint4* b, unsigned sb, uint4* r,
                                        unsigned sr) {
  st2(r, sr, fp2_dev::mul_lazy(ld2(a, sa), ld2(b, sb)));
}
__device__ __forceinline__ fp2_call to_call(const fp2_dev& v) { return {{v.c0}, {v.c1}}; }

// Memory for xyzz_slots: a handle is an Fp2 value's first part and its stride; the slots are
// this thread's in shared memory (slot i's part k at msm_smem[(6 i + k) S + thread], S the block's
// threads: a warp reads consecutive words).
struct g2_mem {
  using F = fp2_call;
  struct H {
    uint4* p;
    unsigned s;
  };
  uint4* b;
  unsigned S;
  __device__ __forceinline__ H slot(int i) const { return {b + 6 * i * S, S}; }
  __device__ __forceinline__ F get(H h) const { return to_call(ld2(h.p, h.s)); }
  __device__ __forceinline__ void put(H h, const F& v) const { st2(h.p, h.s, {v.c0.f, v.c1.f}); }
  __device__ __forceinline__ void mul(H r, H a, H c) const { fp2_mul_at(a.p, a.s, c.p, c.s, r.p, r.s); }
  __device__ __forceinline__ void sqr(H r, H a) const { mul(r, a, a); }  // fp2_mul_at: why
  // Coordinate k of a point in global memory (affine: x, y; XYZZ: X, Y, ZZ, ZZZ).
  static __device__ __forceinline__ H at(const void* pt, int k) {
    return {const_cast<uint4*>(reinterpret_cast<const uint4*>(pt)) + 6 * k, 1};
  }
};

// G2's first-level accumulator on shared-memory slots (cuda_options::msm_g2_smem): X, Y, ZZ, ZZZ
// and three temporaries, 7 x 96 B a thread, 64 threads a block, registers capped at 200 so that 5
// blocks (43 KB of slots each) fit an SM: 10 warps, against 8 at 255 registers for the accumulator
// in registers. (SASS, sm_90: a mixed addition's hot path ~2 STL / ~20 LDL instead of 74 / 143,
// the Fp2 product 1,305 instructions without callee saves; docs/gpu.md, "G2".)
struct g2_smem_acc {
  static constexpr unsigned smem_bytes = 7 * 96, threads = 64, max_regs = 200, lanes = 1;
  g2_mem m;
  bool inf = true;
  __device__ __forceinline__ explicit g2_smem_acc(uint4* sm) : m{sm + threadIdx.x, blockDim.x} {}
  __device__ __forceinline__ void reset() { inf = true; }
  __device__ __forceinline__ xyzz_d<fp2_call> value() const {
    if (inf) return xyzz_d<fp2_call>::identity();
    return {m.get(m.slot(0)), m.get(m.slot(1)), m.get(m.slot(2)), m.get(m.slot(3))};
  }
  __device__ __forceinline__ void store(xyzz_d<fp2_call>* dst) const { store16(dst, value()); }
  static __device__ __forceinline__ void store_identity(xyzz_d<fp2_call>* dst) {
    store16(dst, xyzz_d<fp2_call>::identity());
  }
  __device__ __forceinline__ void add(const affine_d<fp2_call>* __restrict__ p, bool neg) {
    if (load16(p).is_identity()) return;
    xyzz_slots::add_affine(m, 0, 4, inf, g2_mem::at(p, 0), g2_mem::at(p, 1), neg);
  }
};

// A lane pair's plumbing (g2_pair_add_acc, g2_pair_seg): lane h of the pair, the pair's barrier and
// its flag exchange, and xyzz_pair's steps after diff with the barrier after each.
struct g2_lane_pair {
  unsigned h = threadIdx.x & 1u, mask = 3u << (threadIdx.x & 30u);
  __device__ __forceinline__ void sync() const { __syncwarp(mask); }
  __device__ __forceinline__ bool partner(bool v) const { return __shfl_xor_sync(mask, unsigned(v), 1) != 0; }
  template <class M>
  __device__ __forceinline__ void end_steps(const M& m) const {
    typename M::F v;
#pragma unroll
    for (unsigned i = 0; i < xyzz_pair::end_steps; ++i) {
      xyzz_pair::end_step(m, h, i, v);
      sync();
    }
  }
};

// G2's first-level accumulator with each mixed addition shared by a lane pair
// (cuda_options::msm_g2_pair_add; xyzz_pair.cuh: half the products a lane, the point in the pair's
// 8 shared-memory slots, 4 a lane). Both lanes take the same slice, so they branch alike; a barrier
// of the two lanes (__syncwarp) separates the steps. The rare cases take both lanes alike: the
// affine point at infinity (each lane checks its coordinate), P = 0 (2 q when R = 0 as well, each
// lane computing the doubling and keeping its half; else infinity).
struct g2_pair_add_acc {
  static constexpr unsigned smem_bytes = 4 * 96, threads = 64, lanes = 2;
  using F = fp2_call;
  using H = g2_mem::H;
  // xyzz_pair's M: the pair's pool (slot j % 4 of lane j / 4; lane 1's slots are one thread on).
  struct pool_mem : g2_mem {
    __device__ __forceinline__ H pool(unsigned j) const { return {b + (j >> 2) + 6 * (j & 3) * S, S}; }
  };
  pool_mem m;
  g2_lane_pair lp;
  const unsigned h = lp.h;
  bool inf = true;
  __device__ __forceinline__ explicit g2_pair_add_acc(uint4* sm) : m{{sm + (threadIdx.x & ~1u), blockDim.x}} {}
  __device__ __forceinline__ void reset() { inf = true; }
  // Lane h stores coordinates h and 2 + h.
  __device__ __forceinline__ void store(xyzz_d<F>* dst) const {
    if (inf) return store_identity(dst);
    m.put(g2_mem::at(dst, h), m.get(m.pool(xyzz_pair::own(h, 0))));
    m.put(g2_mem::at(dst, 2 + h), m.get(m.pool(xyzz_pair::own(h, 1))));
  }
  static __device__ __forceinline__ void store_identity(xyzz_d<F>* dst) {
    const unsigned h = threadIdx.x & 1u;
    const g2_mem m0{nullptr, 0};
    m0.put(g2_mem::at(dst, h), F::zero());
    m0.put(g2_mem::at(dst, 2 + h), F::zero());
  }
  // (A template, so that the formulas' host-device templates are instantiated for the device only.)
  template <class A>
  __device__ __forceinline__ void add(const A* __restrict__ p, bool neg) {
    namespace xp = xyzz_pair;
    const H c = g2_mem::at(p, h);  // x on lane 0, y on lane 1
    const bool flip = h && neg;
    const bool zc = xp::zero_at(m, c);
    if (zc && lp.partner(zc)) return;  // the affine point at infinity
    if (inf) {
      xp::start(m, h, c, flip);
      inf = false;
      return;
    }
    const bool z = xp::diff(m, h, c, flip), zp = lp.partner(z);
    if (h ? zp : z) {  // P = 0
      if (z && zp) {   // and R = 0: 2 q
        xp::put_half(m, h, xp::dbl_point(m, g2_mem::at(p, 0), g2_mem::at(p, 1), neg));
      } else {
        inf = true;
      }
      lp.sync();
      return;
    }
    lp.end_steps(m);
  }
};

// G2's bucket segments on shared-memory slots: the running sum (slots 0-3), the sum of running
// sums (4-7) and three temporaries, 11 x 96 B a thread (3 blocks of 64 an SM); a bucket's
// coordinates are read from global memory by the products.
struct g2_smem_seg {
  static constexpr unsigned smem_bytes = 11 * 96, lanes = 1;
  g2_mem m;
  bool run_inf = true, tot_inf = true;
  __device__ __forceinline__ explicit g2_smem_seg(uint4* sm) : m{sm + threadIdx.x, blockDim.x} {}
  __device__ __forceinline__ xyzz_d<fp2_call> point(int p0, bool inf) const {
    if (inf) return xyzz_d<fp2_call>::identity();
    return {m.get(m.slot(p0)), m.get(m.slot(p0 + 1)), m.get(m.slot(p0 + 2)), m.get(m.slot(p0 + 3))};
  }
  __device__ __forceinline__ void step(const xyzz_d<fp2_call>* __restrict__ bucket) {
    if (!m.get(g2_mem::at(bucket, 2)).is_zero()) {  // ZZ = 0: an empty bucket
      const g2_mem::H q[4] = {g2_mem::at(bucket, 0), g2_mem::at(bucket, 1), g2_mem::at(bucket, 2),
                              g2_mem::at(bucket, 3)};
      xyzz_slots::add(m, 0, 8, run_inf, q);
    }
    if (!run_inf) {
      const g2_mem::H r[4] = {m.slot(0), m.slot(1), m.slot(2), m.slot(3)};
      xyzz_slots::add(m, 4, 8, tot_inf, r);
    }
  }
  __device__ __forceinline__ void store(xyzz_d<fp2_call>* tot_dst, xyzz_d<fp2_call>* run_dst) const {
    store16(tot_dst, point(4, tot_inf));
    store16(run_dst, point(0, run_inf));
  }
};

// G2's bucket segments with each full addition shared by a lane pair (cuda_options::msm_g2_pair_seg;
// xyzz_pair.cuh's full addition): lane h holds coordinates h and 2 + h of the running sum (its
// slots 0, 1) and of the sum of running sums (2, 3), and two temporaries (4, 5): 6 x 96 B a lane, 6
// blocks of 64 an SM (12 warps, against 6 for g2_smem_seg's 3 blocks). A bucket's lane-h
// coordinates are read from global memory by the products; an empty bucket has ZZ = ZZZ = 0, so
// each lane sees it alone (a point's ZZ and ZZZ are both zero or neither).
struct g2_pair_seg {
  static constexpr unsigned smem_bytes = 6 * 96, threads = 64, blocks = 6, lanes = 2;
  using F = fp2_call;
  using H = g2_mem::H;
  // xyzz_pair's M for one of the two sums: pool j is lane j / 4's slot p0 + j % 4 (j % 4 < 2) or
  // temporary 2 + j % 4.
  struct view : g2_mem {
    unsigned p0;
    __device__ __forceinline__ H pool(unsigned j) const {
      const unsigned i = j & 3;
      return {b + (j >> 2) + 6 * (i < 2 ? p0 + i : i + 2) * S, S};
    }
  };
  view run_v, tot_v;
  g2_lane_pair lp;
  const unsigned h = lp.h;
  bool run_inf = true, tot_inf = true;
  __device__ __forceinline__ explicit g2_pair_seg(uint4* sm)
      : run_v{{sm + (threadIdx.x & ~1u), blockDim.x}, 0}, tot_v{{sm + (threadIdx.x & ~1u), blockDim.x}, 2} {}
  // p += q (p: the view m, q's four coordinates).
  __device__ __forceinline__ void add(const view& m, bool& inf, const H* q) {
    namespace xp = xyzz_pair;
    if (inf) {
      xp::copy(m, h, q[h], q[2 + h]);
      inf = false;
      return;
    }
    xp::scale(m, h, 0, q[2 + h]);
    const bool z = xp::diff(m, h, q[h], false), zp = lp.partner(z);
    if (h ? zp : z) {  // P = 0
      if (z && zp) {   // and R = 0: 2 q
        xp::put_half(m, h, xp::dbl_full(m, q));
      } else {
        inf = true;
      }
      lp.sync();
      return;
    }
    xp::scale(m, h, 1, q[2 + h]);
    lp.end_steps(m);
  }
  __device__ __forceinline__ void step(const xyzz_d<F>* __restrict__ bucket) {
    const H q[4] = {g2_mem::at(bucket, 0), g2_mem::at(bucket, 1), g2_mem::at(bucket, 2), g2_mem::at(bucket, 3)};
    if (!run_v.get(q[2 + h]).is_zero()) add(run_v, run_inf, q);
    if (!run_inf) {
      // The running sum's coordinates in the pool: lane h's own slots 0 and 1 are coordinates h and 2 + h.
      const H r[4] = {run_v.pool(xyzz_pair::own(0, 0)), run_v.pool(xyzz_pair::own(1, 0)),
                      run_v.pool(xyzz_pair::own(0, 1)), run_v.pool(xyzz_pair::own(1, 1))};
      add(tot_v, tot_inf, r);
    }
  }
  __device__ __forceinline__ void store_one(const view& m, bool inf, xyzz_d<F>* dst) const {
    m.put(g2_mem::at(dst, h), inf ? F::zero() : m.get(m.pool(xyzz_pair::own(h, 0))));
    m.put(g2_mem::at(dst, 2 + h), inf ? F::zero() : m.get(m.pool(xyzz_pair::own(h, 1))));
  }
  __device__ __forceinline__ void store(xyzz_d<F>* tot_dst, xyzz_d<F>* run_dst) const {
    store_one(tot_v, tot_inf, tot_dst);
    store_one(run_v, run_inf, run_dst);
  }
};

}  // namespace

template <>
struct msm_point_acc_of<fp2_call> {
  using type = g2_smem_acc;
};
template <>
struct msm_pair_add_acc_of<fp2_call> {
  using type = g2_pair_add_acc;
};
template <>
struct msm_seg_acc_of<fp2_call> {
  using type = g2_smem_seg;
};
template <>
struct msm_seg_pair_acc_of<fp2_call> {
  using type = g2_pair_seg;
};

void msm_g2_device(const void* bases, const uint64_t* scalars, const msm_shape& sh, std::size_t set_stride, arena& ar,
                   void* out_dev, cudaStream_t s, const uint32_t* idx, uint32_t idx_base) {
  msm_run<fp2_call>(static_cast<const affine_d<fp2_call>*>(bases), scalars, sh, set_stride, ar,
                    static_cast<xyzz_d<fp2_call>*>(out_dev), s, idx, idx_base);
}
void msm_g2_sum(const void* bases, const uint32_t* idx, std::size_t n, uint32_t idx_base, arena& ar, void* out_dev,
                cudaStream_t s, unsigned points) {
  msm_sum_run<fp2_call>(static_cast<const affine_d<fp2_call>*>(bases), idx, n, idx_base, ar, static_cast<xyzz_d<fp2_call>*>(out_dev), s, points);
}
void msm_g2_shift(const void* bases, std::size_t n, unsigned c, unsigned sets, void* out, cudaStream_t s) {
  msm_shift_run<fp2_call>(static_cast<const affine_d<fp2_call>*>(bases), n, c, sets,
                          static_cast<affine_d<fp2_call>*>(out), s);
}
std::size_t msm_g2_scratch(const msm_shape& sh, std::size_t cub_temp) {
  return msm_scratch_bytes<fp2_call>(sh, cub_temp != SIZE_MAX ? cub_temp : msm_cub_temp_bytes(sh.M, msm_key_bits(sh)));
}

}  // namespace cuzk::gpu
