// A host model of the NTT's shared-memory pass (gpu/src/ntt.cu, ntt_pass): every load, stage and
// store of a DIF transform, block by block, with the kernel's own index arithmetic
// (cuzk/gpu/ntt_tile.cuh), over the NTT prime 998244353 (2^23 divides p - 1) instead of Fr, checked
// against the DFT's definition; and the properties that make the passes race-free on the GPU: each
// pass reads every position once and writes every position once, an in-place block writes only
// the positions it read, the butterflies of a stage take each tile slot once. The out-of-place
// last pass (the fused bit reversal) is checked for its natural-order result and for its stores
// coming in aligned runs of 4; the same store in place is shown to race. Runs everywhere (no GPU).
#include <catch2/catch.hpp>

#include <cstdint>
#include <set>
#include <vector>

#include "cuzk/gpu/ntt_tile.cuh"

namespace tile = cuzk::gpu::ntt_tile;

namespace {

using u64 = std::uint64_t;
constexpr u64 P = 998244353, G = 3;

u64 mulm(u64 a, u64 b) { return a * b % P; }
u64 powm(u64 a, u64 e) {
  u64 r = 1;
  for (; e; e >>= 1, a = mulm(a, a))
    if (e & 1) r = mulm(r, a);
  return r;
}
u64 root(unsigned L, bool inverse) {  // a primitive 2^L-th root of unity (its inverse)
  const u64 w = powm(G, (P - 1) >> L);
  return inverse ? powm(w, P - 2) : w;
}

// What a transform's passes saw: the race properties, and the stores of the bit-reversed pass.
struct findings {
  std::size_t passes = 0, bad_counts = 0, bad_blocks = 0, bad_stages = 0, runs = 0, bad_runs = 0;
};

// One DIF pass (r, k, t) of a transform of 2^L, as ntt_pass<false, ...> does it: src -> dst (the
// same vector: in place), rev_bits as pass_out's, the pass twiddle if `twiddle`, the epilogue's
// factor of coefficient bitrev_L(position) if f, times `scale`.
template <class Factor>
void model_pass(const std::vector<u64>& src, std::vector<u64>& dst, unsigned L, tile::pass ps, bool twiddle,
                unsigned rev_bits, bool uniform, bool inverse, const Factor& f, u64 scale, findings& out) {
  const auto [r, k, t] = ps;
  const unsigned T = 1u << (k + t), H = 1u << (k - 1);
  const std::size_t n = std::size_t(1) << L, blocks = n >> (k + t);
  const bool in_place = &src == &dst;
  std::vector<u64> small(H), sh(T);
  for (unsigned x = 0; x < H; ++x) small[x] = powm(root(k, inverse), x);
  const u64 base = root(r, inverse);
  const int jmax = tile::jmax_of(uniform, k, t);
  std::vector<u64> result = dst;  // in place: what the blocks leave, in the order they write
  std::vector<unsigned> reads(n), writes(n);
  ++out.passes;
  for (std::size_t b = 0; b < blocks; ++b) {
    const tile::block blk = tile::block_of(b, r, k, t, rev_bits);
    std::set<std::size_t> read, written;
    for (unsigned e = 0; e < T; ++e) {
      const std::size_t p = blk.position(e);
      if (p >= n) {
        ++out.bad_counts;
        continue;
      }
      ++reads[p];
      read.insert(p);
      sh[e] = src[p];
    }
    for (unsigned i = 0; i < k; ++i) {
      const unsigned s = i, hbits = k - 1 - s;
      const bool jmajor = int(hbits) <= jmax;
      std::vector<unsigned> touched(T);
      for (unsigned q = 0; q < T / 2; ++q) {
        const tile::butterfly bf = tile::butterfly_of(q, k, t, s, hbits, jmajor);
        ++touched[bf.i0], ++touched[bf.i1];
        const u64 x = sh[bf.i0], y = sh[bf.i1];
        sh[bf.i0] = (x + y) % P;
        sh[bf.i1] = mulm((x + P - y) % P, small[bf.jr]);
      }
      for (unsigned c : touched) out.bad_stages += c != 1;
    }
    std::vector<std::size_t> stored(T);
    for (unsigned e = 0; e < T; ++e) {
      const std::size_t off = blk.offset(e), p = blk.start + blk.l0 + off;
      u64 v = sh[e];
      if (twiddle) v = mulm(v, powm(base, tile::twiddle_exponent(off + blk.l0, r, k)));
      v = mulm(mulm(v, f(tile::bitrev(std::uint32_t(p), L))), scale);
      const std::size_t to = tile::store_position(p, rev_bits);
      ++writes[to];
      written.insert(to);
      stored[e] = to;
      (in_place ? result : dst)[to] = v;
    }
    if (in_place) out.bad_blocks += read != written;
    if (rev_bits)  // a row's 4 threads store one aligned run of 4 elements (128 bytes)
      for (unsigned e = 0; e + 4 <= T; e += 4) {
        std::set<std::size_t> run(stored.begin() + e, stored.begin() + e + 4);
        ++out.runs;
        out.bad_runs += !(run.size() == 4 && *run.begin() % 4 == 0 && *run.rbegin() == *run.begin() + 3);
      }
  }
  for (std::size_t p = 0; p < n; ++p) out.bad_counts += reads[p] != 1 || writes[p] != 1;
  if (in_place) dst = result;
}

// A DIF transform of x with the engine's plan (or `plan`), as ntt_engine::dif_ep runs it: in
// place (bit-reversed out), or fused (natural out: the first pass into a second vector, the middle
// ones in place there, the last back into x at the bit-reversed positions). f: the last pass's
// per-coefficient factor, scale: its constant one.
template <class Factor>
findings model_dif(std::vector<u64>& x, unsigned L, bool fused, bool uniform, bool inverse, const Factor& f,
                   u64 scale = 1, std::vector<tile::pass> plan = {}) {
  if (plan.empty()) plan = tile::plan(L);
  findings out;
  const bool oop = fused && plan.size() > 1;
  std::vector<u64> scratch(x.size());
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const bool last = i + 1 == plan.size();
    auto ps = plan[i];
    const auto one = [](std::uint32_t) { return u64(1); };
    if (!oop) {
      if (last) model_pass(x, x, L, ps, false, 0, uniform, inverse, f, scale, out);
      else model_pass(x, x, L, ps, true, 0, uniform, inverse, one, 1, out);
    } else if (i == 0) {
      model_pass(x, scratch, L, ps, true, 0, uniform, inverse, one, 1, out);
    } else if (!last) {
      model_pass(scratch, scratch, L, ps, true, 0, uniform, inverse, one, 1, out);
    } else {
      ps.t = tile::fused_t(L, ps.k);
      model_pass(scratch, x, L, ps, false, L, uniform, inverse, f, scale, out);
    }
  }
  return out;
}

std::vector<u64> naive_dft(const std::vector<u64>& x, unsigned L) {
  const std::size_t n = x.size();
  const u64 w = root(L, false);
  std::vector<u64> y(n);
  for (std::size_t m = 0; m < n; ++m) {
    u64 acc = 0, wm = powm(w, m), wi = 1;
    for (std::size_t i = 0; i < n; ++i, wi = mulm(wi, wm)) acc = (acc + mulm(x[i], wi)) % P;
    y[m] = acc;
  }
  return y;
}

// The textbook iterative radix-2 transform (checked against naive_dft below), for the sizes whose
// O(n^2) definition is too slow.
std::vector<u64> fast_dft(std::vector<u64> a, unsigned L) {
  const std::size_t n = a.size();
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t j = tile::bitrev(std::uint32_t(i), L);
    if (i < j) std::swap(a[i], a[j]);
  }
  for (unsigned s = 1; s <= L; ++s) {
    const std::size_t m = std::size_t(1) << s;
    const u64 wm = root(s, false);
    for (std::size_t b = 0; b < n; b += m) {
      u64 w = 1;
      for (std::size_t j = 0; j < m / 2; ++j, w = mulm(w, wm)) {
        const u64 u = a[b + j], v = mulm(a[b + j + m / 2], w);
        a[b + j] = (u + v) % P;
        a[b + j + m / 2] = (u + P - v) % P;
      }
    }
  }
  return a;
}

std::vector<u64> bit_reversed(const std::vector<u64>& a, unsigned L) {
  std::vector<u64> r(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) r[tile::bitrev(std::uint32_t(i), L)] = a[i];
  return r;
}

std::vector<u64> random_vec(unsigned L, u64 seed) {
  std::vector<u64> v(std::size_t(1) << L);
  for (auto& x : v) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    x = (seed >> 20) % P;
  }
  return v;
}

void require_clean(const findings& f, bool fused) {
  CHECK(f.bad_counts == 0);
  CHECK(f.bad_blocks == 0);
  CHECK(f.bad_stages == 0);
  CHECK(f.bad_runs == 0);
  if (fused) CHECK(f.runs > 0);
}

}  // namespace

TEST_CASE("ntt pass model: the textbook reference equals the DFT's definition", "[emulated][ntt_model]") {
  for (unsigned L : {1u, 2u, 5u, 9u}) {
    auto x = random_vec(L, L);
    REQUIRE(fast_dft(x, L) == naive_dft(x, L));
  }
}

TEST_CASE("ntt pass model: in place and fused bit reversal against the DFT", "[emulated][ntt_model]") {
  const auto one = [](std::uint32_t) { return u64(1); };
  for (unsigned L = 1; L <= 20; ++L) {
    if (L > 16 && L != 20) continue;  // 2^20: the three-pass plan of 2^24 and 2^27
    const auto x = random_vec(L, 100 + L);
    const auto want = L <= 11 ? naive_dft(x, L) : fast_dft(x, L);
    for (bool uniform : {true, false}) {
      INFO("log n = " << L << ", uniform roots " << uniform);
      auto a = x;
      require_clean(model_dif(a, L, false, uniform, false, one), false);
      REQUIRE(bit_reversed(a, L) == want);  // in place: bit-reversed out
      // Fused (more than one pass, as ntt_engine::fuses_reversal): natural order out, in x.
      const bool fuses = tile::plan(L).size() > 1;
      auto b = x;
      require_clean(model_dif(b, L, true, uniform, false, one), fuses);
      REQUIRE((fuses ? b : bit_reversed(b, L)) == want);
    }
  }
}

TEST_CASE("ntt pass model: three-pass plans at small sizes, epilogue factor and 1/n", "[emulated][ntt_model]") {
  using pl = std::vector<tile::pass>;
  for (auto [L, plan] : {std::pair{9u, pl{{9, 3, 2}, {6, 3, 2}, {3, 3, 0}}},
                         std::pair{12u, pl{{12, 4, 2}, {8, 4, 2}, {4, 4, 0}}},
                         std::pair{11u, pl{{11, 4, 2}, {7, 2, 2}, {5, 5, 0}}}}) {
    INFO("log n = " << L);
    const auto x = random_vec(L, 7 * L);
    const auto want = naive_dft(x, L);
    // Coefficient j times 5^j on the last pass's store (the coset epilogue's index).
    const auto f = [](std::uint32_t j) { return powm(5, j); };
    for (bool fused : {false, true}) {
      auto a = x;
      require_clean(model_dif(a, L, fused, true, false, f, 1, plan), fused);
      for (std::size_t j = 0; j < a.size(); ++j) {
        const std::size_t at = fused ? j : tile::bitrev(std::uint32_t(j), L);
        REQUIRE(a[at] == mulm(want[j], powm(5, j)));
      }
    }
    // Forward then inverse (inverse roots, 1/n on the last store), both fused: x again.
    auto b = x;
    const auto one = [](std::uint32_t) { return u64(1); };
    model_dif(b, L, true, true, false, one, 1, plan);
    require_clean(model_dif(b, L, true, true, true, one, powm(u64(1) << L, P - 2), plan), true);
    REQUIRE(b == x);
  }
}

TEST_CASE("ntt pass model: the bit-reversed store in place would race", "[emulated][ntt_model]") {
  // The last pass storing bit-reversed into its own vector: its blocks write positions that other
  // blocks read (before or after), which on the GPU is a race; the model counts blocks whose
  // writes are not their reads.
  for (unsigned L : {11u, 14u}) {
    auto plan = tile::plan(L);
    auto ps = plan.back();
    ps.t = tile::fused_t(L, ps.k);
    auto x = random_vec(L, L);
    findings f;
    model_pass(x, x, L, ps, false, L, true, false, [](std::uint32_t) { return u64(1); }, 1, f);
    CHECK(f.bad_blocks > 0);
  }
}
