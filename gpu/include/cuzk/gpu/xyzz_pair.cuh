// The mixed XYZZ addition (zk/curve/xyzz_formulas.hpp's add_affine, madd-2008-s) shared by the two
// lanes of a pair: each lane computes half of its products.
//
// One thread a G2 point keeps 8 warps an SM (255 registers: the XYZZ point, the affine point and
// the Fp2 product's working set), too few to hide the products' latency. Splitting every Fp2 value
// over a pair (a component a lane) gave the warps but cost extra multiplications or instructions
// (docs/gpu.md, "Measured dead ends"). Here the pair splits the addition instead: its 8 products
// and 2 squarings fall into 5 steps of two independent Fp2 operations, one a lane (the same
// instruction stream, the operands picked by the lane), so the pair does one thread's
// multiplications and each lane holds half the state.
//
// The point and the temporaries live in the pair's 8 slots ("pool" j: lane j / 4's slot j % 4),
// which both lanes address; the caller orders the steps with a barrier of the pair between them
// (on the device __syncwarp of the two lanes; the emulated tests run one lane's step, then the
// other's, in both orders). Within a step no lane writes a slot the other reads (end_step lists
// the steps after diff).
//
//   pool   X 0, ZZ 1, Y 4, ZZZ 5; temporaries 2, 3, 6, 7      lane 0             | lane 1
//   diff   own 2 = coordinate (x | +-y) times own 1 minus own 0   P = x ZZ - X       | R = S2 - Y
//   square own 3 = own 2 squared                                 PP -> 3            | R^2 -> 7
//   third                                                        PPP = P PP -> 2    | Q = X PP -> 0
//   fourth                                                       ZZ PP -> 1         | ZZZ PPP -> 5
//   x3     (read, barrier, write) X3 = R^2 - PPP - 2 Q           X3 -> 0            | Q - X3 -> 3
//   sixth                                                        R (Q - X3) -> 3    | Y PPP -> 2
//   y3     Y3 = slot 3 - slot 2                                                     | -> 4
//
// The rare cases are the caller's (msm_g2.cu): the start from infinity (start), and P = 0 after
// diff (both lanes learn it: 2 q when R = 0 too, else infinity).
//
// The full addition p += q (add, add-2008-s: 12 products and 2 squarings) takes the same steps
// after two of its own: lane h reads q's coordinates h and 2 + h (X2, ZZ2 | Y2, ZZZ2), the ones it
// holds of p, so the first three steps touch only the lane's own slots:
//   scale  own 0 *= q's 2 + h                                    U1 = X1 ZZ2 -> 0   | S1 = Y1 ZZZ2 -> 4
//   diff   with q's h                                            P = X2 ZZ1 - U1    | R = Y2 ZZZ1 - S1
//   scale  own 1 *= q's 2 + h                                    ZZ1 ZZ2 -> 1       | ZZZ1 ZZZ2 -> 5
// then square, third, ... as above (U1 and S1 in X's and Y's slots). Its rare cases: p at infinity
// takes q (copy), P = 0 doubles q (R = 0) or empties p.
//
// M provides a handle type H, the value type F (with -, dbl(), is_zero(), one()), H pool(unsigned
// j), F get(H), put(H, F), mul(H r, H a, H b) (r = a b; r may be a or b) and sqr(H r, H a).
#pragma once

#include "cuzk/gpu/curve.cuh"

namespace cuzk::gpu::xyzz_pair {

// The point's slots in the pool: lane h holds coordinates h and 2 + h (X, ZZ | Y, ZZZ) in its
// slots 0 and 1.
constexpr unsigned X = 0, ZZ = 1, Y = 4, ZZZ = 5;
constexpr unsigned own(unsigned h, unsigned i) { return 4 * h + i; }

// Whether the Fp2 value at c is zero (a lane's coordinate of the affine point: both zero is
// infinity).
template <class M, class H>
CUZK_HD bool zero_at(const M& m, H c) {
  return m.get(c).is_zero();
}
// 2 (x, +-y), both lanes alike (P = q: the rare case).
template <class M, class H>
CUZK_HD zk::xyzz::coords<typename M::F> dbl_point(const M& m, H x, H y, bool neg) {
  const auto v = m.get(y);
  return zk::xyzz::dbl_affine(m.get(x), neg ? -v : v);
}
// The accumulator at infinity takes the point: lane h's coordinate (c: x | y, negated when flip)
// and 1.
template <class M, class H>
CUZK_HD void start(const M& m, unsigned h, H c, bool flip) {
  using F = typename M::F;
  const F v = m.get(c);
  m.put(m.pool(own(h, 0)), flip ? -v : v);
  m.put(m.pool(own(h, 1)), F::one());
}
// The full addition's first steps: lane h's own slot i times c (q's coordinate 2 + h).
template <class M, class H>
CUZK_HD void scale(const M& m, unsigned h, unsigned i, H c) {
  const auto r = m.pool(own(h, i));
  m.mul(r, r, c);
}
// p at infinity takes q: lane h copies q's coordinates h and 2 + h (ch, c2h).
template <class M, class H>
CUZK_HD void copy(const M& m, unsigned h, H ch, H c2h) {
  m.put(m.pool(own(h, 0)), m.get(ch));
  m.put(m.pool(own(h, 1)), m.get(c2h));
}
// 2 q for the full addition (q's four coordinates; both lanes alike).
template <class M, class H>
CUZK_HD zk::xyzz::coords<typename M::F> dbl_full(const M& m, const H* q) {
  return zk::xyzz::dbl(zk::xyzz::coords<typename M::F>{m.get(q[0]), m.get(q[1]), m.get(q[2]), m.get(q[3])});
}
// Lane h's half of a doubling's result d: X, ZZ | Y, ZZZ.
template <class M>
CUZK_HD void put_half(const M& m, unsigned h, const zk::xyzz::coords<typename M::F>& d) {
  m.put(m.pool(own(h, 0)), h ? d.Y : d.X);
  m.put(m.pool(own(h, 1)), h ? d.ZZZ : d.ZZ);
}
// P = x ZZ - X on lane 0, R = (+-y) ZZZ - Y on lane 1 (S2 of the point's y before its sign);
// whether it is zero.
template <class M, class H>
CUZK_HD bool diff(const M& m, unsigned h, H c, bool flip) {
  using F = typename M::F;
  m.mul(m.pool(own(h, 2)), c, m.pool(own(h, 1)));
  F d = m.get(m.pool(own(h, 2)));
  if (flip) d = -d;
  d = d - m.get(m.pool(own(h, 0)));
  m.put(m.pool(own(h, 2)), d);
  return d.is_zero();
}
// PP | R^2.
template <class M>
CUZK_HD void square(const M& m, unsigned h) {
  m.sqr(m.pool(own(h, 3)), m.pool(own(h, 2)));
}
// PPP = P PP -> 2 | Q = X PP -> 0.
template <class M>
CUZK_HD void third(const M& m, unsigned h) {
  const auto r = m.pool(h ? X : 2);
  m.mul(r, r, m.pool(3));
}
// ZZ PP -> 1 | ZZZ PPP -> 5.
template <class M>
CUZK_HD void fourth(const M& m, unsigned h) {
  const auto r = m.pool(own(h, 1));
  m.mul(r, r, m.pool(h ? 2 : 3));
}
// X3 = R^2 - PPP - 2 Q, read by both lanes; then (after a barrier) lane 0 writes X3 to 0, lane 1
// Q - X3 to 3.
template <class M>
CUZK_HD typename M::F x3_read(const M& m, unsigned h) {
  const auto q = m.get(m.pool(X)), x3 = m.get(m.pool(7)) - m.get(m.pool(2)) - q.dbl();
  return h ? q - x3 : x3;
}
template <class M>
CUZK_HD void x3_write(const M& m, unsigned h, const typename M::F& v) {
  m.put(m.pool(h ? 3 : X), v);
}
// R (Q - X3) -> 3 | Y PPP -> 2.
template <class M>
CUZK_HD void sixth(const M& m, unsigned h) {
  const auto r = m.pool(h ? 2 : 3);
  m.mul(r, m.pool(h ? Y : 6), r);
}
// Y3 = R (Q - X3) - Y PPP -> 4 (lane 1).
template <class M>
CUZK_HD void y3(const M& m, unsigned h) {
  if (h) m.put(m.pool(Y), m.get(m.pool(3)) - m.get(m.pool(2)));
}

// The steps after diff (the full addition's: after its second scale), the caller's barrier after
// each: square; third; fourth and x3_read (one step: x3_read reads none of fourth's slots, and
// the barrier before x3_write keeps fourth's read of slot 3 ahead of lane 1's write there);
// x3_write; sixth; y3. v carries the lane's x3 value from its read to its write.
constexpr unsigned end_steps = 6;
template <class M>
CUZK_HD void end_step(const M& m, unsigned h, unsigned i, typename M::F& v) {
  switch (i) {
    case 0: square(m, h); break;
    case 1: third(m, h); break;
    case 2: fourth(m, h), v = x3_read(m, h); break;
    case 3: x3_write(m, h, v); break;
    case 4: sixth(m, h); break;
    default: y3(m, h);
  }
}

}  // namespace cuzk::gpu::xyzz_pair
