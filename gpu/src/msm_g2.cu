// G2 instantiation of the device MSM (its own translation unit: compiles beside msm_g1.cu).
//
// Code size, not just instruction count: the G2 kernels keep their field products out of line.
// The base field is a wrapper whose product is one out-of-line device function (same bytes as
// fp_d; Fp2 squarings, the rest of the formulas), and the Fp2 product is one more (fp2_mul_call:
// the lazy Karatsuba of mont.cuh, its double-width products and two REDCs inlined: 1,265 SASS
// instructions). Measured on the H200, G2 MSM 2^24 resident (docs/gpu.md "Compile time"; the
// diary of docs/benchmarks.md at 3bc72f5, issue 19, G2): Karatsuba on three Fp calls 361.3 ms;
// the one Fp2 call 308.8 ms; the first accumulation level with every product inlined (22,800 SASS
// instructions against ~5,300, no spills) 356.1 ms. Fully inlined kernels also take nvcc's front
// end many minutes. The accumulation is bound by the instructions it issues, not by the multiply
// pipe: a Karatsuba split of the double-width products (580 IMAD.WIDE for 692, but 1,605
// instructions for 1,265) made it 7% slower (docs/gpu.md, "Not done / next steps").
#include "msm.cuh"
#include "msm_entry.hpp"
#include "cuzk/gpu/fp2_pair.cuh"
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
// r = a b and r = a^2 on operands in memory (r may be a or b): the caller holds no Fp2 value
// across the call.
__device__ __noinline__ void fp2_mul_at(const uint4* a, unsigned sa, const uint4* b, unsigned sb, uint4* r,
                                        unsigned sr) {
  st2(r, sr, fp2_dev::mul_lazy(ld2(a, sa), ld2(b, sb)));
}
__device__ __noinline__ void fp2_sqr_at(const uint4* a, unsigned sa, uint4* r, unsigned sr) {
  st2(r, sr, ld2(a, sa).sqr());
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
  __device__ __forceinline__ void sqr(H r, H a) const { fp2_sqr_at(a.p, a.s, r.p, r.s); }
  // Coordinate k of a point in global memory (affine: x, y; XYZZ: X, Y, ZZ, ZZZ).
  static __device__ __forceinline__ H at(const void* pt, int k) {
    return {const_cast<uint4*>(reinterpret_cast<const uint4*>(pt)) + 6 * k, 1};
  }
};

// G2's first-level accumulator on shared-memory slots (cuda_options::msm_g2_smem): X, Y, ZZ, ZZZ
// and three temporaries, 7 x 96 B a thread, 64 threads a block, registers capped at 200 so that 5
// blocks (43 KB of slots each) fit an SM: 10 warps, against 8 at 255 registers for the accumulator
// in registers. (SASS, sm_90: a mixed addition's hot path ~2 STL / ~20 LDL instead of 74 / 143,
// the Fp2 product 1,305 instructions without callee saves; docs/benchmarks.md, "Pending
// measurement".)
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

// G2's bucket segments on shared-memory slots: the running sum (slots 0-3), the sum of running
// sums (4-7) and three temporaries, 11 x 96 B a thread (3 blocks of 64 an SM); a bucket's
// coordinates are read from global memory by the products.
struct g2_smem_seg {
  static constexpr unsigned smem_bytes = 11 * 96;
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
  __device__ __forceinline__ xyzz_d<fp2_call> run() const { return point(0, run_inf); }
  __device__ __forceinline__ xyzz_d<fp2_call> tot() const { return point(4, tot_inf); }
};

// ---- Lane pairs (cuda_options::msm_g2_pairs): fp2_pair.cuh's split, lane h holding c_h ----

__device__ __forceinline__ unsigned pair_lane() { return threadIdx.x & 1u; }
// The partner's copy of v (the pair's two lanes only: pairs may diverge from each other).
__device__ __forceinline__ uint32_t from_partner(uint32_t v) {
  return __shfl_xor_sync(3u << (threadIdx.x & 30u), v, 1);
}
template <int L>
__device__ __forceinline__ void from_partner(uint32_t* r, const uint32_t* v) {
#pragma unroll
  for (int k = 0; k < L; ++k) r[k] = from_partner(v[k]);
}

// This lane's component of the product and of the square: each one out-of-line function (the
// lanes' arithmetic and one Fp product). School: fp2_pair::mul_school (two products, one REDC, one
// exchange) instead of the split Karatsuba (1.5 products, one REDC, two exchanges).
template <bool School>
__device__ __forceinline__ fp_d fp2_pair_mul_inline(const fp_d a, const fp_d b) {
  const unsigned h = pair_lane();
  fp_d pa, pb;
  if constexpr (School) {
    from_partner<fp_d::N>(pa.v, a.v);
    from_partner<fp_d::N>(pb.v, b.v);
    return fp2_pair::mul_school(h, a, b, pa, pb);
  } else {
    fp2_pair::products<fp_d> own, other;
    own.t = fp_d::mul_wide(a, b);
    from_partner<fp_d::N>(pa.v, a.v);
    from_partner<fp_d::N>(pb.v, b.v);
    fp2_pair::middle_rows(h, a, b, pa, pb, own.rows);
    from_partner<2 * fp_d::N>(other.t.v, own.t.v);
    from_partner<fp_d::N + fp_d::N / 2>(other.rows, own.rows);
    return fp2_pair::mul_finish(h, own, other);
  }
}
__device__ __forceinline__ fp_d fp2_pair_sqr_inline(const fp_d a) {
  fp_d pa, x, y;
  from_partner<fp_d::N>(pa.v, a.v);
  fp2_pair::sqr_factors(pair_lane(), a, pa, x, y);
  return x * y;
}
template <bool School>
__device__ __noinline__ fp_d fp2_pair_mul(const fp_d a, const fp_d b) { return fp2_pair_mul_inline<School>(a, b); }
__device__ __noinline__ fp_d fp2_pair_sqr(const fp_d a) { return fp2_pair_sqr_inline(a); }

// One lane's component of an Fp2 value held by a pair: the formulas' field (zk/curve/
// xyzz_formulas.hpp), whose tests (is_zero) both lanes answer alike.
template <bool School>
struct fp2_lane {
  fp_d f;
  __device__ __forceinline__ static fp2_lane zero() { return {fp_d::zero()}; }
  __device__ __forceinline__ static fp2_lane one() { return {pair_lane() ? fp_d::zero() : fp_d::one()}; }
  __device__ __forceinline__ bool is_zero() const {
    const uint32_t z = f.is_zero();
    return (z & from_partner(z)) != 0;
  }
  friend __device__ __forceinline__ fp2_lane operator+(const fp2_lane& a, const fp2_lane& b) { return {a.f + b.f}; }
  friend __device__ __forceinline__ fp2_lane operator-(const fp2_lane& a, const fp2_lane& b) { return {a.f - b.f}; }
  __device__ __forceinline__ fp2_lane operator-() const { return {-f}; }
  __device__ __forceinline__ fp2_lane dbl() const { return {f.dbl()}; }
  friend __device__ __forceinline__ fp2_lane operator*(const fp2_lane& a, const fp2_lane& b) {
    return {fp2_pair_mul<School>(a.f, b.f)};
  }
  __device__ __forceinline__ fp2_lane sqr() const { return {fp2_pair_sqr(f)}; }
};
static_assert(sizeof(fp2_lane<false>) == sizeof(fp_d));

// This lane's half of Fp2 coordinate k of a point in memory (component h of coordinate k at 96 k +
// 48 h bytes: a pair reads 96 consecutive bytes), and a half as 3 x 16 bytes, part k at p[k s].
__device__ __forceinline__ uint4* half_of(const void* pt, int k) {
  return const_cast<uint4*>(reinterpret_cast<const uint4*>(pt)) + 6 * k + 3 * pair_lane();
}
__device__ __forceinline__ fp_d ld_half(const uint4* p, unsigned s) {
  fp_d r;
  uint4* d = reinterpret_cast<uint4*>(&r);
  d[0] = p[0], d[1] = p[s], d[2] = p[2 * s];
  return r;
}
__device__ __forceinline__ void st_half(uint4* p, unsigned s, const fp_d& v) {
  const uint4* d = reinterpret_cast<const uint4*>(&v);
  p[0] = d[0], p[s] = d[1], p[2 * s] = d[2];
}
// Both lanes: is the affine point (x, y) all-zero bytes (infinity)?
__device__ __forceinline__ bool pair_identity(const void* pt) {
  const uint32_t z = ld_half(half_of(pt, 0), 1).is_zero() && ld_half(half_of(pt, 1), 1).is_zero();
  return (z & from_partner(z)) != 0;
}

// G2's first-level accumulator on lane pairs: each lane an XYZZ point's components c_h in
// registers (48 instead of 96).
template <bool School>
struct g2_pair_acc {
  using F = fp2_lane<School>;
  static constexpr unsigned smem_bytes = 0, lanes = 2;
  xyzz_d<F> a;
  __device__ __forceinline__ explicit g2_pair_acc(uint4*) : a(xyzz_d<F>::identity()) {}
  __device__ __forceinline__ void reset() { a = xyzz_d<F>::identity(); }
  __device__ __forceinline__ void add(const affine_d<fp2_call>* __restrict__ p, bool neg) {
    if (pair_identity(p)) return;
    const F x{ld_half(half_of(p, 0), 1)};
    F y{ld_half(half_of(p, 1), 1)};
    if (neg) y = -y;
    a.add_affine(x, y);
  }
  __device__ __forceinline__ void store(xyzz_d<fp2_call>* dst) const {
    st_half(half_of(dst, 0), 1, a.X.f), st_half(half_of(dst, 1), 1, a.Y.f);
    st_half(half_of(dst, 2), 1, a.ZZ.f), st_half(half_of(dst, 3), 1, a.ZZZ.f);
  }
  static __device__ __forceinline__ void store_identity(xyzz_d<fp2_call>* dst) {
    for (int k = 0; k < 4; ++k) st_half(half_of(dst, k), 1, fp_d::zero());
  }
};

// Lane pairs with the accumulator and temporaries in shared-memory slots (xyzz_slots.cuh, as
// g2_smem_acc): a handle is this lane's half of an Fp2 value; slot i's part k at
// msm_smem[(3 i + k) S + thread].
template <bool School>
__device__ __noinline__ void fp2_pair_mul_at(const uint4* a, unsigned sa, const uint4* b, unsigned sb, uint4* r,
                                             unsigned sr) {
  st_half(r, sr, fp2_pair_mul_inline<School>(ld_half(a, sa), ld_half(b, sb)));
}
__device__ __noinline__ void fp2_pair_sqr_at(const uint4* a, unsigned sa, uint4* r, unsigned sr) {
  st_half(r, sr, fp2_pair_sqr_inline(ld_half(a, sa)));
}
template <bool School>
struct g2_pair_mem {
  using F = fp2_lane<School>;
  struct H {
    uint4* p;
    unsigned s;
  };
  uint4* b;
  unsigned S;
  __device__ __forceinline__ H slot(int i) const { return {b + 3 * i * S, S}; }
  __device__ __forceinline__ F get(H h) const { return {ld_half(h.p, h.s)}; }
  __device__ __forceinline__ void put(H h, const F& v) const { st_half(h.p, h.s, v.f); }
  __device__ __forceinline__ void mul(H r, H a, H c) const { fp2_pair_mul_at<School>(a.p, a.s, c.p, c.s, r.p, r.s); }
  __device__ __forceinline__ void sqr(H r, H a) const { fp2_pair_sqr_at(a.p, a.s, r.p, r.s); }
  static __device__ __forceinline__ H at(const void* pt, int k) { return {half_of(pt, k), 1}; }
};
template <bool School>
struct g2_pair_smem_acc {
  using M = g2_pair_mem<School>;
  static constexpr unsigned smem_bytes = 7 * 48, lanes = 2;
  M m;
  bool inf = true;
  __device__ __forceinline__ explicit g2_pair_smem_acc(uint4* sm) : m{sm + threadIdx.x, blockDim.x} {}
  __device__ __forceinline__ void reset() { inf = true; }
  __device__ __forceinline__ void add(const affine_d<fp2_call>* __restrict__ p, bool neg) {
    if (pair_identity(p)) return;
    xyzz_slots::add_affine(m, 0, 4, inf, M::at(p, 0), M::at(p, 1), neg);
  }
  __device__ __forceinline__ void store(xyzz_d<fp2_call>* dst) const {
    if (inf) return store_identity(dst);
    for (int k = 0; k < 4; ++k) m.put(M::at(dst, k), m.get(m.slot(k)));
  }
  static __device__ __forceinline__ void store_identity(xyzz_d<fp2_call>* dst) {
    for (int k = 0; k < 4; ++k) st_half(half_of(dst, k), 1, fp_d::zero());
  }
};

}  // namespace

template <>
struct msm_point_acc_of<fp2_call> {
  using type = g2_smem_acc;
};
template <>
struct msm_seg_acc_of<fp2_call> {
  using type = g2_smem_seg;
};
template <>
struct msm_pair_acc_of<fp2_call> {
  template <bool School>
  using regs = g2_pair_acc<School>;
  template <bool School>
  using slots = g2_pair_smem_acc<School>;
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
