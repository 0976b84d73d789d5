#include "cuzk/gpu/bench.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "cuzk/gpu/cuda_backend.hpp"
#include "cuzk/gpu/testgen.hpp"
#include "msm_entry.hpp"

namespace cuzk::gpu {

namespace {

using namespace zk::bls12_381;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

struct row {
  std::string name;
  double med, min;
  bool ok;
};

void check_cuda(cudaError_t e) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("cuda: ") + cudaGetErrorString(e));
}
#define CUZK_CHECK_CUDA(call) check_cuda(call)

double secs_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// The scalars of `cuzk bench msm --scalars`: uniform, or a share of bits (0 or 1) like a witness.
std::vector<zk::bigint<4>> bench_scalars(const std::string& kind, std::size_t n, std::uint64_t seed) {
  if (kind == "random") return testgen::random_scalars(n, seed);
  if (kind == "bits90") return testgen::bit_scalars(n, seed, 0.90);
  if (kind == "bits99") return testgen::bit_scalars(n, seed, 0.99);
  if (kind == "ones") return testgen::bit_scalars(n, seed, 1.0, true);
  throw std::invalid_argument("bench msm: --scalars must be random, bits90, bits99 or ones");
}

// A --variants entry: "xyzz" (the first kernels: acc_blocks 0, one segment kernel) or tokens
// joined by '+': "acc4" (acc_blocks 4), "split" (segments in two kernels), "cNN" (the plain bases'
// window bits), "g2smem" (G2 on shared-memory slots), "g2paddN" (G2's mixed additions shared by
// lane pairs, N = 4, 6 or 8 blocks an SM; 0: one thread a point), "g2pseg" / "nog2pseg" (G2's
// bucket segments on lane pairs or not); a standalone split MSM's ones' sum
// (cuda_options::msm_ones_*): "serial", "sorted" or "accumulated" (where it starts), "urgent" /
// "equal" (the others on the greatest-priority stream or on the compute stream), "pN" (N points
// per thread of the sum, 0: the sum's rule); "waves" / "nowaves" (cuda_options::msm_whole_waves).
// The defaults are "acc4+split" and cuda_options'.
struct msm_variant {
  unsigned acc_blocks = 0, window_bits = 0;
  bool split = false, g2_smem = false;
  unsigned g2_pair_add = cuda_options{}.msm_g2_pair_add;
  bool g2_pair_seg = cuda_options{}.msm_g2_pair_seg;
  cuda_options::ones_start ones = cuda_options{}.msm_ones_start;
  bool urgent = cuda_options{}.msm_ones_urgent;
  unsigned points = cuda_options{}.msm_ones_points;
  bool waves = cuda_options{}.msm_whole_waves;
};
msm_variant parse_variant(const std::string& v) {
  msm_variant r;
  if (v == "xyzz") {  // one thread a point
    r.g2_pair_add = 0;
    r.g2_pair_seg = false;
    return r;
  }
  std::size_t at = 0;
  while (at <= v.size()) {
    std::size_t end = v.find('+', at);
    if (end == std::string::npos) end = v.size();
    const std::string t = v.substr(at, end - at);
    if (t == "acc4") r.acc_blocks = 4;
    else if (t == "split") r.split = true;
    else if (t == "g2smem") r.g2_smem = true, r.g2_pair_add = 0;  // (the pairs would take the first level)
    else if (t == "g2padd0" || t == "g2padd4" || t == "g2padd6" || t == "g2padd8") r.g2_pair_add = unsigned(t.back() - '0');
    else if (t == "g2pseg" || t == "nog2pseg") r.g2_pair_seg = t == "g2pseg";
    else if (t == "serial") r.ones = cuda_options::ones_start::serial;
    else if (t == "sorted") r.ones = cuda_options::ones_start::sorted;
    else if (t == "accumulated") r.ones = cuda_options::ones_start::accumulated;
    else if (t == "urgent" || t == "equal") r.urgent = t == "urgent";
    else if (t == "waves" || t == "nowaves") r.waves = t == "waves";
    else if (t.size() >= 2 && t.size() <= 4 && t[0] == 'p' &&
             std::all_of(t.begin() + 1, t.end(), [](char ch) { return std::isdigit((unsigned char)ch); }))
      r.points = unsigned(std::stoul(t.substr(1)));
    else if (t.size() >= 2 && t.size() <= 3 && t[0] == 'c' && std::isdigit((unsigned char)t[1]) &&
             std::isdigit((unsigned char)t.back()))
      r.window_bits = unsigned(std::stoul(t.substr(1)));
    else
      throw std::invalid_argument("bench msm: --variants entry '" + v +
                                  "': xyzz, or acc4 / split / cNN / g2smem / g2padd0|4|6|8 / g2pseg / nog2pseg / serial / sorted / accumulated / urgent / "
                                  "equal / pN / waves / nowaves joined by +");
    at = end + 1;
  }
  return r;
}

// One row per scalar kind (and per kind on shifted sets): the bases, their upload and their
// shifted sets are made once per size for all kinds.
template <class Curve>
std::vector<row> bench_msm(cuda_backend& be, unsigned L, bool resident, const std::vector<unsigned>& sets_list,
                           bool profiled, int warmup,
                           int reps, const std::vector<std::string>& kinds, const std::vector<std::string>& variants) {
  using aff = zk::affine_t<Curve>;
  constexpr bool g2 = std::is_same_v<Curve, g2_curve>;
  const char* curve = g2 ? "g2" : "g1";
  std::size_t n = std::size_t(1) << L;
  std::size_t D = std::min<std::size_t>(n, g2 ? (1u << 15) : (1u << 18));
  auto t = std::chrono::steady_clock::now();
  auto ps = testgen::progression<Curve>(D, 1234 + L, false);
  std::vector<aff> bases(n);
  zk::parallel_for(n, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) bases[i] = ps.pts[i % D];
  }, 1 << 16);
  std::printf("  [msm %s 2^%u: bases ready in %.1f s]\n", curve, L, secs_since(t));
  std::fflush(stdout);
  std::vector<row> out;
  void* db = nullptr;
  void* ds = nullptr;
  if (resident) {
    db = device_alloc(n * sizeof(aff));
    ds = device_alloc(n * 32);
    copy_to_device(db, bases.data(), n * sizeof(aff));
  }
  // Shifted sets per entry of sets_list (0: one per window), made when first timed; the last made
  // is kept for the next kind of scalars.
  unsigned c = 0, made = ~0u;
  double t_shift = 0;
  for (const std::string& kind : kinds) {
    t = std::chrono::steady_clock::now();
    auto scalars = bench_scalars(kind, n, 99 + L);
    auto want = testgen::expected(ps, std::span<const zk::bigint<4>>(scalars));
    std::printf("  [msm %s 2^%u %s: scalars ready in %.1f s]\n", curve, L, kind.c_str(), secs_since(t));
    std::fflush(stdout);
    zk::jacobian_t<Curve> got;
    std::vector<double> times;
    char name[160];
    if (resident) copy_to_device(ds, scalars.data(), n * 32);
    const std::vector<std::string> runs = variants.empty() ? std::vector<std::string>{""} : variants;
    for (std::size_t vi = 0; resident && vi < runs.size(); ++vi) {
      const std::string& variant = runs[vi];
      std::string vs = variant.empty() ? "" : " [" + variant + "]";
      if (!variant.empty()) {
        const msm_variant mv = parse_variant(variant);
        be.set_msm_variant(mv.acc_blocks, mv.split, mv.window_bits, mv.g2_smem, mv.g2_pair_add, mv.g2_pair_seg);
        be.set_msm_ones(mv.ones, mv.urgent, mv.points, mv.waves);
      }
      times = be.time_ms(warmup, reps, [&] {
        got = be.msm_device<Curve>(db, ds, n);
      });
      std::snprintf(name, sizeof name, "msm %s 2^%u %s resident%s", curve, L, kind.c_str(), vs.c_str());
      out.push_back({name, median(times), *std::min_element(times.begin(), times.end()), got == want});
      // --profile: one more run with an event after each stage (the bucket method's stages; the
      // split of the scalars that are bits comes before them).
      auto profile = [&](bool on_shifted, unsigned S = 0) {
        if (!profiled) return;
        msm_profile prof;
        for (auto& e : prof.ev) CUZK_CHECK_CUDA(cudaEventCreate(&e));
        msm_profile_hook() = &prof;
        be.msm_device<Curve>(db, ds, n, on_shifted, S);
        msm_profile_hook() = nullptr;
        CUZK_CHECK_CUDA(cudaEventSynchronize(prof.ev[msm_profile::stages]));
        const char* names[] = {"clear+digits", "sort", "accumulate points", "slots+other arrays", "bucket segments",
                               "window sums+combine"};
        std::printf("  [msm %s 2^%u %s%s%s stages (ms):", curve, L, kind.c_str(),
                    on_shifted ? (" shifted S = " + std::to_string(S)).c_str() : "", vs.c_str());
        for (int i = 0; i < msm_profile::stages; ++i) {
          float ms = 0;
          CUZK_CHECK_CUDA(cudaEventElapsedTime(&ms, prof.ev[i], prof.ev[i + 1]));
          std::printf(" %s %.2f%s", names[i], ms, i + 1 < msm_profile::stages ? "," : "]\n");
        }
        for (auto& e : prof.ev) cudaEventDestroy(e);
      };
      profile(false);
      for (unsigned S : sets_list) {
        // The same MSM on S precomputed shifted sets (made once per size and S, timed apart).
        if (made != S) {
          auto ts = std::chrono::steady_clock::now();
          c = be.shift_bases_device(db, n, g2, S);
          t_shift = secs_since(ts);
          made = S;
        }
        zk::jacobian_t<Curve> got_s;
        auto stimes = be.time_ms(warmup, reps, [&] {
          got_s = be.msm_device<Curve>(db, ds, n, true, S);
        });
        const unsigned W = (255 + c) / c, sets = S ? S : W;
        std::snprintf(name, sizeof name, "msm %s 2^%u %s resident shifted (c = %u, %u sets, %u arrays, built in %.2f s)%s",
                      curve, L, kind.c_str(), c, sets, (W + sets - 1) / sets, t_shift, vs.c_str());
        profile(true, S);
        out.push_back({name, median(stimes), *std::min_element(stimes.begin(), stimes.end()), got_s == want});
      }
    }
    if (!resident) {
      times = be.time_ms(warmup, reps, [&] {
        if constexpr (g2) got = be.msm_g2(bases, scalars);
        else got = be.msm_g1(bases, scalars);
      });
      std::snprintf(name, sizeof name, "msm %s 2^%u %s host-scalars", curve, L, kind.c_str());
      out.push_back({name, median(times), *std::min_element(times.begin(), times.end()), got == want});
      // The same scalars from pinned (page-locked) host memory: copied to the device by DMA.
      void* pinned = nullptr;
      CUZK_CHECK_CUDA(cudaHostAlloc(&pinned, n * 32, cudaHostAllocDefault));
      std::memcpy(pinned, scalars.data(), n * 32);
      std::span<const zk::bigint<4>> ps_span(static_cast<const zk::bigint<4>*>(pinned), n);
      zk::jacobian_t<Curve> got_pinned;
      auto ptimes = be.time_ms(warmup, reps, [&] {
        if constexpr (g2) got_pinned = be.msm_g2(bases, ps_span);
        else got_pinned = be.msm_g1(bases, ps_span);
      });
      cudaFreeHost(pinned);
      std::snprintf(name, sizeof name, "msm %s 2^%u %s pinned-host-scalars", curve, L, kind.c_str());
      out.push_back({name, median(ptimes), *std::min_element(ptimes.begin(), ptimes.end()), got_pinned == want});
    }
  }
  be.release_caches();  // shifted sets and scratch are large: gone before the next size
  if (db) device_free(db);
  if (ds) device_free(ds);
  return out;
}

// profile: the median over reps runs of each launch's time (events between launches).
void print_ntt_profile(cuda_backend& be, const char* op, void* a, void* b, void* c, unsigned L, int reps) {
  std::vector<std::vector<double>> ms;
  std::vector<std::string> names;
  for (int r = 0; r < std::max(reps, 1); ++r) {
    auto p = be.ntt_profile_device(op, a, b, c, L);
    if (ms.empty()) ms.resize(p.size());
    for (std::size_t i = 0; i < p.size() && i < ms.size(); ++i) ms[i].push_back(p[i].second);
    if (names.empty())
      for (auto& [n, t] : p) names.push_back(n);
  }
  double total = 0;
  for (std::size_t i = 0; i < ms.size(); ++i) {
    double m = median(ms[i]);
    total += m;
    std::printf("    profile %s 2^%u launch %zu %-28s %8.3f ms\n", op, L, i, names[i].c_str(), m);
  }
  std::printf("    profile %s 2^%u sum of launch medians %.3f ms\n", op, L, total);
}

row bench_ntt(cuda_backend& be, unsigned L, int warmup, int reps, bool h, bool profile) {
  std::size_t n = std::size_t(1) << L;
  std::vector<fr> v(n);
  zk::parallel_for(n, [&](std::size_t b, std::size_t e) {
    std::uint64_t st = 7 + b;
    for (std::size_t i = b; i < e; ++i) v[i] = testgen::random_fr(st);
  }, 1 << 16);
  char name[96];
  if (h) {
    void* a = device_alloc(n * 32);
    void* b = device_alloc(n * 32);
    void* c = device_alloc(n * 32);
    copy_to_device(a, v.data(), n * 32);
    copy_to_device(b, v.data(), n * 32);
    copy_to_device(c, v.data(), n * 32);
    auto times = be.time_ms(warmup, reps, [&] { be.compute_h_device(a, b, c, L); });
    if (profile) print_ntt_profile(be, "h", a, b, c, L, reps);
    device_free(a);
    device_free(b);
    device_free(c);
    std::snprintf(name, sizeof name, "compute_h 2^%u (device-resident)", L);
    return {name, median(times), *std::min_element(times.begin(), times.end()), true};
  }
  void* d = device_alloc(n * 32);
  copy_to_device(d, v.data(), n * 32);
  int runs = 0;
  auto times = be.time_ms(warmup, reps, [&] {
    be.ntt_device(d, L, false);
    ++runs;
  });
  auto itimes = be.time_ms(0, runs, [&] { be.ntt_device(d, L, true); });
  be.synchronize();
  if (profile) {  // as many forward as inverse runs: d comes back to v
    print_ntt_profile(be, "forward", d, nullptr, nullptr, L, reps);
    print_ntt_profile(be, "inverse", d, nullptr, nullptr, L, reps);
  }
  std::vector<fr> back(n);
  copy_to_host(back.data(), d, n * 32);
  device_free(d);
  std::snprintf(name, sizeof name, "ntt 2^%u natural order (inverse: median %.3f ms)", L, median(itimes));
  return {name, median(times), *std::min_element(times.begin(), times.end()), back == v};
}

}  // namespace

int run_bench(const bench_options& opt) {
  if (!device_present()) {
    std::printf("SKIP: no CUDA device present\n");
    return 0;
  }
  std::printf("device: %s\n", device_description().c_str());
  if (opt.what == "msm")
    std::printf("msm: scalars %s, bits split %s, accumulation %s (lanes %u, blocks %u), segments %s, window %u\n",
                opt.scalars.c_str(), opt.split_bits ? "on" : "off", opt.affine_lanes ? "batch-affine" : "xyzz",
                opt.affine_lanes, opt.acc_blocks, opt.segment_split ? "split" : "one kernel", opt.window_bits);
  cuda_options co;
  co.msm_segment_length = opt.segment_length;
  co.msm_split_bits = opt.split_bits;
  co.msm_affine_lanes = opt.affine_lanes;
  co.msm_acc_blocks = opt.acc_blocks;
  co.msm_segment_split = opt.segment_split;
  co.force_window_bits = opt.window_bits;
  co.ntt_threads = opt.ntt_threads;
  co.ntt_uniform_roots = opt.ntt_uniform_roots;
  co.ntt_compiled_shapes = opt.ntt_compiled_shapes;
  co.ntt_fused_reversal = opt.ntt_fused_reversal;
  cuda_backend be(co);
  std::vector<row> rows;
  if ((opt.shifted || !opt.sets.empty()) && !(opt.what == "msm" && opt.resident))
    throw std::invalid_argument("bench: --shifted and --sets need msm --resident");
  std::vector<unsigned> sets_list = opt.sets;  // --shifted: one set per window (0), after the --sets
  if (opt.shifted) sets_list.push_back(0);
  std::vector<std::string> kinds;
  for (std::size_t p = 0; p <= opt.scalars.size();) {
    std::size_t q = opt.scalars.find(',', p);
    if (q == std::string::npos) q = opt.scalars.size();
    kinds.push_back(opt.scalars.substr(p, q - p));
    p = q + 1;
  }
  for (unsigned L : opt.log_sizes) {
    std::vector<row> rs;
    if (opt.what == "msm") {
      if (opt.curve == "g1") rs = bench_msm<g1_curve>(be, L, opt.resident, sets_list, opt.profile, opt.warmup, opt.reps, kinds, opt.variants);
      else if (opt.curve == "g2") rs = bench_msm<g2_curve>(be, L, opt.resident, sets_list, opt.profile, opt.warmup, opt.reps, kinds, opt.variants);
      else throw std::invalid_argument("bench msm: --curve must be g1 or g2");
    } else if (opt.what == "ntt" || opt.what == "h") {
      rs = {bench_ntt(be, L, opt.warmup, opt.reps, opt.what == "h", opt.profile)};
    } else if (opt.what == "upload") {
      // 2^L 32-byte values (2^27: 4 GiB, a 32 GiB PoRep partition's witness is 4.17 GB).
      const auto u = be.time_upload(std::size_t(32) << L, opt.reps, opt.warmup);
      const double gib = double(std::size_t(32) << L) / double(1u << 30);
      char name[160];
      std::snprintf(name, sizeof name, "upload 2^%u x 32 B pageable (staging buffers), %.2f GiB/s", L, gib / (u.pageable_ms * 1e-3));
      rs.push_back({name, u.pageable_ms, u.pageable_min_ms, u.pageable_ok});
      std::snprintf(name, sizeof name, "upload 2^%u x 32 B pinned (one DMA), %.2f GiB/s; pinned once in %.0f ms", L,
                    gib / (u.pinned_ms * 1e-3), u.pin_ms);
      rs.push_back({name, u.pinned_ms, u.pinned_min_ms, u.pinned_ok});
    } else {
      throw std::invalid_argument("bench: unknown benchmark '" + opt.what + "' (msm, ntt, h, upload)");
    }
    for (auto& r : rs) {
      std::printf("  %-44s median %9.3f ms  min %9.3f ms  check %s\n", r.name.c_str(), r.med, r.min,
                  r.ok ? "ok" : "MISMATCH");
      rows.push_back(r);
    }
    std::fflush(stdout);
  }
  bool all = true;
  std::printf("\n| benchmark | median ms | min ms | check |\n|---|---|---|---|\n");
  for (auto& r : rows) {
    std::printf("| %s | %.3f | %.3f | %s |\n", r.name.c_str(), r.med, r.min, r.ok ? "ok" : "MISMATCH");
    all = all && r.ok;
  }
  return all ? 0 : 1;
}

}  // namespace cuzk::gpu
