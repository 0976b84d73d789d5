#include "zk/io/field_checks.hpp"

#include <atomic>

#include "zk/io/point_checks_ifma.hpp"

namespace cuzk::zk::io {

using namespace cuzk::zk::bls12_381;

void expect_scalar_prime(section_reader& r, std::string_view n8_field) {
  std::uint32_t n8 = r.u32(n8_field);
  if (n8 != 32) r.fail(std::string(n8_field) + " is " + std::to_string(n8) + ", expected 32 (BLS12-381's r)");
  auto prime = bigint<4>::from_le_bytes(r.take(32, "prime").data());
  if (prime == bn254_r) r.file().fail(bn254_message);
  if (prime != fr::P) r.fail("prime is " + prime.to_decimal() + ", expected BLS12-381's r");
}

namespace {

bool canonical(const fp& x) { return x.m < fp::P; }
bool canonical(const fp2& x) { return x.c0.m < fp::P && x.c1.m < fp::P; }

// y^2 == x^3 + b with b folded at compile time (Curve::b() called at run time costs a multiply).
template <class Point>
bool on_curve(const Point& p) {
  using curve = std::conditional_t<std::is_same_v<Point, g1_affine>, g1_curve, g2_curve>;
  static constexpr auto b = curve::b();
  if (p.is_identity()) return true;
  return p.y.sqr() == p.x.sqr() * p.x + b;
}

template <class Point>
const char* check_point(const Point& p) {
  if (!canonical(p.x) || !canonical(p.y)) return "has a coordinate >= p";
  if (!on_curve(p)) return "is not on the curve";
  return nullptr;
}

}  // namespace

template <class Point>
std::size_t find_invalid_point(std::span<const Point> points, const char** reason) {
  const std::size_t n = points.size();
  // Below a few thousand points a thread costs more than it saves.
  constexpr std::size_t min_per_thread = 4096;
  std::size_t threads = std::max<std::size_t>(1, std::min<std::size_t>(std::thread::hardware_concurrency(),
                                                                         n / min_per_thread));
  std::atomic<std::size_t> first_bad{n};
  const bool lanes = lane_point_checks_available();
  auto scan = [&](std::size_t lo, std::size_t hi) {
    std::size_t i = lo;
    // Eight at a time on IFMA lanes while all is well; from a group with a bad point on (and for
    // the last few), one at a time, to name the first and say why.
    for (; lanes && i + 8 <= hi; i += 8) {
      if (i >= first_bad.load(std::memory_order_relaxed)) return;
      bool good = off_curve_lanes(&points[i]) == 0;
      for (std::size_t l = 0; good && l < 8; ++l) good = canonical(points[i + l].x) && canonical(points[i + l].y);
      if (!good) break;
    }
    for (; i < hi; ++i) {
      if (i >= first_bad.load(std::memory_order_relaxed)) return;  // an earlier one is already known
      if (check_point(points[i])) {
        std::size_t cur = first_bad.load();
        while (i < cur && !first_bad.compare_exchange_weak(cur, i)) {
        }
        return;
      }
    }
  };
  if (threads == 1) {
    scan(0, n);
  } else {
    std::vector<std::thread> pool;
    std::size_t chunk = (n + threads - 1) / threads;
    for (std::size_t t = 0; t < threads; ++t) {
      std::size_t lo = t * chunk, hi = std::min(n, lo + chunk);
      if (lo < hi) pool.emplace_back(scan, lo, hi);
    }
    for (auto& th : pool) th.join();
  }
  std::size_t bad = first_bad.load();
  if (bad < n && reason) *reason = check_point(points[bad]);
  return bad;
}

template std::size_t find_invalid_point(std::span<const g1_affine>, const char**);
template std::size_t find_invalid_point(std::span<const g2_affine>, const char**);

namespace {
fp read_fp(const std::uint8_t* p) { return fp::from_mont(bigint<6>::from_le_bytes(p)); }
}  // namespace

g1_affine read_g1(const std::uint8_t* p) { return g1_affine::of(read_fp(p), read_fp(p + 48)); }
g2_affine read_g2(const std::uint8_t* p) {
  return g2_affine::of({read_fp(p), read_fp(p + 48)}, {read_fp(p + 96), read_fp(p + 144)});
}
void write_g1(std::uint8_t* p, const g1_affine& a) {
  a.x.m.to_le_bytes(p);
  a.y.m.to_le_bytes(p + 48);
}
void write_g2(std::uint8_t* p, const g2_affine& a) {
  a.x.c0.m.to_le_bytes(p);
  a.x.c1.m.to_le_bytes(p + 48);
  a.y.c0.m.to_le_bytes(p + 96);
  a.y.c1.m.to_le_bytes(p + 144);
}

}  // namespace cuzk::zk::io
