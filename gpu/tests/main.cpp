// cuzk_gpu_tests: Catch2 main. Without a CUDA device, a run asking for the "[device]" tests says
// SKIP and exits 77 (ctest's SKIP_RETURN_CODE), so CI shows them as skipped, not passed.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstring>
#include <iostream>

#include "cuzk/gpu/cuda_backend.hpp"

int main(int argc, char** argv) {
  bool device_only = false;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "[device]") == 0) device_only = true;
  if (device_only && !cuzk::gpu::device_present()) {
    std::cout << "SKIP: no CUDA device present; the [device] tests of cuzk_gpu_tests were not run\n";
    return 77;
  }
  if (cuzk::gpu::device_present()) std::cout << "device: " << cuzk::gpu::device_description() << "\n";
  return Catch::Session().run(argc, argv);
}
