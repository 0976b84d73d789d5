// `cuzk bench`: GPU primitive benchmarks. Filled in by the CUDA backend; without it, says so.
#include <CLI/CLI.hpp>

#include <iostream>

#include "commands.hpp"

namespace cuzk::cli {

void register_bench(CLI::App& app) {
  auto* sub = app.add_subcommand("bench", "Benchmark the GPU primitives (MSM, NTT)");
  sub->allow_extras();
  sub->callback([] {
    run_command([] {
      std::cerr << "error: cuzk bench: not built (this cuzk has no CUDA backend)\n";
      return int(exit_bad_input);
    });
  });
}

}  // namespace cuzk::cli
