// The code between CUZK_IFMA_TARGET_BEGIN and _END (zk/ff/ifma_target.hpp) is compiled for
// AVX-512 F/VL/BW/DQ/IFMA; none of it runs unless vector_msm_available() said yes.
#include "zk/msm/vector_buckets.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "zk/ff/radix52.hpp"
#include "zk/msm/digits.hpp"
#include "zk/util/cpu_features.hpp"

#if defined(__x86_64__)
#include <immintrin.h>

#include "zk/ff/ifma_target.hpp"

namespace cuzk::zk::msm_detail {

bool vector_msm_available() { return cpu_has_avx512_ifma(); }

}  // namespace cuzk::zk::msm_detail

CUZK_IFMA_TARGET_BEGIN

#include "zk/ff/fp_ifma.hpp"
#include "zk/ff/vfield_ifma.hpp"

namespace cuzk::zk::msm_detail {
namespace {

using namespace ifma;
using bls12_381::fp;
using bls12_381::fp2;

template <class Curve>
struct point52 {
  static constexpr int W = vfield<typename Curve::field>::W;
  fe52 x[W], y[W];
};

// 2p - y, the negation of a reduced coordinate (the copy into an empty bucket of a negated point).
inline fe52 neg52(const fe52& y) {
  fe52 r;
  std::int64_t borrow = 0;
  for (int j = 0; j < limbs; ++j) {
    std::int64_t d = std::int64_t(k.two_p.l[j]) - std::int64_t(y.l[j]) + borrow;
    r.l[j] = u64(d) & mask52;
    borrow = d >> 52;
  }
  return r;
}

// (X / ZZ, Y / ZZZ) through one variable-time inversion, for the rare lanes finished in scalar
// code (bucket contents are no secret from a timing observer who can see their memory accesses).
template <class Curve>
affine_t<Curve> affine_vartime(const xyzz_t<Curve>& p) {
  if (p.is_identity()) return affine_t<Curve>::identity();
  const auto inv = (p.ZZ * p.ZZZ).inverse_vartime();  // 1 / (ZZ ZZZ)
  return affine_t<Curve>::of(p.X * (inv * p.ZZZ), p.Y * (inv * p.ZZ));
}

template <class Curve>
xyzz_t<Curve> xyzz_of(const jacobian_t<Curve>& p) {
  xyzz_t<Curve> r;
  if (p.is_identity()) return xyzz_t<Curve>::identity();
  r.X = p.X, r.Y = p.Y, r.ZZ = p.Z.sqr(), r.ZZZ = r.ZZ * p.Z;
  return r;
}

// Eight XYZZ points, one per lane, with a mask of the lanes that are not the point at infinity.
// The formulas are the EFD's madd-2008-s and add-2008-s; lanes where they do not apply (the same
// x: a doubling or P - P) are finished in scalar code, one lane at a time.
template <class Curve>
struct lane_xyzz_t {
  using F = typename Curve::field;
  using VF = vfield<F>;
  using V = typename VF::V;
  using xyzz = xyzz_t<Curve>;
  using affine = affine_t<Curve>;
  V X{}, Y{}, ZZ{}, ZZZ{};
  __mmask8 live = 0;

  xyzz lane(int l) const {
    if (!(live >> l & 1)) return xyzz::identity();
    xyzz r;
    r.X = get(X, l), r.Y = get(Y, l), r.ZZ = get(ZZ, l), r.ZZZ = get(ZZZ, l);
    return r;
  }
  void set_lane(int l, const xyzz& p) {
    if (p.is_identity()) {
      live &= __mmask8(~(1u << l));
      return;
    }
    put(X, l, p.X), put(Y, l, p.Y), put(ZZ, l, p.ZZ), put(ZZZ, l, p.ZZZ);
    live |= __mmask8(1u << l);
  }

  // this += (x, y) in the lanes of `m` (affine points, never infinity).
  void add_affine(const V& x, const V& y, __mmask8 m) {
    const __mmask8 start = m & __mmask8(~live), both = m & live;
    if (both) {
      V U2 = VF::mul(x, ZZ), S2 = VF::mul(y, ZZZ);
      V P = VF::sub(U2, X), R = VF::sub(S2, Y);
      __mmask8 odd = both & VF::zero_mask(P);
      V PP = VF::sqr(P), PPP = VF::mul(P, PP), Q = VF::mul(X, PP);
      V X3 = VF::sub(VF::sub(VF::sqr(R), PPP), VF::add(Q, Q));
      V Y3 = VF::sub(VF::mul(R, VF::sub(Q, X3)), VF::mul(Y, PPP));
      V ZZ3 = VF::mul(ZZ, PP), ZZZ3 = VF::mul(ZZZ, PPP);
      commit(both, odd, X3, Y3, ZZ3, ZZZ3, [&](int l) { return affine::of(get(x, l), get(y, l)); });
    }
    if (start) {
      const V one = VF::one();
      X = VF::select(start, X, x), Y = VF::select(start, Y, y);
      ZZ = VF::select(start, ZZ, one), ZZZ = VF::select(start, ZZZ, one);
      live |= start;
    }
  }

  // this += o, lane by lane.
  void add(const lane_xyzz_t& o) {
    const __mmask8 start = o.live & __mmask8(~live), both = o.live & live;
    if (both) {
      V U1 = VF::mul(X, o.ZZ), U2 = VF::mul(o.X, ZZ);
      V S1 = VF::mul(Y, o.ZZZ), S2 = VF::mul(o.Y, ZZZ);
      V P = VF::sub(U2, U1), R = VF::sub(S2, S1);
      __mmask8 odd = both & VF::zero_mask(P);
      V PP = VF::sqr(P), PPP = VF::mul(P, PP), Q = VF::mul(U1, PP);
      V X3 = VF::sub(VF::sub(VF::sqr(R), PPP), VF::add(Q, Q));
      V Y3 = VF::sub(VF::mul(R, VF::sub(Q, X3)), VF::mul(S1, PPP));
      V ZZ3 = VF::mul(VF::mul(ZZ, o.ZZ), PP), ZZZ3 = VF::mul(VF::mul(ZZZ, o.ZZZ), PPP);
      commit(both, odd, X3, Y3, ZZ3, ZZZ3, [&](int l) { return o.lane(l); });
    }
    if (start) {
      X = VF::select(start, X, o.X), Y = VF::select(start, Y, o.Y);
      ZZ = VF::select(start, ZZ, o.ZZ), ZZZ = VF::select(start, ZZZ, o.ZZZ);
      live |= start;
    }
  }

 private:
  // Takes the formula's result in the lanes of `both` but not `odd` (the same x), where the scalar
  // XYZZ code adds addend(l) to the old value instead (doubling or cancelling).
  template <class Addend>
  void commit(__mmask8 both, __mmask8 odd, const V& X3, const V& Y3, const V& ZZ3, const V& ZZZ3, Addend addend) {
    xyzz old[8];
    for (int l = 0; l < 8; ++l)
      if (odd >> l & 1) old[l] = lane(l);
    const __mmask8 take = both & __mmask8(~odd);
    X = VF::select(take, X, X3), Y = VF::select(take, Y, Y3);
    ZZ = VF::select(take, ZZ, ZZ3), ZZZ = VF::select(take, ZZZ, ZZZ3);
    for (int l = 0; l < 8; ++l) {
      if (!(odd >> l & 1)) continue;
      old[l] += addend(l);
      set_lane(l, old[l]);
    }
  }

  static F get(const V& v, int l) { return VF::get_lane(v, l); }
  static void put(V& v, int l, const F& f) { VF::set_lane(v, l, f); }
};

template <class Curve>
class lane_buckets {
 public:
  using F = typename Curve::field;
  using VF = vfield<F>;
  using V = typename VF::V;
  using NF = vfield<fp>;  // the field of the batch inversions (norms, for Fp2)
  using NV = NF::V;
  using P52 = point52<Curve>;
  using affine = affine_t<Curve>;
  using xyzz = xyzz_t<Curve>;
  using jacobian = jacobian_t<Curve>;
  using lane_xyzz = lane_xyzz_t<Curve>;
  static constexpr int W = VF::W;
  static constexpr std::uint32_t neg_bit = 1u << 31;
  static constexpr std::uint32_t from_bucket = 1u << 30;  // (fold_to: the addend is a bucket)

  lane_buckets() { std::memset(&pad_, 0, sizeof pad_); }

  // Starts a window. The object is reused (one per thread): fresh multi-megabyte bucket arrays
  // per window cost more in page faults and zeroing than the bucket reduction itself. Bucket
  // contents are never read before place() writes them, so only the states are reset.
  void start(std::size_t n_buckets, std::size_t batch, const P52* prep, std::span<const affine> bases,
             std::span<const std::uint32_t> active) {
    if (bucket_capacity_ < n_buckets) bucket_store_.reset(new P52[n_buckets]), bucket_capacity_ = n_buckets;
    bucket_ = std::span<P52>(bucket_store_.get(), n_buckets);
    state_.assign(n_buckets, empty);
    reserve_inversion(batch / 8);
    idx_.resize(batch), pt_.resize(batch), special_.resize(batch / 8);
    overflow_.clear(), overflowed_.clear();
    waiting_.clear(), requeue_.clear();
    waiting_.reserve(batch), requeue_.reserve(batch);
    prep_ = prep, bases_ = bases, active_ = active, batch_ = batch, count_ = 0, epoch_ = 2;
  }

  // bucket[b] += (negate ? -P_k : P_k), P_k the k-th active base.
  void add(std::size_t b, std::uint32_t k, bool negate) {
    std::uint32_t pt = k | (negate ? neg_bit : 0);
    if (!place(b, pt)) {
      if (waiting_.size() < batch_) waiting_.push_back({std::uint32_t(b), pt});
      else if (2 * count_ >= batch_) {
        // The queue is full but the batch is half full or more: finish it early rather than
        // send the point to the (scalar) overflow; after the flush its bucket is free.
        flush_and_requeue();
        if (!place(b, pt)) {
          if (waiting_.size() < batch_) waiting_.push_back({std::uint32_t(b), pt});
          else overflow(b) += point(pt);
        }
      } else {
        overflow(b) += point(pt);
      }
    }
    if (count_ == batch_) flush_and_requeue();
  }

  void prefetch(std::size_t b) const { __builtin_prefetch(&state_[b]); }

  // sum_b (b + 1) * bucket[b], and the overflow buckets. With `logical` below the bucket count,
  // the window's digits need only that many buckets and each was spread over copies
  // b, b + logical, b + 2 logical, ... (see window_sum); the copies are summed first.
  xyzz weighted_sum(std::size_t logical) {
    drain();
    fold_to(logical);
    jacobian sum = bucket_.size() >= 8 ? segmented_sum() : scalar_sum();
    if (!overflow_.empty()) {  // (rare: buckets that many points hit)
      std::sort(overflowed_.begin(), overflowed_.end());
      overflowed_.erase(std::unique(overflowed_.begin(), overflowed_.end()), overflowed_.end());
      if (overflowed_.size() * 16 < bucket_.size()) {
        for (std::uint32_t b : overflowed_)
          sum += overflow_[b].to_jacobian().mul(bigint<4>{{std::uint64_t(b) + 1, 0, 0, 0}});
      } else {
        xyzz run = xyzz::identity(), tot = xyzz::identity();
        for (std::size_t b = bucket_.size(); b-- > 0;) run += overflow_[b], tot += run;
        sum += tot.to_jacobian();
      }
    }
    return xyzz_of(sum);
  }

 private:
  // The few buckets of a narrow window.
  jacobian scalar_sum() const {
    xyzz run = xyzz::identity(), tot = xyzz::identity();
    for (std::size_t b = bucket_.size(); b-- > 0;) {
      if (state_[b] != empty) run += to_affine(bucket_[b]);
      tot += run;
    }
    return tot.to_jacobian();
  }

  // Adds the upper half of the buckets into the lower half until `logical` remain: one
  // collision-free batch-affine pass per halving. Copies of a bucket were made so that a window
  // with few distinct digits (the top one) does not crowd its points into few buckets, where
  // every batch could take only a handful of them.
  void fold_to(std::size_t logical) {
    for (std::size_t half = bucket_.size() / 2; half >= logical; half /= 2) {
      for (std::size_t i = 0; i < half; ++i) {
        const std::size_t src = i + half;
        if (state_[src] == empty) continue;
        if (state_[i] == empty) {
          bucket_[i] = bucket_[src], state_[i] = idle;
          continue;
        }
        idx_[count_] = std::uint32_t(i), pt_[count_] = std::uint32_t(src) | from_bucket, ++count_;
        if (count_ == batch_) flush();
      }
      flush();
      if (!overflow_.empty()) {
        for (std::size_t k = 0, m = overflowed_.size(); k < m; ++k) {
          const std::uint32_t b = overflowed_[k];
          if (b < half) continue;
          xyzz moved = overflow_[b];
          overflow_[b] = xyzz::identity();
          overflow(b - half) += moved;
        }
        std::erase_if(overflowed_, [&](std::uint32_t b) { return b >= half; });
      }
      bucket_ = bucket_.first(half);
    }
  }

  // The running-sum reduction in affine coordinates, batched across residue classes. Bucket b
  // belongs to class s = b mod 8G (lane l of group g for s = 8g + l) as its j-th member,
  // b = s + 8G j. Each class keeps S, the sum of its members above the current one, and T, the
  // sum of those S; one step adds the old S to T and the next member down to S in every class:
  // 16G independent affine additions that share one inversion, 6 products each, where the lane
  // reduction's XYZZ additions (mixed and full) cost 10 and 14. A step reads 8G consecutive
  // buckets, so the whole is one sequential pass. Afterwards S_s = sum_j B and T_s = sum_j j B,
  // and the weighted sum is sum_s (s + 1) S_s + 8G sum_s T_s.
  jacobian segmented_sum() {
    // At least 16 members per class (the final combination costs about a step per group), at
    // most 64 groups (1024 additions per inversion).
    const std::size_t n = bucket_.size(), G = std::clamp<std::size_t>(n / 128, 1, 64), L = n / (8 * G);
    reserve_inversion(2 * G);
    if (seg_capacity_ < G) {
      seg_s_.reset(new lane_affine[G]), seg_t_.reset(new lane_affine[G]), seg_b_.reset(new lane_affine[G]);
      seg_capacity_ = G;
    }
    s_live_.assign(G, 0), t_live_.assign(G, 0), b_live_.assign(G, 0), seg_same_.resize(2 * G);
    for (std::size_t g = 0; g < G; ++g) seg_s_[g] = lane_affine{}, seg_t_[g] = lane_affine{};
    for (std::size_t j = L; j-- > 0;) segment_step(G, j);

    // Lane l of `run` is sum_g S_(g,l), of `tot` sum_g (g + 1) S_(g,l), of `tsum` sum_g T_(g,l).
    // With s = 8g + l: sum_s (s + 1) S_s = 8 sum_l tot_l - sum_l (7 - l) run_l.
    lane_xyzz run, tot, tsum;
    for (std::size_t g = G; g-- > 0;) {
      run.add_affine(seg_s_[g].x, seg_s_[g].y, s_live_[g]);
      tot.add(run);
      tsum.add_affine(seg_t_[g].x, seg_t_[g].y, t_live_[g]);
    }
    xyzz t_all = xyzz::identity(), tot_all = xyzz::identity(), s_all = xyzz::identity(), weighted = xyzz::identity();
    for (int l = 0; l < 8; ++l) {
      t_all += tsum.lane(l), tot_all += tot.lane(l);
      s_all += run.lane(l), weighted += s_all;  // sum_l (8 - l) run_l
    }
    jacobian t_part = t_all.to_jacobian();
    for (std::size_t m = 8 * G; m > 1; m >>= 1) t_part = t_part.dbl();
    return tot_all.to_jacobian().dbl().dbl().dbl() - weighted.to_jacobian() + s_all.to_jacobian() + t_part;
  }

  // One step of segmented_sum: T += S, then S += bucket[s + 8G j], in every class s.
  void segment_step(std::size_t G, std::size_t j) {
    const V one = VF::one();
    for (std::size_t g = 0; g < G; ++g) {
      const fe52 *bx[8], *by[8];
      __mmask8 bl = 0;
      for (int l = 0; l < 8; ++l) {
        const std::size_t b = 8 * (G * j + g) + std::size_t(l);
        const P52* q = &pad_;
        if (state_[b] != empty) q = &bucket_[b], bl |= __mmask8(1u << l);
        bx[l] = q->x, by[l] = q->y;
      }
      lane_affine& B = seg_b_[g];
      B.x = VF::load(bx), B.y = VF::load(by), b_live_[g] = bl;
      const lane_affine &S = seg_s_[g], &T = seg_t_[g];
      const __mmask8 sl = s_live_[g], tl = t_live_[g];
      // Lanes where both terms exist take the formula; the rest (a copy, nothing, or the same x)
      // divide by 1.
      V d_t = VF::sub(S.x, T.x), d_s = VF::sub(B.x, S.x);
      const __mmask8 same_t = sl & tl & VF::zero_mask(d_t), same_s = sl & bl & VF::zero_mask(d_s);
      seg_same_[2 * g] = same_t, seg_same_[2 * g + 1] = same_s;
      const __mmask8 add_t = sl & tl & __mmask8(~same_t), add_s = sl & bl & __mmask8(~same_s);
      d_t = VF::select(__mmask8(~add_t), d_t, one), d_s = VF::select(__mmask8(~add_s), d_s, one);
      norm_[2 * g] = VF::norm(d_t), norm_[2 * g + 1] = VF::norm(d_s);
      prefix_[2 * g] = g ? NF::mul(prefix_[2 * g - 1], norm_[2 * g]) : norm_[2 * g];
      prefix_[2 * g + 1] = NF::mul(prefix_[2 * g], norm_[2 * g + 1]);
    }
    NV inv = invert_lanes(prefix_[2 * G - 1]);
    for (std::size_t g = G; g-- > 0;) {
      const NV inv_norm_s = NF::mul(inv, prefix_[2 * g]);
      inv = NF::mul(inv, norm_[2 * g + 1]);
      const NV inv_norm_t = g ? NF::mul(inv, prefix_[2 * g - 1]) : inv;
      if (g) inv = NF::mul(inv, norm_[2 * g]);

      lane_affine &S = seg_s_[g], &T = seg_t_[g];
      const lane_affine& B = seg_b_[g];
      const __mmask8 sl = s_live_[g], tl = t_live_[g], bl = b_live_[g];
      const __mmask8 both_t = sl & tl, both_s = sl & bl;
      const __mmask8 same_t = seg_same_[2 * g], same_s = seg_same_[2 * g + 1];
      const __mmask8 take_t = both_t & __mmask8(~same_t), take_s = both_s & __mmask8(~same_s);
      const V inv_t = VF::inverse_from_norm(VF::select(__mmask8(~take_t), VF::sub(S.x, T.x), one), inv_norm_t);
      const V inv_s = VF::inverse_from_norm(VF::select(__mmask8(~take_s), VF::sub(B.x, S.x), one), inv_norm_s);
      // Scalar first, while S still holds its old value (rare: equal or opposite points).
      affine fix_t[8], fix_s[8];
      for (int l = 0; l < 8; ++l) {
        if (same_t >> l & 1) fix_t[l] = add_same_x(lane_of(T, l), lane_of(S, l));
        if (same_s >> l & 1) fix_s[l] = add_same_x(lane_of(S, l), lane_of(B, l));
      }
      lane_affine t_new = add_lanes(T, S, inv_t), s_new = add_lanes(S, B, inv_s);
      const __mmask8 copy_t = sl & __mmask8(~tl), copy_s = bl & __mmask8(~sl);
      T.x = VF::select(copy_t, VF::select(take_t, T.x, t_new.x), S.x);
      T.y = VF::select(copy_t, VF::select(take_t, T.y, t_new.y), S.y);
      S.x = VF::select(copy_s, VF::select(take_s, S.x, s_new.x), B.x);
      S.y = VF::select(copy_s, VF::select(take_s, S.y, s_new.y), B.y);
      __mmask8 t_live = tl | sl, s_live = sl | bl;
      for (int l = 0; l < 8; ++l) {
        if (same_t >> l & 1) set_lane_of(T, t_live, l, fix_t[l]);
        if (same_s >> l & 1) set_lane_of(S, s_live, l, fix_s[l]);
      }
      t_live_[g] = t_live, s_live_[g] = s_live;
    }
  }

  // Eight affine points, lane by lane (valid field elements in every lane, live or not).
  struct lane_affine {
    V x{}, y{};
  };

  // p + q, lane by lane, given 1 / (q.x - p.x): the lanes where that is defined are kept.
  static lane_affine add_lanes(const lane_affine& p, const lane_affine& q, const V& inv) {
    V lambda = VF::mul(VF::sub(q.y, p.y), inv);
    V x3 = VF::sub(VF::sub(VF::sqr(lambda), p.x), q.x);
    return {x3, VF::sub(VF::mul(lambda, VF::sub(p.x, x3)), p.y)};
  }
  static affine lane_of(const lane_affine& p, int l) {
    return affine::of(VF::get_lane(p.x, l), VF::get_lane(p.y, l));
  }
  static void set_lane_of(lane_affine& p, __mmask8& live, int l, const affine& a) {
    if (a.is_identity()) {
      live &= __mmask8(~(1u << l));
      return;
    }
    VF::set_lane(p.x, l, a.x), VF::set_lane(p.y, l, a.y);
  }
  // p + q for two points with the same x: a doubling or the point at infinity.
  static affine add_same_x(const affine& p, const affine& q) {
    xyzz s = xyzz::identity();
    s += p;
    s += q;
    return affine_vartime(s);
  }

  void reserve_inversion(std::size_t groups) {
    if (batch_capacity_ < 8 * groups) {
      norm_.reset(new NV[groups]), prefix_.reset(new NV[groups]);
      batch_capacity_ = 8 * groups;
    }
  }

  static constexpr std::uint32_t empty = 0, idle = 1;
  struct waiting_point {
    std::uint32_t bucket, pt;
  };

  affine point(std::uint32_t pt) const {
    if (pt & from_bucket) return to_affine(bucket_store_[pt & ~from_bucket]);
    const affine& p = bases_[active_[pt & ~neg_bit]];
    return pt & neg_bit ? -p : p;
  }
  static affine to_affine(const P52& p) { return affine::of(VF::to_scalar(p.x), VF::to_scalar(p.y)); }
  static void store_affine(P52& out, const affine& p) { VF::to_vec(p.x, out.x), VF::to_vec(p.y, out.y); }

  bool place(std::size_t b, std::uint32_t pt) {
    std::uint32_t& st = state_[b];
    if (st == empty) {
      const P52& p = prep_[pt & ~neg_bit];
      P52& q = bucket_[b];
      q = p;
      if (pt & neg_bit)
        for (int c = 0; c < W; ++c) q.y[c] = neg52(p.y[c]);
      st = idle;
      return true;
    }
    if (st == epoch_) return false;
    st = epoch_;
    idx_[count_] = std::uint32_t(b);
    pt_[count_] = pt;
    ++count_;
    return true;
  }

  xyzz& overflow(std::size_t b) {
    if (overflow_.empty()) overflow_.resize(bucket_.size());
    if (overflow_[b].is_identity()) overflowed_.push_back(std::uint32_t(b));  // (may repeat after a cancellation)
    return overflow_[b];
  }

  // Lane pointers of group g: bucket and added point, the zero pad beyond count_.
  void lanes(std::size_t g, const fe52** qx, const fe52** qy, const fe52** px, const fe52** py,
             __mmask8& valid, __mmask8& negated) const {
    valid = 0, negated = 0;
    for (int i = 0; i < 8; ++i) {
      std::size_t e = 8 * g + std::size_t(i);
      const P52* q = &pad_;
      const P52* p = &pad_;
      if (e < count_) {
        q = &bucket_[idx_[e]];
        p = pt_[e] & from_bucket ? &bucket_store_[pt_[e] & ~from_bucket] : &prep_[pt_[e] & ~neg_bit];
        valid |= __mmask8(1u << i);
        if (pt_[e] & neg_bit) negated |= __mmask8(1u << i);
      }
      qx[i] = q->x, qy[i] = q->y, px[i] = p->x, py[i] = p->y;
    }
  }

  // Completes the pending additions: one scalar inversion for the batch; the rest in lanes.
  void flush() {
    if (count_ == 0) return;
    const std::size_t groups = (count_ + 7) / 8;
    const fe52 *qx[8], *qy[8], *px[8], *py[8];
    __mmask8 valid, negated;
    const V one = VF::one();
    for (std::size_t g = 0; g < groups; ++g) {
      lanes(g, qx, qy, px, py, valid, negated);
      V den = VF::sub(VF::load(px), VF::load(qx));
      // Same x (P + P or P - P) and the pad: such lanes take 1 and are finished in scalar.
      __mmask8 z = VF::zero_mask(den);
      special_[g] = z;
      if (z) den = VF::select(z, den, one);
      norm_[g] = VF::norm(den);
      prefix_[g] = g ? NF::mul(prefix_[g - 1], norm_[g]) : norm_[g];
    }
    NV inv = invert_lanes(prefix_[groups - 1]);
    for (std::size_t g = groups; g-- > 0;) {
      const NV inv_norm = g ? NF::mul(inv, prefix_[g - 1]) : inv;
      if (g) inv = NF::mul(inv, norm_[g]);
      lanes(g, qx, qy, px, py, valid, negated);
      V x1 = VF::load(qx), y1 = VF::load(qy), x2 = VF::load(px), y2 = VF::load(py);
      V den = VF::sub(x2, x1);
      if (special_[g]) den = VF::select(special_[g], den, one);
      const V di = VF::inverse_from_norm(den, inv_norm);  // 1 / den
      if (negated) y2 = VF::select(negated, y2, VF::neg(y2));
      V lambda = VF::mul(VF::sub(y2, y1), di);
      V x3 = VF::sub(VF::sub(VF::sqr(lambda), x1), x2);
      V y3 = VF::sub(VF::mul(lambda, VF::sub(x1, x3)), y1);
      __mmask8 keep = valid & __mmask8(~special_[g]);
      fe52* ox[8];
      fe52* oy[8];
      for (int i = 0; i < 8; ++i) ox[i] = const_cast<fe52*>(qx[i]), oy[i] = const_cast<fe52*>(qy[i]);
      VF::store(x3, ox, keep);
      VF::store(y3, oy, keep);
    }
    for (std::size_t g = 0; g < groups; ++g) {
      for (int i = 0; i < 8; ++i) {
        std::size_t e = 8 * g + std::size_t(i);
        if ((special_[g] >> i & 1) && e < count_) finish_same_x(idx_[e], pt_[e]);
      }
    }
    count_ = 0;
    if (++epoch_ < 2) epoch_ = 2;  // (wrap-around after 2^32 batches; never 'empty' or 'idle')
  }

  // bucket + P where both have the same x: a doubling, or the point at infinity.
  void finish_same_x(std::uint32_t b, std::uint32_t pt) {
    affine q = to_affine(bucket_[b]), p = point(pt);
    if (!(q.y == p.y) || p.y.is_zero()) {
      state_[b] = empty;
      return;
    }
    xyzz s = xyzz::identity();
    s += q;
    s += p;
    affine r = affine_vartime(s);
    if (r.is_identity()) state_[b] = empty;
    else store_affine(bucket_[b], r);
  }

  // The eight lanes' inverses (in Fp, where the batch inversions run): Montgomery's trick across
  // lanes around one scalar inversion.
  static NV invert_lanes(const NV& v) {
    alignas(64) fe52 tmp[8];
    fe52* dst[8];
    for (int i = 0; i < 8; ++i) dst[i] = &tmp[i];
    NF::store(v, dst, 0xff);
    fp s[8], acc[8];
    for (int i = 0; i < 8; ++i) {
      s[i] = NF::to_scalar(&tmp[i]);
      acc[i] = i ? acc[i - 1] * s[i] : s[i];
    }
    // Variable time is no new leak: which buckets the points go to already depends on the scalars.
    fp inv = acc[7].inverse_vartime();
    for (int i = 8; i-- > 0;) {
      fp si = i ? inv * acc[i - 1] : inv;
      if (i) inv *= s[i];
      NF::to_vec(si, &tmp[i]);
    }
    const fe52* src[8];
    for (int i = 0; i < 8; ++i) src[i] = &tmp[i];
    return NF::load(src);
  }

  void flush_and_requeue() {
    do {
      flush();
      requeue_.swap(waiting_);
      waiting_.clear();
      for (const auto& w : requeue_)
        if (count_ == batch_ || !place(w.bucket, w.pt)) waiting_.push_back(w);
      requeue_.clear();
    } while (count_ == batch_);
  }

  void drain() {
    for (int round = 0; round < 4 && (count_ || !waiting_.empty()); ++round) flush_and_requeue();
    flush();
    for (const auto& w : waiting_) overflow(w.bucket) += point(w.pt);
    waiting_.clear();
  }

  std::unique_ptr<P52[]> bucket_store_;
  std::size_t bucket_capacity_ = 0, batch_capacity_ = 0;
  std::span<P52> bucket_;
  std::vector<std::uint32_t> state_;
  std::vector<xyzz> overflow_;
  std::vector<std::uint32_t> overflowed_;  // buckets with an overflow entry, for a sparse reduction
  std::vector<std::uint32_t> idx_, pt_;
  std::unique_ptr<NV[]> norm_, prefix_;  // (not std::vector: its code is compiled baseline)
  std::vector<__mmask8> special_;
  std::vector<waiting_point> waiting_, requeue_;
  std::unique_ptr<lane_affine[]> seg_s_, seg_t_, seg_b_;  // segmented_sum's S, T and step buckets
  std::vector<__mmask8> s_live_, t_live_, b_live_, seg_same_;  // seg_same_: lanes with equal x
  std::size_t seg_capacity_ = 0;
  P52 pad_;
  const P52* prep_ = nullptr;
  std::span<const affine> bases_;
  std::span<const std::uint32_t> active_;
  std::size_t batch_ = 0, count_ = 0;
  std::uint32_t epoch_ = 2;
};

}  // namespace

template <class Curve>
struct vector_msm<Curve>::prepared {
  std::unique_ptr<point52<Curve>[]> points;  // (uninitialised: every entry is written once)
};

template <class Curve>
vector_msm<Curve>::vector_msm(std::span<const affine> bases, std::span<const bigint<4>> scalars,
                              std::span<const std::uint32_t> active, thread_pool& pool, std::size_t batch)
    : bases_(bases), scalars_(scalars), active_(active), batch_(batch), prep_(std::make_unique<prepared>()) {
  using VF = vfield<typename Curve::field>;
  const std::size_t m = active.size();
  prep_->points.reset(new point52<Curve>[m]);
  point52<Curve>* pts = prep_->points.get();
  const std::size_t chunks = std::max<std::size_t>(1, std::min<std::size_t>(m / 1024, 4 * std::size_t(pool.size())));
  // Eight points at a time: the radix change is shifts, the change of R one vector product.
  const v8 up = broadcast(k.up52);
  pool.run(chunks, [&](std::size_t c) {
    std::size_t k = m * c / chunks;
    const std::size_t end = m * (c + 1) / chunks;
    for (; k + 8 <= end; k += 8) {
      alignas(64) point52<Curve> raw[8];
      for (int i = 0; i < 8; ++i) {
        const affine& p = bases[active[k + std::size_t(i)]];
        VF::raw52(p.x, raw[i].x);
        VF::raw52(p.y, raw[i].y);
      }
      for (int j = 0; j < VF::W; ++j) {
        const fe52 *sx[8], *sy[8];
        fe52 *dx[8], *dy[8];
        for (int i = 0; i < 8; ++i) {
          sx[i] = &raw[i].x[j], sy[i] = &raw[i].y[j];
          dx[i] = &pts[k + std::size_t(i)].x[j], dy[i] = &pts[k + std::size_t(i)].y[j];
        }
        scatter(ifma::mul(gather(sx), up), dx);
        scatter(ifma::mul(gather(sy), up), dy);
      }
    }
    for (; k < end; ++k) {
      const affine& p = bases[active[k]];
      VF::to_vec(p.x, pts[k].x);
      VF::to_vec(p.y, pts[k].y);
    }
  });
}

template <class Curve>
vector_msm<Curve>::~vector_msm() = default;

template <class Curve>
xyzz_t<Curve> vector_msm<Curve>::window_sum(unsigned w, unsigned c, std::size_t begin, std::size_t end) const {
  const std::size_t n_buckets = std::size_t{1} << (c - 1);
  // A quarter of the buckets per batch (few collisions) but at least 512 additions per scalar
  // inversion, which costs as much as ~150 vector additions.
  std::size_t batch = std::max<std::size_t>(512, std::min<std::size_t>(2048, n_buckets / 2));
  if (batch_) batch = batch_;  // msm_options::vector_batch
  batch = (batch + 7) / 8 * 8;
  thread_local lane_buckets<Curve> buckets;
  buckets.start(n_buckets, batch, prep_->points.get(), bases_, active_);
  // A window that reaches above the scalar's top bit has digits in [0, 2^(scalar_bits - pos)]
  // only: that many logical buckets, each spread over copies chosen by the point's index.
  const std::size_t pos = std::size_t(w) * c;
  const std::size_t logical = pos + c - 1 >= scalar_bits ? std::size_t{1} << (scalar_bits - pos) : n_buckets;
  const std::size_t copies_mask = n_buckets / logical - 1;
  for (std::size_t k = begin; k < end; ++k) {
    int d = signed_digit(scalars_[active_[k]], w, c);
    const std::size_t copy = (k & copies_mask) * logical;
    if (d > 0) buckets.add(copy + std::size_t(d - 1), std::uint32_t(k), false);
    else if (d < 0) buckets.add(copy + std::size_t(-d - 1), std::uint32_t(k), true);
  }
  return buckets.weighted_sum(logical);
}

template class vector_msm<bls12_381::g1_curve>;
template class vector_msm<bls12_381::g2_curve>;

template <class Curve>
struct vector_fixed_base<Curve>::prepared {
  std::unique_ptr<point52<Curve>[]> table;
};

template <class Curve>
vector_fixed_base<Curve>::vector_fixed_base(std::span<const affine> table, unsigned window, std::size_t windows,
                                            thread_pool& pool)
    : w_(window), windows_(windows), prep_(std::make_unique<prepared>()) {
  using VF = vfield<typename Curve::field>;
  const std::size_t m = table.size();
  if (m != windows << window) throw std::invalid_argument("vector_fixed_base: table size is not windows x 2^window");
  prep_->table.reset(new point52<Curve>[m]);
  point52<Curve>* pts = prep_->table.get();
  const std::size_t chunks = std::max<std::size_t>(1, std::min<std::size_t>(m / 1024, 4 * std::size_t(pool.size())));
  pool.run(chunks, [&](std::size_t c) {
    for (std::size_t i = m * c / chunks, end = m * (c + 1) / chunks; i < end; ++i) {
      VF::to_vec(table[i].x, pts[i].x);
      VF::to_vec(table[i].y, pts[i].y);
    }
  });
}

template <class Curve>
vector_fixed_base<Curve>::~vector_fixed_base() = default;

template <class Curve>
void vector_fixed_base<Curve>::mul(std::span<const bigint<4>> k, std::span<affine> out) const {
  using F = typename Curve::field;
  using VF = vfield<F>;
  using xyzz = xyzz_t<Curve>;
  using P52 = point52<Curve>;
  const std::size_t n = k.size(), row = std::size_t{1} << w_;
  const P52* table = prep_->table.get();
  std::vector<xyzz> sums(n);
  for (std::size_t i0 = 0; i0 < n; i0 += 8) {
    const int m = int(std::min<std::size_t>(8, n - i0));
    // Each window's entries are asked for one window ahead: the table is far bigger than the caches.
    auto entries = [&](std::size_t j, const P52** e) {
      __mmask8 mask = 0;
      for (int l = 0; l < 8; ++l) {
        const std::uint32_t d = l < m ? k[i0 + std::size_t(l)].window(j * w_, w_) : 0;
        e[l] = table + j * row + d;
        if (d) mask |= __mmask8(1u << l);
      }
      return mask;
    };
    lane_xyzz_t<Curve> acc;
    const P52* cur[8];
    const P52* next[8];
    __mmask8 mask = entries(0, cur);
    for (std::size_t j = 0; j < windows_; ++j) {
      __mmask8 next_mask = 0;
      if (j + 1 < windows_) {
        next_mask = entries(j + 1, next);
        for (int l = 0; l < 8; ++l)
          if (next_mask >> l & 1)
            for (std::size_t b = 0; b < sizeof(P52); b += 64) __builtin_prefetch(reinterpret_cast<const char*>(next[l]) + b);
      }
      if (mask) {
        const fe52 *xs[8], *ys[8];
        for (int l = 0; l < 8; ++l) xs[l] = cur[l]->x, ys[l] = cur[l]->y;
        acc.add_affine(VF::load(xs), VF::load(ys), mask);
      }
      std::copy(next, next + 8, cur);
      mask = next_mask;
    }
    for (int l = 0; l < m; ++l) sums[i0 + std::size_t(l)] = acc.lane(l);
  }
  // (X / ZZ, Y / ZZZ) = (X ZZZ, Y ZZ) / (ZZ ZZZ): one inversion for all (the points are public).
  std::vector<F> den(n), prefix(n);
  F run = F::one();
  for (std::size_t i = 0; i < n; ++i) {
    if (sums[i].is_identity()) continue;
    den[i] = sums[i].ZZ * sums[i].ZZZ;
    prefix[i] = run;
    run *= den[i];
  }
  F inv = run.inverse_vartime();
  for (std::size_t i = n; i-- > 0;) {
    const xyzz& p = sums[i];
    if (p.is_identity()) {
      out[i] = affine{};
      continue;
    }
    const F d_inv = inv * prefix[i];
    inv *= den[i];
    out[i] = affine::of(p.X * p.ZZZ * d_inv, p.Y * p.ZZ * d_inv);
  }
}

template class vector_fixed_base<bls12_381::g1_curve>;
template class vector_fixed_base<bls12_381::g2_curve>;

}  // namespace cuzk::zk::msm_detail

CUZK_IFMA_TARGET_END

#else  // not x86-64: the scalar path only

#include <stdexcept>

namespace cuzk::zk::msm_detail {

bool vector_msm_available() { return false; }

template <class Curve>
struct vector_msm<Curve>::prepared {};

template <class Curve>
vector_msm<Curve>::vector_msm(std::span<const affine>, std::span<const bigint<4>>, std::span<const std::uint32_t>,
                              thread_pool&, std::size_t) {
  throw std::logic_error("vector_msm: built without AVX-512 IFMA");
}
template <class Curve>
vector_msm<Curve>::~vector_msm() = default;
template <class Curve>
xyzz_t<Curve> vector_msm<Curve>::window_sum(unsigned, unsigned, std::size_t, std::size_t) const {
  return xyzz_t<Curve>::identity();
}

template class vector_msm<bls12_381::g1_curve>;
template class vector_msm<bls12_381::g2_curve>;

template <class Curve>
struct vector_fixed_base<Curve>::prepared {};

template <class Curve>
vector_fixed_base<Curve>::vector_fixed_base(std::span<const affine>, unsigned, std::size_t, thread_pool&) {
  throw std::logic_error("vector_fixed_base: built without AVX-512 IFMA");
}
template <class Curve>
vector_fixed_base<Curve>::~vector_fixed_base() = default;
template <class Curve>
void vector_fixed_base<Curve>::mul(std::span<const bigint<4>>, std::span<affine>) const {}

template class vector_fixed_base<bls12_381::g1_curve>;
template class vector_fixed_base<bls12_381::g2_curve>;

}  // namespace cuzk::zk::msm_detail

#endif
