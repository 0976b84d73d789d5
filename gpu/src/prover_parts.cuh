// The seam between the CUDA backend's prover and its benchmark and probe entry points. prover.cu
// owns a backend's state (cuda_backend::impl: the device context, the NTT engines, the options,
// the MSM machinery a proof's lanes run) and keeps impl's definition to itself; probes.cu (timed
// kernels, uploads and NTT launches, MSMs and NTTs on caller-owned device memory, the MSM variant
// switches) reaches only what this header names: references into impl (parts_of) and one MSM on
// device bases and scalars, the same path a proof's MSMs take.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuzk/gpu/cuda_backend.hpp"
#include "device_context.cuh"
#include "device_key.cuh"
#include "ntt.cuh"

namespace cuzk::gpu {

// The benchmarks' shifted sets of caller-owned device bases (shift_bases_device, msm_*_device
// with `shifted`): one set of bases at a time, made again when other bases ask; held by the
// backend (release_caches drops them).
struct bench_sets {
  const void* src = nullptr;
  int kind = 0;         // 1: G1, 2: G2
  unsigned wanted = 0;  // the sets asked for (0: one per window)
  device_points pts;
};

// A backend's state the probes use, by reference into its impl (prover.cu).
struct prover_parts {
  cuda_options& opt;
  device_context& ctx;
  ntt_engine& ntt;     // snarkjs's roots
  ntt_engine& ntt_bp;  // bellperson's
  bench_sets& bench;
};
prover_parts parts_of(cuda_backend::impl& I);

// sum s_i b_i over n device scalars (4 limbs each) and bases `mb` (plain or shifted), as a
// proof's MSMs run (scalars that are bits split, chunks by free memory, the ones' lane); the
// caller holds ctx.mu and has set the device. Curve: zk::bls12_381::g1_curve or g2_curve (both
// instantiated in prover.cu).
template <class Curve>
zk::jacobian_t<Curve> msm_on_device(cuda_backend::impl& I, const msm_bases& mb, const std::uint64_t* scalars,
                                    std::size_t n);

}  // namespace cuzk::gpu
