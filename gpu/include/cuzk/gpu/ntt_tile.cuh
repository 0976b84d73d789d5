// The index arithmetic of the NTT's shared-memory pass (gpu/src/ntt.cu, ntt_pass): which elements
// a block loads, which shared-memory slots each butterfly of a stage takes, where the block stores,
// and the pass plan. Host and device share it: the kernel calls these functions, and the host model
// of the pass (gpu/tests/ntt_model_test.cpp, CI) replays every load, stage and store with them over
// a small NTT prime against the DFT's definition.
//
// A pass of k radix-2 stages works on tiles of 2^(k+t) elements: 2^k rows by 2^t columns, element
// e of the tile at row e >> t, column e & (2^t - 1) (columns fastest, so adjacent threads load
// adjacent columns). In the in-place passes the rows are S = 2^(r-k) apart and the columns adjacent.
//
// The fused bit reversal (cuda_options::ntt_fused_reversal): the last DIF pass (r = k, rows
// adjacent) stores position p at bitrev_L(p) into a second vector. A pass in place could not: its
// block reads positions [c | b | row] and would write [rev(row) | rev(b) | rev(c)], inputs of other
// blocks not yet read (the race the model shows). Out of place there is no race, and the tile is
// chosen so that the stores coalesce: its 2^t columns are the sub-transforms b + c 2^(L-k-t) (c <
// 2^t), which differ in the top t bits of p (the columns 2^(L-t) apart, column shift L - t), so the
// bit-reversed positions of one row's 2^t columns differ only in their low t bits: bitrev_L(p) =
// rev_k(row) 2^(L-k) + rev_(L-k-t)(b) 2^t + rev_t(c). With t = 2 the four threads of a row store 4
// adjacent elements (128 bytes, one cache line); the loads are runs of 8 rows of one column (256
// bytes) per warp, as in the other passes. The stage loop is the in-place passes' own: only the
// load and store addresses differ. The first pass then goes out of place too (the vector into the
// second one), the middle ones in place there, so that the transform ends where it began.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuzk/gpu/ptx.cuh"  // CUZK_HD

namespace cuzk::gpu::ntt_tile {

CUZK_HD uint32_t bitrev(uint32_t x, unsigned bits) {
#if defined(__CUDA_ARCH__)
  return bits ? __brev(x) >> (32 - bits) : 0;
#else
  uint32_t y = 0;
  for (unsigned i = 0; i < bits; ++i) y |= ((x >> i) & 1u) << (bits - 1 - i);
  return y;
#endif
}

// One block's tile of a pass over (r, k, t): its sub-transform's start (a multiple of 2^r), its
// first column l0, the row stride S, the columns 2^t (mask tmask) and the column shift cs (0:
// adjacent columns).
struct block {
  std::size_t start, l0, S;
  unsigned t, tmask, cs;
  // Element e's offset from start + l0 (the twiddle table of the pass is indexed by l0 + offset).
  CUZK_HD std::size_t offset(unsigned e) const { return std::size_t(e >> t) * S + (std::size_t(e & tmask) << cs); }
  CUZK_HD std::size_t position(unsigned e) const { return start + l0 + offset(e); }
};

// Block b's tile. rev_bits: 0 for the in-place passes, L for the bit-reversed store (its columns
// 2^(L-t) apart; then r = k, and block b takes sub-transforms b + c 2^(L-k-t)).
CUZK_HD block block_of(std::size_t b, unsigned r, unsigned k, unsigned t, unsigned rev_bits) {
  const std::size_t S = std::size_t(1) << (r - k);
  const unsigned tmask = (1u << t) - 1;
  if (rev_bits) return {b << r, 0, S, t, tmask, rev_bits - t};
  const std::size_t lblocks = S >> t;
  const std::size_t hi = b / lblocks;
  const std::size_t l0 = (b % lblocks) << t;
  return {hi << r, l0, S, t, tmask, 0};
}

// Where position p is stored: p, or bitrev_L(p) for the bit-reversed store (rev_bits = L).
CUZK_HD std::size_t store_position(std::size_t p, unsigned rev_bits) {
  return rev_bits ? std::size_t(bitrev(uint32_t(p), rev_bits)) : p;
}

// Butterfly q of stage s (half-size 2^hbits, hbits = k - 1 - s): its two tile slots and the index
// of its root in the 2^(k-1) roots of the tile (0: the root 1, no product). By default the root's
// index j varies faster than the group, so adjacent threads touch adjacent slots; j-major (the
// stages with few roots, uniform roots) takes j from q's top bits, so a warp shares one root.
struct butterfly {
  unsigned i0, i1, jr;
};
CUZK_HD butterfly butterfly_of(unsigned q, unsigned k, unsigned t, unsigned s, unsigned hbits, bool jmajor) {
  const unsigned tmask = (1u << t) - 1;
  const unsigned lo = q & tmask, bq = q >> t;
  unsigned j, grp;
  if (jmajor) {
    grp = bq & ((1u << (k - 1 - hbits)) - 1);
    j = bq >> (k - 1 - hbits);
  } else {
    j = bq & ((1u << hbits) - 1);
    grp = bq >> hbits;
  }
  const unsigned i0 = (((grp << (hbits + 1)) | j) << t) | lo, i1 = i0 + (1u << (hbits + t));
  return {i0, i1, j << s};
}

// The stages whose half-size is at most 2^jmax run j-major (-1: none). They need a warp's 32
// butterflies to share j (t + k - 1 - hbits >= 5), and only pay where the tile has 4 adjacent
// columns (t = 2: a two-way bank conflict; t = 0 would be worse).
inline int jmax_of(bool uniform_roots, unsigned k, unsigned t) {
  return uniform_roots && t >= 2 ? (int(t + k) - 6 < 3 ? int(t + k) - 6 : 3) : -1;
}

// Threads of a block: one per butterfly, at most max_threads.
inline unsigned threads_of(unsigned max_threads, unsigned k, unsigned t) {
  const unsigned b = 1u << (k - 1 + t);
  return b < max_threads ? b : max_threads;
}

// The columns of the bit-reversed last pass (r = k of L bits): 4, or what the L - k bits above
// the tile allow.
inline unsigned fused_t(unsigned L, unsigned k) { return L - k < 2 ? L - k : 2; }

// The passes of a transform of 2^L: (r, k, t) each, r the bits not yet transformed. The last pass
// has up to 10 stages on contiguous tiles (t = 0; the bit-reversed one fused_t), the earlier ones
// up to 9 stages x 4 columns, the larger passes last.
struct pass {
  unsigned r, k, t;
};
inline std::vector<pass> plan(unsigned L) {
  std::vector<pass> out;
  if (L == 0) return out;
  const unsigned passes = L <= 10 ? 1 : (L - 10 + 8) / 9 + 1;
  const unsigned base = L / passes, rem = L % passes;
  unsigned r = L;
  for (unsigned p = 0; p < passes; ++p) {
    const unsigned k = base + (p >= passes - rem ? 1 : 0);
    const unsigned t = p + 1 == passes ? 0 : (r - k < 2 ? r - k : 2);
    out.push_back({r, k, t});
    r -= k;
  }
  return out;
}

// The exponent of the pass twiddle at table index idx (r, k): omega_{2^r}^(l * bitrev_k(p)) for
// row p = idx >> (r - k), column l (the table is laid out like the data, so it streams coalesced).
CUZK_HD std::uint64_t twiddle_exponent(std::size_t idx, unsigned r, unsigned k) {
  const std::size_t p = idx >> (r - k), l = idx & ((std::size_t(1) << (r - k)) - 1);
  return std::uint64_t(l) * bitrev(uint32_t(p), k);
}

}  // namespace cuzk::gpu::ntt_tile
