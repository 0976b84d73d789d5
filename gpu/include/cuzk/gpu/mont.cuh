// Prime-field element in Montgomery form on 32-bit limbs, for device code (and, through the host
// emulation in ptx.cuh, for host-side checks). Same bytes as zk::fp_t on 64-bit limbs: a little-
// endian array of u64 limbs is the same memory as the little-endian array of u32 limbs, and both
// use R = 2^(limb bits * limbs), so buffers move between host and device unchanged.
//
// Params: static constexpr int N (even number of 32-bit limbs); constexpr functions mod(i), one(i)
// (R mod p) and uint32_t m0 = -p^-1 mod 2^32. The modulus must leave its top bit spare (both
// BLS12-381 fields do), so a + b never overflows and the product's accumulator fits 2N limbs.
#pragma once

#include "cuzk/gpu/ptx.cuh"

namespace cuzk::gpu {

template <class P>
struct mont_t {
  static constexpr int N = P::N;
  static_assert(N % 2 == 0, "even limb count: the product chains pair lo/hi halves");
  uint32_t v[N];

  CUZK_HD static mont_t zero() {
    mont_t r;
CUZK_UNROLL
    for (int i = 0; i < N; ++i) r.v[i] = 0;
    return r;
  }
  CUZK_HD static mont_t one() {
    mont_t r;
CUZK_UNROLL
    for (int i = 0; i < N; ++i) r.v[i] = P::one(i);
    return r;
  }
  CUZK_HD bool is_zero() const {
    uint32_t acc = 0;
CUZK_UNROLL
    for (int i = 0; i < N; ++i) acc |= v[i];
    return acc == 0;
  }
  CUZK_HD bool operator==(const mont_t& o) const {
    uint32_t acc = 0;
CUZK_UNROLL
    for (int i = 0; i < N; ++i) acc |= v[i] ^ o.v[i];
    return acc == 0;
  }
  CUZK_HD bool operator!=(const mont_t& o) const { return !(*this == o); }

  // r - p if r >= p (r < 2p < 2^(32N) on entry).
  CUZK_HD static void reduce_once(uint32_t* r) {
    uint32_t t[N];
    t[0] = ptx::sub_cc(r[0], P::mod(0));
CUZK_UNROLL
    for (int i = 1; i < N; ++i) t[i] = ptx::subc_cc(r[i], P::mod(i));
    uint32_t borrow = ptx::subc(0, 0);  // 0 or 0xffffffff
CUZK_UNROLL
    for (int i = 0; i < N; ++i) r[i] = borrow ? r[i] : t[i];
  }

  // r = a + b over L limbs, modulo 2^(32L) (r may alias a or b).
  template <int L>
  CUZK_HD static void add_limbs(uint32_t* r, const uint32_t* a, const uint32_t* b) {
    r[0] = ptx::add_cc(a[0], b[0]);
CUZK_UNROLL
    for (int i = 1; i < L - 1; ++i) r[i] = ptx::addc_cc(a[i], b[i]);
    r[L - 1] = ptx::addc(a[L - 1], b[L - 1]);
  }
  friend CUZK_HD mont_t operator+(const mont_t& a, const mont_t& b) {
    mont_t r;
    add_limbs<N>(r.v, a.v, b.v);
    reduce_once(r.v);
    return r;
  }
  friend CUZK_HD mont_t operator-(const mont_t& a, const mont_t& b) {
    mont_t r;
    r.v[0] = ptx::sub_cc(a.v[0], b.v[0]);
CUZK_UNROLL
    for (int i = 1; i < N; ++i) r.v[i] = ptx::subc_cc(a.v[i], b.v[i]);
    uint32_t mask = ptx::subc(0, 0);
    r.v[0] = ptx::add_cc(r.v[0], P::mod(0) & mask);
CUZK_UNROLL
    for (int i = 1; i < N - 1; ++i) r.v[i] = ptx::addc_cc(r.v[i], P::mod(i) & mask);
    r.v[N - 1] = ptx::addc(r.v[N - 1], P::mod(N - 1) & mask);
    return r;
  }
  CUZK_HD mont_t operator-() const { return zero() - *this; }
  CUZK_HD mont_t dbl() const { return *this + *this; }

  // Montgomery multiplication, CIOS with the accumulator split in two: V = x + 2^32 y, where x
  // takes the products of a's even limbs (a_2k b_i lands on x[2k], x[2k+1]) and y those of the odd
  // limbs (a_2k+1 b_i on y[2k], y[2k+1]). Every carry chain then adds 64-bit products onto aligned
  // register pairs, which the device compiles to one IMAD.WIDE.U32.X each (the textbook row, where
  // a_j b_i's halves land on limbs j, j + 1 for every j, breaks the pairs on every other limb and
  // costs an IMAD plus an IADD3.X per half). The Montgomery step's shift by one limb swaps the
  // halves' roles: V / 2^32 = (y + x[1]) + 2^32 (x >> 64), so the next row's x is y (plus x[1])
  // and its y is x two limbs down, shifted inside the next row's multiply-add chain.
  // Bounds (a < p, any b): V < a + p < 2p after each row and below 2^32 (2p + 2^32 p) < 2^(32N+32)
  // inside one, since p < 2^(32N-1); so y's chains never carry out of y[N-1], x's carry out of
  // x[N-1] (weight 2^(32N)) goes onto y[N-1], and one conditional subtraction finishes.
  // A row is 2N IMAD.WIDE.U32(.X) + 4 (Fr: 2N - 2 and a few additions, split_reduce), about half
  // the instructions of the textbook rows.
  friend CUZK_HD mont_t operator*(const mont_t& a, const mont_t& b) {
    mont_t r = mul_unreduced(a, b);
    reduce_once(r.v);
    return r;
  }
  // The product without its final conditional subtraction: a b / R mod p, below a + p (so below
  // 2p for a < p, whatever b < 2^(32N): b may itself be unreduced). The NTT keeps its values in
  // [0, 2p) with it (lazy.cuh).
  CUZK_HD static mont_t mul_unreduced(const mont_t& a, const mont_t& b) {
    uint32_t x[N], y[N];
CUZK_UNROLL
    for (int k = 0; k < N; k += 2) {  // row 0: the pairs do not overlap, no carries
      const uint64_t e = uint64_t(a.v[k]) * b.v[0], o = uint64_t(a.v[k + 1]) * b.v[0];
      x[k] = uint32_t(e), x[k + 1] = uint32_t(e >> 32);
      y[k] = uint32_t(o), y[k + 1] = uint32_t(o >> 32);
    }
    split_reduce(x, y);
CUZK_UNROLL
    for (int i = 1; i < N; ++i) {
      const uint32_t bi = b.v[i];
      uint32_t nx[N], ny[N];
      // The shift: nx = y + x[1] (its carry, weight 2^32, goes into ny's chain), ny = x >> 64,
      // while ny takes a's odd limbs times b_i.
      nx[0] = ptx::add_cc(y[0], x[1]);
CUZK_UNROLL
      for (int k = 0; k + 2 < N; k += 2) {
        ny[k] = ptx::madc_lo_cc(a.v[k + 1], bi, x[k + 2]);
        ny[k + 1] = ptx::madc_hi_cc(a.v[k + 1], bi, x[k + 3]);
      }
      ny[N - 2] = ptx::madc_lo_cc(a.v[N - 1], bi, 0);
      ny[N - 1] = ptx::madc_hi(a.v[N - 1], bi, 0);
CUZK_UNROLL
      for (int k = 1; k < N; ++k) nx[k] = y[k];
      // nx += a's even limbs times b_i; the chain's carry (weight 2^(32N)) onto ny's top limb.
      nx[0] = ptx::mad_lo_cc(a.v[0], bi, nx[0]);
      nx[1] = ptx::madc_hi_cc(a.v[0], bi, nx[1]);
CUZK_UNROLL
      for (int k = 2; k < N; k += 2) {
        nx[k] = ptx::madc_lo_cc(a.v[k], bi, nx[k]);
        nx[k + 1] = ptx::madc_hi_cc(a.v[k], bi, nx[k + 1]);
      }
      ny[N - 1] = ptx::addc(ny[N - 1], 0);
CUZK_UNROLL
      for (int k = 0; k < N; ++k) x[k] = nx[k], y[k] = ny[k];
      split_reduce(x, y);
    }
    // V / 2^32 = (x >> 32) + y (x[0] is 0), below a + p.
    mont_t r;
    r.v[0] = ptx::add_cc(x[1], y[0]);
CUZK_UNROLL
    for (int k = 1; k + 1 < N; ++k) r.v[k] = ptx::addc_cc(x[k + 1], y[k]);
    r.v[N - 1] = ptx::addc(y[N - 1], 0);
    return r;
  }
  // The Montgomery step on V = x + 2^32 y: m = x[0] m0, V += m p (p's odd limbs into y, its even
  // limbs into x, x's carry onto y[N-1]); x[0] becomes 0. The modulus limbs are immediates.
  //
  // Moduli whose low 64 bits are 2^64 - 2^32 + 1 (Fr: p0 = 1, p1 = 2^32 - 1, so m0 = -1 and
  // m = -x0) take their first product pair of each chain as additions instead of two IMAD.WIDE on
  // the multiply pipe, which bounds the NTT's passes: m p0 = m makes x0 + m p0 = 0 with a carry
  // exactly when x0 != 0 (the carry of x0 + 2^32 - 1), and m p1 = 2^32 m - m is the limb pair
  // (x0, x0 ? ~x0 : 0), since -m = x0 and m - 1 = ~x0 for x0 != 0.
  static constexpr bool low_limbs_1_and_minus_1 = P::mod(0) == 1u && P::mod(1) == 0xffffffffu;
  CUZK_HD static void split_reduce(uint32_t* x, uint32_t* y) {
    const uint32_t m = x[0] * (P::m0 == 0xffffffffu ? ptx::all_ones() : P::m0);
    if constexpr (low_limbs_1_and_minus_1) {
      const uint32_t x0 = x[0], hi = x0 ? ~x0 : 0u;
      y[0] = ptx::add_cc(y[0], x0);
      y[1] = ptx::addc_cc(y[1], hi);
    } else {
      y[0] = ptx::mad_lo_cc(P::mod(1), m, y[0]);
      y[1] = ptx::madc_hi_cc(P::mod(1), m, y[1]);
    }
CUZK_UNROLL
    for (int k = 2; k + 2 < N; k += 2) {
      y[k] = ptx::madc_lo_cc(P::mod(k + 1), m, y[k]);
      y[k + 1] = ptx::madc_hi_cc(P::mod(k + 1), m, y[k + 1]);
    }
    y[N - 2] = ptx::madc_lo_cc(P::mod(N - 1), m, y[N - 2]);
    y[N - 1] = ptx::madc_hi(P::mod(N - 1), m, y[N - 1]);
    if constexpr (low_limbs_1_and_minus_1) {
      (void)ptx::add_cc(x[0], 0xffffffffu);  // the carry of x0 + m: x0 != 0
      x[0] = 0;
      x[1] = ptx::addc_cc(x[1], 0);
    } else {
      x[0] = ptx::mad_lo_cc(P::mod(0), m, x[0]);
      x[1] = ptx::madc_hi_cc(P::mod(0), m, x[1]);
    }
CUZK_UNROLL
    for (int k = 2; k < N; k += 2) {
      x[k] = ptx::madc_lo_cc(P::mod(k), m, x[k]);
      x[k + 1] = ptx::madc_hi_cc(P::mod(k), m, x[k + 1]);
    }
    y[N - 1] = ptx::addc(y[N - 1], 0);
  }
  // Double-width values for the lazy reduction of Fp2 products (fp2_d::operator*): a * b
  // unreduced, sums and differences modulo 2^(64N), and REDC.
  struct wide {
    uint32_t v[2 * N];
  };
  // t = a * b for any a, b < 2^(32N) (sums of two reduced values too), on the split accumulator of
  // the product above, without the Montgomery steps: e holds the products that land on even limb
  // pairs (2k, 2k + 1), o those on odd pairs (o[q] has weight 2^(32 (q + 1))). Row i adds a_j b_i at
  // limb i + j: for even i, a's even limbs into e and its odd limbs into o, for odd i the other way
  // round, each as one chain of aligned pairs (one IMAD.WIDE.U32.X per limb product) whose carry
  // lands on the limb above the chain. Rows 2r - 1 and 2r cover the same e limbs (2r .. 2r + N - 1)
  // and rows 2r and 2r + 1 the same o limbs, so a carry limb receives at most two carries and
  // never carries further. Then t = e + 2^32 o.
  CUZK_HD static void wide_chain(uint32_t* acc, const uint32_t* a, int j0, uint32_t bi, bool carry_limb) {
    acc[0] = ptx::mad_lo_cc(a[j0], bi, acc[0]);
    acc[1] = ptx::madc_hi_cc(a[j0], bi, acc[1]);
CUZK_UNROLL
    for (int k = 2; k < N; k += 2) {
      acc[k] = ptx::madc_lo_cc(a[j0 + k], bi, acc[k]);
      acc[k + 1] = ptx::madc_hi_cc(a[j0 + k], bi, acc[k + 1]);
    }
    if (carry_limb) acc[N] = ptx::addc(acc[N], 0);
  }
  CUZK_HD static wide mul_wide(const mont_t& a, const mont_t& b) {
    uint32_t e[2 * N], o[2 * N];
CUZK_UNROLL
    for (int q = 0; q < 2 * N; ++q) e[q] = 0, o[q] = 0;
CUZK_UNROLL
    for (int i = 0; i < N; ++i) {
      const uint32_t bi = b.v[i];
      if (i % 2 == 0) {
        wide_chain(e + i, a.v, 0, bi, true);
        wide_chain(o + i, a.v, 1, bi, true);
      } else {
        wide_chain(e + i + 1, a.v, 1, bi, i + 1 + N < 2 * N);  // the last row's carry is 0 (t < 2^(64N))
        wide_chain(o + i - 1, a.v, 0, bi, true);
      }
    }
    wide t;
    t.v[0] = e[0];
    t.v[1] = ptx::add_cc(e[1], o[0]);
CUZK_UNROLL
    for (int q = 2; q < 2 * N - 1; ++q) t.v[q] = ptx::addc_cc(e[q], o[q - 1]);
    t.v[2 * N - 1] = ptx::addc(e[2 * N - 1], o[2 * N - 2]);
    return t;
  }
  // t / R mod p, reduced, for t < p R: the rows of the product without a * b_i. The window
  // V = x + 2^32 y starts as t's low half; after each Montgomery step the shift to the next row
  // (as in operator*) carries into the odd limbs' m * p chain, which also takes t's next high limb
  // at the window's top (V stays below 2^(32N) + p). (t + m p) / R < 2p: one subtraction.
  CUZK_HD static mont_t redc(const wide& t) {
    uint32_t x[N], y[N];
CUZK_UNROLL
    for (int k = 0; k < N; ++k) x[k] = t.v[k], y[k] = 0;
    split_reduce(x, y);
CUZK_UNROLL
    for (int i = 1; i < N; ++i) {
      uint32_t nx[N], ny[N];
      nx[0] = ptx::add_cc(y[0], x[1]);
      const uint32_t m = nx[0] * (P::m0 == 0xffffffffu ? ptx::all_ones() : P::m0);
CUZK_UNROLL
      for (int k = 0; k + 2 < N; k += 2) {
        ny[k] = ptx::madc_lo_cc(P::mod(k + 1), m, x[k + 2]);
        ny[k + 1] = ptx::madc_hi_cc(P::mod(k + 1), m, x[k + 3]);
      }
      ny[N - 2] = ptx::madc_lo_cc(P::mod(N - 1), m, t.v[N + i - 1]);
      ny[N - 1] = ptx::madc_hi(P::mod(N - 1), m, 0);
CUZK_UNROLL
      for (int k = 1; k < N; ++k) nx[k] = y[k];
      nx[0] = ptx::mad_lo_cc(P::mod(0), m, nx[0]);
      nx[1] = ptx::madc_hi_cc(P::mod(0), m, nx[1]);
CUZK_UNROLL
      for (int k = 2; k < N; k += 2) {
        nx[k] = ptx::madc_lo_cc(P::mod(k), m, nx[k]);
        nx[k + 1] = ptx::madc_hi_cc(P::mod(k), m, nx[k + 1]);
      }
      ny[N - 1] = ptx::addc(ny[N - 1], 0);
CUZK_UNROLL
      for (int k = 0; k < N; ++k) x[k] = nx[k], y[k] = ny[k];
    }
    // V / 2^32 = (x >> 32) + y, plus t's top limb.
    mont_t r;
    r.v[0] = ptx::add_cc(x[1], y[0]);
CUZK_UNROLL
    for (int k = 1; k + 1 < N; ++k) r.v[k] = ptx::addc_cc(x[k + 1], y[k]);
    r.v[N - 1] = ptx::addc(y[N - 1], t.v[2 * N - 1]);
    reduce_once(r.v);
    return r;
  }
  // a + b without the reduction (< 2p for reduced a, b: the modulus leaves the top bit spare).
  CUZK_HD static mont_t add_unreduced(const mont_t& a, const mont_t& b) {
    mont_t r;
    add_limbs<N>(r.v, a.v, b.v);
    return r;
  }
  CUZK_HD static wide wide_add(const wide& a, const wide& b) {
    wide r;
    add_limbs<2 * N>(r.v, a.v, b.v);
    return r;
  }
  CUZK_HD static wide wide_sub(const wide& a, const wide& b) {
    wide r;
    r.v[0] = ptx::sub_cc(a.v[0], b.v[0]);
CUZK_UNROLL
    for (int i = 1; i < 2 * N - 1; ++i) r.v[i] = ptx::subc_cc(a.v[i], b.v[i]);
    r.v[2 * N - 1] = ptx::subc(a.v[2 * N - 1], b.v[2 * N - 1]);
    return r;
  }
  // a - b, plus p R when that is negative: in [0, p R) for a, b < p R.
  CUZK_HD static wide wide_sub_mod(const wide& a, const wide& b) {
    wide r;
    r.v[0] = ptx::sub_cc(a.v[0], b.v[0]);
CUZK_UNROLL
    for (int i = 1; i < 2 * N; ++i) r.v[i] = ptx::subc_cc(a.v[i], b.v[i]);
    const uint32_t mask = ptx::subc(0, 0);
    r.v[N] = ptx::add_cc(r.v[N], P::mod(0) & mask);
CUZK_UNROLL
    for (int i = 1; i < N - 1; ++i) r.v[N + i] = ptx::addc_cc(r.v[N + i], P::mod(i) & mask);
    r.v[2 * N - 1] = ptx::addc(r.v[2 * N - 1], P::mod(N - 1) & mask);
    return r;
  }

  // Squaring is the product above with both factors a: on the device it compiles to fewer
  // instructions (Fr 190, Fp 380 SASS) than a dedicated squaring with each cross product once,
  // doubled, then a Montgomery reduction (277, 571), whose row-by-row carry chains cannot keep
  // their products on aligned register pairs.
  CUZK_HD mont_t sqr() const { return *this * *this; }

  CUZK_HD mont_t& operator+=(const mont_t& b) { return *this = *this + b; }
  CUZK_HD mont_t& operator-=(const mont_t& b) { return *this = *this - b; }
  CUZK_HD mont_t& operator*=(const mont_t& b) { return *this = *this * b; }

  // a^(p-2) = 1/a by Fermat (0 for 0): square-and-multiply over the public exponent. Used only
  // when bases are precomputed (shifted copies back to affine), never in an MSM's inner loop.
  CUZK_HD mont_t inverse() const {
    uint32_t e[N];
    uint32_t borrow = 2;
CUZK_UNROLL
    for (int i = 0; i < N; ++i) {
      uint32_t m = P::mod(i);
      e[i] = m - borrow;
      borrow = m < borrow ? 1 : 0;
    }
    mont_t r = one();
CUZK_NO_UNROLL
    for (int i = N - 1; i >= 0; --i) {
CUZK_NO_UNROLL
      for (int b = 31; b >= 0; --b) {
        r = r.sqr();
        if ((e[i] >> b) & 1) r = r * *this;
      }
    }
    return r;
  }

  // Montgomery form -> canonical integer (a Montgomery product with the integer 1).
  CUZK_HD mont_t from_mont() const {
    mont_t one_int = zero();
    one_int.v[0] = 1;
    return *this * one_int;
  }
};

template <class F>
struct fp2_d;
// The Fp2 product of fp2_d<F>: fp2_d::mul_lazy by default; msm_g2.cu specializes it to call one
// out-of-line function.
template <class F>
struct fp2_product {
  CUZK_HD static fp2_d<F> mul(const fp2_d<F>& a, const fp2_d<F>& b) { return fp2_d<F>::mul_lazy(a, b); }
};

// Quadratic extension u^2 = -1 over a mont_t (BLS12-381's Fp2), same layout as zk::fp2_t.
template <class F>
struct fp2_d {
  F c0, c1;
  CUZK_HD static fp2_d zero() { return {F::zero(), F::zero()}; }
  CUZK_HD static fp2_d one() { return {F::one(), F::zero()}; }
  CUZK_HD bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  friend CUZK_HD fp2_d operator+(const fp2_d& a, const fp2_d& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  friend CUZK_HD fp2_d operator-(const fp2_d& a, const fp2_d& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  CUZK_HD fp2_d operator-() const { return {-c0, -c1}; }
  CUZK_HD fp2_d dbl() const { return {c0.dbl(), c1.dbl()}; }
  // Karatsuba with lazy reduction: three double-width products and two reductions (not three full
  // products): c0 = REDC(a0 b0 - a1 b1 (+ p R if negative)), c1 = REDC((a0 + a1)(b0 + b1) - a0 b0 -
  // a1 b1) = REDC(a0 b1 + a1 b0), both below p R. The double-width product and REDC keep the
  // product's split accumulator (mont_t::mul_wide, redc). F: a mont_t; a field whose product is
  // elsewhere (the G2 MSM's call-wrapped Fp) specializes fp2_product.
  CUZK_HD static fp2_d mul_lazy(const fp2_d& a, const fp2_d& b) {
    auto t0 = F::mul_wide(a.c0, b.c0), t1 = F::mul_wide(a.c1, b.c1);
    F c0 = F::redc(F::wide_sub_mod(t0, t1));
    auto s = F::wide_add(t0, t1);
    auto t2 = F::mul_wide(F::add_unreduced(a.c0, a.c1), F::add_unreduced(b.c0, b.c1));
    return {c0, F::redc(F::wide_sub(t2, s))};
  }
  friend CUZK_HD fp2_d operator*(const fp2_d& a, const fp2_d& b) { return fp2_product<F>::mul(a, b); }
  CUZK_HD fp2_d sqr() const { return {(c0 + c1) * (c0 - c1), (c0 * c1).dbl()}; }
  // 1/(c0 + c1 u) = (c0 - c1 u) / (c0^2 + c1^2): one base-field inversion.
  CUZK_HD fp2_d inverse() const {
    F t = (c0.sqr() + c1.sqr()).inverse();
    return {c0 * t, -(c1 * t)};
  }
  CUZK_HD fp2_d& operator+=(const fp2_d& b) { return *this = *this + b; }
  CUZK_HD fp2_d& operator-=(const fp2_d& b) { return *this = *this - b; }
  CUZK_HD fp2_d& operator*=(const fp2_d& b) { return *this = *this * b; }
};

}  // namespace cuzk::gpu
