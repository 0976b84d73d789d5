// The CUDA compute backend ("cuda" in the backend registry). Plain C++ header: no CUDA types, so
// the command line and the tests include it from ordinary translation units.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <functional>
#include <string>
#include <vector>

#include "zk/groth16/b2_plan.hpp"
#include "zk/groth16/backend.hpp"

namespace cuzk::zk::groth16 {
class pce_compact;
}

namespace cuzk::gpu {

// True when a CUDA device can be used (false, never an exception, on a machine without one).
bool device_present();
int device_count();  // visible CUDA devices (0 without a driver or device)
std::string device_description();

// How the compact evaluator's kernel (gpu/src/compact_evaluator.cuh) splits a block of 4096 rows:
// rows of more than `long_row` terms are summed by a whole warp, the others by a thread each.
// `row_per_thread`: the first kernel (a thread walks each row whole, long ones included), kept to
// compare (`cuzk bench abc`).
struct compact_kernel_options {
  unsigned threads = 256;  // per block: 128, 256 or 512
  unsigned long_row = 8;
  bool row_per_thread = false;
};

// The backend's tuning, passed in by its maker (the engine from its configuration, `cuzk bench`
// from its flags); the library reads no environment.
struct cuda_options {
  int device = 0;
  std::size_t safety_margin = std::size_t(512) << 20;  // device bytes never planned for
  std::size_t staging_bytes = std::size_t(64) << 20;   // each of the two pinned staging buffers
  unsigned force_window_bits = 0;                      // MSM window (0: chosen by size); tests use it
  std::size_t force_msm_chunk = 0;                     // MSM points per device run (0: by free memory)
  unsigned msm_segment_length = 0;                     // buckets per reduction segment (0: msm_common.cu's rule)
  // Scalars that are bits: each MSM's scalars are split on the device (once per scalar vector of a
  // proof) into zeros (skipped), ones (their points summed without buckets) and the rest (the
  // bucket method on a compacted list). Off: every scalar goes through the bucket method.
  bool msm_split_bits = true;
  // Bucket accumulation: 0 adds into XYZZ accumulators (~10 products per addition); N > 0 adds
  // into affine ones, N slices per thread sharing one inversion per step (Montgomery's trick: ~6
  // products per addition plus the inversion's share; more scratch: a state per slice).
  unsigned msm_affine_lanes = 0;
  // Kernel variants of the XYZZ bucket method: G1's accumulation compiled for 4 blocks per SM
  // (registers capped at 128; 0: as many as its 164 registers allow, 3; G2's is always uncapped);
  // the bucket reduction's segments in two kernels (fewer registers each) or one. The defaults
  // are the fastest measured (docs/gpu.md "MSM").
  unsigned msm_acc_blocks = 4;
  bool msm_segment_split = true;
  // G2's first-level accumulation and bucket segments on shared-memory slots instead of registers
  // (msm_g2.cu: no state parked around the Fp2 product calls, 10 warps per SM instead of 8). Off:
  // 2% slower (docs/gpu.md, "Measured dead ends").
  bool msm_g2_smem = false;
  // G2's first-level accumulation with each mixed addition shared by a lane pair (msm_g2.cu,
  // g2_pair_add_acc: half the products a lane, the point in shared memory), its kernel compiled
  // for this many blocks of 64 an SM: 4, 6 or 8 (8, 12, 16 warps); 0: one thread a point (in
  // registers, or on msm_g2_smem's slots; the pairs take precedence over those). 8 is the fastest;
  // 6 and 4 are slower, and so is 9 (the products spill; docs/gpu.md, "Measured dead ends").
  unsigned msm_g2_pair_add = 8;
  // G2's bucket segments (msm_segment_split) with each full addition shared by a lane pair
  // (msm_g2.cu, g2_pair_seg: 12 warps an SM on shared-memory slots; with msm_whole_waves their
  // length fills whole waves, msm_waves.hpp): ~20% faster segments at 2^24.
  bool msm_g2_pair_seg = true;
  // The accumulation's first level in whole waves of resident blocks (msm_waves.hpp): faster on
  // scalars that are bits, the same on random ones (docs/benchmarks.md, "Scalars that are bits");
  // G2's pair segments too (msm_g2_pair_seg).
  bool msm_whole_waves = true;
  // A standalone split MSM (msm_device and the like; a proof's MSMs sum their ones in line)
  // sums its ones on the side lane beside the others' bucket method, so that the sum's additions
  // fill the SMs the reduction's latency-bound stages leave idle. msm_ones_start: where the sum
  // may start, `accumulated` (the others' points are in their buckets), `sorted` (with the
  // others' accumulation) or `serial` (after the others, on their stream: no lane).
  // msm_ones_urgent: the others run on the greatest-priority stream, so that the block scheduler
  // serves their pending blocks before the sum's (stream priorities order pending blocks only).
  // msm_ones_points: points per thread of the lane's sum (0: msm.cuh's rule, at most
  // msm_sum_threads threads): fewer make shorter blocks, which give their SMs back sooner (and
  // take 2 x n / points XYZZ points of the lane's scratch). The defaults are the fastest lane
  // measured (docs/benchmarks.md "Scalars that are bits", `cuzk bench msm --variants`).
  enum class ones_start { serial, sorted, accumulated };
  ones_start msm_ones_start = ones_start::accumulated;
  bool msm_ones_urgent = true;
  unsigned msm_ones_points = 8;
  // Precomputed shifted copies of a device key's bases (one per MSM window, so that an MSM reduces
  // one window's buckets): the device bytes they may take beyond the plain copies, per key. 0:
  // none; SIZE_MAX: as many as fit. A section gets them whole or not at all, in the order the
  // proof's MSMs run, and only while keep_free_bytes (plus the MSMs' scratch) stays free.
  std::size_t shifted_bases_bytes = 0;
  std::size_t keep_free_bytes = 0;
  // The room the sets are planned in (key_placement.hpp): the VRAM budget the key's grant comes
  // from (0: the device's memory less safety_margin; an explicit shifted_bases_bytes above the room
  // is trimmed to it) less the plain key, a proof's scratch and staged_partitions staged partitions
  // (2: the engine's default at its default device depth, max(2, device_depth); the engine passes
  // its own through backend_settings).
  std::size_t vram_budget_bytes = 0;
  unsigned staged_partitions = 2;
  // The device memory this process may use (0: the whole device). The first backend of a device
  // under a limit takes the rest of it (hold_vram_limit), so nothing in the process can use more;
  // every plan counts the device as this size.
  std::size_t vram_limit_bytes = 0;
  // A key's placement (placement_plan.hpp): the points' room (0: the device's, from its size less
  // the key's fixed parts, a proof's scratch and the staged partitions; tests force placements
  // with a small one) and the most points a streamed chunk holds (0: plan_placement's default).
  std::size_t key_room_bytes = 0;
  std::size_t stream_chunk_points = 0;
  // Threads per block of the NTT's shared-memory passes (256 or 512; a tile is 2^11 elements).
  unsigned ntt_threads = 256;
  // The NTT stages with few roots give each warp one root, so whole warps skip the products by 1.
  bool ntt_uniform_roots = true;
  // The NTT passes of 2^24's and 2^27's tile shapes (at 256 threads) as kernels with the shape
  // compiled in (fewer instructions per butterfly; gpu/src/ntt.cu, ntt_pass's KT; docs/benchmarks.md,
  // "NTT and compute_h").
  bool ntt_compiled_shapes = true;
  // The NTT's bit reversal on its last DIF pass's store into a second vector (out of place, stores
  // in runs of 4 elements; cuzk/gpu/ntt_tile.cuh): the natural-order transforms on device data
  // (their second vector: the compute stream's MSM arena, grown to 2^L x 32 B if smaller) and
  // bellperson's h (b, free after the division: no memory more). One pass over memory fewer
  // (docs/benchmarks.md, "NTT and compute_h").
  bool ntt_fused_reversal = true;
  // Where a proof's B2 (the G2 MSM) runs (zk/groth16/b2_plan.hpp): "device" (the second stream
  // beside the G1 MSMs, or after them when its scratch does not fit), "host" (b2_host_threads of
  // the host's cores, concurrent with the device), "split" (points [0, k) on the host, the rest on
  // the device; k = b2_split_share of them, or the cost model's when that is 0) or "auto" (the cost
  // model per proof from the rates measured on earlier proofs of the key; a first proof probes).
  zk::groth16::b2_mode b2 = zk::groth16::b2_mode::device;
  double b2_split_share = 0;
  // The side lane's MSM scratch (key_placement.hpp's G2 lane) sized for this share of B2's points
  // (1: all of them). A split B2 runs its bucket method on its others only (the bits are summed
  // without buckets), so below 1 the lane still holds them in one run when they are fewer, and in
  // chunks on the side lane, beside the G1 MSMs, when they are more; the room it frees goes to the
  // shifted sets (H's first; docs/gpu.md).
  double b2_lane_share = 1;
  unsigned b2_host_threads = 0;    // 0: every core
  unsigned host_busy_threads = 0;  // threads that synthesize beside B2 (the engine's synthesizers)
  // Seed rates for "auto" (seconds per point measured elsewhere, e.g. `cuzk bench msm`; the host's
  // on an idle host, scaled here by the synthesizers' share of the cores); 0: measured by a probe.
  double b2_host_s_per_point = 0, b2_device_s_per_point = 0;
  compact_kernel_options compact;  // a, b, c from the witness (a key's compact evaluator)
};

// A key's placement on a device of the backend's options (resident, partly resident or streamed),
// for reports such as `cuzk doctor` and `cuzk status`: the plan's kind and its one-line description.
struct placement_report {
  std::string kind, line;
  std::uint64_t device_bytes = 0;  // the key's grant on the device with it
  bool fits = true;
};

class cuda_backend : public zk::groth16::backend {
 public:
  explicit cuda_backend(cuda_options opt = {});
  ~cuda_backend() override;
  std::string name() const override;  // "cuda" for device 0, "cuda:N" for device N

  void compute_h(std::span<zk::groth16::fr> a, std::span<zk::groth16::fr> b, std::span<zk::groth16::fr> c,
                 std::span<zk::groth16::scalar> h) override;
  zk::groth16::g1_jacobian msm_g1(std::span<const zk::groth16::g1_affine> bases,
                                  std::span<const zk::groth16::scalar> scalars) override;
  zk::groth16::g2_jacobian msm_g2(std::span<const zk::groth16::g2_affine> bases,
                                  std::span<const zk::groth16::scalar> scalars) override;

  // Staged inputs live in device memory: the witness is uploaded once for the four MSMs that read
  // it, h never leaves the device, and the five MSMs run back to back with one synchronization.
  std::unique_ptr<zk::groth16::staged_inputs> stage(zk::groth16::synthesis&& syn,
                                                    std::span<const zk::groth16::scalar> witness) override;
  std::unique_ptr<zk::groth16::stager> make_stager() override;
  std::shared_ptr<zk::groth16::host_pinner> pinner() override;  // its stagers' (cuda_pinner)
  std::unique_ptr<zk::groth16::staged_inputs> synthesize(const zk::groth16::constraint_evaluator& pce,
                                                         std::span<const zk::groth16::scalar> witness,
                                                         const zk::groth16::resident_key* resident = nullptr) override;
  // snarkjs keys: h on the odd coset; bellperson keys: the coset-7 h and the density-filtered
  // A/B queries (the witness gathered at their wires on the device). Both on the device.
  zk::groth16::proof_sums prove_sums(const zk::groth16::key_points& key, zk::groth16::staged_inputs& in,
                                     zk::groth16::prove_timings* t = nullptr) override;
  bool takes_file_points() const override { return true; }  // file_points.cuh
  // bellperson's h (backend.hpp) on the device: the coset NTTs with roots and coset from 7.
  void compute_h_coset(std::span<zk::groth16::fr> a, std::span<zk::groth16::fr> b, std::span<zk::groth16::fr> c,
                       std::span<zk::groth16::scalar> h) override;

  // A device key (gpu/src/device_key.cuh): the key's points, their shifted sets as the options
  // allow (and `sets`), bellperson wires, and with pce the constraint matrices; its bytes() are its
  // device memory. resident_bytes: its bytes at most plus a proof's MSM and NTT scratch.
  std::unique_ptr<zk::groth16::resident_key> load_key(const zk::groth16::key_points& key,
                                                      const zk::groth16::constraint_evaluator* pce = nullptr,
                                                      bool sets = true) override;
  std::uint64_t resident_bytes(const zk::groth16::key_points& key, bool sets = true,
                               const zk::groth16::constraint_evaluator* pce = nullptr) const override;
  // Where load_key would put `key` here (placement_plan.hpp), with the grant it takes.
  placement_report placement(const zk::groth16::key_points& key,
                                    const zk::groth16::constraint_evaluator* pce = nullptr) const;
  // The device's staging slots (shared with its stagers, gpu/src/staging.cuh) for `count` staged
  // proofs of `bytes` (zk::groth16::staged_bytes), made now in the device's free memory less the
  // safety margin; idle slots of other sizes go back first when they do not fit.
  unsigned reserve_staging(std::uint64_t bytes, unsigned count) override;
  // The reserve step's proof scratch for `key` resident here (key.resident: this backend's device
  // key): both MSM lanes' arenas, the work buffer, the result slots and the NTT tables, sized by the
  // functions prove_device sizes them with, made in the device's free memory less the margin (idle
  // staging slots go back first); the rest is made by the first proof. Returns the scratch held.
  std::uint64_t reserve_proof(const zk::groth16::key_points& key) override;
  // a, b, c of a compact recorded evaluator computed on the device from a canonical witness (the
  // evaluator uploaded for this call), read back: tests and benchmarks. kernel_ms: the kernels'
  // time (CUDA events).
  // kernel: the kernel's options (null: the backend's).
  zk::groth16::synthesis evaluate_compact(const zk::groth16::pce_compact& e, std::span<const zk::groth16::scalar> w,
                                          double* kernel_ms = nullptr, const compact_kernel_options* kernel = nullptr);
  // The same kernel timed at a circuit's scale (`cuzk bench abc`): the evaluator, the witness and
  // `want` (the host's a, b, c) uploaded once; each of `kernels` run warmup + reps times, each run on
  // an output poisoned first (CUDA events around the kernels; median of the reps), and its last
  // a, b, c compared with `want` on the device, element by element.
  struct compact_timing {
    compact_kernel_options kernel;
    double median_ms = 0, min_ms = 0, max_ms = 0;
    std::uint64_t elements_differing = 0;  // of a, b, c against want (3 x the domain size)
  };
  std::vector<compact_timing> time_compact(const zk::groth16::pce_compact& e, std::span<const zk::groth16::scalar> w,
                                           const zk::groth16::synthesis& want,
                                           std::span<const compact_kernel_options> kernels, int reps, int warmup);
  // Host -> device uploads of `bytes` through the staging path a stager takes
  // (staging_context::upload, on the backend's upload stream; wall time to the stream's end), from
  // pageable memory (copied through the two pinned staging buffers) and from the same memory pinned
  // as the engine pins a key's kept witness (cuda_pinner: one DMA); each checked byte for byte by
  // reading the device copy back (`cuzk bench upload`). Random contents, never zeros.
  struct upload_timing {
    double pageable_ms = 0, pageable_min_ms = 0, pinned_ms = 0, pinned_min_ms = 0, pin_ms = 0;
    bool pageable_ok = false, pinned_ok = false;
  };
  upload_timing time_upload(std::size_t bytes, int reps, int warmup);
  // Device bytes a device key made here spends on shifted sets beyond its plain copies.
  static std::size_t shifted_bytes(const zk::groth16::resident_key& key);

  // Device-resident entry points (benchmarks, tests): pointers are device memory. `shifted` runs
  // on shifted sets of these bases, one set of bases at a time (made again when other bases come;
  // shift_bases_device makes them ahead and returns their window bits; release_caches drops them).
  // `sets`: how many shifted sets (2 .. the windows; groups of windows share them, msm.cuh), 0:
  // one per window. One template over the curve (G1: zk::bls12_381::g1_curve, G2: g2_curve, both
  // instantiated in probes.cu), as msm.cuh has one MSM for both.
  template <class Curve>
  zk::jacobian_t<Curve> msm_device(const void* bases, const void* scalars, std::size_t n, bool shifted = false,
                                   unsigned sets = 0);
  unsigned shift_bases_device(const void* bases, std::size_t n, bool g2, unsigned sets = 0);
  // In-place natural-order NTT / inverse NTT (1/n included) of 2^log_n Fr (Montgomery) on the device,
  // with snarkjs's roots (root_generator 5) or bellperson's (7: sppark's too, cuzk_sppark_check).
  void ntt_device(void* data, unsigned log_n, bool inverse, std::uint64_t root_generator = 5);
  // compute_h on device vectors; h ends in a (canonical).
  void compute_h_device(void* a, void* b, void* c, unsigned log_n);
  // One run of op ("forward", "inverse" or "h": compute_h on a, b, c) with an event after each
  // launch: per launch its name and milliseconds.
  std::vector<std::pair<std::string, double>> ntt_profile_device(const std::string& op, void* a, void* b, void* c,
                                                                 unsigned log_n);
  void synchronize();
  // Runs fn warmup times, then reps times between CUDA events on the backend's stream (fn's device
  // work goes there; host work in fn counts too): per-run milliseconds.
  std::vector<double> time_ms(int warmup, int reps, const std::function<void()>& fn);
  // Drops the benchmark's shifted sets, scratch and work vectors (device memory back).
  void release_caches();
  // The MSM variants of cuda_options (msm_acc_blocks, msm_segment_split, force_window_bits for
  // plain bases, msm_g2_smem, msm_g2_pair_add, msm_g2_pair_seg) switched between runs, so that a
  // benchmark compares them on the same bases and shifted sets.
  void set_msm_variant(unsigned acc_blocks, bool segment_split, unsigned window_bits, bool g2_smem,
                       unsigned g2_pair_add, bool g2_pair_seg);
  // The ones' lane of a standalone split MSM (cuda_options::msm_ones_start and the next two), and
  // cuda_options::msm_whole_waves.
  void set_msm_ones(cuda_options::ones_start start, bool urgent, unsigned points, bool whole_waves);

  struct impl;

 private:
  std::unique_ptr<impl> impl_;
};

// Device memory helpers for benchmarks and tests.
void* device_alloc(std::size_t bytes);
void device_free(void* p);
void copy_to_device(void* dst, const void* src, std::size_t bytes);
void copy_to_host(void* dst, const void* src, std::size_t bytes);

// The synthetic SRS generator (zk/groth16/synthetic_srs.hpp) run on `device`, its points copied
// back (tests compare them with the host generator's). lanes 0: the generator's own rule.
std::vector<zk::bls12_381::g1_affine> synthetic_g1_on_device(int device, std::uint64_t seed, std::uint32_t sec,
                                                             std::size_t n, std::uint64_t lanes = 0);
std::vector<zk::bls12_381::g2_affine> synthetic_g2_on_device(int device, std::uint64_t seed, std::uint32_t sec,
                                                             std::size_t n, std::uint64_t lanes = 0);

// A bellperson .params section's bytes (G1 96 or G2 192 bytes a point, the file's form) converted
// and checked on `device` as a device key's upload does (file_points.cuh), brought back: the points
// in our layout and the index of the first bad one (SIZE_MAX when none). Tests compare them with
// the host decoder's.
template <class Aff>
struct file_points_result {
  std::vector<Aff> points;
  std::size_t first_bad = SIZE_MAX;
};
file_points_result<zk::bls12_381::g1_affine> file_g1_on_device(int device, std::span<const std::uint8_t> bytes);
file_points_result<zk::bls12_381::g2_affine> file_g2_on_device(int device, std::span<const std::uint8_t> bytes);

// Takes device `device`'s memory beyond `limit` bytes for this process until it exits (one
// allocation, once per device; later calls keep the first limit), so that the process cannot use
// more than `limit` there. Returns the bytes held back (0: the device is no larger than the limit).
std::size_t hold_vram_limit(int device, std::size_t limit);
// Device allocations this process made (every device): cudaMalloc calls (the backend's buffers,
// staging slots included) and stream-ordered cudaMallocAsync calls (the backend makes none since
// staged inputs take kept staging slots), with their bytes. A steady state of proofs adds none:
// every buffer a proof uses is kept from the previous one (cuzk_gpu_tests "[alloc]").
struct allocation_counts {
  std::uint64_t malloc_calls = 0, malloc_bytes = 0, async_calls = 0, async_bytes = 0;
};
allocation_counts device_allocations();

// Host memory the CUDA stagers' pinner page-locked (zk/groth16/host_pinner.hpp): ranges pinned now,
// their bytes, and pins made since the start.
struct pinned_counts {
  std::uint64_t ranges = 0, bytes = 0, pins = 0;
};
pinned_counts pinned_host();

}  // namespace cuzk::gpu
