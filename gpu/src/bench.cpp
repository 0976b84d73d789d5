#include "cuzk/gpu/bench.hpp"

#include <algorithm>
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

template <class Curve>
std::vector<row> bench_msm(cuda_backend& be, unsigned L, bool resident, bool shifted, bool profiled, int warmup,
                           int reps) {
  using aff = zk::affine_t<Curve>;
  constexpr bool g2 = std::is_same_v<Curve, g2_curve>;
  std::size_t n = std::size_t(1) << L;
  std::size_t D = std::min<std::size_t>(n, g2 ? (1u << 15) : (1u << 18));
  auto t = std::chrono::steady_clock::now();
  auto ps = testgen::progression<Curve>(D, 1234 + L, false);
  auto scalars = testgen::random_scalars(n, 99 + L);
  std::vector<aff> bases(n);
  zk::parallel_for(n, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) bases[i] = ps.pts[i % D];
  }, 1 << 16);
  auto want = testgen::expected(ps, std::span<const zk::bigint<4>>(scalars));
  std::printf("  [msm %s 2^%u: inputs ready in %.1f s]\n", g2 ? "g2" : "g1", L, secs_since(t));
  std::fflush(stdout);
  zk::jacobian_t<Curve> got;
  std::vector<double> times;
  std::vector<row> extra;
  if (resident) {
    void* db = device_alloc(n * sizeof(aff));
    void* ds = device_alloc(n * 32);
    copy_to_device(db, bases.data(), n * sizeof(aff));
    copy_to_device(ds, scalars.data(), n * 32);
    times = be.time_ms(warmup, reps, [&] {
      if constexpr (g2) got = be.msm_g2_device(db, ds, n);
      else got = be.msm_g1_device(db, ds, n);
    });
    // --profile: one more run with an event after each stage.
    auto profile = [&](bool on_shifted) {
      if (!profiled) return;
      msm_profile prof;
      for (auto& e : prof.ev) CUZK_CHECK_CUDA(cudaEventCreate(&e));
      msm_profile_hook() = &prof;
      if constexpr (g2) be.msm_g2_device(db, ds, n, on_shifted);
      else be.msm_g1_device(db, ds, n, on_shifted);
      msm_profile_hook() = nullptr;
      CUZK_CHECK_CUDA(cudaEventSynchronize(prof.ev[msm_profile::stages]));
      const char* names[] = {"digits", "sort+clear", "accumulate points", "accumulate slots", "bucket segments",
                             "window sums+combine"};
      std::printf("  [msm %s 2^%u%s stages (ms):", g2 ? "g2" : "g1", L, on_shifted ? " shifted" : "");
      for (int i = 0; i < msm_profile::stages; ++i) {
        float ms = 0;
        CUZK_CHECK_CUDA(cudaEventElapsedTime(&ms, prof.ev[i], prof.ev[i + 1]));
        std::printf(" %s %.2f%s", names[i], ms, i + 1 < msm_profile::stages ? "," : "]\n");
      }
      for (auto& e : prof.ev) cudaEventDestroy(e);
    };
    profile(false);
    if (shifted) {
      // The same MSM on precomputed shifted sets (made once, timed apart).
      auto ts = std::chrono::steady_clock::now();
      unsigned c = be.shift_bases_device(db, n, g2);
      double t_shift = secs_since(ts);
      zk::jacobian_t<Curve> got_s;
      auto stimes = be.time_ms(warmup, reps, [&] {
        if constexpr (g2) got_s = be.msm_g2_device(db, ds, n, true);
        else got_s = be.msm_g1_device(db, ds, n, true);
      });
      char sname[128];
      std::snprintf(sname, sizeof sname, "msm %s 2^%u resident shifted (c = %u, %u sets, built in %.2f s)",
                    g2 ? "g2" : "g1", L, c, (255 + c) / c, t_shift);
      profile(true);
      extra.push_back({sname, median(stimes), *std::min_element(stimes.begin(), stimes.end()), got_s == want});
      be.release_caches();  // the sets are large: gone before the next size
    }
    device_free(db);
    device_free(ds);
  } else {
    times = be.time_ms(warmup, reps, [&] {
      if constexpr (g2) got = be.msm_g2(bases, scalars);
      else got = be.msm_g1(bases, scalars);
    });
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
    be.release_caches();
    std::printf("| msm %s 2^%u pinned-host-scalars | %.3f | %.3f | %s |\n", g2 ? "g2" : "g1", L, median(ptimes),
                *std::min_element(ptimes.begin(), ptimes.end()), got_pinned == want ? "ok" : "MISMATCH");
  }
  char name[96];
  std::snprintf(name, sizeof name, "msm %s 2^%u %s", g2 ? "g2" : "g1", L, resident ? "resident" : "host-scalars");
  std::vector<row> out{{name, median(times), *std::min_element(times.begin(), times.end()), got == want}};
  out.insert(out.end(), extra.begin(), extra.end());
  return out;
}

row bench_ntt(cuda_backend& be, unsigned L, int warmup, int reps, bool h) {
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
  cuda_options co;
  co.msm_segment_length = opt.segment_length;
  cuda_backend be(co);
  std::vector<row> rows;
  if (opt.shifted && !(opt.what == "msm" && opt.resident)) throw std::invalid_argument("bench: --shifted needs msm --resident");
  for (unsigned L : opt.log_sizes) {
    std::vector<row> rs;
    if (opt.what == "msm") {
      if (opt.curve == "g1") rs = bench_msm<g1_curve>(be, L, opt.resident, opt.shifted, opt.profile, opt.warmup, opt.reps);
      else if (opt.curve == "g2") rs = bench_msm<g2_curve>(be, L, opt.resident, opt.shifted, opt.profile, opt.warmup, opt.reps);
      else throw std::invalid_argument("bench msm: --curve must be g1 or g2");
    } else if (opt.what == "ntt" || opt.what == "h") {
      rs = {bench_ntt(be, L, opt.warmup, opt.reps, opt.what == "h")};
    } else {
      throw std::invalid_argument("bench: unknown benchmark '" + opt.what + "' (msm, ntt, h)");
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
