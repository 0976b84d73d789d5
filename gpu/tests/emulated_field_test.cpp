// The device field and curve code, compiled for the host with the emulated carry chains of
// ptx.cuh, against zk/ff and zk/curve on random inputs. Runs everywhere (no GPU needed): it checks
// the limb algorithms the device runs; the device tests check the PTX itself.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>

#include "cuzk/gpu/curve.cuh"
#include "cuzk/gpu/lazy.cuh"
#include "cuzk/gpu/shifted.cuh"
#include "cuzk/gpu/xyzz_pair.cuh"
#include "cuzk/gpu/xyzz_slots.cuh"
#include "zk/bls12_381/curves.hpp"

using namespace cuzk;
using zk::bls12_381::fp;
using zk::bls12_381::fr;

namespace {

template <class D, class H>
D to_dev(const H& h) {
  static_assert(sizeof(D) == sizeof(H));
  D d;
  std::memcpy(static_cast<void*>(&d), &h, sizeof d);
  return d;
}
template <class H, class D>
H to_host(const D& d) {
  static_assert(sizeof(D) == sizeof(H));
  H h;
  std::memcpy(static_cast<void*>(&h), &d, sizeof h);
  return h;
}

template <class F>
F random_field(std::mt19937_64& rng) {
  typename F::repr r;
  for (auto& l : r.limb) l = rng();
  r.limb[F::N - 1] &= (~std::uint64_t{0}) >> 3;
  while (!(r < F::P)) r.limb[F::N - 1] >>= 1;
  return F::from_mont(r);
}

// Elements whose Montgomery limbs are the largest and smallest allowed (p - 1, 1): the product's
// accumulator bounds are tightest there.
template <class H>
H raw_limbs(std::uint64_t low_sub) {
  typename H::repr r = H::P;
  r.limb[0] -= low_sub;
  return H::from_mont(r);
}

template <class H, class D>
void check_field(std::mt19937_64& rng) {
  typename H::repr one_raw{};
  one_raw.limb[0] = 1;
  std::vector<H> special = {H::zero(), H::one(), -H::one(), H::from_u64(2), -H::from_u64(2),
                            raw_limbs<H>(1), raw_limbs<H>(2), H::from_mont(one_raw)};
  const int ns = int(special.size());
  for (int it = 0; it < 20000; ++it) {
    // Every 8th a is p - 1 in Montgomery limbs: Fr's lowest 32-bit limb is then 0, so the first
    // Montgomery step takes the m = 0 branch of the specialised one (mont.cuh, split_reduce).
    H a = it < ns * ns ? special[it % ns] : it % 8 == 0 ? raw_limbs<H>(1) : random_field<H>(rng);
    H b = it < ns * ns ? special[it / ns] : random_field<H>(rng);
    D da = to_dev<D>(a), db = to_dev<D>(b);
    REQUIRE(to_host<H>(da * db) == a * b);
    REQUIRE(to_host<H>(da + db) == a + b);
    REQUIRE(to_host<H>(da - db) == a - b);
    REQUIRE(to_host<H>(-da) == -a);
    REQUIRE(to_host<H>(da.sqr()) == a.sqr());
    REQUIRE(to_host<H>(da.from_mont()).m == a.to_canonical());
    REQUIRE((da == db) == (a == b));
  }
  REQUIRE(to_host<H>(D::one()) == H::one());
}

// A few points: multiples of the generator; add them into XYZZ accumulators both ways.
template <class Curve, class DF>
void check_xyzz() {
  using jac = zk::jacobian_t<Curve>;
  using hxyzz = zk::xyzz_t<Curve>;
  using dxyzz = gpu::xyzz_d<DF>;
  auto g = jac(Curve::generator());
  std::vector<jac> js;
  for (int i = 1; i <= 6; ++i) js.push_back(g.mul(zk::bigint<1>{{std::uint64_t(i * 1000003 + 7)}}));
  auto pts = batch_normalize(js);
  hxyzz h{};
  dxyzz d = dxyzz::identity();
  for (int rep = 0; rep < 2; ++rep)
    for (auto& p : pts) {
      h += p;
      d.add_affine(to_dev<DF>(p.x), to_dev<DF>(p.y));
    }
  d.add_affine(to_dev<DF>(pts[0].x), to_dev<DF>((-pts[0]).y));  // P + (-P) path inside a sum
  h -= pts[0];
  auto hd = to_host<hxyzz>(d);
  REQUIRE(hd.to_jacobian() == h.to_jacobian());
  dxyzz d2 = d;
  d2.add(d);  // doubling through add
  REQUIRE(to_host<hxyzz>(d2).to_jacobian() == h.to_jacobian().dbl());
  REQUIRE(to_host<hxyzz>(d.dbl()).to_jacobian() == h.to_jacobian().dbl());
  dxyzz d3 = dxyzz::identity();
  d3.add_affine(to_dev<DF>(pts[1].x), to_dev<DF>(pts[1].y));
  d3.add_affine(to_dev<DF>(pts[1].x), to_dev<DF>(pts[1].y));  // P + P
  REQUIRE(to_host<hxyzz>(d3).to_jacobian() == jac(pts[1]).dbl());
  dxyzz neg = d;
  neg.Y = -neg.Y;
  neg.add(d);  // P + (-P)
  REQUIRE(neg.is_identity());
}

// Host memory for xyzz_slots: a handle points at an Fp2 value.
struct host_slots {
  using F = gpu::fp2_dev;
  using H = F*;
  F* s;
  H slot(int i) const { return s + i; }
  F get(H h) const { return *h; }
  void put(H h, const F& v) const { *h = v; }
  void mul(H r, H a, H b) const { *r = *a * *b; }
  void sqr(H r, H a) const { *r = a->sqr(); }
};
// G2 points k g (normalized), and equality of device XYZZ points as group elements.
std::vector<zk::affine_t<zk::bls12_381::g2_curve>> g2_multiples(std::initializer_list<std::uint64_t> ks) {
  using jac = zk::jacobian_t<zk::bls12_381::g2_curve>;
  auto g = jac(zk::bls12_381::g2_curve::generator());
  std::vector<jac> js;
  for (std::uint64_t k : ks) js.push_back(g.mul(zk::bigint<1>{{k}}));
  return batch_normalize(js);
}
bool same_g2(const gpu::xyzz_d<gpu::fp2_dev>& a, const gpu::xyzz_d<gpu::fp2_dev>& b) {
  using hxyzz = zk::xyzz_t<zk::bls12_381::g2_curve>;
  return to_host<hxyzz>(a).to_jacobian() == to_host<hxyzz>(b).to_jacobian();
}
// The pair's 8 slots for xyzz_pair.
struct host_pool : host_slots {
  H pool(unsigned j) const { return s + j; }
};
// One of a segment's two sums for xyzz_pair (msm_g2.cu, g2_pair_seg): lane l's 6 slots at s + 6 l,
// the sum's two at p0, the temporaries at 4 and 5.
struct host_seg_view : host_slots {
  unsigned p0;
  H pool(unsigned j) const {
    const unsigned i = j & 3;
    return s + 6 * (j >> 2) + (i < 2 ? p0 + i : i + 2);
  }
};

}  // namespace

TEST_CASE("emulated device Fr and Fp arithmetic matches zk/ff", "[gpu][emulated]") {
  std::mt19937_64 rng(12345);
  check_field<fr, gpu::fr_d>(rng);
  check_field<fp, gpu::fp_d>(rng);
}

// The NTT's lazy arithmetic (lazy.cuh): operands anywhere in [0, 2p) (a value or the value plus p),
// results below 2p and equal to zk's modulo p; the product's first factor reduced.
TEST_CASE("emulated lazy Fr arithmetic (values in [0, 2p)) matches zk/ff", "[gpu][emulated]") {
  using D = gpu::fr_d;
  namespace lazy = gpu::lazy;
  auto plus_p = [](D a) {
    a.v[0] = gpu::ptx::add_cc(a.v[0], gpu::fr_params::mod(0));
    for (int i = 1; i < D::N; ++i) a.v[i] = gpu::ptx::addc_cc(a.v[i], gpu::fr_params::mod(i));
    return a;
  };
  auto below_2p = [](const D& a) {
    for (int i = D::N - 1; i >= 0; --i) {
      const std::uint32_t m = lazy::twice_mod<gpu::fr_params>(i);
      if (a.v[i] != m) return a.v[i] < m;
    }
    return false;
  };
  std::mt19937_64 rng(4242);
  std::vector<fr> special = {fr::zero(), fr::one(), -fr::one(), raw_limbs<fr>(1), raw_limbs<fr>(2)};
  const int ns = int(special.size());
  for (int it = 0; it < 20000; ++it) {
    const int sa = (it / 4) % ns, sb = (it / 4 / ns) % ns;
    const bool edge = it < 4 * ns * ns;
    fr a = edge ? special[sa] : random_field<fr>(rng), b = edge ? special[sb] : random_field<fr>(rng);
    D da = to_dev<D>(a), db = to_dev<D>(b);
    D la = it & 1 ? plus_p(da) : da, lb = it & 2 ? plus_p(db) : db;
    REQUIRE(below_2p(la));
    REQUIRE(below_2p(lb));
    D s = lazy::add(la, lb), d = lazy::sub(la, lb), m = lazy::mul(da, lb);
    REQUIRE(below_2p(s));
    REQUIRE(below_2p(d));
    REQUIRE(below_2p(m));
    REQUIRE(to_host<fr>(lazy::reduce(s)) == a + b);
    REQUIRE(to_host<fr>(lazy::reduce(d)) == a - b);
    REQUIRE(to_host<fr>(lazy::reduce(m)) == a * b);
    REQUIRE(to_host<fr>(lazy::reduce(la)) == a);
    const unsigned sh = 1 + unsigned(it % 31);  // a / 2^sh: the inverse NTT's 1/n (n = 2^sh)
    const D q = lazy::div_pow2(la, sh);
    REQUIRE(below_2p(q));
    REQUIRE(to_host<fr>(lazy::reduce(q)) == a * fr::from_u64(std::uint64_t(1) << sh).inverse());
  }
}

TEST_CASE("emulated device Fp2 and XYZZ formulas match zk/curve", "[gpu][emulated]") {
  using namespace zk::bls12_381;
  std::mt19937_64 rng(777);
  // Products at the edges of the lazy reduction's bounds (components 0, 1, p - 1 and the largest
  // Montgomery limbs, p - 1 as a raw value), then random; the double-width product and REDC alone.
  const fp edge[] = {fp::zero(), fp::one(), -fp::one(), raw_limbs<fp>(1)};
  for (int it = 0; it < 256 + 2000; ++it) {
    fp2 a{random_field<fp>(rng), random_field<fp>(rng)}, b{random_field<fp>(rng), random_field<fp>(rng)};
    if (it < 256) a = {edge[it % 4], edge[it / 4 % 4]}, b = {edge[it / 16 % 4], edge[it / 64 % 4]};
    auto da = to_dev<gpu::fp2_dev>(a), db = to_dev<gpu::fp2_dev>(b);
    REQUIRE(to_host<fp2>(da * db) == a * b);
    REQUIRE(to_host<fp2>(da.sqr()) == a.sqr());
    REQUIRE(to_host<fp>(gpu::fp_d::redc(gpu::fp_d::mul_wide(da.c0, db.c1))) == a.c0 * b.c1);
  }
  check_xyzz<g1_curve, gpu::fp_d>();
  check_xyzz<g2_curve, gpu::fp2_dev>();  // Fp2: the lazy product inside the formulas
}

TEST_CASE("emulated device inversion and shifted base sets match zk", "[gpu][emulated]") {
  using namespace zk::bls12_381;
  std::mt19937_64 rng(4242);
  for (int it = 0; it < 20; ++it) {
    fp a = random_field<fp>(rng);
    REQUIRE(to_host<fp>(to_dev<gpu::fp_d>(a).inverse()) == a.inverse());
    fr b = random_field<fr>(rng);
    REQUIRE(to_host<fr>(to_dev<gpu::fr_d>(b).inverse()) == b.inverse());
    fp2 c{random_field<fp>(rng), random_field<fp>(rng)};
    REQUIRE(to_host<fp2>(to_dev<gpu::fp2_dev>(c).inverse()) * c == fp2::one());
  }
  REQUIRE(gpu::fp_d::zero().inverse().is_zero());

  // Sets j = 2^(c j) P against doublings on the host; infinity stays all-zero in every set.
  auto check = [&](auto curve_tag, unsigned c, unsigned sets) {
    using Curve = decltype(curve_tag);
    using aff = zk::affine_t<Curve>;
    using jac = zk::jacobian_t<Curve>;
    using F = std::conditional_t<std::is_same_v<Curve, g1_curve>, gpu::fp_d, gpu::fp2_dev>;
    auto g = jac(Curve::generator());
    std::vector<aff> pts = batch_normalize(std::vector<jac>{g.mul(zk::bigint<1>{{123457}}), g, jac::identity()});
    for (const aff& p : pts) {
      const std::size_t stride = 3;  // sets interleaved with other points' slots, as on the device
      std::vector<gpu::affine_d<F>> out(sets * stride);
      gpu::shifted_copies<F>(to_dev<gpu::affine_d<F>>(p), c, sets, out.data(), stride);
      jac want = jac(p);
      for (unsigned j = 0; j < sets; ++j) {
        INFO("set " << j << ", c = " << c);
        aff got = to_host<aff>(out[j * stride]);
        REQUIRE(jac(got) == want);
        if (p.is_identity()) REQUIRE(got.is_identity());
        for (unsigned k = 0; k < c; ++k) want = want.dbl();
      }
    }
  };
  check(g1_curve{}, 13, 4);
  check(g1_curve{}, 22, 12);
  check(g2_curve{}, 16, 3);
}

TEST_CASE("emulated batch-affine additions (one inversion per batch) match zk/curve, collisions included",
          "[gpu][emulated][affine]") {
  using namespace zk::bls12_381;
  namespace ab = zk::affine_batch;
  // Lanes of point sequences stepped together, as the device's batch-affine accumulation does:
  // per step every lane plans its addition, the denominators share one inversion (prefix products,
  // then the walk back), and each lane finishes. Sequences hit every case: the first point into an
  // empty accumulator, P + P (doubling), P + (-P) (back to infinity), then more after infinity.
  auto run = [&](auto curve_tag) {
    using Curve = decltype(curve_tag);
    using aff = zk::affine_t<Curve>;
    using jac = zk::jacobian_t<Curve>;
    using F = std::conditional_t<std::is_same_v<Curve, g1_curve>, gpu::fp_d, gpu::fp2_dev>;
    using A = gpu::affine_d<F>;
    auto g = jac(Curve::generator());
    std::vector<jac> js;
    for (int i = 1; i <= 5; ++i) js.push_back(g.mul(zk::bigint<1>{{std::uint64_t(i * 7919 + 3)}}));
    auto pts = batch_normalize(js);
    std::mt19937_64 rng(99);
    const std::size_t lanes = 9, steps = 40;
    std::vector<std::vector<aff>> seq(lanes);
    for (std::size_t l = 0; l < lanes; ++l)
      for (std::size_t i = 0; i < steps; ++i) {
        std::size_t pick = rng() % 7;
        if (l == 0) seq[l].push_back(pts[0]);                              // doublings and more
        else if (l == 1) seq[l].push_back(i % 2 ? -pts[1] : pts[1]);       // P, -P, P, ...
        else if (pick < 5) seq[l].push_back(pts[pick]);
        else if (pick == 5) seq[l].push_back(-pts[rng() % 5]);
        else seq[l].push_back(seq[l].empty() ? pts[2] : seq[l].back());  // the same point again
      }
    std::vector<A> acc(lanes, A::identity());
    std::vector<jac> want(lanes, jac::identity());
    std::vector<F> pre(lanes);
    std::vector<unsigned> op(lanes);
    for (std::size_t i = 0; i < steps; ++i) {
      F prefix = F::one();
      for (std::size_t l = 0; l < lanes; ++l) {
        A p = to_dev<A>(seq[l][i]);
        want[l] += jac(seq[l][i]);
        F d;
        op[l] = ab::plan(acc[l].x, acc[l].y, p.x, p.y, d);
        if (op[l] == ab::add || op[l] == ab::dbl) {
          pre[l] = prefix;
          prefix = prefix * d;
        } else {
          ab::finish(op[l], acc[l].x, acc[l].y, p.x, p.y, F::one());
          op[l] = ab::none;
        }
      }
      F inv = prefix.inverse();
      for (std::size_t l = lanes; l-- > 0;) {
        if (op[l] == ab::none) continue;
        A p = to_dev<A>(seq[l][i]);
        F inv_d = inv * pre[l];
        inv = inv * ab::denominator(op[l], acc[l].x, acc[l].y, p.x);
        ab::finish(op[l], acc[l].x, acc[l].y, p.x, p.y, inv_d);
      }
      for (std::size_t l = 0; l < lanes; ++l) {
        INFO("step " << i << ", lane " << l);
        aff got = to_host<aff>(acc[l]);
        REQUIRE(jac(got) == want[l]);
        REQUIRE(got.is_identity() == want[l].is_identity());
      }
    }
  };
  run(g1_curve{});
  run(g2_curve{});
}

TEST_CASE("emulated XYZZ additions on memory slots (G2's shared-memory accumulators) match the formulas",
          "[gpu][emulated]") {
  using namespace zk::bls12_381;
  using F = gpu::fp2_dev;
  using dxyzz = gpu::xyzz_d<F>;
  namespace xs = gpu::xyzz_slots;
  const auto pts = g2_multiples({7922, 15841, 23760, 31679});
  // msm_g2.cu's segment: slots 0-3 the running sum (the first level's accumulator alike), 4-7 the
  // sum of running sums, 8-10 the temporaries. Steps: point index (-1: an empty bucket) and sign;
  // P + P, P + (-P) (infinity, then a point again), total + running with total = running (2 P).
  const std::pair<int, bool> steps[] = {{0, false}, {-1, false}, {0, false}, {1, false}, {2, true}, {-1, false},
                                        {3, false}, {3, true},  {1, true},  {1, true},  {2, false}, {0, false}};
  std::vector<F> mem(11, F::zero());
  host_slots m{mem.data()};
  bool run_inf = true, tot_inf = true;
  dxyzz run = dxyzz::identity(), tot = dxyzz::identity();
  auto slots_point = [&](int p0, bool inf) {
    return inf ? dxyzz::identity() : dxyzz{mem[p0], mem[p0 + 1], mem[p0 + 2], mem[p0 + 3]};
  };
  auto same = same_g2;
  for (auto [i, neg] : steps) {
    INFO("point " << i << (neg ? " negated" : ""));
    if (i >= 0) {
      F x = to_dev<F>(pts[i].x), y = to_dev<F>(pts[i].y);
      xs::add_affine(m, 0, 8, run_inf, &x, &y, neg);
      run.add_affine(x, neg ? -y : y);
    }
    REQUIRE(run_inf == run.is_identity());
    REQUIRE(same(slots_point(0, run_inf), run));
    if (!run_inf) {
      F* q[4] = {m.slot(0), m.slot(1), m.slot(2), m.slot(3)};
      xs::add(m, 4, 8, tot_inf, q);
      tot.add(run);
    }
    REQUIRE(tot_inf == tot.is_identity());
    REQUIRE(same(slots_point(4, tot_inf), tot));
  }
  // p + (-p) through the full addition: infinity.
  F q0[4] = {mem[0], -mem[1], mem[2], mem[3]};
  F* q[4] = {&q0[0], &q0[1], &q0[2], &q0[3]};
  bool inf = run_inf;
  REQUIRE(!inf);
  xs::add(m, 0, 8, inf, q);
  REQUIRE(inf);
}

// xyzz_pair's steps, one lane's then the other's (both orders: a slot one lane writes while the
// other reads it in the same step would change the result), against the formulas: a run of points
// with signs, repeats (P + P doubles, P + (-P) empties the accumulator, which then starts again)
// and the point at infinity.
TEST_CASE("emulated XYZZ addition shared by a lane pair matches the formulas in either lane order",
          "[gpu][emulated]") {
  namespace xp = gpu::xyzz_pair;
  using F = host_pool::F;
  using dxyzz = gpu::xyzz_d<F>;
  const auto pts = g2_multiples({1111, 2222, 3457, 6914});  // p1 = 2 p0, p3 = 2 p2
  // Point index (-1: the point at infinity) and sign: p0 + p0 doubles, + (-p1) empties, -p2 starts
  // again, doubles, + p3 empties, then plain additions.
  const std::pair<int, bool> steps[] = {{-1, false}, {0, false}, {0, false}, {1, true}, {2, true},  {-1, false}, {2, true},
                                        {3, false},  {0, false}, {1, false}, {2, false}, {-1, false}, {3, true}, {0, true}};
  auto same = same_g2;
  for (bool lane1_first : {false, true}) {
    INFO((lane1_first ? "lane 1 first" : "lane 0 first"));
    const unsigned order[2] = {lane1_first ? 1u : 0u, lane1_first ? 0u : 1u};
    std::vector<F> mem(8, F::zero());
    host_pool m{{mem.data()}};
    bool inf = true;
    dxyzz want = dxyzz::identity();
    int zeroed = 0, doubled = 0;
    for (auto [i, neg] : steps) {
      INFO("point " << i << (neg ? " negated" : ""));
      F pt[2] = {F::zero(), F::zero()};
      if (i >= 0) pt[0] = to_dev<F>(pts[i].x), pt[1] = to_dev<F>(pts[i].y);
      const bool zc[2] = {xp::zero_at(m, &pt[0]), xp::zero_at(m, &pt[1])};
      if (zc[0] && zc[1]) {
        REQUIRE(i < 0);
        continue;
      }
      want.add_affine(pt[0], neg ? -pt[1] : pt[1]);
      if (inf) {
        for (unsigned h : order) xp::start(m, h, &pt[h], h && neg);
        inf = false;
      } else {
        bool z[2];
        for (unsigned h : order) z[h] = xp::diff(m, h, &pt[h], h && neg);
        if (z[0]) {
          if (z[1]) {
            ++doubled;
            for (unsigned h : order) xp::put_half(m, h, xp::dbl_point(m, &pt[0], &pt[1], neg));
          } else {
            ++zeroed;
            inf = true;
          }
        } else {
          F v[2];
          for (unsigned i = 0; i < xp::end_steps; ++i)
            for (unsigned h : order) xp::end_step(m, h, i, v[h]);
        }
      }
      REQUIRE(inf == want.is_identity());
      if (!inf) REQUIRE(same(dxyzz{mem[xp::X], mem[xp::Y], mem[xp::ZZ], mem[xp::ZZZ]}, want));
    }
    REQUIRE(doubled == 2);  // the steps' repeats took both rare branches
    REQUIRE(zeroed == 2);
  }
}

// xyzz_pair's full addition as G2's bucket segments run it (msm_g2.cu, g2_pair_seg: running +=
// bucket, total += running), one lane's step then the other's in both orders, against the
// formulas: empty buckets, a bucket equal to the running sum (P + P), one that cancels it (P +
// (-P)), and total = running (2 P through the sum of running sums).
TEST_CASE("emulated full XYZZ addition shared by a lane pair (G2 bucket segments) matches the formulas",
          "[gpu][emulated]") {
  namespace xp = gpu::xyzz_pair;
  using F = host_seg_view::F;
  using dxyzz = gpu::xyzz_d<F>;
  const auto pts = g2_multiples({5003, 10006, 7919, 12345});
  auto xyzz_of = [&](int i, bool neg) {
    dxyzz r = dxyzz::identity();
    if (i >= 0) {
      const F y = to_dev<F>(pts[i].y);
      r.add_affine(to_dev<F>(pts[i].x), neg ? -y : y);
      r.add_affine(to_dev<F>(pts[(i + 2) % 4].x), to_dev<F>(pts[(i + 2) % 4].y));  // ZZ, ZZZ != 1
    }
    return r;
  };
  // Buckets by (index, sign); -1: empty, cancel: the running sum negated. b0, then an empty bucket
  // (total = running: 2 b0), b0 again (running = b0: 2 b0), ..., the running sum cancelled (then
  // empty, and a point again).
  constexpr int cancel = 4;
  const std::pair<int, bool> buckets[] = {{0, false}, {-1, false}, {0, false}, {2, false}, {-1, false},
                                          {1, false}, {cancel, false}, {-1, false}, {2, true}, {0, false}};
  for (bool lane1_first : {false, true}) {
    INFO((lane1_first ? "lane 1 first" : "lane 0 first"));
    const unsigned order[2] = {lane1_first ? 1u : 0u, lane1_first ? 0u : 1u};
    std::vector<F> mem(12, F::zero());
    const host_seg_view run_v{{mem.data()}, 0}, tot_v{{mem.data()}, 2};
    bool run_inf = true, tot_inf = true;
    dxyzz run = dxyzz::identity(), tot = dxyzz::identity();
    int zeroed = 0, doubled = 0;
    // p += q on the view m (g2_pair_seg::add, lane by lane).
    auto add = [&](const host_seg_view& m, bool& inf, F* const* q) {
      if (inf) {
        for (unsigned h : order) xp::copy(m, h, q[h], q[2 + h]);
        inf = false;
        return;
      }
      for (unsigned h : order) xp::scale(m, h, 0, q[2 + h]);
      bool z[2];
      for (unsigned h : order) z[h] = xp::diff(m, h, q[h], false);
      if (z[0]) {
        if (z[1]) {
          ++doubled;
          for (unsigned h : order) xp::put_half(m, h, xp::dbl_full(m, q));
        } else {
          ++zeroed;
          inf = true;
        }
        return;
      }
      for (unsigned h : order) xp::scale(m, h, 1, q[2 + h]);
      F v[2];
      for (unsigned i = 0; i < xp::end_steps; ++i)
        for (unsigned h : order) xp::end_step(m, h, i, v[h]);
    };
    auto sum_of = [&](const host_seg_view& m, bool inf) {
      if (inf) return dxyzz::identity();
      return dxyzz{*m.pool(xp::own(0, 0)), *m.pool(xp::own(1, 0)), *m.pool(xp::own(0, 1)), *m.pool(xp::own(1, 1))};
    };
    for (auto [i, neg] : buckets) {
      INFO("bucket " << i << (neg ? " negated" : ""));
      dxyzz b = i == cancel ? run : xyzz_of(i, neg);
      if (i == cancel) b.Y = -b.Y;
      F bq[4] = {b.X, b.Y, b.ZZ, b.ZZZ};
      F* q[4] = {&bq[0], &bq[1], &bq[2], &bq[3]};
      REQUIRE((bq[2].is_zero() == bq[3].is_zero()));  // each lane sees an empty bucket alone
      if (!bq[2].is_zero()) {
        add(run_v, run_inf, q);
        run.add(b);
      }
      REQUIRE(run_inf == run.is_identity());
      REQUIRE(same_g2(sum_of(run_v, run_inf), run));
      if (!run_inf) {
        F* r[4] = {run_v.pool(xp::own(0, 0)), run_v.pool(xp::own(1, 0)), run_v.pool(xp::own(0, 1)),
                   run_v.pool(xp::own(1, 1))};
        add(tot_v, tot_inf, r);
        tot.add(run);
      }
      REQUIRE(tot_inf == tot.is_identity());
      REQUIRE(same_g2(sum_of(tot_v, tot_inf), tot));
    }
    REQUIRE(doubled >= 2);  // a bucket equal to the running sum, and total = running
    REQUIRE(zeroed >= 1);   // a bucket that cancels the running sum
  }
}
