// cuzk_gpu_bench: the `cuzk bench` benchmarks as a standalone program (no CLI dependencies).
//   cuzk_gpu_bench msm|ntt|h [g1|g2] LOG,LOG,... [resident [shifted] [profile]] [scalars=random|bits90|bits99|ones] [nosplit] [affine=N] [seg=N] [ntt_threads=N] [ntt_uniform=0|1] [ntt_shapes=0|1] [ntt_fused=0|1] [reps=N] [warmup=N]
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>

#include "cuzk/gpu/bench.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s msm|ntt|h [g1|g2] LOG,LOG,... [resident [shifted] [profile]] [scalars=random|bits90|bits99|ones] [nosplit] [affine=N] [seg=N] [ntt_threads=N] [ntt_uniform=0|1] [ntt_shapes=0|1] [ntt_fused=0|1] [reps=N] [warmup=N]\n", argv[0]);
    return 2;
  }
  cuzk::gpu::bench_options o;
  o.what = argv[1];
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "g1" || a == "g2") o.curve = a;
    else if (a == "resident") o.resident = true;
    else if (a == "shifted") o.shifted = true;
    else if (a == "profile") o.profile = true;
    else if (a == "nosplit") o.split_bits = false;
    else if (a.rfind("affine=", 0) == 0) o.affine_lanes = unsigned(std::atoi(a.c_str() + 7));
    else if (a.rfind("scalars=", 0) == 0) o.scalars = a.substr(8);
    else if (a.rfind("ntt_threads=", 0) == 0) o.ntt_threads = unsigned(std::atoi(a.c_str() + 12));
    else if (a.rfind("ntt_uniform=", 0) == 0) o.ntt_uniform_roots = std::atoi(a.c_str() + 12) != 0;
    else if (a.rfind("ntt_shapes=", 0) == 0) o.ntt_compiled_shapes = std::atoi(a.c_str() + 11) != 0;
    else if (a.rfind("ntt_fused=", 0) == 0) o.ntt_fused_reversal = std::atoi(a.c_str() + 10) != 0;
    else if (a.rfind("seg=", 0) == 0) o.segment_length = unsigned(std::atoi(a.c_str() + 4));
    else if (a.rfind("reps=", 0) == 0) o.reps = std::atoi(a.c_str() + 5);
    else if (a.rfind("warmup=", 0) == 0) o.warmup = std::atoi(a.c_str() + 7);
    else {
      std::stringstream ss(a);
      std::string x;
      while (std::getline(ss, x, ',')) o.log_sizes.push_back(unsigned(std::stoul(x)));
    }
  }
  try {
    return cuzk::gpu::run_bench(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 4;
  }
}
