#include "ntt.cuh"

#include <cstring>

#include "zk/ntt/domain.hpp"

namespace cuzk::gpu {

namespace {

constexpr unsigned small_log = 10;  // shared-memory root table: omega_1024^x, x < 512
constexpr unsigned ntt_threads = 256;
constexpr std::uint64_t bls12_381_snarkjs_gen = zk::bls12_381::fr_snarkjs_generator;

fr_d to_dev(const zk::bls12_381::fr& x) {
  fr_d d;
  std::memcpy(&d, &x, sizeof d);
  return d;
}

__device__ __forceinline__ uint32_t bitrev(uint32_t x, unsigned bits) { return bits ? __brev(x) >> (32 - bits) : 0; }

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

size_t shared_bytes(unsigned k, unsigned t) { return ((size_t(1) << (k + t)) + (size_t(1) << (k - 1))) * sizeof(fr_d); }

// One pass of k stages on tiles of 2^(k+t) elements: 2^k "rows" (stride S = 2^(r-k)) by 2^t
// adjacent columns. DIT = false: DIF stages then twiddles; true: twiddles then DIT stages.
template <bool DIT>
__global__ void __launch_bounds__(ntt_threads) ntt_pass(fr_d* data, unsigned r, unsigned k, unsigned t,
                                                        const fr_d* __restrict__ small, const fr_d* __restrict__ tw) {
  extern __shared__ uint4 shraw[];
  fr_d* sh = reinterpret_cast<fr_d*>(shraw);
  const unsigned T = 1u << (k + t);
  fr_d* roots = sh + T;
  const size_t S = size_t(1) << (r - k);
  const size_t lblocks = S >> t;
  const size_t hi = blockIdx.x / lblocks;
  const size_t l0 = (blockIdx.x % lblocks) << t;
  fr_d* base = data + (hi << r) + l0;
  const unsigned tmask = (1u << t) - 1;

  for (unsigned x = threadIdx.x; x < (1u << (k - 1)); x += blockDim.x) roots[x] = ld(small + (size_t(x) << (small_log - k)));
  for (unsigned e = threadIdx.x; e < T; e += blockDim.x) {
    size_t off = size_t(e >> t) * S + (e & tmask);
    fr_d v = ld(base + off);
    if (DIT && tw) v = v * ld(tw + off + l0);
    sh[e] = v;
  }
  __syncthreads();
  for (unsigned i = 0; i < k; ++i) {
    const unsigned s = DIT ? k - 1 - i : i;
    const unsigned hbits = k - 1 - s;  // half-size h = 2^hbits
    for (unsigned q = threadIdx.x; q < T / 2; q += blockDim.x) {
      unsigned lo = q & tmask, bq = q >> t;
      unsigned j = bq & ((1u << hbits) - 1);
      unsigned g0 = ((bq >> hbits) << (hbits + 1)) | j;
      unsigned i0 = (g0 << t) | lo, i1 = ((g0 + (1u << hbits)) << t) | lo;
      fr_d x = sh[i0], y = sh[i1];
      if (DIT) {
        if (j) y = y * roots[j << s];
        sh[i0] = x + y;
        sh[i1] = x - y;
      } else {
        sh[i0] = x + y;
        fr_d d = x - y;
        sh[i1] = j ? d * roots[j << s] : d;
      }
    }
    __syncthreads();
  }
  for (unsigned e = threadIdx.x; e < T; e += blockDim.x) {
    size_t off = size_t(e >> t) * S + (e & tmask);
    fr_d v = sh[e];
    if (!DIT && tw) v = v * ld(tw + off + l0);
    st(base + off, v);
  }
}

template <bool DIT>
void launch_pass(fr_d* d, unsigned L, unsigned r, unsigned k, unsigned t, const fr_d* small, const fr_d* tw,
                 cudaStream_t s) {
  size_t shm = shared_bytes(k, t);
  unsigned blocks = unsigned((size_t(1) << L) >> (k + t));
  CUZK_CUDA(cudaFuncSetAttribute(ntt_pass<DIT>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shm)));
  unsigned threads = std::min<unsigned>(ntt_threads, 1u << (k - 1 + t));
  ntt_pass<DIT><<<blocks, threads, shm, s>>>(d, r, k, t, small, tw);
  CUZK_LAUNCHED();
}

// tw[p * S + l] = base^(l * bitrev_k(p)), base = omega_{2^r}.
__global__ void build_twiddles(fr_d* tw, unsigned r, unsigned k, fr_d base) {
  size_t idx = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= (size_t(1) << r)) return;
  size_t p = idx >> (r - k), l = idx & ((size_t(1) << (r - k)) - 1);
  uint64_t e = uint64_t(l) * bitrev(uint32_t(p), k);
  fr_d acc = fr_d::one(), b = base;
  while (e) {
    if (e & 1) acc = acc * b;
    b = b.sqr();
    e >>= 1;
  }
  st(tw + idx, acc);
}

__global__ void bit_reverse_kernel(fr_d* d, unsigned L) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >> L) return;
  size_t j = bitrev(uint32_t(i), L);
  if (i < j) {
    fr_d a = ld(d + i), b = ld(d + j);
    st(d + i, b);
    st(d + j, a);
  }
}

__global__ void scale_kernel(fr_d* d, size_t n, fr_d s) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) st(d + i, ld(d + i) * s);
}

// Bit-reversed coefficients: position p holds coefficient j = bitrev_L(p); times n^-1 g^j.
__global__ void coset_scale_kernel(fr_d* d, unsigned L, const fr_d* __restrict__ lo, const fr_d* __restrict__ hi) {
  size_t p = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p >> L) return;
  uint32_t j = bitrev(uint32_t(p), L);
  fr_d f = ld(lo + (j & 4095));
  if (j >> 12) f = f * ld(hi + (j >> 12));
  st(d + p, ld(d + p) * f);
}

// Bit-reversed coefficients times n^-1 g^-j, to canonical form, at natural position j.
__global__ void uncoset_kernel(const fr_d* __restrict__ d, fr_d* __restrict__ out, unsigned L, const fr_d* __restrict__ lo,
                               const fr_d* __restrict__ hi) {
  size_t p = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p >> L) return;
  uint32_t j = bitrev(uint32_t(p), L);
  fr_d f = ld(lo + (j & 4095));
  if (j >> 12) f = f * ld(hi + (j >> 12));
  st(out + j, (ld(d + p) * f).from_mont());
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

std::vector<ntt_engine::pass> ntt_engine::plan(unsigned L) {
  std::vector<pass> out;
  if (L == 0) return out;
  // Last pass: up to 10 stages on contiguous tiles; earlier ones: up to 9 stages x 4 columns.
  unsigned passes = L <= 10 ? 1 : (L - 10 + 8) / 9 + 1;
  unsigned base = L / passes, rem = L % passes;
  unsigned r = L;
  for (unsigned p = 0; p < passes; ++p) {
    unsigned k = base + (p >= passes - rem ? 1 : 0);  // the larger passes last
    unsigned t = p + 1 == passes ? 0 : std::min(2u, r - k);
    out.push_back({r, k, t});
    r -= k;
  }
  return out;
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

void ntt_engine::dif(fr_d* d, unsigned L, bool inverse, cudaStream_t s) {
  if (L > ntt_max_log) throw std::invalid_argument("cuda ntt: size above 2^28");
  const auto& tb = tables(L, s);
  const fr_d* small = small_roots(inverse, s);
  auto ps = plan(L);
  for (std::size_t i = 0; i < ps.size(); ++i) {
    auto [r, k, t] = ps[i];
    const fr_d* tw = i + 1 < ps.size() ? (inverse ? tb.inv[i] : tb.fwd[i]).get() : nullptr;
    launch_pass<false>(d, L, r, k, t, small, tw, s);
  }
}

void ntt_engine::dit(fr_d* d, unsigned L, bool inverse, cudaStream_t s) {
  if (L > ntt_max_log) throw std::invalid_argument("cuda ntt: size above 2^28");
  const auto& tb = tables(L, s);
  const fr_d* small = small_roots(inverse, s);
  auto ps = plan(L);
  for (std::size_t i = ps.size(); i-- > 0;) {
    auto [r, k, t] = ps[i];
    const fr_d* tw = i + 1 < ps.size() ? (inverse ? tb.inv[i] : tb.fwd[i]).get() : nullptr;
    launch_pass<true>(d, L, r, k, t, small, tw, s);
  }
}

void ntt_engine::bit_reverse(fr_d* d, unsigned L, cudaStream_t s) {
  if (L == 0) return;
  size_t n = size_t(1) << L;
  bit_reverse_kernel<<<blocks_for(n, 256), 256, 0, s>>>(d, L);
  CUZK_LAUNCHED();
}

void ntt_engine::forward(fr_d* d, unsigned L, cudaStream_t s) {
  dif(d, L, false, s);
  bit_reverse(d, L, s);
}

void ntt_engine::inverse(fr_d* d, unsigned L, cudaStream_t s) {
  dif(d, L, true, s);
  bit_reverse(d, L, s);
  size_t n = size_t(1) << L;
  auto ninv = zk::bls12_381::fr::from_u64(n).inverse();
  scale_kernel<<<blocks_for(n, 256), 256, 0, s>>>(d, n, to_dev(ninv));
  CUZK_LAUNCHED();
}

void ntt_engine::to_odd_coset(fr_d* v, unsigned L, cudaStream_t s) {
  const auto& tb = tables(L, s);
  size_t n = size_t(1) << L;
  dif(v, L, true, s);
  coset_scale_kernel<<<blocks_for(n, 256), 256, 0, s>>>(v, L, tb.coset_lo.get(), tb.coset_hi.get());
  CUZK_LAUNCHED();
  dit(v, L, false, s);
}

void ntt_engine::combine_h(fr_d* a, const fr_d* b, const fr_d* c, unsigned L, cudaStream_t s) {
  size_t n = size_t(1) << L;
  h_combine_kernel<<<blocks_for(n, 256), 256, 0, s>>>(a, b, c, n);
  CUZK_LAUNCHED();
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
  dif(a, L, true, s);  // bit-reversed coefficients of the coset polynomial, times n
  uncoset_kernel<<<blocks_for(n, 256), 256, 0, s>>>(a, b, L, tb.uncoset_lo.get(), tb.uncoset_hi.get());
  CUZK_LAUNCHED();
  CUZK_CUDA(cudaMemcpyAsync(a, b, n * sizeof(fr_d), cudaMemcpyDeviceToDevice, s));
}

void ntt_engine::compute_h(fr_d* a, fr_d* b, fr_d* c, unsigned L, cudaStream_t s) {
  for (fr_d* v : {a, b, c}) to_odd_coset(v, L, s);
  combine_h(a, b, c, L, s);
}

}  // namespace cuzk::gpu
