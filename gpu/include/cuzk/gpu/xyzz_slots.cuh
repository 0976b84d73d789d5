// The XYZZ additions of zk/curve/xyzz_formulas.hpp with every operand in memory ("slots"), for
// curves whose point state does not fit the registers beside its products (G2: an XYZZ point is
// 96 registers, the affine point 48, and the Fp2 product is an out-of-line call; held in registers,
// the state is parked on the stack around each call: docs/gpu.md, "G2").
//
// Each product reads its operands from memory and writes its result there (the result may
// overwrite an operand), so nothing is live in registers across a product; the accumulator and
// three temporaries are slots of the caller's memory M (msm_g2.cu: shared memory), the other
// point's coordinates are handles into wherever it lives (the bases, the buckets, other slots).
// M provides: a handle type H, a value type F (with +, -, dbl(), is_zero(), one() and the
// formulas' operations for the rare doubling), H slot(int), F get(H), put(H, F), mul(H r, H a,
// H b) (r = a b) and sqr(H r, H a). The emulated tests run these on host memory against the
// formulas (gpu/tests/emulated_field_test.cpp).
#pragma once

#include "cuzk/gpu/curve.cuh"

namespace cuzk::gpu::xyzz_slots {

// Slot indices: the point p is 4 slots from p0 (X, Y, ZZ, ZZZ), the temporaries 3 slots from t0.
// inf: p is the point at infinity (its slots are then not read).

// The additions' common end, once P = U2 - U1 and R = S2 - S1 are known and not zero: PP = P^2,
// PPP = P PP, ZZ *= PP, ZZZ *= PPP, Q = U1 PP, X3 = R^2 - PPP - 2 Q, Y3 = R (Q - X3) - S1 PPP. The
// slots are the caller's: P becomes PPP, S becomes S1 PPP, T is PP's, Q and R^2 land where the
// caller has room (Qd, R2d), X3 and Y3 go to Xd and Yd.
template <class M, class H>
CUZK_HD void finish(const M& m, H P, H R, H U, H S, H T, H ZZ, H ZZZ, H Qd, H R2d, H Xd, H Yd) {
  using F = typename M::F;
  m.sqr(T, P);       // PP
  m.mul(P, P, T);    // PPP
  m.mul(ZZ, ZZ, T);
  m.mul(Qd, U, T);   // Q
  m.mul(ZZZ, ZZZ, P);
  m.mul(S, S, P);    // S1 PPP
  m.sqr(R2d, R);     // R^2
  const F Q = m.get(Qd), X3 = m.get(R2d) - m.get(P) - Q.dbl();
  m.put(Xd, X3);
  m.put(Qd, Q - X3);
  m.mul(Qd, R, Qd);  // R (Q - X3)
  m.put(Yd, m.get(Qd) - m.get(S));
}

// p += (x, -y if neg else y), a point other than infinity; zk::xyzz::add_affine's products.
template <class M, class H>
CUZK_HD void add_affine(const M& m, int p0, int t0, bool& inf, H qx, H qy, bool neg) {
  using F = typename M::F;
  const H X = m.slot(p0), Y = m.slot(p0 + 1), ZZ = m.slot(p0 + 2), ZZZ = m.slot(p0 + 3);
  const H T1 = m.slot(t0), T2 = m.slot(t0 + 1), T3 = m.slot(t0 + 2);
  if (inf) {
    const F y = m.get(qy);
    m.put(X, m.get(qx)), m.put(Y, neg ? -y : y), m.put(ZZ, F::one()), m.put(ZZZ, F::one());
    inf = false;
    return;
  }
  m.mul(T1, qx, ZZ);  // U2
  const F P = m.get(T1) - m.get(X);
  m.put(T1, P);
  const bool pz = P.is_zero();
  m.mul(T2, qy, ZZZ);  // S2 of the point's y before its sign
  const F s2 = m.get(T2), R = (neg ? -s2 : s2) - m.get(Y);
  if (pz) {
    if (R.is_zero()) {  // p = q: 2 q
      const F y = m.get(qy);
      const auto d = zk::xyzz::dbl_affine(m.get(qx), neg ? -y : y);
      m.put(X, d.X), m.put(Y, d.Y), m.put(ZZ, d.ZZ), m.put(ZZZ, d.ZZZ);
    } else {
      inf = true;
    }
    return;
  }
  m.put(T2, R);
  finish(m, T1, T2, X, Y, T3, ZZ, ZZZ, /*Qd=*/T3, /*R2d=*/X, X, Y);  // U1 = X, S1 = Y
}

// p += q, q (handles q[0..3]: X, Y, ZZ, ZZZ) not infinity; zk::xyzz::add's products. q may be
// slots of M, not p's or the temporaries.
template <class M, class H>
CUZK_HD void add(const M& m, int p0, int t0, bool& inf, const H* q) {
  using F = typename M::F;
  const H X1 = m.slot(p0), Y1 = m.slot(p0 + 1), Z1 = m.slot(p0 + 2), W1 = m.slot(p0 + 3);
  const H T1 = m.slot(t0), T2 = m.slot(t0 + 1), T3 = m.slot(t0 + 2);
  if (inf) {
    m.put(X1, m.get(q[0])), m.put(Y1, m.get(q[1])), m.put(Z1, m.get(q[2])), m.put(W1, m.get(q[3]));
    inf = false;
    return;
  }
  m.mul(T1, X1, q[2]);  // U1
  m.mul(X1, q[0], Z1);  // U2
  const F P = m.get(X1) - m.get(T1);
  m.put(X1, P);
  const bool pz = P.is_zero();
  m.mul(T2, Y1, q[3]);  // S1
  m.mul(Y1, q[1], W1);  // S2
  const F R = m.get(Y1) - m.get(T2);
  if (pz) {
    if (R.is_zero()) {  // p = q: 2 q
      const auto d = zk::xyzz::dbl(zk::xyzz::coords<F>{m.get(q[0]), m.get(q[1]), m.get(q[2]), m.get(q[3])});
      m.put(X1, d.X), m.put(Y1, d.Y), m.put(Z1, d.ZZ), m.put(W1, d.ZZZ);
    } else {
      inf = true;
    }
    return;
  }
  m.put(Y1, R);
  m.mul(Z1, Z1, q[2]);
  m.mul(W1, W1, q[3]);
  finish(m, X1, Y1, T1, T2, T3, Z1, W1, /*Qd=*/T1, /*R2d=*/T3, X1, Y1);  // P = X1, R = Y1
}

}  // namespace cuzk::gpu::xyzz_slots
