// B2's plan (zk/groth16/b2_plan.hpp): the host's part of a split B2 plus the rest is the whole G2
// MSM (affine bytes), with and without bellperson's B wires; the cost model's choices on given
// rates; the rates' update; the mode's names and errors.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <vector>

#include "msm_fixtures.hpp"
#include "zk/groth16/b2_plan.hpp"
#include "zk/msm/pippenger.hpp"

using namespace cuzk::zk;
using namespace cuzk::zk::bls12_381;
namespace g16 = cuzk::zk::groth16;

namespace {

using scalar = bigint<4>;

// Scalars with the mix of a PoRep witness: zeros, ones and full-size values.
std::vector<scalar> mixed_scalars(std::size_t n, std::mt19937_64& rng) {
  std::vector<scalar> s(n);
  for (auto& x : s) {
    const auto u = rng() % 10;
    x = u < 4 ? scalar{} : u < 7 ? scalar{{1, 0, 0, 0}} : msm_fixtures::random_scalar(rng);
  }
  return s;
}

bool same_bytes(const g2_jacobian& a, const g2_jacobian& b) {
  auto x = a.to_affine(), y = b.to_affine();
  return std::memcmp(&x, &y, sizeof x) == 0;
}

}  // namespace

TEST_CASE("b2: the host's part plus the rest is the whole G2 MSM, byte for byte", "[b2]") {
  std::mt19937_64 rng(2024);
  const std::size_t n = 5000;
  auto bases = msm_fixtures::random_points<g2_curve>(n, rng);
  auto w = mixed_scalars(n, rng);
  w.back() = msm_fixtures::random_scalar(rng);  // so that no proper head is the whole sum
  thread_pool pool(2);
  std::vector<scalar> scratch;
  const auto whole = msm<g2_curve>(std::span<const g2_affine>(bases), std::span<const scalar>(w));
  REQUIRE_FALSE(whole.is_identity());
  for (std::size_t k : {std::size_t(0), std::size_t(1), std::size_t(625), std::size_t(4097), n - 1, n}) {
    INFO("k = " << k);
    auto head = g16::b2_host_sum(bases, w, {}, 0, k, pool, scratch);
    auto tail = g16::b2_host_sum(bases, w, {}, k, n, pool, scratch);
    CHECK(same_bytes(head + tail, whole));
    if (k > 0 && k < n) CHECK_FALSE(same_bytes(head, whole));
  }

  // bellperson: the scalars are the witness at the B wires (a witness longer than the query).
  std::vector<scalar> witness = mixed_scalars(3 * n, rng);
  std::vector<std::uint32_t> wires(n);
  for (auto& x : wires) x = std::uint32_t(rng() % witness.size());
  std::vector<scalar> gathered(n);
  for (std::size_t i = 0; i < n; ++i) gathered[i] = witness[wires[i]];
  const auto whole_bp = msm<g2_curve>(std::span<const g2_affine>(bases), std::span<const scalar>(gathered));
  for (std::size_t k : {std::size_t(0), std::size_t(1234), n}) {
    INFO("bellperson, k = " << k);
    auto head = g16::b2_host_sum(bases, witness, wires, 0, k, pool, scratch);
    auto tail = g16::b2_host_sum(bases, witness, wires, k, n, pool, scratch);
    CHECK(same_bytes(head + tail, whole_bp));
  }
  // Out of range: a range past the points, a wire past the witness.
  CHECK_THROWS_WITH(g16::b2_host_sum(bases, w, {}, 0, n + 1, pool, scratch), Catch::Contains("outside the key's B2 points"));
  wires[7] = std::uint32_t(witness.size());
  CHECK_THROWS_WITH(g16::b2_host_sum(bases, witness, wires, 0, n, pool, scratch), Catch::Contains("B wire"));
}

TEST_CASE("b2: the cost model's choice on given rates", "[b2]") {
  const std::size_t n = std::size_t(1) << 24;
  g16::b2_rates r;
  r.device_s = 26e-9;  // 436 ms for 2^24 points on the device lane
  r.main_s = 0.60;
  r.contention = 1;
  r.main_clean = true;

  SECTION("a slow host: the device lane") {
    r.host_s = 2e-5;  // 335 s for all of them: k* is ~3%, not worth 1%
    auto c = g16::choose_b2(g16::b2_mode::automatic, n, r, 16);
    // k* = (0.6 + 0.436) / (2e-5 + 2.6e-8) ~ 51.7k points: 1.036 - 0.0013 s against 1.036 s.
    CHECK(c.mode == g16::b2_mode::device);
    CHECK(c.host_points == 0);
    CHECK(c.predicted_s == Approx(0.6 + double(n) * 26e-9));
    CHECK_THAT(c.why, Catch::StartsWith("auto chose device:"));
  }
  SECTION("a fast host (bits: ones are additions): all on the host") {
    r.host_s = 20e-9;  // 336 ms for all of them, under the 600 ms main lane
    auto c = g16::choose_b2(g16::b2_mode::automatic, n, r, 16);
    CHECK(c.mode == g16::b2_mode::host);
    CHECK(c.host_points == n);
    CHECK(c.predicted_s == Approx(0.6));
  }
  SECTION("between: a split where the host's part meets the main lane") {
    r.host_s = 0.22e-6;  // 3.7 s for all of them on the host
    auto c = g16::choose_b2(g16::b2_mode::automatic, n, r, 16);
    REQUIRE(c.mode == g16::b2_mode::split);
    const double k = (0.6 + double(n) * 26e-9) / (0.22e-6 + 26e-9);
    CHECK(double(c.host_points) == Approx(k).epsilon(1e-6));
    CHECK(c.predicted_s == Approx(double(c.host_points) * 0.22e-6).epsilon(1e-6));
    CHECK(c.predicted_s < 0.6 + double(n) * 26e-9);
    CHECK(c.predicted_s == Approx(g16::b2_predicted_s(n, c.host_points, r)));
    // Less contention: the device lane costs the main lane less, so the host takes less.
    r.contention = 0.5;
    auto c2 = g16::choose_b2(g16::b2_mode::automatic, n, r, 16);
    REQUIRE(c2.mode == g16::b2_mode::split);
    CHECK(c2.host_points < c.host_points);
  }
  SECTION("unknown rates: auto probes with a split; forced modes stay forced") {
    g16::b2_rates none;
    auto c = g16::choose_b2(g16::b2_mode::automatic, n, none, 16);
    CHECK(c.mode == g16::b2_mode::split);
    CHECK(c.host_points == std::size_t(g16::b2_probe_share * double(n)));
    CHECK(g16::choose_b2(g16::b2_mode::host, n, none, 16).host_points == n);
    CHECK(g16::choose_b2(g16::b2_mode::device, n, none, 16).host_points == 0);
    CHECK(g16::choose_b2(g16::b2_mode::split, 1000, none, 16, 0.25).host_points == 250);
    r.host_s = 0.22e-6;
    auto s = g16::choose_b2(g16::b2_mode::split, n, r, 16);  // no share given: the model's k
    CHECK(s.host_points == g16::choose_b2(g16::b2_mode::automatic, n, r, 16).host_points);
    // No host threads: the device, whatever was asked; no points: nothing to place.
    CHECK(g16::choose_b2(g16::b2_mode::host, n, r, 0).mode == g16::b2_mode::device);
    CHECK(g16::choose_b2(g16::b2_mode::automatic, 0, r, 16).host_points == 0);
  }
}

TEST_CASE("b2: rates from measured proofs, the synthesizers' share of the cores", "[b2]") {
  g16::b2_rates r;
  CHECK_FALSE(r.known());
  // A probe: 1/8 on the host in 0.2 s, 7/8 on the side lane in 0.35 s beside a 0.9 s main lane
  // (contention assumed 1 until a clean main lane is measured).
  r.update(7000, 0.35, 1000, 0.2, 0.9, true);
  CHECK(r.known());
  CHECK(r.device_s == Approx(0.35 / 7000));
  CHECK(r.host_s == Approx(0.2 / 1000));
  CHECK(r.main_s == Approx(0.55));
  CHECK_FALSE(r.main_clean);
  // All on the host: the main lane alone, measured clean (the newest weighs half).
  r.update(0, 0, 8000, 1.6, 0.5, false);
  CHECK(r.main_clean);
  CHECK(r.main_s == Approx(0.525));
  CHECK(r.host_s == Approx(0.5 * (0.2 / 1000 + 1.6 / 8000)));
  // Beside a clean main lane: the loss is the contention (0.7 - 0.525 over 0.35 s = 0.5).
  r.update(8000, 0.35, 0, 0, 0.7, true);
  CHECK(r.contention == Approx(0.5 * (1 + 0.5)));
  CHECK(r.main_s == Approx(0.525));

  CHECK(g16::b2_host_slowdown(16, 0, 16) == 1);
  CHECK(g16::b2_host_slowdown(16, 16, 16) == 2);
  CHECK(g16::b2_host_slowdown(4, 8, 16) == 1);
  CHECK(g16::b2_host_slowdown(4, 8, 0) == 1);
}

TEST_CASE("b2: modes by name", "[b2]") {
  for (auto m : {g16::b2_mode::automatic, g16::b2_mode::device, g16::b2_mode::host, g16::b2_mode::split})
    CHECK(g16::parse_b2_mode(g16::b2_mode_name(m)) == m);
  CHECK_THROWS_WITH(g16::parse_b2_mode("gpu"), "'gpu' is not one of auto, device, host, split");
}

TEST_CASE("b2: the choice carries the model's device-alone and host-alone times and its rates, rates as points per second",
          "[b2]") {
  g16::b2_rates r;
  auto unknown = g16::choose_b2(g16::b2_mode::automatic, 1000, r, 4);
  CHECK(unknown.predicted_device_s == 0);
  CHECK(unknown.predicted_host_s == 0);
  CHECK(unknown.rates.device_s == 0);
  r.device_s = 2e-6;
  r.host_s = 4e-6;
  r.main_s = 1e-3;
  r.contention = 0.5;
  for (auto mode : {g16::b2_mode::automatic, g16::b2_mode::device, g16::b2_mode::host, g16::b2_mode::split}) {
    auto c = g16::choose_b2(mode, 1000, r, 4);
    CHECK(c.predicted_device_s == g16::b2_predicted_s(1000, 0, r));
    CHECK(c.predicted_host_s == g16::b2_predicted_s(1000, 1000, r));
    CHECK(c.predicted_s == g16::b2_predicted_s(1000, c.host_points, r));
    CHECK(c.rates.device_s == r.device_s);
    CHECK(c.rates.host_s == r.host_s);
  }
  CHECK(g16::b2_s_per_point(4e6) == 0.25e-6);
  CHECK(g16::b2_points_per_s(0.25e-6) == 4e6);
  CHECK(g16::b2_s_per_point(0) == 0);
  CHECK(g16::b2_points_per_s(0) == 0);
}

TEST_CASE("b2: the host copy of a key's B2 points is filled once, by its first reader, and read by every later one", "[b2]") {
  g16::b2_host_points copy;
  CHECK_FALSE(copy.filled());
  CHECK(g16::b2_host_points::bytes(1000) == 192000);
  std::mt19937_64 rng(5);
  const auto pts = msm_fixtures::random_points<g2_curve>(8, rng);
  int fills = 0;
  auto fill = [&](std::span<g2_affine> out) {
    ++fills;
    REQUIRE(out.size() == pts.size());
    std::copy(pts.begin(), pts.end(), out.begin());
  };
  auto a = copy.get(pts.size(), fill);
  auto b = copy.get(pts.size(), fill);
  CHECK(fills == 1);
  CHECK(copy.filled());
  CHECK(a.data() == b.data());
  REQUIRE(a.size() == pts.size());
  CHECK(std::memcmp(a.data(), pts.data(), pts.size() * sizeof(g2_affine)) == 0);
  CHECK_THROWS_WITH(copy.get(pts.size() + 1, fill), Catch::Contains("changed size"));
  // A fill that fails leaves it empty: the next reader fills it.
  g16::b2_host_points failing;
  CHECK_THROWS(failing.get(4, [](std::span<g2_affine>) { throw std::runtime_error("download failed"); }));
  CHECK_FALSE(failing.filled());
  failing.get(pts.size(), fill);
  CHECK(failing.filled());
  CHECK(fills == 2);
}
