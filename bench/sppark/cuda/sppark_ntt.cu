// sppark's NTT (sppark 0.1.16, ntt/ntt.cuh) over the BLS12-381 scalar field, timed for the
// side-by-side table of docs/gpu.md: natural order in and out (InputOutputOrder::NN), forward or
// inverse (1/n included), standard domain, on device data (NTT::Base_dev_ptr on sppark's stream).
// sppark's roots come from the generator 7 (bellperson's family), so cuzk_sppark_check compares
// the results with cuzk's NTT built with 7; cuzk's timed NTT (`cuzk bench ntt`) uses snarkjs's
// roots from 5: the same kernels with other twiddle values.
#include <cuda.h>

#include <ff/bls12-381.hpp>

#include <ntt/ntt.cuh>

#include "timing.cuh"

static_assert(sizeof(fr_t) == 32, "Fr layout");

// Times `reps` transforms of a device copy of `in` (2^log_n Fr, Montgomery form) after `warmup`
// ones, in place (each run transforms the previous output: random data stays random). With out
// non-null, also transforms a fresh copy of `in` once and writes it there. 0, or 1 and err.
extern "C" int spb_ntt(const void* in, void* out, unsigned log_n, int inverse, int warmup, int reps, double* times,
                       char* err, std::size_t errlen) {
  try {
    const gpu_t& gpu = select_gpu(0);
    stream_t& stream = gpu;
    const std::size_t n = std::size_t(1) << log_n;
    const auto dir = inverse ? NTT::Direction::inverse : NTT::Direction::forward;
    fr_t* d = nullptr;
    spb::fail(cudaMalloc(&d, n * sizeof(fr_t)), "cudaMalloc");
    try {
      spb::copy_in(d, in, n * sizeof(fr_t), stream, "copy in");
      spb::time_runs(stream, warmup, reps, times, [&] {
        NTT::Base_dev_ptr(stream, d, log_n, NTT::InputOutputOrder::NN, dir, NTT::Type::standard);
      });
      if (out) {
        spb::copy_in(d, in, n * sizeof(fr_t), stream, "copy in");
        NTT::Base_dev_ptr(stream, d, log_n, NTT::InputOutputOrder::NN, dir, NTT::Type::standard);
        spb::fail(cudaStreamSynchronize(stream), "ntt");
        spb::fail(cudaMemcpy(out, d, n * sizeof(fr_t), cudaMemcpyDeviceToHost), "copy out");
      }
    } catch (...) {
      cudaFree(d);
      throw;
    }
    cudaFree(d);
    return 0;
  } catch (const std::exception& e) {
    return spb::report(e.what(), err, errlen);
  }
}
