// zk_bench: timings of the CPU compute primitives, as a table.
//   zk_bench fpmul | fpadd
//   zk_bench msm --curve g1|g2 --log-size 16,18,20 --threads 1,2 [--repeat 3] [--ones 0.0] [--window c]
//   zk_bench ntt --log-size 16,20 --threads 1,2 [--repeat 3]
//   zk_bench verify --inputs 22,328 --proofs 1,10 [--repeat 5] [--threads 1]   (Groth16 verification:
//                  one proof, verify_batch of N valid proofs, and the parts of one proof's cost)
// Each figure is the median of --repeat runs after one warm-up run.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "zk/bls12_381/curves.hpp"
#include "zk/bls12_381/pairing.hpp"
#include "zk/bls12_381/subgroup.hpp"
#include "zk/groth16/verifier.hpp"
#include "zk/msm/pippenger.hpp"
#include "zk/ntt/domain.hpp"
#include "zk/util/cpu_features.hpp"
#include "zk/util/parallel.hpp"

using namespace cuzk::zk;
using namespace cuzk::zk::bls12_381;

namespace {

struct args {
  std::string cmd, curve = "g1";
  std::vector<unsigned> log_sizes{16}, threads{1}, inputs{22}, proofs{1, 10};
  unsigned repeat = 3, window = 0;
  double ones = 0.0, zeros = 0.0;
  bool batch_affine = true;
};

std::vector<unsigned> parse_list(const std::string& s) {
  std::vector<unsigned> out;
  std::size_t pos = 0;
  while (pos < s.size()) {
    std::size_t comma = s.find(',', pos);
    if (comma == std::string::npos) comma = s.size();
    out.push_back(unsigned(std::stoul(s.substr(pos, comma - pos))));
    pos = comma + 1;
  }
  return out;
}

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: zk_bench fpmul\n"
               "       zk_bench fpadd\n"
               "       zk_bench msm --curve g1|g2 --log-size 16,18,20 --threads 1,2 [--repeat N] [--window C]\n"
               "                    [--ones FRACTION] [--zeros FRACTION] [--batch-affine 0|1]\n"
               "       zk_bench ntt --log-size 16,20 --threads 1,2 [--repeat N]\n"
               "       zk_bench verify --inputs 22,328 --proofs 1,10 [--repeat N]\n");
  std::exit(2);
}

args parse(int argc, char** argv) {
  if (argc < 2) usage();
  args a;
  a.cmd = argv[1];
  for (int i = 2; i < argc; ++i) {
    std::string k = argv[i];
    if (i + 1 >= argc) usage();
    std::string v = argv[++i];
    if (k == "--curve") a.curve = v;
    else if (k == "--log-size") a.log_sizes = parse_list(v);
    else if (k == "--threads") a.threads = parse_list(v);
    else if (k == "--repeat") a.repeat = unsigned(std::stoul(v));
    else if (k == "--window") a.window = unsigned(std::stoul(v));
    else if (k == "--ones") a.ones = std::stod(v);
    else if (k == "--zeros") a.zeros = std::stod(v);
    else if (k == "--batch-affine") a.batch_affine = v != "0";
    else if (k == "--inputs") a.inputs = parse_list(v);
    else if (k == "--proofs") a.proofs = parse_list(v);
    else usage();
  }
  if (a.curve != "g1" && a.curve != "g2") usage();
  return a;
}

// Wall time, and the process's CPU time: on a shared, loaded machine the CPU time of a
// single-threaded run is the steadier figure.
struct timing {
  double wall, cpu;
};

double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

timing time_of(const std::function<void()>& f) {
  double c0 = cpu_seconds();
  auto t0 = std::chrono::steady_clock::now();
  f();
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), cpu_seconds() - c0};
}

// Medians (each on its own) of `repeat` runs after one warm-up run.
timing median_timing(unsigned repeat, const std::function<void()>& f) {
  f();
  std::vector<double> w, c;
  for (unsigned i = 0; i < std::max(1u, repeat); ++i) {
    timing t = time_of(f);
    w.push_back(t.wall), c.push_back(t.cpu);
  }
  std::sort(w.begin(), w.end());
  std::sort(c.begin(), c.end());
  return {w[w.size() / 2], c[c.size() / 2]};
}

bigint<4> random_scalar(std::mt19937_64& rng) {
  bigint<4> s;
  for (auto& l : s.limb) l = rng();
  s.limb[3] &= (std::uint64_t{1} << 63) - 1;
  if (s >= fr::P) s.sub_in_place(fr::P);
  return s;
}

template <class F>
F random_field(std::mt19937_64& rng) {
  if constexpr (std::is_same_v<F, fp2>) {
    return fp2{random_field<fp>(rng), random_field<fp>(rng)};
  } else {
  typename F::repr r;
  for (auto& l : r.limb) l = rng();
  r.limb[F::N - 1] &= (std::uint64_t{1} << 60) - 1;
  return F::from_canonical(r);
  }
}

template <class F>
void bench_mul(const char* name) {
  std::mt19937_64 rng(1);
  constexpr std::size_t iters = 1 << 22;
  F x = random_field<F>(rng), y = random_field<F>(rng);
  volatile bool sink;
  // latency: a dependent chain
  double lat = median_timing(5, [&] {
    F acc = x;
    for (std::size_t i = 0; i < iters; ++i) acc = acc * y;
    sink = acc.is_zero();
  }).cpu;
  double sq = median_timing(5, [&] {
    F acc = x;
    for (std::size_t i = 0; i < iters; ++i) acc = acc.sqr();
    sink = acc.is_zero();
  }).cpu;
  // throughput: 4 independent chains
  double thr = median_timing(5, [&] {
    F a = x, b = y, c = x + y, d = x - y;
    for (std::size_t i = 0; i < iters / 4; ++i) a = a * y, b = b * x, c = c * y, d = d * x;
    sink = (a + b + c + d).is_zero();
  }).cpu;
  (void)sink;
  std::printf("| %-4s | %8.2f | %8.2f | %8.2f |\n", name, lat / iters * 1e9, sq / iters * 1e9, thr / iters * 1e9);
}

// Additive operations (in every curve formula): dependent chains, so latency including any
// branch mispredictions on random data.
template <class F>
void bench_add(const char* name) {
  std::mt19937_64 rng(2);
  constexpr std::size_t iters = 1 << 22;
  F x = random_field<F>(rng), y = random_field<F>(rng);
  volatile bool sink;
  double add = median_timing(5, [&] {
    F a = x;
    for (std::size_t i = 0; i < iters; ++i) a = a + y;
    sink = a.is_zero();
  }).cpu;
  double sub = median_timing(5, [&] {
    F a = x;
    for (std::size_t i = 0; i < iters; ++i) a = a - y;
    sink = a.is_zero();
  }).cpu;
  double dbl = median_timing(5, [&] {
    F a = x;
    for (std::size_t i = 0; i < iters; ++i) a = a.dbl() - y;
    sink = a.is_zero();
  }).cpu;
  double neg = median_timing(5, [&] {
    F a = x;
    for (std::size_t i = 0; i < iters; ++i) a = -a + y;
    sink = a.is_zero();
  }).cpu;
  (void)sink;
  std::printf("| %-4s | %8.2f | %8.2f | %8.2f | %8.2f |\n", name, add / iters * 1e9, sub / iters * 1e9,
              dbl / iters * 1e9, neg / iters * 1e9);
}

template <class Curve>
std::vector<affine_t<Curve>> random_points(std::size_t n, std::mt19937_64& rng) {
  using J = jacobian_t<Curve>;
  J g(Curve::generator());
  J p = g.mul(random_scalar(rng)), d = g.mul(random_scalar(rng));
  std::vector<J> pts(n);
  for (auto& q : pts) q = p, p += d;
  return batch_normalize(pts);
}

template <class Curve>
void bench_msm(const args& a) {
  std::mt19937_64 rng(42);
  unsigned max_log = *std::max_element(a.log_sizes.begin(), a.log_sizes.end());
  auto bases = random_points<Curve>(std::size_t{1} << max_log, rng);
  std::vector<bigint<4>> scalars(bases.size());
  std::uniform_real_distribution<double> u(0, 1);
  for (auto& s : scalars) {
    double t = u(rng);
    if (t < a.zeros) s = bigint<4>{};
    else if (t < a.zeros + a.ones) s = bigint<4>{{1, 0, 0, 0}};
    else s = random_scalar(rng);
  }
  std::printf("| msm | log n | threads | wall ms | cpu ms | ns/point (wall) |\n|---|---|---|---|---|---|\n");
  for (unsigned lg : a.log_sizes)
    for (unsigned t : a.threads) {
      std::size_t n = std::size_t{1} << lg;
      thread_pool pool(t);
      msm_options opt{.threads = 0, .window_bits = a.window, .pool = &pool, .batch_affine = a.batch_affine};
      timing s = median_timing(a.repeat, [&] {
        auto r = msm<Curve>(std::span<const affine_t<Curve>>(bases.data(), n),
                            std::span<const bigint<4>>(scalars.data(), n), opt);
        if (r.is_identity()) std::fprintf(stderr, "unexpected identity\n");
      });
      std::printf("| %s | %u | %u | %.1f | %.1f | %.0f |\n", a.curve.c_str(), lg, t, s.wall * 1e3, s.cpu * 1e3,
                  s.wall * 1e9 / double(n));
      std::fflush(stdout);
    }
}

void bench_ntt(const args& a) {
  std::mt19937_64 rng(43);
  std::printf("| ntt | log n | threads | forward wall ms | forward cpu ms | to_odd_coset wall ms | cpu ms |\n"
              "|---|---|---|---|---|---|---|\n");
  for (unsigned lg : a.log_sizes) {
    ntt::domain d(lg);
    std::vector<fr> v(d.size());
    for (auto& x : v) x = random_field<fr>(rng);
    for (unsigned t : a.threads) {
      thread_pool pool(t);
      timing f = median_timing(a.repeat, [&] { d.ntt(v, pool); });
      timing c = median_timing(a.repeat, [&] { d.to_odd_coset(v, pool); });
      std::printf("| fr | %u | %u | %.1f | %.1f | %.1f | %.1f |\n", lg, t, f.wall * 1e3, f.cpu * 1e3, c.wall * 1e3,
                  c.cpu * 1e3);
      std::fflush(stdout);
    }
  }
}

// A verifying key whose discrete logarithms we know (alpha = a G1, beta = b G2, gamma = g G2,
// delta = d G2, IC_i = k_i G1) and valid proofs for it: A = x G1, B = y G2, C = c G1 with
// c = (x y - a b - g sum_i s_i k_i) / d, the equation e(A, B) = e(alpha, beta) e(vk_x, gamma) e(C, delta).
void bench_verify(const args& a) {
  namespace g16 = groth16;
  set_default_threads(a.threads.at(0));  // verify_batch's per-proof work runs on the default pool
  std::printf("| inputs | proofs | verify ms (CPU) | wall ms | x one proof (CPU) | x one proof (wall) |\n"
              "|---|---|---|---|---|---|\n");
  std::mt19937_64 rng(5);
  auto rnd = [&] { return fr::from_canonical(random_scalar(rng)); };
  const g1_jacobian g1(g1_curve::generator());
  const g2_jacobian g2(g2_curve::generator());
  for (unsigned n_in : a.inputs) {
    const fr al = rnd(), be = rnd(), ga = rnd(), de = rnd();
    std::vector<fr> k(n_in + 1);
    for (auto& x : k) x = rnd();
    g16::verifying_key vk;
    vk.alpha1 = g1.mul(al.to_canonical()).to_affine();
    vk.beta1 = g1.mul(be.to_canonical()).to_affine();
    vk.delta1 = g1.mul(de.to_canonical()).to_affine();
    vk.beta2 = g2.mul(be.to_canonical()).to_affine();
    vk.gamma2 = g2.mul(ga.to_canonical()).to_affine();
    vk.delta2 = g2.mul(de.to_canonical()).to_affine();
    for (const auto& x : k) vk.ic.push_back(g1.mul(x.to_canonical()).to_affine());
    const unsigned most = *std::max_element(a.proofs.begin(), a.proofs.end());
    std::vector<std::vector<bigint<4>>> inputs(most);
    std::vector<g16::proof> proofs(most);
    for (unsigned i = 0; i < most; ++i) {
      fr comb = k[0];
      for (unsigned j = 0; j < n_in; ++j) {
        // Filecoin-like inputs: commitments are full field elements, challenges small integers.
        const fr s = j % 4 == 0 ? rnd() : fr::from_u64(rng() >> 40);
        inputs[i].push_back(s.to_canonical());
        comb += s * k[j + 1];
      }
      const fr x = rnd(), y = rnd();
      const fr c = (x * y - al * be - ga * comb) * de.inverse();
      proofs[i] = {g1.mul(x.to_canonical()).to_affine(), g2.mul(y.to_canonical()).to_affine(),
                   g1.mul(c.to_canonical()).to_affine()};
    }
    const auto pvk = g16::prepare(vk);
    // One proof: verify() with the prepared key; N proofs: verify_batch.
    const timing one = median_timing(a.repeat, [&] {
      if (!g16::verify(pvk, inputs[0], proofs[0])) {
        std::fprintf(stderr, "zk_bench verify: a valid proof was rejected\n");
        std::exit(1);
      }
    });
    std::printf("| %u | 1 (verify) | %.2f | %.2f | 1 | 1 |\n", n_in, one.cpu * 1e3, one.wall * 1e3);
    for (unsigned n : a.proofs) {
      timing t = median_timing(a.repeat, [&] {
        auto v = g16::verify_batch(pvk, std::span(inputs).first(n), std::span(proofs).first(n));
        if (!v.all_valid) {
          std::fprintf(stderr, "zk_bench verify: a valid proof was rejected\n");
          std::exit(1);
        }
      });
      std::printf("| %u | %u (batch) | %.2f | %.2f | %.2f | %.2f |\n", n_in, n, t.cpu * 1e3, t.wall * 1e3, t.cpu / one.cpu,
                  t.wall / one.wall);
      std::fflush(stdout);
    }
    // The parts of one proof's share (CPU ms).
    const auto& p = proofs[0];
    auto part = [&](const char* what, const std::function<void()>& f) {
      std::printf("|   %s | %.3f ms |\n", what, median_timing(a.repeat, f).cpu * 1e3);
    };
    volatile bool sink = false;
    part("g1 subgroup check (A, C: x2)", [&] { sink = g1_in_subgroup(p.a) && g1_in_subgroup(p.c); });
    part("g2 subgroup check (B)", [&] { sink = g2_in_subgroup(p.b); });
    part("vk_x = IC0 + sum s_i IC_i", [&] {
      g1_jacobian acc(vk.ic[0]);
      for (unsigned j = 0; j < n_in; ++j) acc += g1_jacobian(vk.ic[j + 1]).mul(inputs[0][j]);
      sink = acc.is_identity();
    });
    part("prepare_g2(B)", [&] { sink = prepare_g2(p.b).lines.empty(); });
    bigint<4> z{};
    z.limb[0] = rng(), z.limb[1] = rng();
    part("3 x 128-bit G1 mul", [&] {
      sink = g1_jacobian(p.a).mul(z).is_identity() && g1_jacobian(p.c).mul(z).is_identity() &&
             g1_jacobian(vk.ic[0]).mul(z).is_identity();
    });
    const std::array<std::pair<g1_affine, g2_affine>, 1> one_pair{{{p.a, p.b}}};
    const fp12 f = multi_miller_loop(one_pair);
    part("Miller loop, 1 pair (unprepared)", [&] { sink = multi_miller_loop(one_pair) == f; });
    {
      std::vector<g2_prepared> lines(10, prepare_g2(p.b));
      std::vector<std::pair<g1_affine, const g2_prepared*>> pp;
      for (const auto& l : lines) pp.push_back({p.a, &l});
      for (const auto* q : {&pvk.gamma2, &pvk.delta2, &pvk.beta2}) pp.push_back({p.c, q});
      part("Miller loop, 3 prepared pairs", [&] { sink = multi_miller_loop(std::span(pp).last(3)) == f; });
      part("Miller loop, 13 prepared pairs", [&] { sink = multi_miller_loop(std::span(pp)) == f; });
    }
    {
      std::vector<bigint<4>> full(vk.ic.size());
      for (auto& x : full) x = random_scalar(rng);
      msm_options one_thread;
      one_thread.threads = 1;
      part("MSM over IC, full scalars", [&] { sink = msm<g1_curve>(std::span<const g1_affine>(vk.ic), std::span<const bigint<4>>(full), one_thread).is_identity(); });
    }
    part("final exponentiation", [&] { sink = final_exponentiation(f) == f; });
    part("e(alpha,beta)^-1 ^ sum z (255 bits)", [&] { sink = pvk.alpha_beta_inverse.pow(random_scalar(rng)) == f; });
  }
}

}  // namespace

int main(int argc, char** argv) {
  // CUZK_NO_IFMA=1: the scalar paths (the library reads no environment; this program does).
  cuzk::zk::set_ifma_allowed(!cuzk::zk::ifma_off_requested(std::getenv("CUZK_NO_IFMA")));
  args a = parse(argc, argv);
  if (a.cmd == "fpmul") {
    std::printf("| field | mul ns (latency) | sqr ns (latency) | mul ns (4 chains) |  (CPU time)\n|---|---|---|---|\n");
    bench_mul<fp>("fp");
    bench_mul<fr>("fr");
    bench_mul<fp2>("fp2");
  } else if (a.cmd == "fpadd") {
    std::printf("| field | a+b ns | a-b ns | 2a-b ns | -a+b ns |  (CPU time, dependent chains)\n|---|---|---|---|---|\n");
    bench_add<fp>("fp");
    bench_add<fr>("fr");
    bench_add<fp2>("fp2");
  } else if (a.cmd == "msm") {
    if (a.curve == "g1") bench_msm<g1_curve>(a);
    else bench_msm<g2_curve>(a);
  } else if (a.cmd == "ntt") {
    bench_ntt(a);
  } else if (a.cmd == "verify") {
    bench_verify(a);
  } else {
    usage();
  }
}
