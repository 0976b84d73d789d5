#include "zk/bls12_381/pairing.hpp"

#include <vector>

namespace cuzk::zk::bls12_381 {

namespace {

// 1/2 in Fp: (p + 1) / 2.
constexpr fp half() {
  auto h = fp::P;
  h.shr1();
  h.limb[0] += 1;  // (p - 1)/2 + 1, p odd
  return fp::from_canonical(h);
}
constexpr fp fp_half = half();

// Multiplication by the twist's b' = 4 (1 + u).
constexpr fp2 mul_by_b(const fp2& a) { return a.mul_by_nonresidue().dbl().dbl(); }

using line = g2_prepared::line;

// Homogeneous projective point on the twist, with the doubling and addition steps of Costello,
// Lange and Naehrig (eprint 2009/615) in the arrangement of zkcrypto/@noble/curves.
struct twist_point {
  fp2 x, y, z;

  line dbl() {
    fp2 t0 = y.sqr(), t1 = z.sqr();
    fp2 t2 = mul_by_b(t1.dbl() + t1);
    fp2 t3 = t2.dbl() + t2;
    fp2 t4 = (y + z).sqr() - t1 - t0;
    fp2 xx = x.sqr();
    line l{t2 - t0, xx.dbl() + xx, -t4};
    fp2 nx = (t0 - t3) * x * y * fp_half;
    fp2 t02 = t2.sqr();
    fp2 ny = ((t0 + t3) * fp_half).sqr() - (t02.dbl() + t02);
    z = t0 * t4;
    x = nx;
    y = ny;
    return l;
  }

  line add(const g2_affine& q) {
    fp2 t0 = y - q.y * z, t1 = x - q.x * z;
    line l{t0 * q.x - t1 * q.y, -t0, t1};
    fp2 t2 = t1.sqr(), t3 = t2 * t1, t4 = t2 * x;
    fp2 t5 = t3 - t4.dbl() + t0.sqr() * z;
    x = t1 * t5;
    y = (t4 - t5) * t0 - t3 * y;
    z = z * t3;
    return l;
  }
};

inline fp12 apply(const fp12& f, const line& l, const g1_affine& p) {
  return f.mul_by_014(l.c0, l.c1 * p.x, l.c2 * p.y);
}

}  // namespace

g2_prepared prepare_g2(const g2_affine& q) {
  g2_prepared out;
  if (q.is_identity()) return out;
  out.lines.reserve(68);
  twist_point r{q.x, q.y, fp2::one()};
  // Bits of |x| below the leading one, most significant first.
  for (int i = 62; i >= 0; --i) {
    out.lines.push_back(r.dbl());
    if ((bls_x_abs >> i) & 1) out.lines.push_back(r.add(q));
  }
  return out;
}

fp12 multi_miller_loop(std::span<const std::pair<g1_affine, const g2_prepared*>> pairs) {
  fp12 f = fp12::one();
  std::size_t k = 0;  // index into every point's lines: all follow the same bit pattern
  for (int i = 62; i >= 0; --i) {
    f = f.sqr();
    const int steps = ((bls_x_abs >> i) & 1) ? 2 : 1;
    for (int s = 0; s < steps; ++s, ++k)
      for (const auto& [p, q] : pairs)
        if (!p.is_identity() && !q->is_identity()) f = apply(f, q->lines[k], p);
  }
  return f.conjugate();  // x < 0: f_{x} = 1 / f_{|x|} up to factors the final exponentiation kills
}

fp12 multi_miller_loop(std::span<const std::pair<g1_affine, g2_affine>> pairs) {
  std::vector<g2_prepared> prepared;
  prepared.reserve(pairs.size());  // no reallocation: the pointers below stay valid
  std::vector<std::pair<g1_affine, const g2_prepared*>> with_lines;
  with_lines.reserve(pairs.size());
  for (const auto& [p, q] : pairs) {
    prepared.push_back(p.is_identity() ? g2_prepared{} : prepare_g2(q));
    with_lines.push_back({p, &prepared.back()});
  }
  return multi_miller_loop(std::span<const std::pair<g1_affine, const g2_prepared*>>(with_lines));
}

fp12 miller_loop(const g1_affine& p, const g2_affine& q) {
  std::pair<g1_affine, g2_affine> pq{p, q};
  return multi_miller_loop(std::span(&pq, 1));
}

namespace {
// a^x for x = -bls_x_abs, in the cyclotomic subgroup (inverse = conjugate).
inline fp12 cyclotomic_pow_x(const fp12& a) { return a.cyclotomic_pow(bls_x_abs).conjugate(); }
}  // namespace

fp12 final_exponentiation(const fp12& f) {
  // Easy part: f^((p^6 - 1)(p^2 + 1)); the result lies in the cyclotomic subgroup.
  fp12 t0 = f.conjugate() * f.inverse();
  fp12 t1 = t0.frobenius_map(2) * t0;
  // Hard part (p^4 - p^2 + 1)/r, as an addition chain in x (zkcrypto / @noble/curves).
  fp12 t2 = cyclotomic_pow_x(t1);
  fp12 t3 = t1.cyclotomic_sqr().conjugate() * t2;
  fp12 t4 = cyclotomic_pow_x(t3);
  fp12 t5 = cyclotomic_pow_x(t4);
  fp12 t6 = cyclotomic_pow_x(t5) * t2.cyclotomic_sqr();
  fp12 t7 = cyclotomic_pow_x(t6);
  return (t2 * t5).frobenius_map(2) * (t4 * t1).frobenius_map(3) * (t6 * t1.conjugate()).frobenius_map(1) * t7 *
         t3.conjugate() * t1;
}

fp12 pairing(const g1_affine& p, const g2_affine& q) { return final_exponentiation(miller_loop(p, q)); }

bool pairing_product_is_one(std::span<const std::pair<g1_affine, g2_affine>> pairs) {
  return final_exponentiation(multi_miller_loop(pairs)).is_one();
}

}  // namespace cuzk::zk::bls12_381
