// Prime-field element in Montgomery form on 32-bit limbs, for device code (and, through the host
// emulation in ptx.cuh, for host-side checks). Same bytes as zk::fp_t on 64-bit limbs: a little-
// endian array of u64 limbs is the same memory as the little-endian array of u32 limbs, and both
// use R = 2^(limb bits * limbs), so buffers move between host and device unchanged.
//
// Params: static constexpr int N (even number of 32-bit limbs); constexpr functions mod(i), one(i)
// (R mod p) and uint32_t m0 = -p^-1 mod 2^32. The modulus must leave its top bit spare (both
// BLS12-381 fields do), so a + b never overflows and the CIOS accumulator needs only N + 2 limbs.
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

  // r = a + b and r = a - b over L limbs, modulo 2^(32L) (r may alias a or b).
  template <int L>
  CUZK_HD static void add_limbs(uint32_t* r, const uint32_t* a, const uint32_t* b) {
    r[0] = ptx::add_cc(a[0], b[0]);
CUZK_UNROLL
    for (int i = 1; i < L - 1; ++i) r[i] = ptx::addc_cc(a[i], b[i]);
    r[L - 1] = ptx::addc(a[L - 1], b[L - 1]);
  }
  template <int L>
  CUZK_HD static void sub_limbs(uint32_t* r, const uint32_t* a, const uint32_t* b) {
    r[0] = ptx::sub_cc(a[0], b[0]);
CUZK_UNROLL
    for (int i = 1; i < L - 1; ++i) r[i] = ptx::subc_cc(a[i], b[i]);
    r[L - 1] = ptx::subc(a[L - 1], b[L - 1]);
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

  // acc[0..N+1] += a * b (two carry chains: even-indexed limbs of a, then odd-indexed ones, so that
  // the lo and hi halves of one chain never land on the same accumulator limb).
  CUZK_HD static void mul_add_row(uint32_t* acc, const uint32_t* a, uint32_t b) {
    acc[0] = ptx::mad_lo_cc(a[0], b, acc[0]);
    acc[1] = ptx::madc_hi_cc(a[0], b, acc[1]);
CUZK_UNROLL
    for (int j = 2; j < N; j += 2) {
      acc[j] = ptx::madc_lo_cc(a[j], b, acc[j]);
      acc[j + 1] = ptx::madc_hi_cc(a[j], b, acc[j + 1]);
    }
    acc[N] = ptx::addc_cc(acc[N], 0);
    acc[N + 1] = ptx::addc(acc[N + 1], 0);
    acc[1] = ptx::mad_lo_cc(a[1], b, acc[1]);
    acc[2] = ptx::madc_hi_cc(a[1], b, acc[2]);
CUZK_UNROLL
    for (int j = 3; j < N; j += 2) {
      acc[j] = ptx::madc_lo_cc(a[j], b, acc[j]);
      acc[j + 1] = ptx::madc_hi_cc(a[j], b, acc[j + 1]);
    }
    acc[N + 1] = ptx::addc(acc[N + 1], 0);
  }
  // Same with the modulus as the multiplicand (immediate operands).
  CUZK_HD static void mod_add_row(uint32_t* acc, uint32_t m) {
    acc[0] = ptx::mad_lo_cc(P::mod(0), m, acc[0]);
    acc[1] = ptx::madc_hi_cc(P::mod(0), m, acc[1]);
CUZK_UNROLL
    for (int j = 2; j < N; j += 2) {
      acc[j] = ptx::madc_lo_cc(P::mod(j), m, acc[j]);
      acc[j + 1] = ptx::madc_hi_cc(P::mod(j), m, acc[j + 1]);
    }
    acc[N] = ptx::addc_cc(acc[N], 0);
    acc[N + 1] = ptx::addc(acc[N + 1], 0);
    acc[1] = ptx::mad_lo_cc(P::mod(1), m, acc[1]);
    acc[2] = ptx::madc_hi_cc(P::mod(1), m, acc[2]);
CUZK_UNROLL
    for (int j = 3; j < N; j += 2) {
      acc[j] = ptx::madc_lo_cc(P::mod(j), m, acc[j]);
      acc[j + 1] = ptx::madc_hi_cc(P::mod(j), m, acc[j + 1]);
    }
    acc[N + 1] = ptx::addc(acc[N + 1], 0);
  }

  // One Montgomery step on acc[0..N+1]: add m*p so that the low limb vanishes, then drop it (with
  // the loops unrolled, the shift is register renaming).
  CUZK_HD static void reduce_row(uint32_t* acc) {
    uint32_t m = acc[0] * P::m0;
    mod_add_row(acc, m);
CUZK_UNROLL
    for (int k = 0; k < N + 1; ++k) acc[k] = acc[k + 1];
    acc[N + 1] = 0;
  }

  // CIOS Montgomery multiplication: per limb of b, acc += a*b_i, acc += m*p, acc >>= 32. With the
  // loops unrolled, the shift is register renaming. acc < 2p after each row, so the result fits
  // N limbs and one conditional subtraction finishes it.
  friend CUZK_HD mont_t operator*(const mont_t& a, const mont_t& b) {
    uint32_t acc[N + 2];
CUZK_UNROLL
    for (int i = 0; i < N + 2; ++i) acc[i] = 0;
CUZK_UNROLL
    for (int i = 0; i < N; ++i) {
      mul_add_row(acc, a.v, b.v[i]);
      reduce_row(acc);
    }
    mont_t r;
CUZK_UNROLL
    for (int i = 0; i < N; ++i) r.v[i] = acc[i];
    reduce_once(r.v);
    return r;
  }
  // Row i of the squaring's cross products, one of its two carry chains: t[2i+1+k .. +1] +=
  // a_i a_{i+1+k} for k = k0, k0 + 2, ... (below N - 1 - i), then the carry up to limb N + i.
  CUZK_HD static void cross_chain(uint32_t* t, const uint32_t* a, int i, int k0) {
    const int o = 2 * i + 1, m = N - 1 - i;
    t[o + k0] = ptx::mad_lo_cc(a[i], a[i + 1 + k0], t[o + k0]);
    t[o + k0 + 1] = ptx::madc_hi_cc(a[i], a[i + 1 + k0], t[o + k0 + 1]);
    int k = k0 + 2;
CUZK_UNROLL
    for (; k < m; k += 2) {
      t[o + k] = ptx::madc_lo_cc(a[i], a[i + 1 + k], t[o + k]);
      t[o + k + 1] = ptx::madc_hi_cc(a[i], a[i + 1 + k], t[o + k + 1]);
    }
CUZK_UNROLL
    for (int p = o + k; p <= N + i; ++p) t[p] = ptx::addc_cc(t[p], 0);
  }
  // Squaring: each cross product a_i a_j (i < j) once, doubled, plus the diagonal a_i^2 (2N-limb
  // t = a^2 with 156 instead of 288 limb products for Fp), then Montgomery reduction of t:
  // REDC(t) = REDC(t_lo) + t_hi, where REDC(t_lo) <= p and t_hi < p^2 / R < p, so the sum is < 2p
  // and one conditional subtraction finishes it.
  CUZK_HD mont_t sqr() const {
    const uint32_t* a = v;
    uint32_t t[2 * N];
CUZK_UNROLL
    for (int i = 0; i < 2 * N; ++i) t[i] = 0;
    // Cross products, row i = a_i * (a_{i+1} .. a_{N-1}) at limb 2i+1, as two carry chains (even
    // and odd offsets, so lo and hi halves of one chain never meet). After row i the partial sum
    // is below 2^(32 (N + i + 1)): each chain's carry stops at limb N + i.
CUZK_UNROLL
    for (int i = 0; i < N - 1; ++i) {
      cross_chain(t, a, i, 0);
      if (N - 1 - i >= 2) cross_chain(t, a, i, 1);
    }
    // Doubled (the cross sum is below a^2 / 2, so this fits), plus the squares.
    add_limbs<2 * N>(t, t, t);
    t[0] = ptx::mad_lo_cc(a[0], a[0], t[0]);
    t[1] = ptx::madc_hi_cc(a[0], a[0], t[1]);
CUZK_UNROLL
    for (int i = 1; i < N; ++i) {
      t[2 * i] = ptx::madc_lo_cc(a[i], a[i], t[2 * i]);
      t[2 * i + 1] = ptx::madc_hi_cc(a[i], a[i], t[2 * i + 1]);
    }
    wide w;
CUZK_UNROLL
    for (int i = 0; i < 2 * N; ++i) w.v[i] = t[i];
    return redc(w);
  }

  // Double-width values for lazy reduction (Fp2 products): a * b unreduced, sums and differences
  // modulo 2^(64N), and REDC.
  struct wide {
    uint32_t v[2 * N];
  };
  // a * b for any a, b < 2^(32N) (so sums of two reduced values too).
  CUZK_HD static wide mul_wide(const mont_t& a, const mont_t& b) {
    uint32_t t[2 * N + 2];
CUZK_UNROLL
    for (int i = 0; i < 2 * N + 2; ++i) t[i] = 0;
    // Row i adds a * b_i at limb i; the sum of rows 0..i is below 2^(32 (N + i + 1)), so the
    // row's top limb (N + i + 1) only ever receives a zero carry.
CUZK_UNROLL
    for (int i = 0; i < N; ++i) mul_add_row(t + i, a.v, b.v[i]);
    wide w;
CUZK_UNROLL
    for (int i = 0; i < 2 * N; ++i) w.v[i] = t[i];
    return w;
  }
  // REDC(t) = t / R mod p for t < p R: REDC of the low half by the CIOS rows (<= p), plus the
  // high half (< p), then one conditional subtraction.
  CUZK_HD static mont_t redc(const wide& t) {
    uint32_t acc[N + 2];
CUZK_UNROLL
    for (int i = 0; i < N; ++i) acc[i] = t.v[i];
    acc[N] = acc[N + 1] = 0;
CUZK_UNROLL
    for (int i = 0; i < N; ++i) reduce_row(acc);
    mont_t r;
    add_limbs<N>(r.v, acc, t.v + N);
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
    sub_limbs<2 * N>(r.v, a.v, b.v);
    return r;
  }
  // a - b + p^2 (modulo 2^(64N)): in [0, 2p^2) for a, b < p^2.
  CUZK_HD static wide wide_sub_plus_p2(const wide& a, const wide& b) {
    uint32_t p2[2 * N];
CUZK_UNROLL
    for (int i = 0; i < 2 * N; ++i) p2[i] = P::mod_sq(i);
    wide r = wide_sub(a, b);
    add_limbs<2 * N>(r.v, r.v, p2);
    return r;
  }
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
  // Karatsuba with lazy reduction: three double-width products and two reductions (not three):
  // c0 = REDC(a0 b0 - a1 b1 + p^2), c1 = REDC((a0 + a1)(b0 + b1) - a0 b0 - a1 b1), both < p R.
  friend CUZK_HD fp2_d operator*(const fp2_d& a, const fp2_d& b) {
    auto t0 = F::mul_wide(a.c0, b.c0), t1 = F::mul_wide(a.c1, b.c1);
    auto sum = F::wide_add(t0, t1);
    F c0 = F::redc(F::wide_sub_plus_p2(t0, t1));
    auto t2 = F::mul_wide(F::add_unreduced(a.c0, a.c1), F::add_unreduced(b.c0, b.c1));
    return {c0, F::redc(F::wide_sub(t2, sum))};
  }
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
