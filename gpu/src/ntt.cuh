// Number-theoretic transforms over Fr on device memory, and the whole h computation of the Groth16
// prover, in either convention: an engine is made for one family of roots, snarkjs's (omega_k =
// w[k] = 5^((r-1)/2^k), h on the odd coset omega_{2n} omega^i) or bellperson's (roots from 7, h on
// the coset 7 omega^i, divided by Z = 7^n - 1 there and brought back to coefficients).
//
// Layout of a transform of size 2^L: a few passes, each of k radix-2 stages done in shared memory
// on tiles of 2^k elements spaced 2^(r-k) apart (r: the bits not yet transformed). A DIF pass is a
// size-2^k DFT using only 2^k-th roots followed by one twiddle multiplication by
// omega_{2^r}^(l * bitrev_k(slot)); the twiddles of each pass are a table laid out like the data,
// so it streams coalesced. DIF takes natural order to bit-reversed; the DIT pass (the transpose:
// twiddles first, stages reversed, butterfly x +- w*y) takes bit-reversed to natural with the same
// tables. compute_h uses DIF (inverse roots), the 1/n * g^j scale on the DIF's last store, then
// DIT: no bit reversal and no pass of its own for the coset. The natural-order transforms end in a
// tiled in-place bit reversal (runs of 32 elements read and written, the inverse's 1/n on its
// store), or, made with fused_reversal, in the last DIF pass's store into a second vector of 2^L
// (out of place, runs of 4 elements; the first pass goes out of place too, so the transform ends
// in the vector it began in: ntt_tile.cuh); bellperson's coset_h then uses b, free after the
// division, and the natural-order forward / inverse a scratch vector their caller passes.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "common.cuh"
#include "cuzk/gpu/fields.cuh"
#include "cuzk/gpu/ntt_tile.cuh"

namespace cuzk::gpu {

inline constexpr unsigned ntt_max_log = 28;
inline constexpr unsigned ntt_max_threads = 512;

class ntt_engine {
 public:
  // root_generator: 5 (snarkjs, the default) or 7 (bellperson); see zk/ntt/domain.hpp.
  // threads: per block of a shared-memory pass (256 or 512). uniform_roots: the stages with few
  // roots give each warp one root (ntt.cu, ntt_pass). compiled_shapes: the passes of 2^24 and
  // 2^27's tile shapes at 256 threads run kernels with the shape as a constant (ntt.cu, ntt_pass's KT).
  // fused_reversal: the bit reversal of the natural-order transforms and of coset_h rides on the
  // last DIF pass's store into a second vector (ntt_tile.cuh).
  explicit ntt_engine(std::uint64_t root_generator = 5, unsigned threads = 256, bool uniform_roots = true,
                      bool compiled_shapes = false, bool fused_reversal = false);
  // natural order in and out; inverse includes 1/n. scratch: 2^L elements the transform may
  // overwrite, needed when fuses_reversal(L) (the fused bit reversal's second vector).
  void forward(fr_d* d, unsigned log_n, cudaStream_t s, fr_d* scratch = nullptr);
  void inverse(fr_d* d, unsigned log_n, cudaStream_t s, fr_d* scratch = nullptr);
  // Whether forward / inverse of 2^L take a scratch vector: made with fused_reversal and more than
  // one pass (2^11 and up; below, the bit reversal stays a kernel of its own).
  bool fuses_reversal(unsigned log_n) const { return fused_ && ntt_tile::plan(log_n).size() > 1; }
  void dif(fr_d* d, unsigned log_n, bool inverse, cudaStream_t s);  // natural -> bit-reversed, unscaled
  void dit(fr_d* d, unsigned log_n, bool inverse, cudaStream_t s);  // bit-reversed -> natural, unscaled
  void bit_reverse(fr_d* d, unsigned log_n, cudaStream_t s);
  // a, b, c: evaluations over the size-2^L domain (Montgomery). On return a holds
  // h_i = A_i B_i - C_i at g * omega^i, canonical; b and c are clobbered.
  void compute_h(fr_d* a, fr_d* b, fr_d* c, unsigned log_n, cudaStream_t s);
  // bellperson's h (an engine made with 7): a, b, c evaluations over omega^i (Montgomery); on
  // return a[0 .. n-2] holds h's coefficients, canonical ((A B - C) / Z on the coset 7 omega^i,
  // then back: intt and coefficient j times 7^-j); b and c are clobbered.
  void coset_h(fr_d* a, fr_d* b, fr_d* c, unsigned log_n, cudaStream_t s);
  // The per-vector part of compute_h: evaluations over omega^i -> evaluations at g * omega^i (g:
  // omega_{2n} for snarkjs, 7 for bellperson).
  void to_odd_coset(fr_d* v, unsigned log_n, cudaStream_t s);
  // a <- canonical(a * b - c), elementwise.
  void combine_h(fr_d* a, const fr_d* b, const fr_d* c, unsigned log_n, cudaStream_t s);
  // Device bytes the tables of size 2^L take (both directions), for memory planning.
  static std::size_t table_bytes(unsigned log_n);
  // Builds the tables now (otherwise the first transform of a size does it).
  void prepare(unsigned log_n, cudaStream_t s) { (void)tables(log_n, s); }

  using pass = ntt_tile::pass;
  static std::vector<pass> plan(unsigned log_n) { return ntt_tile::plan(log_n); }

  // Profiling hook (benchmarks): when set, mark() is called on the stream after each launch with
  // its name; the caller records events there. Not for concurrent use.
  struct launch_marks {
    virtual ~launch_marks() = default;
    virtual void mark(const char* what, cudaStream_t s) = 0;
  };
  void set_marks(launch_marks* m) { marks_ = m; }

 private:
  struct size_tables {
    std::vector<dbuf<fr_d>> fwd, inv;  // per pass but the last: the twiddle table (2^r entries)
    dbuf<fr_d> coset_lo, coset_hi;     // n^-1 g^j = lo[j & 4095] * hi[j >> 12]
    dbuf<fr_d> uncoset_lo, uncoset_hi; // n^-1 g^-j, likewise (bellperson's way back)
  };
  const size_tables& tables(unsigned log_n, cudaStream_t s);
  const fr_d* small_roots(bool inverse, cudaStream_t s);
  // dif with the last pass's store times lo[j & 4095] * hi[j >> 12] for coefficient j (and out of
  // Montgomery form if canonical); lo = nullptr: plain. With scratch (and more than one pass):
  // natural order out, the bit reversal on the last pass's store (the first pass into scratch, the
  // last back into d), times 1/n if scale_ninv.
  void dif_ep(fr_d* d, unsigned log_n, bool inverse, const fr_d* lo, const fr_d* hi, bool canonical, cudaStream_t s,
              fr_d* scratch = nullptr, bool scale_ninv = false);
  void mark(const char* what, cudaStream_t s) {
    if (marks_) marks_->mark(what, s);
  }

  std::uint64_t gen_;
  unsigned threads_;
  bool uniform_;
  bool shapes_;
  bool fused_;
  std::mutex mu_;
  std::map<unsigned, std::unique_ptr<size_tables>> tables_;
  dbuf<fr_d> small_fwd_, small_inv_;  // omega_1024^x, x < 512
  launch_marks* marks_ = nullptr;
};

}  // namespace cuzk::gpu
