// Shared by the wrapper's translation units (sppark_msm.cu, sppark_ntt.cu): CUDA-event timing of a
// call after warm-up runs, and the error report the Rust side prints.
//
// A timed call is bracketed by two events on sppark's own stream of the device (gpu_t's `zero`
// stream, non-blocking). An NTT is enqueued on that stream, so the events measure its kernels. An
// MSM call returns only when sppark's streams are done and its host-side window sums are added, so
// the stop event, recorded after it returns, gives the call's whole time: what cuzk's `bench msm`
// measures too (cuda_backend::time_ms).
#pragma once

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include <cuda_runtime.h>

namespace spb {

inline void fail(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// Host -> device on `stream`, finished when it returns. A plain cudaMemcpy from pageable memory
// returns once the bytes are staged, its DMA still under way on the legacy stream, which sppark's
// non-blocking streams do not wait for: a kernel enqueued next could read part of the old contents.
inline void copy_in(void* dst, const void* src, std::size_t bytes, cudaStream_t stream, const char* what) {
  fail(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream), what);
  fail(cudaStreamSynchronize(stream), what);
}

// Runs fn `warmup` times, then `reps` times between events on `stream`; times[i] = ms of run i.
template <class Fn>
void time_runs(cudaStream_t stream, int warmup, int reps, double* times, Fn&& fn) {
  for (int i = 0; i < warmup; ++i) fn();
  fail(cudaStreamSynchronize(stream), "warm-up");
  cudaEvent_t start, stop;
  fail(cudaEventCreate(&start), "cudaEventCreate");
  fail(cudaEventCreate(&stop), "cudaEventCreate");
  for (int i = 0; i < reps; ++i) {
    fail(cudaEventRecord(start, stream), "cudaEventRecord");
    fn();
    fail(cudaEventRecord(stop, stream), "cudaEventRecord");
    fail(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    fail(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    times[i] = ms;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

// Copies the message into the caller's buffer; returns the non-zero status the FFI hands back.
inline int report(const char* msg, char* err, std::size_t errlen) {
  if (err && errlen) {
    std::strncpy(err, msg, errlen - 1);
    err[errlen - 1] = 0;
  }
  return 1;
}

}  // namespace spb
