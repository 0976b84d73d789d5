#include <algorithm>

#include "msm.cuh"

namespace cuzk::gpu {

msm_profile*& msm_profile_hook() {
  static msm_profile* p = nullptr;
  return p;
}

__global__ void msm_digits_kernel(const uint64_t* __restrict__ scalars, std::size_t n, unsigned c, unsigned nwin,
                                  unsigned key_stride, std::size_t set_stride, uint32_t* keys, uint32_t* vals) {
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint4* p = reinterpret_cast<const uint4*>(scalars + 4 * i);
  uint4 a = p[0], b = p[1];
  uint64_t s0 = a.x | uint64_t(a.y) << 32, s1 = a.z | uint64_t(a.w) << 32;
  uint64_t s2 = b.x | uint64_t(b.y) << 32, s3 = b.z | uint64_t(b.w) << 32;
  const uint32_t half = 1u << (c - 1), mask = (c == 32 ? 0u : (1u << c)) - 1;
  uint32_t carry = 0;
  for (unsigned w = 0; w < nwin; ++w) {
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
    keys[std::size_t(w) * n + i] = w * key_stride + mag;
    vals[std::size_t(w) * n + i] = uint32_t(w * set_stride + i) | (neg << 31);
  }
}

msm_shape make_msm_shape(std::size_t n, int num_sms, unsigned force_c, bool shifted, unsigned seg_len) {
  if (n >= (std::size_t(1) << 31)) throw std::invalid_argument("cuda msm: more than 2^31 points in one run");
  msm_shape sh{};
  sh.n = n;
  sh.c = force_c ? force_c : shifted_window_bits(n);
  if (!force_c && !shifted) {
    // Windows x (points + a bucket's reduction, ~3 additions' worth, per bucket).
    double best_cost = 1e300;
    for (unsigned c = 2; c <= 22; ++c) {
      double nwin = double(msm_windows(c));
      double cost = nwin * (double(n) + 3.0 * double(1u << (c - 1)));
      if (cost < best_cost) best_cost = cost, sh.c = c;
    }
  }
  sh.nwin = msm_windows(sh.c);
  sh.nb = (1u << (sh.c - 1)) + 1;
  sh.shifted = shifted;
  sh.bucket_windows = shifted ? 1 : sh.nwin;
  if (shifted && sh.nwin > max_shifted_sets) throw std::invalid_argument("cuda msm: window too narrow for shifted bases");
  sh.M = n * sh.nwin;
  std::size_t per = sh.M / (std::size_t(std::max(num_sms, 1)) * 1024);
  sh.K1 = unsigned(std::clamp<std::size_t>(per, 8, 256));
  sh.T1 = (sh.M + sh.K1 - 1) / sh.K1;
  sh.K2 = 16;
  std::size_t total = std::size_t(sh.bucket_windows) * sh.nb;
  // Buckets per reduction segment. A segment ends with a double-and-add by its start (up to c - 1
  // bits), so short segments pay for that and long ones for too few threads. Measured on the H200
  // (G1): 13 windows of 2^19 buckets best at ~104, the plain rule (19.1 ms; 64: 24.5, 128: 21.5);
  // one shifted window of 2^21 (c = 22) best at 64 (6.7-7.1 ms; 32: 13.6, 128: 10.3); of 2^23
  // (c = 24, 2^26 points) 128 (31.3 ms; 64: 38.4). A caller's seg_len overrides it, for such runs.
  sh.seg_len = seg_len  ? seg_len
               : shifted ? unsigned(std::clamp<std::size_t>(total / 32768, 64, 128))
                         : unsigned(std::clamp<std::size_t>(total / 65536, 8, 256));
  sh.nseg = (sh.nb - 1 + sh.seg_len - 1) / sh.seg_len;
  return sh;
}

unsigned shifted_window_bits(std::size_t n) {
  // One bucket reduction for all windows: windows x points + ~5 additions' worth per bucket (the
  // measured cost of a bucket in the reduction against a point in the accumulation, H200).
  unsigned best = 22;
  double best_cost = 1e300;
  for (unsigned c = 12; c <= 24; ++c) {
    double cost = double(msm_windows(c)) * double(n) + 5.0 * double(1u << (c - 1));
    if (cost < best_cost) best_cost = cost, best = c;
  }
  return best;
}

unsigned msm_key_bits(const msm_shape& sh) {
  uint32_t maxkey = sh.bucket_windows * sh.nb - 1;
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
