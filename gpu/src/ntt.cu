#include "ntt.cuh"

#include <cstring>

#include "cuzk/gpu/lazy.cuh"
#include "cuzk/gpu/ntt_tile.cuh"
#include "zk/ntt/domain.hpp"

namespace cuzk::gpu {

namespace {

constexpr unsigned small_log = 10;  // shared-memory root table: omega_1024^x, x < 512
constexpr unsigned ntt_threads = ntt_max_threads;  // the larger launch bound; ntt_engine picks 256 or 512
constexpr std::uint64_t bls12_381_snarkjs_gen = zk::bls12_381::fr_snarkjs_generator;

fr_d to_dev(const zk::bls12_381::fr& x) {
  fr_d d;
  std::memcpy(&d, &x, sizeof d);
  return d;
}

using ntt_tile::bitrev;

__device__ __forceinline__ fr_d ld(const fr_d* p) {
  const uint4* q = reinterpret_cast<const uint4*>(p);
  uint4 a = q[0], b = q[1];
  fr_d r;
  r.v[0] = a.x, r.v[1] = a.y, r.v[2] = a.z, r.v[3] = a.w, r.v[4] = b.x, r.v[5] = b.y, r.v[6] = b.z, r.v[7] = b.w;
  return r;
}
__device__ __forceinline__ void st(fr_d* p, const fr_d& r) {
  uint4* q = reinterpret_cast<uint4*>(p);
  q[0] = make_uint4(r.v[0], r.v[1], r.v[2], r.v[3]);
  q[1] = make_uint4(r.v[4], r.v[5], r.v[6], r.v[7]);
}

// Shared memory holds each element as two 16-byte halves in separate arrays (element e's low half
// at lo[e], high half at hi[e]): a quarter-warp's 16-byte accesses to adjacent elements then fall
// on distinct banks (one 32-byte element per thread at a 32-byte stride is a two-way conflict).
__device__ __forceinline__ fr_d sh_ld(const uint4* lo, const uint4* hi, unsigned e) {
  uint4 a = lo[e], b = hi[e];
  fr_d r;
  r.v[0] = a.x, r.v[1] = a.y, r.v[2] = a.z, r.v[3] = a.w, r.v[4] = b.x, r.v[5] = b.y, r.v[6] = b.z, r.v[7] = b.w;
  return r;
}
__device__ __forceinline__ void sh_st(uint4* lo, uint4* hi, unsigned e, const fr_d& r) {
  lo[e] = make_uint4(r.v[0], r.v[1], r.v[2], r.v[3]);
  hi[e] = make_uint4(r.v[4], r.v[5], r.v[6], r.v[7]);
}

size_t shared_bytes(unsigned k, unsigned t) { return ((size_t(1) << (k + t)) + (size_t(1) << (k - 1))) * sizeof(fr_d); }

// n^-1 g^j (or any per-coefficient factor) as lo[j & 4095] * hi[j >> 12].
__device__ __forceinline__ fr_d split_factor(const fr_d* __restrict__ lo, const fr_d* __restrict__ hi, uint32_t j) {
  fr_d f = ld(lo + (j & 4095));
  if (j >> 12) f = f * ld(hi + (j >> 12));
  return f;
}

// What the last DIF pass does to each element before it stores it (nothing by default): times
// lo/hi's factor of the coefficient it holds (bit-reversed position j = bitrev_L(pos)), then out
// of Montgomery form if canonical. This is the coset scale (and bellperson's way back) without a
// pass of its own over the vector.
struct dif_epilogue {
  const fr_d* lo = nullptr;
  const fr_d* hi = nullptr;
  unsigned L = 0;
  bool canonical = false;
};

// Where an out-of-place pass (ntt_pass's OOP) stores: dst at the natural position (rev_bits = 0:
// the first pass of a fused transform) or at bitrev_L(position) (rev_bits = L: its last pass; the
// tile's columns are then 2^(L-t) apart, ntt_tile.cuh), divided by 2^div_log if that is not 0 (the
// inverse's 1/n: one Montgomery step of radix n, lazy::div_pow2, not a product).
struct pass_out {
  fr_d* dst = nullptr;
  unsigned rev_bits = 0;
  unsigned div_log = 0;
};

// One pass of k stages on tiles of 2^(k+t) elements: 2^k "rows" (stride S = 2^(r-k)) by 2^t
// adjacent columns. DIT = false: DIF stages then twiddles (or the epilogue in the last pass);
// true: twiddles then DIT stages.
//
// Butterfly q of a stage is (column lo, root index j, group): by default j varies faster than the
// group, so adjacent threads touch adjacent elements. In stages with few roots (half-size 2^hbits,
// hbits <= jmax) j is taken from q's top bits instead: a warp then shares one j, and the warps
// with j = 0 skip the product as a whole (in the default order a warp mixes j = 0 with others
// and pays the product anyway: half the butterflies of the hbits = 1 stage, a quarter of the
// next, ...), at the price of a two-way bank conflict.
//
// The values stay in [0, 2p) inside and between the passes (lazy.cuh: sums and differences
// modulo 2p, products without their final subtraction, the reduced root or twiddle as the first
// factor): ~17 SASS instructions less per product. The pass that ends the transform (reduce_out)
// reduces them on its store; the epilogue's product reduces anyway.
//
// KT: the tile shape k << 4 | t compiled in (0: k and t from the arguments), for the shapes of the
// sizes that matter (2^24 and 2^27: (8|9, 0|2)) at 256 threads when the engine is made with
// compiled_shapes: the stage loop's shifts, masks and the shared-memory halves' offsets become
// constants (`LDS.128 [R+0x4000]`); SASS of the DIF stage loop (both branch paths) 335 -> 311
// instructions at (8|9, 2), 304 at (8|9, 0); DIT 355 -> 323 / 311.
//
// MAXT: the block size it is compiled for. At 256 threads it is bounded to 5 blocks per SM (48
// registers, 40 warps; 4 blocks by its ~55 registers otherwise), about 1% faster than the plain
// bound; 512 threads keep the plain bound.
//
// OOP (DIF only): the pass loads from data and stores to o.dst, at the natural position or at the
// bit-reversed one with the tile's columns far apart (pass_out, ntt_tile.cuh: the fused bit
// reversal); false compiles to the in-place kernel as it was.
template <bool DIT, unsigned MAXT, unsigned KT, bool OOP>
__global__ void __launch_bounds__(MAXT, MAXT == 256 ? 5 : 1)
    ntt_pass(fr_d* data, unsigned r, unsigned k_, unsigned t_, const fr_d* __restrict__ small,
             const fr_d* __restrict__ tw, dif_epilogue ep, int jmax, bool reduce_out, pass_out o) {
  static_assert(!(DIT && OOP), "ntt_pass: only the DIF passes go out of place");
  extern __shared__ uint4 shraw[];
  const unsigned k = KT ? KT >> 4 : k_, t = KT ? KT & 15 : t_;
  const unsigned nthr = KT ? min(MAXT, 1u << (k - 1 + t)) : blockDim.x;  // as launch_pass_t launches it
  const unsigned T = 1u << (k + t), H = 1u << (k - 1);
  uint4 *sl = shraw, *sh = shraw + T, *rl = shraw + 2 * T, *rh = rl + H;
  const ntt_tile::block blk = ntt_tile::block_of(blockIdx.x, r, k, t, OOP ? o.rev_bits : 0);
  fr_d* base = data + blk.start + blk.l0;

  for (unsigned x = threadIdx.x; x < H; x += nthr) sh_st(rl, rh, x, ld(small + (size_t(x) << (small_log - k))));
  for (unsigned e = threadIdx.x; e < T; e += nthr) {
    size_t off = blk.offset(e);
    fr_d v = ld(base + off);
    if (DIT && tw) v = lazy::mul(ld(tw + off + blk.l0), v);
    sh_st(sl, sh, e, v);
  }
  __syncthreads();
#pragma unroll 1
  for (unsigned i = 0; i < k; ++i) {
    const unsigned s = DIT ? k - 1 - i : i;
    const unsigned hbits = k - 1 - s;  // half-size h = 2^hbits
    const bool jmajor = int(hbits) <= jmax;
    for (unsigned q = threadIdx.x; q < T / 2; q += nthr) {
      const ntt_tile::butterfly b = ntt_tile::butterfly_of(q, k, t, s, hbits, jmajor);
      fr_d x = sh_ld(sl, sh, b.i0), y = sh_ld(sl, sh, b.i1);
      if (DIT) {
        if (b.jr) y = lazy::mul(sh_ld(rl, rh, b.jr), y);
        sh_st(sl, sh, b.i0, lazy::add(x, y));
        sh_st(sl, sh, b.i1, lazy::sub(x, y));
      } else {
        sh_st(sl, sh, b.i0, lazy::add(x, y));
        fr_d d = lazy::sub(x, y);
        sh_st(sl, sh, b.i1, b.jr ? lazy::mul(sh_ld(rl, rh, b.jr), d) : d);
      }
    }
    __syncthreads();
  }
  for (unsigned e = threadIdx.x; e < T; e += nthr) {
    size_t off = blk.offset(e);
    fr_d v = sh_ld(sl, sh, e);
    if (!DIT && tw) v = lazy::mul(ld(tw + off + blk.l0), v);
    if (!DIT && ep.lo) {
      v = split_factor(ep.lo, ep.hi, bitrev(uint32_t(blk.start + blk.l0 + off), ep.L)) * v;  // reduced
      if (ep.canonical) v = v.from_mont();
    } else if (OOP && o.div_log) {
      v = lazy::reduce(lazy::div_pow2(v, o.div_log));
    } else if (reduce_out) {
      v = lazy::reduce(v);
    }
    if constexpr (OOP) st(o.dst + ntt_tile::store_position(blk.start + blk.l0 + off, o.rev_bits), v);
    else st(base + off, v);
  }
}

template <bool DIT, unsigned MAXT, unsigned KT, bool OOP>
void launch_pass_t(fr_d* d, unsigned L, unsigned r, unsigned k, unsigned t, const fr_d* small, const fr_d* tw,
                   const dif_epilogue& ep, unsigned max_threads, bool uniform_roots, bool reduce_out,
                   const pass_out& o, cudaStream_t s) {
  size_t shm = shared_bytes(k, t);
  unsigned blocks = unsigned((size_t(1) << L) >> (k + t));
  CUZK_CUDA(cudaFuncSetAttribute(ntt_pass<DIT, MAXT, KT, OOP>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shm)));
  const unsigned threads = ntt_tile::threads_of(max_threads, k, t);
  const int jmax = ntt_tile::jmax_of(uniform_roots, k, t);
  ntt_pass<DIT, MAXT, KT, OOP><<<blocks, threads, shm, s>>>(d, r, k, t, small, tw, ep, jmax, reduce_out, o);
  CUZK_LAUNCHED();
}

// reduce_out: the pass that ends the transform (its values leave reduced). shapes: the compiled
// tile shapes where one fits (256 threads; the out-of-place passes have t = 2).
template <bool DIT, bool OOP = false>
void launch_pass(fr_d* d, unsigned L, unsigned r, unsigned k, unsigned t, const fr_d* small, const fr_d* tw,
                 const dif_epilogue& ep, unsigned max_threads, bool uniform_roots, bool shapes, bool reduce_out,
                 cudaStream_t s, const pass_out& o = {}) {
  if (max_threads > 256) {
    launch_pass_t<DIT, ntt_threads, 0, OOP>(d, L, r, k, t, small, tw, ep, max_threads, uniform_roots, reduce_out, o, s);
    return;
  }
  auto go = [&](auto kt) {
    launch_pass_t<DIT, 256, decltype(kt)::value, OOP>(d, L, r, k, t, small, tw, ep, max_threads, uniform_roots,
                                                      reduce_out, o, s);
  };
  using std::integral_constant;
  const unsigned kt = shapes ? (k << 4) | t : 0;
  if (kt == 0x82) go(integral_constant<unsigned, 0x82>{});
  else if (kt == 0x92) go(integral_constant<unsigned, 0x92>{});
  else if constexpr (!OOP) {
    if (kt == 0x80) go(integral_constant<unsigned, 0x80>{});
    else if (kt == 0x90) go(integral_constant<unsigned, 0x90>{});
    else go(integral_constant<unsigned, 0>{});
  } else {
    go(integral_constant<unsigned, 0>{});
  }
}

// tw[p * S + l] = base^(l * bitrev_k(p)), base = omega_{2^r}.
__global__ void build_twiddles(fr_d* tw, unsigned r, unsigned k, fr_d base) {
  size_t idx = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= (size_t(1) << r)) return;
  uint64_t e = ntt_tile::twiddle_exponent(idx, r, k);
  fr_d acc = fr_d::one(), b = base;
  while (e) {
    if (e & 1) acc = acc * b;
    b = b.sqr();
    e >>= 1;
  }
  st(tw + idx, acc);
}

// Element-wise swap i <-> bitrev(i), times f if scaled (small sizes; the tiled kernel below for
// the rest).
__global__ void bit_reverse_kernel(fr_d* d, unsigned L, bool scaled, fr_d f) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >> L) return;
  size_t j = bitrev(uint32_t(i), L);
  if (i < j) {
    fr_d a = ld(d + i), b = ld(d + j);
    st(d + i, scaled ? b * f : b);
    st(d + j, scaled ? a * f : a);
  } else if (i == j && scaled) {
    st(d + i, ld(d + i) * f);
  }
}

// In-place bit reversal by tiles, so both reads and writes move runs of 2^B adjacent elements
// (1 KiB) instead of lone 32-byte elements. Index bits i = (a | m | c), a and c B bits each:
// bitrev_L(i) = (rev_B(c) | rev(m) | rev_B(a)), so the 2^2B elements sharing a middle m all go to
// middle rev(m), transposed. One block takes the pair {m, rev(m)} (blocks with m > rev(m) leave at
// once): both tiles into shared memory, then each written to the other's place, rows contiguous.
constexpr unsigned brev_B = 5, brev_threads = 256;
__global__ void __launch_bounds__(brev_threads) bit_reverse_tiled(fr_d* d, unsigned L, bool scaled, fr_d f) {
  extern __shared__ uint4 shraw[];
  constexpr unsigned W = 1u << brev_B, T = W * W;
  const unsigned mb = L - 2 * brev_B;
  const uint32_t m = blockIdx.x, mm = bitrev(m, mb);
  if (m > mm) return;
  uint4 *xl = shraw, *xh = xl + T, *yl = xh + T, *yh = yl + T;
  auto at = [&](uint32_t mid, unsigned a, unsigned c) { return (size_t(a) << (L - brev_B)) | (size_t(mid) << brev_B) | c; };
  for (unsigned e = threadIdx.x; e < T; e += blockDim.x) {
    sh_st(xl, xh, e, ld(d + at(m, e >> brev_B, e & (W - 1))));
    if (mm != m) sh_st(yl, yh, e, ld(d + at(mm, e >> brev_B, e & (W - 1))));
  }
  __syncthreads();
  for (unsigned e = threadIdx.x; e < T; e += blockDim.x) {
    const unsigned a2 = e >> brev_B, c2 = e & (W - 1);
    const unsigned src = (bitrev(c2, brev_B) << brev_B) | bitrev(a2, brev_B);
    fr_d v = sh_ld(xl, xh, src);  // tile m's element lands in tile rev(m)
    st(d + at(mm, a2, c2), scaled ? v * f : v);
    if (mm != m) {
      fr_d w = sh_ld(yl, yh, src);
      st(d + at(m, a2, c2), scaled ? w * f : w);
    }
  }
}

void bit_reverse_scaled(fr_d* d, unsigned L, bool scaled, fr_d f, cudaStream_t s) {
  if (L == 0) {
    if (scaled) {
      bit_reverse_kernel<<<1, 1, 0, s>>>(d, 0, true, f);
      CUZK_LAUNCHED();
    }
    return;
  }
  if (L < 2 * brev_B + 2) {
    size_t n = size_t(1) << L;
    bit_reverse_kernel<<<blocks_for(n, 256), 256, 0, s>>>(d, L, scaled, f);
    CUZK_LAUNCHED();
    return;
  }
  constexpr size_t shm = 4 * (size_t(1) << (2 * brev_B)) * sizeof(uint4);
  CUZK_CUDA(cudaFuncSetAttribute(bit_reverse_tiled, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shm)));
  bit_reverse_tiled<<<1u << (L - 2 * brev_B), brev_threads, shm, s>>>(d, L, scaled, f);
  CUZK_LAUNCHED();
}

// a <- (a b - c) z_inv, Montgomery.
__global__ void h_divide_kernel(fr_d* a, const fr_d* b, const fr_d* c, size_t n, fr_d z_inv) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) st(a + i, (ld(a + i) * ld(b + i) - ld(c + i)) * z_inv);
}

__global__ void h_combine_kernel(fr_d* a, const fr_d* b, const fr_d* c, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) st(a + i, (ld(a + i) * ld(b + i) - ld(c + i)).from_mont());
}


}  // namespace

ntt_engine::ntt_engine(std::uint64_t root_generator, unsigned threads, bool uniform_roots, bool compiled_shapes,
                       bool fused_reversal)
    : gen_(root_generator), threads_(threads), uniform_(uniform_roots), shapes_(compiled_shapes), fused_(fused_reversal) {
  if (threads != 256 && threads != 512) throw std::invalid_argument("cuda ntt: threads per block must be 256 or 512");
}

std::size_t ntt_engine::table_bytes(unsigned L) {
  std::size_t b = 0;
  auto ps = plan(L);
  for (std::size_t i = 0; i + 1 < ps.size(); ++i) b += 2 * (std::size_t(1) << ps[i].r) * sizeof(fr_d);
  return b + (4096 + (std::size_t(1) << (L > 12 ? L - 12 : 0))) * sizeof(fr_d);
}

const fr_d* ntt_engine::small_roots(bool inverse, cudaStream_t s) {
  if (!small_fwd_.get()) {
    using zk::bls12_381::fr;
    fr w = zk::ntt::root_of_unity(small_log, gen_), wi = w.inverse();
    std::vector<fr_d> f(512), iv(512);
    fr a = fr::one(), b = fr::one();
    for (int x = 0; x < 512; ++x) {
      f[x] = to_dev(a), iv[x] = to_dev(b);
      a *= w, b *= wi;
    }
    dbuf<fr_d> df(512), di(512);
    CUZK_CUDA(cudaMemcpy(df.get(), f.data(), df.bytes(), cudaMemcpyHostToDevice));
    CUZK_CUDA(cudaMemcpy(di.get(), iv.data(), di.bytes(), cudaMemcpyHostToDevice));
    small_fwd_ = std::move(df);
    small_inv_ = std::move(di);
  }
  return inverse ? small_inv_.get() : small_fwd_.get();
}

const ntt_engine::size_tables& ntt_engine::tables(unsigned L, cudaStream_t s) {
  std::lock_guard lock(mu_);
  small_roots(false, s);
  auto it = tables_.find(L);
  if (it != tables_.end()) return *it->second;
  using zk::bls12_381::fr;
  auto t = std::make_unique<size_tables>();
  auto ps = plan(L);
  for (std::size_t i = 0; i + 1 < ps.size(); ++i) {
    std::size_t n = std::size_t(1) << ps[i].r;
    fr w = zk::ntt::root_of_unity(ps[i].r, gen_);
    dbuf<fr_d> f(n), iv(n);
    build_twiddles<<<blocks_for(n, 256), 256, 0, s>>>(f.get(), ps[i].r, ps[i].k, to_dev(w));
    CUZK_LAUNCHED();
    build_twiddles<<<blocks_for(n, 256), 256, 0, s>>>(iv.get(), ps[i].r, ps[i].k, to_dev(w.inverse()));
    CUZK_LAUNCHED();
    t->fwd.push_back(std::move(f));
    t->inv.push_back(std::move(iv));
  }
  // n^-1 g^j tables: lo[x] = n^-1 g^x (x < 4096), hi[y] = g^(4096 y). The coset: snarkjs's odd
  // roots g = omega_{2n}; bellperson's g = 7 (and its way back with g^-1).
  const fr ninv = fr::from_u64(std::uint64_t(1) << L).inverse();
  const std::size_t nhi = std::size_t(1) << (L > 12 ? L - 12 : 0);
  auto make = [&](const fr& g, dbuf<fr_d>& dlo, dbuf<fr_d>& dhi) {
    std::vector<fr_d> lo(4096), hi(nhi);
    fr acc = ninv;
    for (int x = 0; x < 4096; ++x) lo[x] = to_dev(acc), acc *= g;
    fr g4096 = g.pow(std::uint64_t(4096));
    acc = fr::one();
    for (std::size_t y = 0; y < nhi; ++y) hi[y] = to_dev(acc), acc *= g4096;
    dlo = dbuf<fr_d>(4096);
    dhi = dbuf<fr_d>(nhi);
    CUZK_CUDA(cudaMemcpy(dlo.get(), lo.data(), dlo.bytes(), cudaMemcpyHostToDevice));
    CUZK_CUDA(cudaMemcpy(dhi.get(), hi.data(), dhi.bytes(), cudaMemcpyHostToDevice));
  };
  const fr g = gen_ == bls12_381_snarkjs_gen ? zk::ntt::root_of_unity(L + 1) : fr::from_u64(gen_);
  make(g, t->coset_lo, t->coset_hi);
  if (gen_ != bls12_381_snarkjs_gen) make(g.inverse(), t->uncoset_lo, t->uncoset_hi);
  CUZK_CUDA(cudaStreamSynchronize(s));
  auto& ref = *t;
  tables_[L] = std::move(t);
  return ref;
}

void ntt_engine::dif_ep(fr_d* d, unsigned L, bool inverse, const fr_d* lo, const fr_d* hi, bool canonical,
                        cudaStream_t s, fr_d* scratch, bool scale_ninv) {
  if (L > ntt_max_log) throw std::invalid_argument("cuda ntt: size above 2^28");
  const auto& tb = tables(L, s);
  const fr_d* small = small_roots(inverse, s);
  auto ps = plan(L);
  // Out of place (the fused bit reversal): d -> scratch, in place there, scratch -> d bit-reversed.
  const bool oop = scratch && ps.size() > 1;
  if (scale_ninv && !oop) throw std::logic_error("cuda ntt: 1/n on the last pass needs the fused bit reversal");
  for (std::size_t i = 0; i < ps.size(); ++i) {
    auto [r, k, t] = ps[i];
    const bool last = i + 1 == ps.size();
    const fr_d* tw = last ? nullptr : (inverse ? tb.inv[i] : tb.fwd[i]).get();
    dif_epilogue ep;
    if (last && lo) ep = {lo, hi, L, canonical};
    if (!oop) {
      launch_pass<false>(d, L, r, k, t, small, tw, ep, threads_, uniform_, shapes_, last, s);
    } else if (i == 0) {
      launch_pass<false, true>(d, L, r, k, t, small, tw, ep, threads_, uniform_, shapes_, last, s, pass_out{scratch});
    } else if (!last) {
      launch_pass<false>(scratch, L, r, k, t, small, tw, ep, threads_, uniform_, shapes_, last, s);
    } else {
      const pass_out o{d, L, scale_ninv ? L : 0};
      launch_pass<false, true>(scratch, L, r, k, ntt_tile::fused_t(L, k), small, tw, ep, threads_, uniform_, shapes_,
                               last, s, o);
      mark(inverse ? "dif pass, bit-reversed store (inverse roots)" : "dif pass, bit-reversed store", s);
      continue;
    }
    mark(inverse ? "dif pass (inverse roots)" : "dif pass", s);
  }
}

void ntt_engine::dif(fr_d* d, unsigned L, bool inverse, cudaStream_t s) { dif_ep(d, L, inverse, nullptr, nullptr, false, s); }

void ntt_engine::dit(fr_d* d, unsigned L, bool inverse, cudaStream_t s) {
  if (L > ntt_max_log) throw std::invalid_argument("cuda ntt: size above 2^28");
  const auto& tb = tables(L, s);
  const fr_d* small = small_roots(inverse, s);
  auto ps = plan(L);
  for (std::size_t i = ps.size(); i-- > 0;) {
    auto [r, k, t] = ps[i];
    const fr_d* tw = i + 1 < ps.size() ? (inverse ? tb.inv[i] : tb.fwd[i]).get() : nullptr;
    launch_pass<true>(d, L, r, k, t, small, tw, dif_epilogue{}, threads_, uniform_, shapes_, i == 0, s);
    mark("dit pass", s);
  }
}

void ntt_engine::bit_reverse(fr_d* d, unsigned L, cudaStream_t s) {
  bit_reverse_scaled(d, L, false, fr_d::one(), s);
  mark("bit reversal", s);
}

static void need_scratch(const fr_d* scratch) {
  if (!scratch) throw std::invalid_argument("cuda ntt: the fused bit reversal needs a scratch vector of the transform's size");
}

void ntt_engine::forward(fr_d* d, unsigned L, cudaStream_t s, fr_d* scratch) {
  if (fuses_reversal(L)) {
    need_scratch(scratch);
    dif_ep(d, L, false, nullptr, nullptr, false, s, scratch);
    return;
  }
  dif(d, L, false, s);
  bit_reverse(d, L, s);
}

// The 1/n rides on the bit reversal's store (fused: on the last pass's, as a division by 2^L).
void ntt_engine::inverse(fr_d* d, unsigned L, cudaStream_t s, fr_d* scratch) {
  if (fuses_reversal(L)) {
    need_scratch(scratch);
    dif_ep(d, L, true, nullptr, nullptr, false, s, scratch, true);
    return;
  }
  dif(d, L, true, s);
  auto ninv = zk::bls12_381::fr::from_u64(std::uint64_t(1) << L).inverse();
  bit_reverse_scaled(d, L, true, to_dev(ninv), s);
  mark("bit reversal, 1/n", s);
}

// The coset scale (n^-1 g^j) rides on the inverse DIF's last pass.
void ntt_engine::to_odd_coset(fr_d* v, unsigned L, cudaStream_t s) {
  const auto& tb = tables(L, s);
  dif_ep(v, L, true, tb.coset_lo.get(), tb.coset_hi.get(), false, s);
  dit(v, L, false, s);
}

void ntt_engine::combine_h(fr_d* a, const fr_d* b, const fr_d* c, unsigned L, cudaStream_t s) {
  size_t n = size_t(1) << L;
  h_combine_kernel<<<blocks_for(n, 256), 256, 0, s>>>(a, b, c, n);
  CUZK_LAUNCHED();
  mark("combine_h", s);
}

void ntt_engine::coset_h(fr_d* a, fr_d* b, fr_d* c, unsigned L, cudaStream_t s) {
  if (gen_ == bls12_381_snarkjs_gen) throw std::logic_error("cuda ntt: coset_h needs an engine with bellperson's roots");
  using zk::bls12_381::fr;
  const auto& tb = tables(L, s);
  const size_t n = size_t(1) << L;
  for (fr_d* v : {a, b, c}) to_odd_coset(v, L, s);  // evaluations at 7 omega^i
  const fr z_inv = (fr::from_u64(gen_).pow(std::uint64_t(n)) - fr::one()).inverse();  // Z(7 omega^i) = 7^n - 1
  h_divide_kernel<<<blocks_for(n, 256), 256, 0, s>>>(a, b, c, n, to_dev(z_inv));
  CUZK_LAUNCHED();
  // Back to coefficients: the inverse DIF leaves them bit-reversed and times n; its last pass
  // multiplies coefficient j by n^-1 7^-j and leaves Montgomery form, then the bit reversal (fused:
  // on that store, with b, free after the division, as the second vector).
  if (fuses_reversal(L)) {
    dif_ep(a, L, true, tb.uncoset_lo.get(), tb.uncoset_hi.get(), true, s, b);
    return;
  }
  dif_ep(a, L, true, tb.uncoset_lo.get(), tb.uncoset_hi.get(), true, s);
  bit_reverse(a, L, s);
}

void ntt_engine::compute_h(fr_d* a, fr_d* b, fr_d* c, unsigned L, cudaStream_t s) {
  for (fr_d* v : {a, b, c}) to_odd_coset(v, L, s);
  combine_h(a, b, c, L, s);
}

}  // namespace cuzk::gpu
