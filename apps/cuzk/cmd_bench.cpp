// `cuzk bench`: GPU primitive benchmarks (gpu/src/bench.cpp does the work).
//   cuzk bench msm --curve g1|g2 --log-size 20,22,24,26 [--resident] [--reps N] [--warmup N]
//   cuzk bench ntt --log-size 20,24,26,27
//   cuzk bench h   --log-size 20,24          (compute_h on device-resident vectors)
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "commands.hpp"

#ifdef CUZK_HAVE_GPU
#include "cuzk/gpu/bench.hpp"
#endif

namespace cuzk::cli {

void register_bench(CLI::App& app) {
  auto* sub = app.add_subcommand("bench", "Benchmark the GPU primitives (MSM, NTT, compute_h)");
  sub->require_subcommand(1);
#ifdef CUZK_HAVE_GPU
  auto opt = std::make_shared<gpu::bench_options>();
  auto add_common = [opt](CLI::App* c) {
    c->add_option("--log-size", opt->log_sizes, "log2 sizes, comma-separated")->delimiter(',')->required();
    c->add_option("--reps", opt->reps, "timed runs (median reported)");
    c->add_option("--warmup", opt->warmup, "untimed runs first");
  };
  auto* msm = sub->add_subcommand("msm", "multi-scalar multiplication");
  msm->add_option("--curve", opt->curve, "g1 or g2")->check(CLI::IsMember({"g1", "g2"}));
  msm->add_flag("--resident", opt->resident, "bases and scalars already in device memory");
  add_common(msm);
  auto* ntt = sub->add_subcommand("ntt", "natural-order NTT over Fr");
  add_common(ntt);
  auto* h = sub->add_subcommand("h", "compute_h (3 iNTT, coset, 3 NTT, A*B-C)");
  add_common(h);
  for (auto* c : {msm, ntt, h})
    c->callback([opt, c] {
      opt->what = c->get_name();
      run_command([opt] { return gpu::run_bench(*opt) == 0 ? int(exit_ok) : int(exit_internal); });
    });
#else
  sub->allow_extras();
  sub->require_subcommand(0);
  sub->callback([] {
    run_command([] {
      std::cerr << "error: cuzk bench: not built (this cuzk has no CUDA backend)\n";
      return int(exit_bad_input);
    });
  });
#endif
}

}  // namespace cuzk::cli
