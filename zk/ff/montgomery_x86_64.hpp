// x86-64 Montgomery multiplication for 4 and 6 limbs with MULX/ADCX/ADOX (BMI2 + ADX): two
// independent carry chains per row, as blst's mulx_mont_384 does. The same algorithm as the
// generic CIOS in montgomery.hpp (operand scanning, no final carry word: the modulus leaves its top
// bit spare), unrolled; the running sum t rotates through N + 1 registers so that the division by
// 2^64 after each reduction step is a renaming, not a move. Result: a * b * 2^(-64N) mod P, fully
// reduced. montgomery.hpp calls it only at run time and only when the CPU has BMI2 and ADX; not
// in unoptimised builds, where 12 named registers are more than -O0 code generation can give.
//
// Generated, then hand-checked: row i adds a * b[i] (low halves on the OF chain, high halves on the
// CF chain), then adds m * P with m = t0 * INV (low halves on CF, high on OF), which zeroes t0.
#pragma once

#include <cstddef>
#include <cstdint>

// AddressSanitizer builds (GCC defines __SANITIZE_ADDRESS__) take the portable code: ASan keeps
// registers of its own, and the 6-limb modular add needs twelve, which GCC then cannot allocate
// once it is inlined into a large function ("asm operand has impossible constraints"). The
// sanitized build checks logic; the asm is checked against the portable code in the normal build.
#if defined(__x86_64__) && defined(__OPTIMIZE__) && !defined(CUZK_NO_ASM) && !defined(__SANITIZE_ADDRESS__)
#include <cpuid.h>
#define CUZK_MONT_ASM 1

namespace cuzk::zk::detail {

// CPUID leaf 7: EBX bit 8 = BMI2 (MULX), bit 19 = ADX (ADCX/ADOX).
inline bool cpu_has_mulx_adx() {
  static const bool ok = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
    return ((b >> 8) & 1) && ((b >> 19) & 1);
  }();
  return ok;
}

template <std::size_t N, class Modulus, std::uint64_t Inv>
struct mont_asm;

template <class Modulus, std::uint64_t Inv>
struct mont_asm<4, Modulus, Inv> {
  // One object, so that position-independent code needs at most one register to address it.
  struct constants {
    std::uint64_t p[4], inv, zero;
  };
  static constexpr constants k = [] {
    constants c{};
    for (std::size_t j = 0; j < 4; ++j) c.p[j] = Modulus::modulus.limb[j];
    c.inv = Inv;
    return c;
  }();
  static constexpr std::size_t N = 4;
  // r may alias a or b: every input is read before the result is stored.
  static void mul(std::uint64_t* r, const std::uint64_t* a, const std::uint64_t* b) {
    std::uint64_t t0, t1, t2, t3, t4, hi, lo, rdx;
    asm(
        "movq 0(%[b]), %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t"
        "mulxq 0(%[a]), %[t0], %[t1]\n\t"
        "mulxq 8(%[a]), %[lo], %[t2]\n\t"
        "adcxq %[lo], %[t1]\n\t"
        "mulxq 16(%[a]), %[lo], %[t3]\n\t"
        "adcxq %[lo], %[t2]\n\t"
        "mulxq 24(%[a]), %[lo], %[t4]\n\t"
        "adcxq %[lo], %[t3]\n\t"
        "adcxq %[zero], %[t4]\n\t"
        "movq %[t0], %%rdx\n\t"
        "imulq %[inv], %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t"
        "mulxq %[p0], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t0]\n\t"
        "adoxq %[hi], %[t1]\n\t"
        "mulxq %[p1], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t1]\n\t"
        "adoxq %[hi], %[t2]\n\t"
        "mulxq %[p2], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t2]\n\t"
        "adoxq %[hi], %[t3]\n\t"
        "mulxq %[p3], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t3]\n\t"
        "adoxq %[hi], %[t4]\n\t"
        "adcxq %[zero], %[t4]\n\t"
        "movq 8(%[b]), %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t"
        "mulxq 0(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t1]\n\t"
        "adcxq %[hi], %[t2]\n\t"
        "mulxq 8(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t2]\n\t"
        "adcxq %[hi], %[t3]\n\t"
        "mulxq 16(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t3]\n\t"
        "adcxq %[hi], %[t4]\n\t"
        "mulxq 24(%[a]), %[lo], %[t0]\n\t"
        "adoxq %[lo], %[t4]\n\t"
        "adcxq %[zero], %[t0]\n\t"
        "adoxq %[zero], %[t0]\n\t"
        "movq %[t1], %%rdx\n\t"
        "imulq %[inv], %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t"
        "mulxq %[p0], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t1]\n\t"
        "adoxq %[hi], %[t2]\n\t"
        "mulxq %[p1], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t2]\n\t"
        "adoxq %[hi], %[t3]\n\t"
        "mulxq %[p2], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t3]\n\t"
        "adoxq %[hi], %[t4]\n\t"
        "mulxq %[p3], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t4]\n\t"
        "adoxq %[hi], %[t0]\n\t"
        "adcxq %[zero], %[t0]\n\t"
        "movq 16(%[b]), %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t"
        "mulxq 0(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t2]\n\t"
        "adcxq %[hi], %[t3]\n\t"
        "mulxq 8(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t3]\n\t"
        "adcxq %[hi], %[t4]\n\t"
        "mulxq 16(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t4]\n\t"
        "adcxq %[hi], %[t0]\n\t"
        "mulxq 24(%[a]), %[lo], %[t1]\n\t"
        "adoxq %[lo], %[t0]\n\t"
        "adcxq %[zero], %[t1]\n\t"
        "adoxq %[zero], %[t1]\n\t"
        "movq %[t2], %%rdx\n\t"
        "imulq %[inv], %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t"
        "mulxq %[p0], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t2]\n\t"
        "adoxq %[hi], %[t3]\n\t"
        "mulxq %[p1], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t3]\n\t"
        "adoxq %[hi], %[t4]\n\t"
        "mulxq %[p2], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t4]\n\t"
        "adoxq %[hi], %[t0]\n\t"
        "mulxq %[p3], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t0]\n\t"
        "adoxq %[hi], %[t1]\n\t"
        "adcxq %[zero], %[t1]\n\t"
        "movq 24(%[b]), %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t"
        "mulxq 0(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t3]\n\t"
        "adcxq %[hi], %[t4]\n\t"
        "mulxq 8(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t4]\n\t"
        "adcxq %[hi], %[t0]\n\t"
        "mulxq 16(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t0]\n\t"
        "adcxq %[hi], %[t1]\n\t"
        "mulxq 24(%[a]), %[lo], %[t2]\n\t"
        "adoxq %[lo], %[t1]\n\t"
        "adcxq %[zero], %[t2]\n\t"
        "adoxq %[zero], %[t2]\n\t"
        "movq %[t3], %%rdx\n\t"
        "imulq %[inv], %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t"
        "mulxq %[p0], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t3]\n\t"
        "adoxq %[hi], %[t4]\n\t"
        "mulxq %[p1], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t4]\n\t"
        "adoxq %[hi], %[t0]\n\t"
        "mulxq %[p2], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t0]\n\t"
        "adoxq %[hi], %[t1]\n\t"
        "mulxq %[p3], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t1]\n\t"
        "adoxq %[hi], %[t2]\n\t"
        "adcxq %[zero], %[t2]\n\t"
        "movq %[t4], %[hi]\n\t"
        "subq %[p0], %[hi]\n\t"
        "movq %[t0], %[lo]\n\t"
        "sbbq %[p1], %[lo]\n\t"
        "movq %[t1], %%rdx\n\t"
        "sbbq %[p2], %%rdx\n\t"
        "movq %[t2], %[t3]\n\t"
        "sbbq %[p3], %[t3]\n\t"
        "cmovncq %[hi], %[t4]\n\t"
        "cmovncq %[lo], %[t0]\n\t"
        "cmovncq %%rdx, %[t1]\n\t"
        "cmovncq %[t3], %[t2]\n\t"
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [hi] "=&r"(hi), [lo] "=&r"(lo), "=&d"(rdx), [a] "+r"(a), [b] "+r"(b)
        : [p0] "m"(k.p[0]), [p1] "m"(k.p[1]), [p2] "m"(k.p[2]), [p3] "m"(k.p[3]), [inv] "m"(k.inv), [zero] "m"(k.zero), "m"(*(const std::uint64_t(*)[N])a), "m"(*(const std::uint64_t(*)[N])b)
        : "cc");
    (void)rdx;
    r[0] = t4; r[1] = t0; r[2] = t1; r[3] = t2;
  }
};

template <class Modulus, std::uint64_t Inv>
struct mont_asm<6, Modulus, Inv> {
  // One object, so that position-independent code needs at most one register to address it.
  struct constants {
    std::uint64_t p[6], inv, zero;
  };
  static constexpr constants k = [] {
    constants c{};
    for (std::size_t j = 0; j < 6; ++j) c.p[j] = Modulus::modulus.limb[j];
    c.inv = Inv;
    return c;
  }();
  static constexpr std::size_t N = 6;
  // r may alias a or b: every input is read before the result is stored.
  static void mul(std::uint64_t* r, const std::uint64_t* a, const std::uint64_t* b) {
    std::uint64_t t0, t1, t2, t3, t4, t5, t6, hi, lo, rdx;
    asm(
        "movq 0(%[b]), %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t"
        "mulxq 0(%[a]), %[t0], %[t1]\n\t"
        "mulxq 8(%[a]), %[lo], %[t2]\n\t"
        "adcxq %[lo], %[t1]\n\t"
        "mulxq 16(%[a]), %[lo], %[t3]\n\t"
        "adcxq %[lo], %[t2]\n\t"
        "mulxq 24(%[a]), %[lo], %[t4]\n\t"
        "adcxq %[lo], %[t3]\n\t"
        "mulxq 32(%[a]), %[lo], %[t5]\n\t"
        "adcxq %[lo], %[t4]\n\t"
        "mulxq 40(%[a]), %[lo], %[t6]\n\t"
        "adcxq %[lo], %[t5]\n\t"
        "adcxq %[zero], %[t6]\n\t"
        "movq %[t0], %%rdx\n\t"
        "imulq %[inv], %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t"
        "mulxq %[p0], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t0]\n\t"
        "adoxq %[hi], %[t1]\n\t"
        "mulxq %[p1], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t1]\n\t"
        "adoxq %[hi], %[t2]\n\t"
        "mulxq %[p2], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t2]\n\t"
        "adoxq %[hi], %[t3]\n\t"
        "mulxq %[p3], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t3]\n\t"
        "adoxq %[hi], %[t4]\n\t"
        "mulxq %[p4], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t4]\n\t"
        "adoxq %[hi], %[t5]\n\t"
        "mulxq %[p5], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t5]\n\t"
        "adoxq %[hi], %[t6]\n\t"
        "adcxq %[zero], %[t6]\n\t"
        "movq 8(%[b]), %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t"
        "mulxq 0(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t1]\n\t"
        "adcxq %[hi], %[t2]\n\t"
        "mulxq 8(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t2]\n\t"
        "adcxq %[hi], %[t3]\n\t"
        "mulxq 16(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t3]\n\t"
        "adcxq %[hi], %[t4]\n\t"
        "mulxq 24(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t4]\n\t"
        "adcxq %[hi], %[t5]\n\t"
        "mulxq 32(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t5]\n\t"
        "adcxq %[hi], %[t6]\n\t"
        "mulxq 40(%[a]), %[lo], %[t0]\n\t"
        "adoxq %[lo], %[t6]\n\t"
        "adcxq %[zero], %[t0]\n\t"
        "adoxq %[zero], %[t0]\n\t"
        "movq %[t1], %%rdx\n\t"
        "imulq %[inv], %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t"
        "mulxq %[p0], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t1]\n\t"
        "adoxq %[hi], %[t2]\n\t"
        "mulxq %[p1], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t2]\n\t"
        "adoxq %[hi], %[t3]\n\t"
        "mulxq %[p2], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t3]\n\t"
        "adoxq %[hi], %[t4]\n\t"
        "mulxq %[p3], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t4]\n\t"
        "adoxq %[hi], %[t5]\n\t"
        "mulxq %[p4], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t5]\n\t"
        "adoxq %[hi], %[t6]\n\t"
        "mulxq %[p5], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t6]\n\t"
        "adoxq %[hi], %[t0]\n\t"
        "adcxq %[zero], %[t0]\n\t"
        "movq 16(%[b]), %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t"
        "mulxq 0(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t2]\n\t"
        "adcxq %[hi], %[t3]\n\t"
        "mulxq 8(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t3]\n\t"
        "adcxq %[hi], %[t4]\n\t"
        "mulxq 16(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t4]\n\t"
        "adcxq %[hi], %[t5]\n\t"
        "mulxq 24(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t5]\n\t"
        "adcxq %[hi], %[t6]\n\t"
        "mulxq 32(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t6]\n\t"
        "adcxq %[hi], %[t0]\n\t"
        "mulxq 40(%[a]), %[lo], %[t1]\n\t"
        "adoxq %[lo], %[t0]\n\t"
        "adcxq %[zero], %[t1]\n\t"
        "adoxq %[zero], %[t1]\n\t"
        "movq %[t2], %%rdx\n\t"
        "imulq %[inv], %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t"
        "mulxq %[p0], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t2]\n\t"
        "adoxq %[hi], %[t3]\n\t"
        "mulxq %[p1], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t3]\n\t"
        "adoxq %[hi], %[t4]\n\t"
        "mulxq %[p2], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t4]\n\t"
        "adoxq %[hi], %[t5]\n\t"
        "mulxq %[p3], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t5]\n\t"
        "adoxq %[hi], %[t6]\n\t"
        "mulxq %[p4], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t6]\n\t"
        "adoxq %[hi], %[t0]\n\t"
        "mulxq %[p5], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t0]\n\t"
        "adoxq %[hi], %[t1]\n\t"
        "adcxq %[zero], %[t1]\n\t"
        "movq 24(%[b]), %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t"
        "mulxq 0(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t3]\n\t"
        "adcxq %[hi], %[t4]\n\t"
        "mulxq 8(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t4]\n\t"
        "adcxq %[hi], %[t5]\n\t"
        "mulxq 16(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t5]\n\t"
        "adcxq %[hi], %[t6]\n\t"
        "mulxq 24(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t6]\n\t"
        "adcxq %[hi], %[t0]\n\t"
        "mulxq 32(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t0]\n\t"
        "adcxq %[hi], %[t1]\n\t"
        "mulxq 40(%[a]), %[lo], %[t2]\n\t"
        "adoxq %[lo], %[t1]\n\t"
        "adcxq %[zero], %[t2]\n\t"
        "adoxq %[zero], %[t2]\n\t"
        "movq %[t3], %%rdx\n\t"
        "imulq %[inv], %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t"
        "mulxq %[p0], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t3]\n\t"
        "adoxq %[hi], %[t4]\n\t"
        "mulxq %[p1], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t4]\n\t"
        "adoxq %[hi], %[t5]\n\t"
        "mulxq %[p2], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t5]\n\t"
        "adoxq %[hi], %[t6]\n\t"
        "mulxq %[p3], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t6]\n\t"
        "adoxq %[hi], %[t0]\n\t"
        "mulxq %[p4], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t0]\n\t"
        "adoxq %[hi], %[t1]\n\t"
        "mulxq %[p5], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t1]\n\t"
        "adoxq %[hi], %[t2]\n\t"
        "adcxq %[zero], %[t2]\n\t"
        "movq 32(%[b]), %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t"
        "mulxq 0(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t4]\n\t"
        "adcxq %[hi], %[t5]\n\t"
        "mulxq 8(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t5]\n\t"
        "adcxq %[hi], %[t6]\n\t"
        "mulxq 16(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t6]\n\t"
        "adcxq %[hi], %[t0]\n\t"
        "mulxq 24(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t0]\n\t"
        "adcxq %[hi], %[t1]\n\t"
        "mulxq 32(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t1]\n\t"
        "adcxq %[hi], %[t2]\n\t"
        "mulxq 40(%[a]), %[lo], %[t3]\n\t"
        "adoxq %[lo], %[t2]\n\t"
        "adcxq %[zero], %[t3]\n\t"
        "adoxq %[zero], %[t3]\n\t"
        "movq %[t4], %%rdx\n\t"
        "imulq %[inv], %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t"
        "mulxq %[p0], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t4]\n\t"
        "adoxq %[hi], %[t5]\n\t"
        "mulxq %[p1], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t5]\n\t"
        "adoxq %[hi], %[t6]\n\t"
        "mulxq %[p2], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t6]\n\t"
        "adoxq %[hi], %[t0]\n\t"
        "mulxq %[p3], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t0]\n\t"
        "adoxq %[hi], %[t1]\n\t"
        "mulxq %[p4], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t1]\n\t"
        "adoxq %[hi], %[t2]\n\t"
        "mulxq %[p5], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t2]\n\t"
        "adoxq %[hi], %[t3]\n\t"
        "adcxq %[zero], %[t3]\n\t"
        "movq 40(%[b]), %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t"
        "mulxq 0(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t5]\n\t"
        "adcxq %[hi], %[t6]\n\t"
        "mulxq 8(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t6]\n\t"
        "adcxq %[hi], %[t0]\n\t"
        "mulxq 16(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t0]\n\t"
        "adcxq %[hi], %[t1]\n\t"
        "mulxq 24(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t1]\n\t"
        "adcxq %[hi], %[t2]\n\t"
        "mulxq 32(%[a]), %[lo], %[hi]\n\t"
        "adoxq %[lo], %[t2]\n\t"
        "adcxq %[hi], %[t3]\n\t"
        "mulxq 40(%[a]), %[lo], %[t4]\n\t"
        "adoxq %[lo], %[t3]\n\t"
        "adcxq %[zero], %[t4]\n\t"
        "adoxq %[zero], %[t4]\n\t"
        "movq %[t5], %%rdx\n\t"
        "imulq %[inv], %%rdx\n\t"
        "xorl %k[lo], %k[lo]\n\t"
        "mulxq %[p0], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t5]\n\t"
        "adoxq %[hi], %[t6]\n\t"
        "mulxq %[p1], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t6]\n\t"
        "adoxq %[hi], %[t0]\n\t"
        "mulxq %[p2], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t0]\n\t"
        "adoxq %[hi], %[t1]\n\t"
        "mulxq %[p3], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t1]\n\t"
        "adoxq %[hi], %[t2]\n\t"
        "mulxq %[p4], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t2]\n\t"
        "adoxq %[hi], %[t3]\n\t"
        "mulxq %[p5], %[lo], %[hi]\n\t"
        "adcxq %[lo], %[t3]\n\t"
        "adoxq %[hi], %[t4]\n\t"
        "adcxq %[zero], %[t4]\n\t"
        "movq %[t6], %[hi]\n\t"
        "subq %[p0], %[hi]\n\t"
        "movq %[t0], %[lo]\n\t"
        "sbbq %[p1], %[lo]\n\t"
        "movq %[t1], %%rdx\n\t"
        "sbbq %[p2], %%rdx\n\t"
        "movq %[t2], %[t5]\n\t"
        "sbbq %[p3], %[t5]\n\t"
        "movq %[t3], %[a]\n\t"
        "sbbq %[p4], %[a]\n\t"
        "movq %[t4], %[b]\n\t"
        "sbbq %[p5], %[b]\n\t"
        "cmovncq %[hi], %[t6]\n\t"
        "cmovncq %[lo], %[t0]\n\t"
        "cmovncq %%rdx, %[t1]\n\t"
        "cmovncq %[t5], %[t2]\n\t"
        "cmovncq %[a], %[t3]\n\t"
        "cmovncq %[b], %[t4]\n\t"
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5), [t6] "=&r"(t6), [hi] "=&r"(hi), [lo] "=&r"(lo), "=&d"(rdx), [a] "+r"(a), [b] "+r"(b)
        : [p0] "m"(k.p[0]), [p1] "m"(k.p[1]), [p2] "m"(k.p[2]), [p3] "m"(k.p[3]), [p4] "m"(k.p[4]), [p5] "m"(k.p[5]), [inv] "m"(k.inv), [zero] "m"(k.zero), "m"(*(const std::uint64_t(*)[N])a), "m"(*(const std::uint64_t(*)[N])b)
        : "cc");
    (void)rdx;
    r[0] = t6; r[1] = t0; r[2] = t1; r[3] = t2; r[4] = t3; r[5] = t4;
  }
};

// Modular addition and subtraction without branches: a carry chain, then a conditional
// correction by CMOV (add) or by a borrow mask (sub). The compiled C++ compare-and-subtract
// branches on data and mispredicts about half the time on random field elements; these run in
// a fixed ~2N-cycle chain. Plain x86-64 (ADD/ADC/SBB/CMOV): no CPU check needed.
// r may alias a or b: every input is read before the result is stored.
template <std::size_t N, class Modulus>
struct mod_add_asm;

template <class Modulus>
struct mod_add_asm<4, Modulus> {
  struct constants {
    std::uint64_t p[4];
  };
  static constexpr constants k = [] {
    constants c{};
    for (std::size_t j = 0; j < 4; ++j) c.p[j] = Modulus::modulus.limb[j];
    return c;
  }();
  static constexpr std::size_t N = 4;
  // r = a + b mod P for a, b < P: the sum, then the sum - P kept unless it borrowed.
  static void add(std::uint64_t* r, const std::uint64_t* a, const std::uint64_t* b) {
    std::uint64_t t0, t1, t2, t3, u0, u1;
    asm(
        "movq 0(%[a]), %[t0]\n\t"
        "movq 8(%[a]), %[t1]\n\t"
        "movq 16(%[a]), %[t2]\n\t"
        "movq 24(%[a]), %[t3]\n\t"
        "addq 0(%[b]), %[t0]\n\t"
        "adcq 8(%[b]), %[t1]\n\t"
        "adcq 16(%[b]), %[t2]\n\t"
        "adcq 24(%[b]), %[t3]\n\t"
        "movq %[t0], %[u0]\n\t"
        "subq %[p0], %[u0]\n\t"
        "movq %[t1], %[u1]\n\t"
        "sbbq %[p1], %[u1]\n\t"
        "movq %[t2], %[a]\n\t"
        "sbbq %[p2], %[a]\n\t"
        "movq %[t3], %[b]\n\t"
        "sbbq %[p3], %[b]\n\t"
        "cmovncq %[u0], %[t0]\n\t"
        "cmovncq %[u1], %[t1]\n\t"
        "cmovncq %[a], %[t2]\n\t"
        "cmovncq %[b], %[t3]\n\t"
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [u0] "=&r"(u0), [u1] "=&r"(u1), [a] "+r"(a), [b] "+r"(b)
        : [p0] "m"(k.p[0]), [p1] "m"(k.p[1]), [p2] "m"(k.p[2]), [p3] "m"(k.p[3]), "m"(*(const std::uint64_t(*)[N])a), "m"(*(const std::uint64_t(*)[N])b)
        : "cc");
    r[0] = t0; r[1] = t1; r[2] = t2; r[3] = t3;
  }
  // r = a - b mod P for a, b < P: the difference, plus P masked by the borrow.
  static void sub(std::uint64_t* r, const std::uint64_t* a, const std::uint64_t* b) {
    std::uint64_t t0, t1, t2, t3, u0, u1;
    asm(
        "movq 0(%[a]), %[t0]\n\t"
        "movq 8(%[a]), %[t1]\n\t"
        "movq 16(%[a]), %[t2]\n\t"
        "movq 24(%[a]), %[t3]\n\t"
        "subq 0(%[b]), %[t0]\n\t"
        "sbbq 8(%[b]), %[t1]\n\t"
        "sbbq 16(%[b]), %[t2]\n\t"
        "sbbq 24(%[b]), %[t3]\n\t"
        "sbbq %[a], %[a]\n\t"
        "movq %[p0], %[u0]\n\t"
        "andq %[a], %[u0]\n\t"
        "movq %[p1], %[u1]\n\t"
        "andq %[a], %[u1]\n\t"
        "movq %[p2], %[b]\n\t"
        "andq %[a], %[b]\n\t"
        "andq %[p3], %[a]\n\t"
        "addq %[u0], %[t0]\n\t"
        "adcq %[u1], %[t1]\n\t"
        "adcq %[b], %[t2]\n\t"
        "adcq %[a], %[t3]\n\t"
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [u0] "=&r"(u0), [u1] "=&r"(u1), [a] "+r"(a), [b] "+r"(b)
        : [p0] "m"(k.p[0]), [p1] "m"(k.p[1]), [p2] "m"(k.p[2]), [p3] "m"(k.p[3]), "m"(*(const std::uint64_t(*)[N])a), "m"(*(const std::uint64_t(*)[N])b)
        : "cc");
    r[0] = t0; r[1] = t1; r[2] = t2; r[3] = t3;
  }
};

template <class Modulus>
struct mod_add_asm<6, Modulus> {
  struct constants {
    std::uint64_t p[6];
  };
  static constexpr constants k = [] {
    constants c{};
    for (std::size_t j = 0; j < 6; ++j) c.p[j] = Modulus::modulus.limb[j];
    return c;
  }();
  static constexpr std::size_t N = 6;
  // r = a + b mod P for a, b < P: the sum, then the sum - P kept unless it borrowed.
  static void add(std::uint64_t* r, const std::uint64_t* a, const std::uint64_t* b) {
    std::uint64_t t0, t1, t2, t3, t4, t5, u0, u1, u2, u3;
    asm(
        "movq 0(%[a]), %[t0]\n\t"
        "movq 8(%[a]), %[t1]\n\t"
        "movq 16(%[a]), %[t2]\n\t"
        "movq 24(%[a]), %[t3]\n\t"
        "movq 32(%[a]), %[t4]\n\t"
        "movq 40(%[a]), %[t5]\n\t"
        "addq 0(%[b]), %[t0]\n\t"
        "adcq 8(%[b]), %[t1]\n\t"
        "adcq 16(%[b]), %[t2]\n\t"
        "adcq 24(%[b]), %[t3]\n\t"
        "adcq 32(%[b]), %[t4]\n\t"
        "adcq 40(%[b]), %[t5]\n\t"
        "movq %[t0], %[u0]\n\t"
        "subq %[p0], %[u0]\n\t"
        "movq %[t1], %[u1]\n\t"
        "sbbq %[p1], %[u1]\n\t"
        "movq %[t2], %[u2]\n\t"
        "sbbq %[p2], %[u2]\n\t"
        "movq %[t3], %[u3]\n\t"
        "sbbq %[p3], %[u3]\n\t"
        "movq %[t4], %[a]\n\t"
        "sbbq %[p4], %[a]\n\t"
        "movq %[t5], %[b]\n\t"
        "sbbq %[p5], %[b]\n\t"
        "cmovncq %[u0], %[t0]\n\t"
        "cmovncq %[u1], %[t1]\n\t"
        "cmovncq %[u2], %[t2]\n\t"
        "cmovncq %[u3], %[t3]\n\t"
        "cmovncq %[a], %[t4]\n\t"
        "cmovncq %[b], %[t5]\n\t"
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5), [u0] "=&r"(u0), [u1] "=&r"(u1), [u2] "=&r"(u2), [u3] "=&r"(u3), [a] "+r"(a), [b] "+r"(b)
        : [p0] "m"(k.p[0]), [p1] "m"(k.p[1]), [p2] "m"(k.p[2]), [p3] "m"(k.p[3]), [p4] "m"(k.p[4]), [p5] "m"(k.p[5]), "m"(*(const std::uint64_t(*)[N])a), "m"(*(const std::uint64_t(*)[N])b)
        : "cc");
    r[0] = t0; r[1] = t1; r[2] = t2; r[3] = t3; r[4] = t4; r[5] = t5;
  }
  // r = a - b mod P for a, b < P: the difference, plus P masked by the borrow.
  static void sub(std::uint64_t* r, const std::uint64_t* a, const std::uint64_t* b) {
    std::uint64_t t0, t1, t2, t3, t4, t5, u0, u1, u2, u3;
    asm(
        "movq 0(%[a]), %[t0]\n\t"
        "movq 8(%[a]), %[t1]\n\t"
        "movq 16(%[a]), %[t2]\n\t"
        "movq 24(%[a]), %[t3]\n\t"
        "movq 32(%[a]), %[t4]\n\t"
        "movq 40(%[a]), %[t5]\n\t"
        "subq 0(%[b]), %[t0]\n\t"
        "sbbq 8(%[b]), %[t1]\n\t"
        "sbbq 16(%[b]), %[t2]\n\t"
        "sbbq 24(%[b]), %[t3]\n\t"
        "sbbq 32(%[b]), %[t4]\n\t"
        "sbbq 40(%[b]), %[t5]\n\t"
        "sbbq %[a], %[a]\n\t"
        "movq %[p0], %[u0]\n\t"
        "andq %[a], %[u0]\n\t"
        "movq %[p1], %[u1]\n\t"
        "andq %[a], %[u1]\n\t"
        "movq %[p2], %[u2]\n\t"
        "andq %[a], %[u2]\n\t"
        "movq %[p3], %[u3]\n\t"
        "andq %[a], %[u3]\n\t"
        "movq %[p4], %[b]\n\t"
        "andq %[a], %[b]\n\t"
        "andq %[p5], %[a]\n\t"
        "addq %[u0], %[t0]\n\t"
        "adcq %[u1], %[t1]\n\t"
        "adcq %[u2], %[t2]\n\t"
        "adcq %[u3], %[t3]\n\t"
        "adcq %[b], %[t4]\n\t"
        "adcq %[a], %[t5]\n\t"
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5), [u0] "=&r"(u0), [u1] "=&r"(u1), [u2] "=&r"(u2), [u3] "=&r"(u3), [a] "+r"(a), [b] "+r"(b)
        : [p0] "m"(k.p[0]), [p1] "m"(k.p[1]), [p2] "m"(k.p[2]), [p3] "m"(k.p[3]), [p4] "m"(k.p[4]), [p5] "m"(k.p[5]), "m"(*(const std::uint64_t(*)[N])a), "m"(*(const std::uint64_t(*)[N])b)
        : "cc");
    r[0] = t0; r[1] = t1; r[2] = t2; r[3] = t3; r[4] = t4; r[5] = t5;
  }
};

}  // namespace cuzk::zk::detail

#endif
