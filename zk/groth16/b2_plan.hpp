// Where a device prover computes B2, the one G2 MSM of a proof, and how much of it on the host.
//
// A GPU proof runs four G1 MSMs and h on its main lane; B2 (G2, ~3x a G1 MSM's work per point) can
// run on the device's second stream beside them ("device": it shares the SMs, so the main lane
// slows by a part of B2's time), on the host's cores ("host": free for the GPU, but the host also
// synthesizes the next partitions), or split: points [0, k) on the host, [k, n) on the device, the
// two sums added where the device's B2 would be. bellperson and supraseal run B2 on the CPU.
//
// The cost model (choose_b2) predicts a proof's critical path from three rates and picks the mode
// and k that minimise it:
//   device part of d points:   main lane  = main + contention * d * device_s;  side lane = d * device_s
//   host part of k points:     k * host_s (concurrent with the device from the proof's start)
//   proof ~ max(main lane, side lane, host part), d = n - k.
// The k that balances the host part against the main lane is
//   k* = (main + contention * n * device_s) / (host_s + contention * device_s),
// clamped to [0, n]; "host" is k = n, "device" k = 0. Rates come from measurements of earlier proofs
// of the same key (b2_rates::update, the prover feeds them back) or from options; before any, the
// prover probes with a fixed split (b2_probe_share). A host rate that was measured on an idle host
// is scaled by the oversubscription of the cores (b2_host_slowdown): the engine passes how many
// synthesizer threads share them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "zk/bls12_381/curves.hpp"
#include "zk/util/parallel.hpp"

namespace cuzk::zk::groth16 {

enum class b2_mode { automatic, device, host, split };

// "auto" | "device" | "host" | "split"; throws std::invalid_argument naming the accepted values.
b2_mode parse_b2_mode(std::string_view s);
const char* b2_mode_name(b2_mode m);

// The share of B2's points a first proof of a key gives the host under "auto" when no rates are
// known: both sides are then measured on the proof's real scalars.
inline constexpr double b2_probe_share = 0.125;

struct b2_rates {
  double device_s = 0;    // seconds per B2 point on the device (its side lane), 0: unknown
  double host_s = 0;      // seconds per B2 point on the host threads given to B2, 0: unknown
  double main_s = 0;      // the main lane's seconds (h and the G1 MSMs) with nothing beside it, 0: unknown
  double contention = 1;  // the share of the side lane's time the main lane loses to it (0..1)
  bool main_clean = false;  // main_s was measured with nothing beside the main lane
  bool known() const { return device_s > 0 && host_s > 0 && main_s > 0; }
  // One proof's measurements folded in (a running mean, weight 1/2 to the newest): d device points
  // in side_s seconds, k host points in host_wall_s, the main lane's main_lane_s (with the device
  // part beside it when it ran on the side lane: the contention is taken off).
  void update(std::size_t d, double side_s, std::size_t k, double host_wall_s, double main_lane_s, bool beside);
};

struct b2_choice {
  b2_mode mode = b2_mode::device;  // device, host or split (never automatic)
  std::size_t host_points = 0;     // k: points [0, k) on the host
  double predicted_s = 0;          // the model's proof time (0: no model, a forced mode)
  // The model's proof time with B2 wholly on the device and wholly on the host, and the rates it
  // used (0 while the rates are unknown): what the status and the log show beside the choice.
  double predicted_device_s = 0, predicted_host_s = 0;
  b2_rates rates;
  std::string why;                 // one line: the inputs and the figures compared
};

// The model's proof time with k of n points on the host.
double b2_predicted_s(std::size_t n, std::size_t k, const b2_rates& r);

// requested: a forced mode is kept (split with `split_share` of the points on the host, or k* when
// the rates are known and split_share is 0); automatic chooses by the model, or probes
// (b2_probe_share) while the rates are unknown. host_threads 0: the host cannot take B2 (device).
b2_choice choose_b2(b2_mode requested, std::size_t n, const b2_rates& r, unsigned host_threads,
                    double split_share = 0);

// A rate in points per second (a config key's unit) as seconds per point (the model's), and back;
// 0 (unknown) stays 0.
inline double b2_s_per_point(double points_per_s) { return points_per_s > 0 ? 1.0 / points_per_s : 0; }
inline double b2_points_per_s(double s_per_point) { return s_per_point > 0 ? 1.0 / s_per_point : 0; }

// The host's copy of a key's B2 points, for B2's host part when the key's own spans hold none (its
// points exist only on its devices: a .params key in file form, a synthetic key made on the device;
// key_points::points_on_host). Owned by the hot key: the engine's key store makes one per key when
// B2 may run on the host and reserves bytes(n) from the host budget with the key, so the copy's
// memory is counted before it exists and returns when the key is evicted. A device key remembers it
// (key_points::b2_host at load_key) and the first proof that needs it fills it (read back from that
// device); every later proof of the key, on any device, reads it.
class b2_host_points {
 public:
  static std::uint64_t bytes(std::size_t n) { return std::uint64_t(n) * sizeof(bls12_381::g2_affine); }
  // The n points, filled by fill(span of n) at the first call (callers on other devices wait for
  // it); the span stays valid while this object lives (it is never refilled).
  template <class Fill>
  std::span<const bls12_381::g2_affine> get(std::size_t n, Fill&& fill) {
    std::lock_guard lock(mu_);
    if (!filled_ || points_.size() != n) {
      if (filled_) throw std::invalid_argument("b2 host copy: the key's B2 points changed size");
      points_.resize(n);
      fill(std::span<bls12_381::g2_affine>(points_));
      filled_ = true;
    }
    return points_;
  }
  bool filled() const {
    std::lock_guard lock(mu_);
    return filled_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<bls12_381::g2_affine> points_;
  bool filled_ = false;
};

// How much slower the B2 threads run than on an idle host: (b2 threads + busy threads) / cores,
// at least 1.
double b2_host_slowdown(unsigned b2_threads, unsigned busy_threads, unsigned cores);

// The host's part of B2: sum over i in [begin, end) of s_i * bases[i], where s_i = w[i], or
// w[wires[i]] when wires is not empty (bellperson's density-filtered B query). `gathered` is the
// scratch of the gathered scalars (kept by the caller so a steady state allocates nothing).
bls12_381::g2_jacobian b2_host_sum(std::span<const bls12_381::g2_affine> bases, std::span<const bigint<4>> w,
                                   std::span<const std::uint32_t> wires, std::size_t begin, std::size_t end,
                                   thread_pool& pool, std::vector<bigint<4>>& gathered);

}  // namespace cuzk::zk::groth16
