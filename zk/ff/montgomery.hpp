// Prime fields in Montgomery form on 64-bit limbs, as a value type.
//
// Params supplies `static constexpr bigint<N> modulus` (odd, top limb below 2^63 - 1 so that a + b
// never overflows N limbs and the "no final carry" CIOS multiplication is valid; true for both
// BLS12-381 moduli). Everything else (R mod p, R^2 mod p, -p^-1 mod 2^64) is derived at compile time.
#pragma once

#include "zk/ff/bigint.hpp"
#include "zk/ff/montgomery_x86_64.hpp"
#include "zk/ff/safegcd.hpp"

#include <compare>
#include <type_traits>

namespace cuzk::zk {

namespace detail {
// 2^k mod p by repeated doubling: slow, compile-time only.
template <std::size_t N>
constexpr bigint<N> pow2_mod(const bigint<N>& p, std::size_t k) {
  bigint<N> x{};
  x.limb[0] = 1;
  for (std::size_t i = 0; i < k; ++i) {
    std::uint64_t carry = x.add_in_place(x);
    if (carry || x >= p) x.sub_in_place(p);
  }
  return x;
}
constexpr std::uint64_t neg_inv64(std::uint64_t p0) {
  std::uint64_t inv = 1;
  for (int i = 0; i < 7; ++i) inv *= 2 - p0 * inv;  // Newton: doubles correct bits each step
  return ~inv + 1;
}
}  // namespace detail

template <class Params>
class fp_t {
 public:
  static constexpr std::size_t N = decltype(Params::modulus)::limbs;
  using repr = bigint<N>;

  static constexpr repr P = Params::modulus;
  static_assert(P.limb[N - 1] < (std::uint64_t{1} << 63) - 1, "modulus must leave a spare top bit");
  static constexpr repr R1 = detail::pow2_mod(P, 64 * N);      // Montgomery one
  static constexpr repr R2 = detail::pow2_mod(P, 128 * N);     // converts into Montgomery form
  static constexpr std::uint64_t INV = detail::neg_inv64(P.limb[0]);
  static constexpr std::size_t bits = P.bit_length();
  static constexpr std::size_t bytes = 8 * N;

  repr m{};  // Montgomery form: value * 2^(64N) mod P

  constexpr fp_t() = default;

  static constexpr fp_t zero() { return fp_t{}; }
  static constexpr fp_t one() { return from_mont(R1); }
  static constexpr fp_t from_mont(const repr& r) {
    fp_t x;
    x.m = r;
    return x;
  }
  // Canonical integer (must be < P) into the field.
  static constexpr fp_t from_canonical(const repr& r) { return from_mont(r) * from_mont(R2); }
  static constexpr fp_t from_u64(std::uint64_t v) {
    repr r{};
    r.limb[0] = v;
    return from_canonical(r);
  }
  // Any value: reduced mod P first. For hashing to the field, small literals, test vectors.
  static constexpr fp_t from_u64_signed(std::int64_t v) {
    return v < 0 ? -from_u64(std::uint64_t(-v)) : from_u64(std::uint64_t(v));
  }
  static constexpr bool is_canonical(const repr& r) { return r < P; }

  constexpr repr to_canonical() const {
    repr one{};
    one.limb[0] = 1;
    return (*this * from_mont(one)).m;
  }

  constexpr bool is_zero() const { return m.is_zero(); }
  constexpr bool operator==(const fp_t&) const = default;

  // At run time on x86-64: branch-free carry chains (montgomery_x86_64.hpp); the portable
  // versions below branch on the data and are kept for constant evaluation and as the reference.
  friend constexpr fp_t operator+(const fp_t& a, const fp_t& b) {
#ifdef CUZK_MONT_ASM
    if constexpr (N == 4 || N == 6) {
      if (!std::is_constant_evaluated()) {
        fp_t r;
        detail::mod_add_asm<N, Params>::add(r.m.limb.data(), a.m.limb.data(), b.m.limb.data());
        return r;
      }
    }
#endif
    return add_generic(a, b);
  }
  friend constexpr fp_t operator-(const fp_t& a, const fp_t& b) {
#ifdef CUZK_MONT_ASM
    if constexpr (N == 4 || N == 6) {
      if (!std::is_constant_evaluated()) {
        fp_t r;
        detail::mod_add_asm<N, Params>::sub(r.m.limb.data(), a.m.limb.data(), b.m.limb.data());
        return r;
      }
    }
#endif
    return sub_generic(a, b);
  }
  // 0 - a: no borrow (and so no correction) exactly when a = 0, so -0 = 0 without a branch.
  constexpr fp_t operator-() const { return zero() - *this; }
  constexpr fp_t dbl() const { return *this + *this; }

  static constexpr fp_t add_generic(fp_t a, const fp_t& b) {
    a.m.add_in_place(b.m);
    if (a.m >= P) a.m.sub_in_place(P);
    return a;
  }
  static constexpr fp_t sub_generic(fp_t a, const fp_t& b) {
    if (a.m.sub_in_place(b.m)) a.m.add_in_place(P);
    return a;
  }

  // Lazy reduction. When 4P < 2^(64N) (Fp: P < 2^381, limbs hold 384 bits; not Fr), operator*
  // accepts operands below 2P, not only below P, and still returns a fully reduced result:
  //  - every CIOS row keeps t < t/2^64 + a + P < 4P < 2^(64N), so no carry leaves the N+1 words;
  //  - the result is t = (a*b + m*P) / 2^(64N) < 4P^2 / 2^(64N) + P < 2P (as 4P < 2^(64N)),
  //    so the one final conditional subtraction brings it below P.
  // sum_unreduced returns a + b < 2P without the subtraction. Its value is NOT a canonical field
  // element: use it only as an operand of operator* (never compare, add, store or serialise it).
  static constexpr bool lazy_ok = P.limb[N - 1] < (std::uint64_t{1} << 62);
  static constexpr fp_t sum_unreduced(fp_t a, const fp_t& b)
    requires lazy_ok
  {
    a.m.add_in_place(b.m);
    return a;
  }

  // CIOS Montgomery multiplication without the final carry word (valid: top modulus bits spare).
  // At run time on x86-64 with BMI2 + ADX: the same algorithm in MULX/ADCX/ADOX assembly.
  friend constexpr fp_t operator*(const fp_t& a, const fp_t& b) {
#ifdef CUZK_MONT_ASM
    if constexpr (N == 4 || N == 6) {
      if (!std::is_constant_evaluated() && detail::cpu_has_mulx_adx()) {
        fp_t r;
        detail::mont_asm<N, Params, INV>::mul(r.m.limb.data(), a.m.limb.data(), b.m.limb.data());
        return r;
      }
    }
#endif
    return mul_generic(a, b);
  }

  // The portable CIOS; also the reference the assembly is tested against.
  static constexpr fp_t mul_generic(const fp_t& a, const fp_t& b) {
    std::uint64_t t[N] = {};
    for (std::size_t i = 0; i < N; ++i) {
      u128 s = u128(a.m.limb[0]) * b.m.limb[i] + t[0];
      std::uint64_t A = std::uint64_t(s >> 64);
      std::uint64_t lo = std::uint64_t(s);
      std::uint64_t mq = lo * INV;
      u128 c = u128(mq) * P.limb[0] + lo;
      std::uint64_t C = std::uint64_t(c >> 64);
      for (std::size_t j = 1; j < N; ++j) {
        s = u128(a.m.limb[j]) * b.m.limb[i] + t[j] + A;
        A = std::uint64_t(s >> 64);
        c = u128(mq) * P.limb[j] + std::uint64_t(s) + C;
        C = std::uint64_t(c >> 64);
        t[j - 1] = std::uint64_t(c);
      }
      t[N - 1] = A + C;
    }
    fp_t r;
    for (std::size_t i = 0; i < N; ++i) r.m.limb[i] = t[i];
    if (r.m >= P) r.m.sub_in_place(P);
    return r;
  }

  constexpr fp_t& operator+=(const fp_t& b) { return *this = *this + b; }
  constexpr fp_t& operator-=(const fp_t& b) { return *this = *this - b; }
  constexpr fp_t& operator*=(const fp_t& b) { return *this = *this * b; }

  constexpr fp_t sqr() const { return *this * *this; }

  template <std::size_t M>
  constexpr fp_t pow(const bigint<M>& e) const {
    fp_t r = one();
    for (std::size_t i = e.bit_length(); i-- > 0;) {
      r = r.sqr();
      if (e.bit(i)) r *= *this;
    }
    return r;
  }
  constexpr fp_t pow(std::uint64_t e) const {
    bigint<1> b{};
    b.limb[0] = e;
    return pow(b);
  }

  // Multiplicative inverse by Fermat; the inverse of zero is zero (callers check where it matters).
  constexpr fp_t inverse() const {
    repr e = P;
    repr two{};
    two.limb[0] = 2;
    e.sub_in_place(two);
    return pow(e);
  }

  // The inverse by safegcd (safegcd.hpp): ~10x faster than inverse() but variable time, so only
  // where timing is not a channel to protect (the MSM, whose memory accesses already depend on
  // the scalars). (x R)^-1 from safegcd, times R^3 in one Montgomery product, is x^-1 R. The
  // inverse of zero is zero.
  fp_t inverse_vartime() const {
    if (is_zero()) return zero();
    static constexpr repr R3 = detail::pow2_mod(P, 3 * 64 * N);
    return from_mont(safegcd::inverse_mod(m, P)) * from_mont(R3);
  }

  // Legendre symbol: 1 for a nonzero square, -1 for a non-square, 0 for zero.
  constexpr int legendre() const {
    repr e = P;
    e.shr1();  // (P-1)/2 since P is odd
    fp_t l = pow(e);
    if (l.is_zero()) return 0;
    return l == one() ? 1 : -1;
  }

  // Square root for P = 3 mod 4 fields (BLS12-381 Fp); nullopt for a non-residue.
  constexpr std::optional<fp_t> sqrt() const
    requires(Params::modulus.limb[0] % 4 == 3)
  {
    repr e = P;
    repr one_int{};
    one_int.limb[0] = 1;
    e.add_in_place(one_int);
    e.shr1();
    e.shr1();  // (P+1)/4
    fp_t s = pow(e);
    if (s.sqr() == *this) return s;
    return std::nullopt;
  }

  // Lexicographic "sign" used by the zcash encoding: y > (P-1)/2.
  constexpr bool lexicographically_largest() const {
    repr half = P;
    half.shr1();  // (P-1)/2
    repr c = to_canonical();
    return half < c;
  }
};

}  // namespace cuzk::zk
