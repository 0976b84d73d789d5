// sppark's Pippenger MSM (sppark 0.1.16, msm/pippenger.cuh) on BLS12-381 G1 and G2, timed for the
// side-by-side table of docs/gpu.md. Nothing of sppark is copied: this file instantiates its msm_t
// template for both groups and calls it three ways.
//
//   mode 0, resident: msm_t constructed with the points (its constructor uploads them and keeps
//          them), the scalars already in device memory (handed over as a non-owning dev_ptr_t, so
//          invoke() reads them in place). The counterpart of `cuzk bench msm --resident`.
//   mode 1, resident points, host scalars: the same msm_t, the scalars copied in by invoke().
//   mode 2, stock: mult_pippenger(), sppark's one-call entry point (device buffers made, points
//          and scalars copied from the host, freed again). The counterpart of cuzk's host call.
//
// Scalars are canonical 256-bit little-endian integers (mont = false), as cuzk's MSM reads them.
// Points are affine x, y in Montgomery form (blst's and cuzk's byte layout; G2 coordinates c0
// then c1). The result is sppark's Jacobian point (X, Y, Z in Montgomery form), the layout of
// cuzk's zk::jacobian_t too, so cuzk_sppark_check compares it with cuzk's result as read.
//
// One translation unit for both groups: pippenger.cuh (through msm/sort.cuh) defines non-template
// kernels, so it may be included once per program. Its explicit instantiations name the global
// bucket_t, point_t, affine_t and scalar_t (G1 here); G2's msm_t is instantiated by use.
#include <cuda.h>

#include <ff/bls12-381-fp2.hpp>

#include <ec/jacobian_t.hpp>
#include <ec/xyzz_t.hpp>

typedef jacobian_t<fp_t> point_t;
typedef xyzz_t<fp_t> bucket_t;
typedef bucket_t::affine_t affine_t;
typedef fr_t scalar_t;

typedef jacobian_t<fp2_t> point_fp2_t;
typedef xyzz_t<fp2_t> bucket_fp2_t;
typedef bucket_fp2_t::affine_t affine_fp2_t;

#include <msm/pippenger.cuh>

#include "timing.cuh"

static_assert(sizeof(affine_t) == 96 && sizeof(point_t) == 144, "G1 layouts");
#ifndef __CUDA_ARCH__  // on the device an Fp2 element is spread over two threads (degree 2)
static_assert(sizeof(affine_fp2_t) == 192 && sizeof(point_fp2_t) == 288, "G2 layouts");
#endif
static_assert(sizeof(scalar_t) == 32, "scalar layout");

namespace {

void check(const RustError& e, const char* what) {
  if (e.code != 0) {
    std::string m = std::string(what) + " failed: " + (e.message ? e.message : cudaGetErrorString(cudaError_t(e.code)));
    throw std::runtime_error(m);
  }
}

template <class Bucket, class Point, class Affine>
void run_msm(int mode, const void* points, const void* scalars, std::size_t n, int warmup, int reps, double* times,
             void* result) {
  const gpu_t& gpu = select_gpu(0);
  cudaStream_t stream = gpu;
  const auto* pts = static_cast<const Affine*>(points);
  const auto* scs = static_cast<const scalar_t*>(scalars);
  Point out;
  if (mode == 2) {
    spb::time_runs(stream, warmup, reps, times, [&] {
      check(mult_pippenger<Bucket>(&out, pts, n, scs, false), "mult_pippenger");
    });
  } else {
    msm_t<Bucket, Point, Affine, scalar_t> msm{pts, n};
    if (mode == 0) {
      scalar_t* d = nullptr;
      spb::fail(cudaMalloc(&d, n * sizeof(scalar_t)), "cudaMalloc scalars");
      spb::copy_in(d, scs, n * sizeof(scalar_t), stream, "copy scalars");
      try {
        spb::time_runs(stream, warmup, reps, times, [&] {
          check(msm.invoke(out, static_cast<const Affine*>(nullptr), n, dev_ptr_t<scalar_t>(d, n), false),
                "msm_t::invoke (device scalars)");
        });
      } catch (...) {
        cudaFree(d);
        throw;
      }
      cudaFree(d);
    } else {
      spb::time_runs(stream, warmup, reps, times, [&] {
        check(msm.invoke(out, static_cast<const Affine*>(nullptr), n, scs, false), "msm_t::invoke (host scalars)");
      });
    }
  }
  std::memcpy(result, &out, sizeof(Point));
}

}  // namespace

// curve: 1 = G1, 2 = G2. Runs the MSM warmup + reps times (times[reps], ms); result: the last
// run's Jacobian point (144 or 288 bytes). Returns 0, or 1 with a message in err.
extern "C" int spb_msm(int curve, int mode, const void* points, const void* scalars, std::size_t n, int warmup,
                       int reps, double* times, void* result, char* err, std::size_t errlen) {
  try {
    if (mode < 0 || mode > 2) return spb::report("spb_msm: mode must be 0, 1 or 2", err, errlen);
    if (curve == 1) run_msm<bucket_t, point_t, affine_t>(mode, points, scalars, n, warmup, reps, times, result);
    else if (curve == 2)
      run_msm<bucket_fp2_t, point_fp2_t, affine_fp2_t>(mode, points, scalars, n, warmup, reps, times, result);
    else return spb::report("spb_msm: curve must be 1 or 2", err, errlen);
    return 0;
  } catch (const std::exception& e) {
    return spb::report(e.what(), err, errlen);
  }
}
