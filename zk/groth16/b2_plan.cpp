#include "zk/groth16/b2_plan.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "zk/msm/pippenger.hpp"

namespace cuzk::zk::groth16 {

b2_mode parse_b2_mode(std::string_view s) {
  if (s == "auto") return b2_mode::automatic;
  if (s == "device") return b2_mode::device;
  if (s == "host") return b2_mode::host;
  if (s == "split") return b2_mode::split;
  throw std::invalid_argument("'" + std::string(s) + "' is not one of auto, device, host, split");
}

const char* b2_mode_name(b2_mode m) {
  switch (m) {
    case b2_mode::automatic: return "auto";
    case b2_mode::device: return "device";
    case b2_mode::host: return "host";
    case b2_mode::split: return "split";
  }
  return "?";
}

namespace {
double mean_in(double old, double v) { return old > 0 ? 0.5 * (old + v) : v; }
std::string fmt(const char* f, double a, double b = 0, double c = 0, double d = 0, double e = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, a, b, c, d, e);
  return buf;
}
}  // namespace

void b2_rates::update(std::size_t d, double side_s, std::size_t k, double host_wall_s, double main_lane_s,
                      bool beside) {
  if (d > 0 && side_s > 0) device_s = mean_in(device_s, side_s / double(d));
  if (k > 0 && host_wall_s > 0) host_s = mean_in(host_s, host_wall_s / double(k));
  if (main_lane_s <= 0) return;
  if (!beside || d == 0) {
    main_s = mean_in(main_s, main_lane_s);
    main_clean = true;
  } else if (main_clean && side_s > 0) {
    // The main lane alone is known: what it lost with the side lane beside it is the contention.
    contention = mean_in(contention, std::clamp((main_lane_s - main_s) / side_s, 0.0, 1.0));
  } else {
    main_s = mean_in(main_s, std::max(main_lane_s - contention * (side_s > 0 ? side_s : 0.0), 0.5 * main_lane_s));
  }
}

double b2_predicted_s(std::size_t n, std::size_t k, const b2_rates& r) {
  k = std::min(k, n);
  const double d = double(n - k);
  const double main_lane = r.main_s + r.contention * d * r.device_s;
  return std::max({main_lane, d * r.device_s, double(k) * r.host_s});
}

namespace {
b2_choice choose(b2_mode requested, std::size_t n, const b2_rates& r, unsigned host_threads, double split_share) {
  b2_choice c;
  auto rates = [&] {
    return fmt("device %.3g us/pt, host %.3g us/pt, main lane %.1f ms, contention %.2f", r.device_s * 1e6,
               r.host_s * 1e6, r.main_s * 1e3, r.contention);
  };
  auto k_star = [&] {
    const double den = r.host_s + r.contention * r.device_s;
    const double k = den > 0 ? (r.main_s + r.contention * double(n) * r.device_s) / den : 0;
    return std::size_t(std::clamp(std::floor(k), 0.0, double(n)));
  };
  if (n == 0 || (host_threads == 0 && requested != b2_mode::device)) {
    c.mode = b2_mode::device;
    c.why = n == 0 ? "no B2 points" : "no host threads for B2: device";
    return c;
  }
  switch (requested) {
    case b2_mode::device:
      c.mode = b2_mode::device;
      c.why = "b2 = device";
      break;
    case b2_mode::host:
      c.mode = b2_mode::host;
      c.host_points = n;
      c.why = "b2 = host";
      break;
    case b2_mode::split:
      c.mode = b2_mode::split;
      if (split_share > 0) {
        c.host_points = std::size_t(std::clamp(std::floor(split_share * double(n)), 0.0, double(n)));
        c.why = fmt("b2 = split, %.3f of the points on the host (given)", split_share);
      } else if (r.known()) {
        c.host_points = k_star();
        c.why = "b2 = split at the model's k (" + rates() + ")";
      } else {
        c.host_points = std::size_t(b2_probe_share * double(n));
        c.why = "b2 = split, no rates yet: probe share";
      }
      break;
    case b2_mode::automatic:
      if (!r.known()) {
        c.mode = b2_mode::split;
        c.host_points = std::size_t(b2_probe_share * double(n));
        c.why = "auto: no rates yet, probing with a split of " + fmt("%.3f", b2_probe_share) + " on the host";
        return c;
      }
      {
        const std::size_t k = k_star();
        const double t_dev = b2_predicted_s(n, 0, r), t_host = b2_predicted_s(n, n, r), t_split = b2_predicted_s(n, k, r);
        // Ties go to the simpler plan: device, then host, then split (1% margins).
        c.mode = b2_mode::device;
        double best = t_dev;
        if (t_host < 0.99 * best) c.mode = b2_mode::host, c.host_points = n, best = t_host;
        if (k > 0 && k < n && t_split < 0.99 * best) c.mode = b2_mode::split, c.host_points = k, best = t_split;
        c.predicted_s = best;
        c.why = std::string("auto chose ") + b2_mode_name(c.mode) + ": " + rates() + fmt("; predicted device %.1f ms, host %.1f ms, split %.1f ms at k/n = %.3f",
                                         t_dev * 1e3, t_host * 1e3, t_split * 1e3, n ? double(k) / double(n) : 0.0);
      }
      return c;
  }
  if (r.known()) c.predicted_s = b2_predicted_s(n, c.host_points, r);
  return c;
}
}  // namespace

b2_choice choose_b2(b2_mode requested, std::size_t n, const b2_rates& r, unsigned host_threads, double split_share) {
  b2_choice c = choose(requested, n, r, host_threads, split_share);
  c.rates = r;
  if (r.known() && n > 0) {
    c.predicted_device_s = b2_predicted_s(n, 0, r);
    c.predicted_host_s = b2_predicted_s(n, n, r);
  }
  return c;
}

double b2_host_slowdown(unsigned b2_threads, unsigned busy_threads, unsigned cores) {
  if (cores == 0) return 1;
  return std::max(1.0, double(b2_threads + busy_threads) / double(cores));
}

bls12_381::g2_jacobian b2_host_sum(std::span<const bls12_381::g2_affine> bases, std::span<const bigint<4>> w,
                                   std::span<const std::uint32_t> wires, std::size_t begin, std::size_t end,
                                   thread_pool& pool, std::vector<bigint<4>>& gathered) {
  if (begin > end || end > bases.size() || (!wires.empty() && end > wires.size()) || (wires.empty() && end > w.size()))
    throw std::invalid_argument("b2 host part: range [" + std::to_string(begin) + ", " + std::to_string(end) +
                                ") outside the key's B2 points or the witness");
  msm_options o;
  o.pool = &pool;
  const std::size_t len = end - begin;
  if (wires.empty()) return msm<bls12_381::g2_curve>(bases.subspan(begin, len), w.subspan(begin, len), o);
  if (gathered.size() < len) gathered.resize(len);
  std::atomic<bool> bad{false};
  parallel_for(pool, len, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      const std::uint32_t at = wires[begin + i];
      if (at >= w.size()) {
        bad = true;
        continue;
      }
      gathered[i] = w[at];
    }
  }, 1 << 14);
  if (bad) throw std::invalid_argument("b2 host part: a B wire is past the witness's end");
  return msm<bls12_381::g2_curve>(bases.subspan(begin, len), std::span<const bigint<4>>(gathered.data(), len), o);
}

}  // namespace cuzk::zk::groth16
