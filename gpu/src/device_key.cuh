// A proving key's points in one device's memory: the device key. It owns its device memory from
// its constructor to its destructor (as sppark's msm_t owns its points) and reports its bytes, so
// that whoever holds it (the engine's key store, as the tier above "hot", under a grant from that
// device's VRAM budget; `cuzk bench prove` for its runs) decides how long it stays. The backend
// keeps no key of its own: a proof given no device key uploads the points for itself and drops
// them after.
//
// Inside: the five point sections (A, B1, B2, C, H), each either a plain copy or its precomputed
// shifted sets (set j = 2^(c j) P, set 0 the plain copy; msm.cuh), whose bytes count in the key's;
// for bellperson keys the A and B wires of the density-filtered queries; optionally the constraint
// matrices for synthesis on the device: a zkey's CSR (pce), or a Filecoin key's compact recorded
// evaluator (compact, compact_evaluator.cuh) with the a, b, c vectors its proofs compute into
// (abc: 3 x the domain, one proof at a time, in compute-stream order), so that a partition stages
// only its witness. Their bytes count in the key's, so the VRAM budget and the residency agree.
//
// A synthetic key (key_points::synthetic, zk/groth16/synthetic_srs.hpp: NOT A SETUP) is not copied:
// each section is generated in place by synthetic_srs.cu from the key's seed, under the same grant,
// then shifted like any other.
//
// A bellperson key in the .params file's form (key_points::file) is uploaded as the file stores it,
// each section converted and checked in place on the compute stream while the next one uploads
// (file_points.cuh); the constructor throws the host decoder's one-line error for the first bad
// point (input_error), in the order the host decoder checks them.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common.cuh"
#include "compact_evaluator.cuh"
#include "cuzk/gpu/key_placement.hpp"
#include "cuzk/gpu/placement_plan.hpp"
#include "device_context.cuh"
#include "synthesis.cuh"
#include "zk/groth16/backend.hpp"
#include "zk/groth16/pce.hpp"

namespace cuzk::gpu {

// Where an MSM's bases live: plain, or `sets` shifted sets `stride` points apart with window bits c.
struct msm_bases {
  const void* ptr = nullptr;
  std::size_t stride = 0;  // 0: plain
  unsigned c = 0;
  unsigned sets = 1;
};

// One section of points: its first `on_device` points in device memory (plain, or with their
// shifted sets when the whole section is there), the rest in pinned host memory, streamed to the
// key's chunk buffers by each proof (key_placement.hpp).
struct device_points {
  dbuf<unsigned char> dev;
  pinned_buf host;  // points [on_device, n)
  std::size_t n = 0, point_bytes = 0, on_device = 0;
  unsigned shift_c = 0;  // 0: plain
  unsigned sets = 1;     // shifted sets (set 0 the plain copy)
  msm_bases bases() const { return {dev.get(), sets > 1 ? n : 0, shift_c, sets}; }
  std::size_t shifted_extra() const { return sets > 1 ? dev.bytes() - n * point_bytes : 0; }
  bool streamed() const { return on_device < n; }
  const unsigned char* host_point(std::size_t i) const { return host.get() + (i - on_device) * point_bytes; }
};

class device_key final : public zk::groth16::resident_key {
 public:
  // Uploads the key's points (on the context's staging stream; the compute stream waits for them)
  // and makes the shifted sets the policy grants. pce: the constraint matrices too (synthesis on
  // the device), or null.
  // placement: where each section's points go (plan_placement); null or resident: all on the
  // device (the policy's sets then apply). Streamed points are made (a synthetic key), converted (a
  // .params file's) or copied into pinned host memory here, through the key's chunk buffers.
  device_key(device_context& ctx, const zk::groth16::key_points& key, const shift_policy& policy,
             const zk::groth16::constraint_evaluator* pce = nullptr, const placement_plan* placement = nullptr);
  std::uint64_t bytes() const override;
  bool synthesizes(const zk::groth16::constraint_evaluator& pce) const override;
  int device() const { return device_; }
  // True when `key` names the same point sections this key was made from.
  bool made_from(const zk::groth16::key_points& key) const;
  std::size_t shifted_bytes() const;
  // One line: per section the shifted sets made, of the plan's and of the most its shape allows,
  // why fewer (the budget, the room, the device's free memory at load), the plan's lane scratch and
  // room (the key store logs it at load; `cuzk bench fil` prints it).
  std::string describe() const override { return placement_; }
  std::string placement() const override { return placement_name(plan.kind); }

  device_points a, b1, b2, c, h;
  // The placement the key was made with, and its two chunk buffers (empty when nothing streams):
  // each proof copies a streamed run into one while the MSM of the run before reads the other.
  placement_plan plan;
  dbuf<unsigned char> stream_buf[2];
  // A key made for runs (plan.chunk: a partly resident or streamed key, or one resident only
  // with its MSMs' scratch at a run's length): every MSM of its proofs goes over runs.
  bool streams() const { return plan.chunk != 0; }
  dbuf<unsigned char> wires;  // bellperson: a_wires then b_wires (uint32), 256-byte aligned
  const std::uint32_t* a_wires() const { return reinterpret_cast<const std::uint32_t*>(wires.get()); }
  const std::uint32_t* b_wires() const { return a_wires() + b_wires_at_; }

  // The constraint matrices (synthesis on the device), when made with them.
  struct matrices {
    dbuf<unsigned char> dev;
    csr_view a, b;
    const zk::groth16::constraint_evaluator* source = nullptr;
  };
  matrices pce;
  // A compact evaluator's device copy and the a, b, c its proofs are evaluated into (3 x domain).
  device_compact compact;
  dbuf<unsigned char> abc;
  fr_d* abc_vec(int i) const { return reinterpret_cast<fr_d*>(abc.get()) + std::size_t(i) * compact.view.n; }

  // The B2 points in host memory, for the host's part of B2 (zk/groth16/b2_plan.hpp): the key's
  // own span when it holds them (key_points::points_on_host); else the hot key's host copy given at
  // load (key_points::b2_host, whose owner reserved its bytes from the host budget), read back from
  // this device at its first use after the compute stream's work; else empty (B2 stays here).
  std::span<const zk::bls12_381::g2_affine> host_b2(device_context& ctx) const;

  // Uploads an evaluator's two matrices (one allocation: row starts, signals and coefficients of
  // A then B, each part 256-byte aligned).
  static matrices upload_matrices(device_context& ctx, const zk::groth16::constraint_evaluator& pce);

 private:
  int device_ = 0;
  std::size_t b_wires_at_ = 0;
  zk::groth16::key_points source_;
  std::string placement_;
};

}  // namespace cuzk::gpu
