#include <algorithm>

#include <cub/device/device_partition.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>

#include "cuzk/gpu/key_placement.hpp"
#include "msm.cuh"

namespace cuzk::gpu {

msm_profile*& msm_profile_hook() {
  static msm_profile* p = nullptr;
  return p;
}

__global__ void msm_digits_kernel(const uint64_t* __restrict__ scalars, const uint32_t* __restrict__ idx,
                                  uint32_t idx_base, std::size_t n, unsigned c, unsigned w0, unsigned w1,
                                  unsigned sets, unsigned nb, std::size_t set_stride, uint32_t* keys,
                                  uint32_t* vals) {
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::size_t src = idx ? idx[i] : i;
  const uint32_t point = idx ? uint32_t(src) - idx_base : uint32_t(i);
  const uint4* p = reinterpret_cast<const uint4*>(scalars + 4 * src);
  uint4 a = p[0], b = p[1];
  uint64_t s0 = a.x | uint64_t(a.y) << 32, s1 = a.z | uint64_t(a.w) << 32;
  uint64_t s2 = b.x | uint64_t(b.y) << 32, s3 = b.z | uint64_t(b.w) << 32;
  const uint32_t half = 1u << (c - 1), mask = (c == 32 ? 0u : (1u << c)) - 1;
  uint32_t carry = 0;
  unsigned set = 0, array = 0;  // w mod sets, (w - w0) div sets from w0 on
  for (unsigned w = 0; w < w1; ++w) {
    unsigned pos = w * c, li = pos / 64, sh = pos % 64;
    uint64_t lo = li == 0 ? s0 : li == 1 ? s1 : li == 2 ? s2 : li == 3 ? s3 : 0;
    uint64_t hi = li == 0 ? s1 : li == 1 ? s2 : li == 2 ? s3 : 0;
    uint64_t x = lo >> sh;
    if (sh) x |= hi << (64 - sh);
    uint32_t raw = uint32_t(x) & mask;
    raw += carry;
    uint32_t mag, neg;
    if (raw > half) {
      mag = (1u << c) - raw;  // digit raw - 2^c < 0
      neg = 1;
      carry = 1;
    } else {
      mag = raw;
      neg = 0;
      carry = 0;
    }
    if (w >= w0) {
      keys[std::size_t(w - w0) * n + i] = array * nb + mag;
      vals[std::size_t(w - w0) * n + i] = uint32_t(set * set_stride + point) | (neg << 31);
    }
    if (++set == sets) set = 0, array += w >= w0;
  }
}

namespace {

// The split's two tests of scalar i (a canonical 256-bit scalar, four 64-bit limbs): equal to 1, and
// neither 0 nor 1. One three-way partition evaluates both on each index in one pass over the
// scalars (the second test runs only where the first failed: the same 32 bytes, from the cache).
struct scalar_is_one {
  const uint64_t* s;
  __device__ __forceinline__ bool operator()(uint32_t i) const {
    const uint4* p = reinterpret_cast<const uint4*>(s + 4 * std::size_t(i));
    uint4 a = p[0], b = p[1];
    return (a.y | a.z | a.w | b.x | b.y | b.z | b.w) == 0 && a.x == 1;
  }
};
struct scalar_is_other {
  const uint64_t* s;
  __device__ __forceinline__ bool operator()(uint32_t i) const {
    const uint4* p = reinterpret_cast<const uint4*>(s + 4 * std::size_t(i));
    uint4 a = p[0], b = p[1];
    return (a.y | a.z | a.w | b.x | b.y | b.z | b.w) != 0 || a.x > 1;
  }
};

// counts[2 + k] = entries of list k below `cut` (lists ascending: a binary search).
__global__ void msm_split_cut_kernel(const uint32_t* ones, const uint32_t* others, uint32_t cut, int* counts) {
  if (blockIdx.x || threadIdx.x > 1) return;
  const uint32_t* list = threadIdx.x ? others : ones;
  int lo = 0, hi = counts[threadIdx.x];
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (list[mid] < cut) lo = mid + 1;
    else hi = mid;
  }
  counts[2 + threadIdx.x] = lo;
}

// ones[] <- the indices of the ones, others[] <- those of the others (both in ascending order: the
// partition is stable), counts[0..1] <- their numbers; the zeros' indices are discarded. temp null:
// only `bytes` is set.
void partition(void* temp, std::size_t& bytes, const uint64_t* scalars, std::size_t n, uint32_t* ones,
               uint32_t* others, int* counts, cudaStream_t s) {
  CUZK_CUDA(cub::DevicePartition::If(temp, bytes, thrust::counting_iterator<uint32_t>(0), ones, others,
                                     thrust::make_discard_iterator(), counts, int(n), scalar_is_one{scalars},
                                     scalar_is_other{scalars}, s));
}
std::size_t select_temp_bytes(std::size_t n) {
  std::size_t bytes = 0;
  partition(nullptr, bytes, nullptr, n, nullptr, nullptr, nullptr, nullptr);
  return bytes;
}

}  // namespace

std::size_t msm_split_temp_bytes(std::size_t n) { return select_temp_bytes(n) + 256; }

void msm_split_scalars(const uint64_t* scalars, std::size_t n, std::size_t cut, uint32_t* ones, uint32_t* others,
                       int* counts, void* temp, cudaStream_t s) {
  if (n >= (std::size_t(1) << 31)) throw std::invalid_argument("cuda msm: more than 2^31 scalars to split");
  if (n == 0) {
    CUZK_CUDA(cudaMemsetAsync(counts, 0, 4 * sizeof(int), s));
    return;
  }
  std::size_t bytes = select_temp_bytes(n);
  partition(temp, bytes, scalars, n, ones, others, counts, s);
  if (cut) {
    msm_split_cut_kernel<<<1, 32, 0, s>>>(ones, others, uint32_t(cut), counts);
    CUZK_LAUNCHED();
  } else {
    CUZK_CUDA(cudaMemsetAsync(counts + 2, 0, 2 * sizeof(int), s));
  }
}

namespace {
__global__ void msm_split_positions_kernel(const uint32_t* ones, const uint32_t* others, const int* counts,
                                           const uint32_t* cuts, std::size_t ncuts, int* out) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= 2 * ncuts) return;
  const unsigned which = unsigned(i & 1);
  const uint32_t* list = which ? others : ones;
  const uint32_t cut = cuts[i >> 1];
  int lo = 0, hi = counts[which];
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (list[mid] < cut) lo = mid + 1;
    else hi = mid;
  }
  out[i] = lo;
}
}  // namespace

void msm_split_positions(const uint32_t* ones, const uint32_t* others, const int* counts, const uint32_t* cuts,
                         std::size_t ncuts, int* out, cudaStream_t s) {
  if (!ncuts) return;
  constexpr unsigned threads = 128;
  msm_split_positions_kernel<<<blocks_for(2 * ncuts, threads), threads, 0, s>>>(ones, others, counts, cuts, ncuts, out);
  CUZK_LAUNCHED();
}

namespace {
// Plain bases: windows x (points + a bucket's reduction, ~3 additions' worth, per bucket).
double plain_cost(std::size_t n, unsigned c) {
  return double(msm_windows(c)) * (double(n) + 3.0 * double(1u << (c - 1)));
}
unsigned plain_window_bits(std::size_t n) {
  unsigned best = 2;
  double best_cost = 1e300;
  for (unsigned c = 2; c <= 22; ++c)
    if (plain_cost(n, c) < best_cost) best_cost = plain_cost(n, c), best = c;
  return best;
}
}  // namespace

msm_shape make_msm_shape(std::size_t n, int num_sms, unsigned force_c, unsigned sets, unsigned seg_len,
                         unsigned affine_lanes) {
  if (n >= (std::size_t(1) << 31)) throw std::invalid_argument("cuda msm: more than 2^31 points in one run");
  msm_shape sh{};
  sh.n = n;
  sh.sms = unsigned(std::max(num_sms, 0));
  sh.sets = sets ? sets : 1;
  if (sh.sets > max_shifted_sets) throw std::invalid_argument("cuda msm: more shifted sets than max_shifted_sets");
  sh.c = force_c ? force_c : sh.sets > 1 ? shifted_window_bits(n, sh.sets) : plain_window_bits(n);
  sh.nwin = msm_windows(sh.c);
  if (sh.sets > sh.nwin) throw std::invalid_argument("cuda msm: more shifted sets than windows");
  sh.nb = (1u << (sh.c - 1)) + 1;
  sh.bucket_windows = (sh.nwin + sh.sets - 1) / sh.sets;
  // Bucket arrays sorted together (msm_run goes one such group at a time).
  sh.group_arrays = msm_group_arrays(n, sh.sets, sh.bucket_windows);
  sh.M = n * std::min(sh.group_arrays * sh.sets, sh.nwin);
  std::size_t per = sh.M / (std::size_t(std::max(num_sms, 1)) * 1024);
  sh.K1 = unsigned(std::clamp<std::size_t>(per, 8, 256));
  sh.affine_lanes = affine_lanes;
  // Batch-affine: short slices, so that a thread has many lanes (one inversion per step of all).
  if (affine_lanes) sh.K1 = 32;
  sh.T1 = (sh.M + sh.K1 - 1) / sh.K1;
  sh.K2 = 16;
  std::size_t total = std::size_t(sh.bucket_windows) * sh.nb;
  // Buckets per reduction segment. A segment ends with a double-and-add by its start (up to c - 1
  // bits), so short segments pay for that and long ones for too few threads. The rule below is
  // the best length measured per shape (docs/gpu.md, "MSM"); a caller's seg_len overrides it.
  // Two or more arrays (plain, or sets shared by groups of windows) take the plain rule.
  sh.seg_len = seg_len                  ? seg_len
               : sh.bucket_windows == 1 ? unsigned(std::clamp<std::size_t>(total / 32768, 64, 128))
                                        : unsigned(std::clamp<std::size_t>(total / 65536, 8, 256));
  sh.nseg = (sh.nb - 1 + sh.seg_len - 1) / sh.seg_len;
  return sh;
}

namespace {
// One doubling of the window combination (Horner, one thread): c x windows of them take the time
// of ~8M additions in the accumulation at c = 22.
constexpr double combine_doubling_cost = 8e6 / 264;
}  // namespace

double msm_shifted_cost(std::size_t n, unsigned c, unsigned sets) {
  // A bucket reduction per array (one when every window has its set): windows x points + ~5
  // additions' worth per bucket (a bucket in the reduction against a point in the accumulation),
  // and the Horner combination of the arrays, c x sets doublings apart.
  const unsigned W = msm_windows(c), S = sets == 0 || sets > W ? W : sets, arrays = (W + S - 1) / S;
  return double(W) * double(n) + 5.0 * arrays * double(1u << (c - 1)) +
         double(arrays - 1) * c * S * combine_doubling_cost;
}
double msm_plain_cost(std::size_t n) {
  // Plus the window combination, which shifted sets of every window do not have.
  return plain_cost(n, plain_window_bits(n)) + 8e6;
}

unsigned shifted_window_bits(std::size_t n, unsigned sets) {
  unsigned best = 22;
  double best_cost = 1e300;
  for (unsigned c = 12; c <= 24; ++c)
    if (msm_windows(c) >= sets && msm_shifted_cost(n, c, sets) < best_cost)
      best_cost = msm_shifted_cost(n, c, sets), best = c;
  return best;
}

std::size_t msm_lane_scratch(bool g2, std::size_t n, int sms, unsigned c, unsigned sets, unsigned seg_len,
                             unsigned affine_lanes, std::size_t cub_temp) {
  const msm_shape sh = make_msm_shape(n, sms, c, sets > 1 ? sets : 1, seg_len, affine_lanes);
  return g2 ? msm_g2_scratch(sh, cub_temp) : msm_g1_scratch(sh, cub_temp);
}

unsigned msm_key_bits(const msm_shape& sh) {
  uint32_t maxkey = sh.group_arrays * sh.nb - 1;  // keys are local to a group of arrays
  unsigned bits = 1;
  while (bits < 32 && (maxkey >> bits)) ++bits;
  return bits;
}

std::size_t msm_cub_temp_bytes(std::size_t M, unsigned end_bit) {
  cub::DoubleBuffer<uint32_t> k(nullptr, nullptr), v(nullptr, nullptr);
  std::size_t bytes = 0;
  CUZK_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, bytes, k, v, M, 0, int(end_bit)));
  return bytes;
}

}  // namespace cuzk::gpu
