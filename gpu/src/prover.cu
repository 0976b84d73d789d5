// The CUDA backend's prover: h and the five MSMs of a proof on a device key and device-staged
// inputs, with one synchronization; MSM chunking by free memory; the host-array entry points. The
// device's resources are its device_context; a key's points are a device_key the caller holds (or,
// without one, made for this proof and dropped after it). The benchmark and probe entry points are
// probes.cu, through prover_parts.cuh.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <future>
#include <map>
#include <thread>
#include <tuple>
#include <type_traits>

#include "common.cuh"
#include "cuzk/gpu/cuda_backend.hpp"
#include "device_context.cuh"
#include "device_key.cuh"
#include "msm.cuh"
#include "msm_entry.hpp"
#include "ntt.cuh"
#include "prover_parts.cuh"
#include "staging.cuh"
#include "synthesis.cuh"
#include "compact_evaluator.cuh"
#include "zk/error.hpp"
#include "zk/groth16/b2_plan.hpp"
#include "zk/groth16/pce.hpp"
#include "zk/groth16/pce_compact.hpp"
#include "zk/ntt/domain.hpp"

namespace cuzk::gpu {

using namespace zk::bls12_381;
using zk::groth16::scalar;

struct cuda_backend::impl {
  cuda_options opt;
  device_context ctx;
  ntt_engine ntt;     // snarkjs's roots
  ntt_engine ntt_bp;  // bellperson's
  cudaEvent_t stage_ev[7] = {};  // prove_sums: start, h, A, B1, B2, C, H
  cudaEvent_t abc_ev = nullptr;  // prove_sums of a witness-only input: a, b, c evaluated
  cudaEvent_t entry_ev = nullptr;  // prove_sums: its entry on the compute stream (prove_timings::before_lane)
  dbuf<uint64_t> scalars;        // msm_g1/msm_g2's host scalars
  dbuf<fr_d> h_vectors;          // compute_h's a, b, c: kept across calls (a cudaFree would synchronize)
  int* split_counts = nullptr;    // pinned: the counts of up to split_max vectors (4 each)
  cudaEvent_t split_ev = nullptr;  // on the compute stream: the counts are on the host
  static constexpr std::size_t split_max = 4;
  // B2's host part (zk/groth16/b2_plan.hpp): its thread pool (made at the first use), the rates
  // measured on earlier proofs per key (by B2 point count) and the gathered scalars' scratch.
  std::unique_ptr<zk::thread_pool> b2_pool;
  std::map<std::size_t, zk::groth16::b2_rates> b2_measured;
  std::vector<scalar> b2_gathered;
  bench_sets bench;  // the benchmarks' shifted sets (prover_parts.cuh)

  // Under a VRAM limit the process takes the rest of the card before it allocates anything.
  static cuda_options limited(cuda_options o) {
    if (o.vram_limit_bytes) hold_vram_limit(o.device, o.vram_limit_bytes);
    return o;
  }
  explicit impl(cuda_options o)
      : opt(limited(o)),
        ctx(o.device, o.staging_bytes, o.safety_margin),
        ntt(zk::bls12_381::fr_snarkjs_generator, o.ntt_threads, o.ntt_uniform_roots, o.ntt_compiled_shapes,
            o.ntt_fused_reversal),
        ntt_bp(zk::ntt::bellperson_generator, o.ntt_threads, o.ntt_uniform_roots, o.ntt_compiled_shapes,
               o.ntt_fused_reversal) {
    for (auto& e : stage_ev) CUZK_CUDA(cudaEventCreate(&e));
    CUZK_CUDA(cudaEventCreate(&abc_ev));
    CUZK_CUDA(cudaEventCreate(&entry_ev));
    CUZK_CUDA(cudaEventCreateWithFlags(&split_ev, cudaEventDisableTiming));
    CUZK_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&split_counts), 4 * split_max * sizeof(int), cudaHostAllocDefault));
    CUZK_CUDA(cudaStreamCreateWithFlags(&up, cudaStreamNonBlocking));
    for (auto* e : {&buf_free[0], &buf_free[1], &buf_loaded[0], &buf_loaded[1]})
      CUZK_CUDA(cudaEventCreateWithFlags(e, cudaEventDisableTiming));
    std::size_t free_now = 0, total = 0;
    CUZK_CUDA(cudaMemGetInfo(&free_now, &total));
    outside_bytes = total - free_now;
  }
  ~impl() {
    cudaSetDevice(opt.device);
    cudaDeviceSynchronize();
    for (auto e : stage_ev)
      if (e) cudaEventDestroy(e);
    if (split_ev) cudaEventDestroy(split_ev);
    if (abc_ev) cudaEventDestroy(abc_ev);
    if (entry_ev) cudaEventDestroy(entry_ev);
    if (split_counts) cudaFreeHost(split_counts);
    for (auto e : {buf_free[0], buf_free[1], buf_loaded[0], buf_loaded[1]})
      if (e) cudaEventDestroy(e);
    if (up) cudaStreamDestroy(up);
  }

  shift_policy policy() const {
    return {opt.shifted_bases_bytes, opt.keep_free_bytes, opt.force_window_bits != 0};
  }
  // The G1 lane's length (its longest MSM) and B2's, as prove_device runs them.
  static std::size_t g1_length(const zk::groth16::key_points& key) {
    return std::max(key.c.size() + key.n_private_from, key.bellperson ? key.h.size() + 1 : key.h.size());
  }
  std::size_t b2_lane(const zk::groth16::key_points& key) const {
    return b2_lane_points(key.b2.size(), opt.b2_lane_share);
  }
  // `p` with the MSM lanes' scratch per section and S sets (key_placement.hpp's lane_scratch): the
  // shapes prove_device's lanes take (G1 at the longest G1 run, B2 at b2_lane_points).
  shift_policy with_lanes(const zk::groth16::key_points& key, shift_policy p) const {
    const std::size_t g1_len = g1_length(key), nb = b2_lane(key);
    p.lane_scratch = [this, g1_len, nb](int k, unsigned S, unsigned c) -> std::size_t {
      const bool g2 = k == 2;
      const std::size_t len = g2 ? nb : g1_len;
      if (!len) return 0;
      return msm_lane_scratch(g2, len, ctx.sms, S > 1 ? c : opt.force_window_bits, S, opt.msm_segment_length,
                              opt.msm_affine_lanes);
    };
    return p;
  }
  // The policy for `key` (key_placement.hpp): one budget for the plan (resident_bytes: the grant)
  // and the load (load_key: its room check). The room is the VRAM budget (the engine's, else the
  // device's memory less the safety margin) less the key's plain form, a proof's plain scratch,
  // staged_partitions staged partitions and keep_free; the plan counts each section's sets and what
  // they add to their MSM lane's scratch against it, so that no MSM of a proof runs in chunks for
  // want of scratch. An explicit shifted_bases_bytes above the room is trimmed to it (as "as much
  // as fits", SIZE_MAX). From the device's total memory, not what is free now: the same for
  // resident_bytes and load_key, so that the grant is the key.
  shift_policy policy_for(const zk::groth16::key_points& key, const zk::groth16::constraint_evaluator* pce) const {
    shift_policy p = with_lanes(key, policy());
    const std::size_t nv = key.c.size() + key.n_private_from, n = key.bellperson ? key.h.size() + 1 : key.h.size();
    p.staged = std::size_t(opt.staged_partitions) * zk::groth16::staged_bytes(n, nv, pce && pce->compact());
    p.fixed_scratch = proof_fixed_scratch(key);
    if (!p.budget || p.window_forced) return p;
    const std::size_t cap = device_cap();
    const std::size_t plain = device_key_bytes(key, shift_policy{}, pce) + proof_scratch_bytes(key, shift_policy{}) +
                              p.staged + p.keep_free;
    p.room = cap > plain ? cap - plain : 0;
    return p;
  }

  // The device bytes the plans count on: the device's size less what was taken before this
  // backend planned anything (the CUDA context, its own buffers, a VRAM limit's hold: measured at
  // construction) and the safety margin, and at most the engine's VRAM budget. Not what is free
  // now: the grant (resident_bytes) and the load plan the same key alike.
  std::size_t outside_bytes = 0;
  std::size_t device_cap() const {
    std::size_t free_now = 0, total = 0;
    CUZK_CUDA(cudaSetDevice(opt.device));
    CUZK_CUDA(cudaMemGetInfo(&free_now, &total));
    total = total > outside_bytes ? total - outside_bytes : 0;
    std::size_t cap = total > ctx.safety_margin ? total - ctx.safety_margin : 0;
    if (opt.vram_budget_bytes) cap = std::min(cap, opt.vram_budget_bytes);
    return cap;
  }

  // A key's placement on this device and the grant it takes (placement_plan.hpp). Resident when its
  // points, a proof's whole scratch, the staged partitions and its fixed parts (wires, a compact
  // evaluator and its a, b, c) fit the cap; else plan_placement in what the fixed parts and a
  // proof's scratch at the chunk's length leave. bytes: the grant (resident: with the sets of
  // `sets`, as before).
  struct key_grant {
    placement_plan plan;
    std::uint64_t bytes = 0;
  };
  key_grant placement_for(const zk::groth16::key_points& key, const zk::groth16::constraint_evaluator* pce,
                          bool sets) const {
    const std::size_t ns[5] = {key.a.size(), key.b1.size(), key.b2.size(), key.c.size(), key.h.size()};
    constexpr std::size_t pbs[5] = {96, 96, 192, 96, 96};
    std::size_t points = 0;
    for (int k = 0; k < 5; ++k) points += ns[k] * pbs[k];
    const std::size_t nv = key.c.size() + key.n_private_from, n = key.bellperson ? key.h.size() + 1 : key.h.size();
    const std::size_t staged = std::size_t(opt.staged_partitions) * zk::groth16::staged_bytes(n, nv, pce && pce->compact());
    const std::size_t parts = device_key_bytes(key, shift_policy{}, pce) - points;  // wires, evaluator, a, b, c
    const std::size_t cap = device_cap();
    key_grant g;
    const std::size_t whole = parts + points + proof_scratch_bytes(key, shift_policy{}) + staged + opt.keep_free_bytes;
    if (!opt.key_room_bytes && whole <= cap) {
      g.plan = plan_placement(ns, pbs, SIZE_MAX);
      const shift_policy p = sets ? policy_for(key, pce) : shift_policy{};
      g.bytes = device_key_bytes(key, p, pce) + proof_scratch_bytes(key, p);
      return g;
    }
    // Not whole: the MSMs run over the sections in runs (their lanes' scratch at the run's length).
    // The longest run with which every point stays on the device, else runs and chunks of
    // stream_chunk_points (default 2^22) with the rest streamed.
    auto lanes_at = [&](std::size_t run) -> std::size_t {
      const std::size_t g1 = std::min(g1_length(key), run), b2 = std::min(key.b2.size(), run);
      return (g1 ? msm_lane_scratch(false, g1, ctx.sms, opt.force_window_bits, 1, opt.msm_segment_length,
                                    opt.msm_affine_lanes)
                 : 0) +
             (b2 ? msm_lane_scratch(true, b2, ctx.sms, opt.force_window_bits, 1, opt.msm_segment_length,
                                    opt.msm_affine_lanes)
                 : 0);
    };
    auto plan_at = [&](std::size_t run, std::size_t& lanes) {
      lanes = lanes_at(run);
      const std::size_t beside = parts + lanes + proof_fixed_scratch(key) + staged + opt.keep_free_bytes;
      const std::size_t room = opt.key_room_bytes ? opt.key_room_bytes : cap > beside ? cap - beside : 0;
      placement_plan pl = plan_placement(ns, pbs, room, run);
      if (pl.kind == key_placement::resident) pl.chunk = run;  // resident, in runs of `run`
      return pl;
    };
    const std::size_t chunk_most = opt.stream_chunk_points ? opt.stream_chunk_points : std::size_t(1) << 22;
    std::size_t lanes = 0;
    if (!opt.stream_chunk_points)
      for (std::size_t run = std::size_t(1) << 27; run > chunk_most; run >>= 1) {
        if (run >= g1_length(key)) continue;
        g.plan = plan_at(run, lanes);
        if (g.plan.kind == key_placement::resident) break;
      }
    if (g.plan.chunk == 0 || g.plan.kind != key_placement::resident) g.plan = plan_at(chunk_most, lanes);
    g.bytes = parts + g.plan.device_bytes() + lanes + proof_fixed_scratch(key);
    if (!g.plan.fits) g.bytes = std::max<std::uint64_t>(g.bytes, std::uint64_t(cap) + 1);  // refused: larger than the device
    return g;
  }

  msm_shape shape_of(std::size_t len, const msm_bases& mb) const {
    msm_shape sh = mb.stride ? make_msm_shape(len, ctx.sms, mb.c, mb.sets, opt.msm_segment_length, opt.msm_affine_lanes)
                             : make_msm_shape(len, ctx.sms, opt.force_window_bits, 1, opt.msm_segment_length,
                                              opt.msm_affine_lanes);
    sh.acc_blocks = opt.msm_acc_blocks;
    sh.seg_split = opt.msm_segment_split;
    sh.g2_smem = opt.msm_g2_smem;
    sh.g2_pair_add = opt.msm_g2_pair_add;
    sh.g2_pair_seg = opt.msm_g2_pair_seg;
    sh.whole_waves = opt.msm_whole_waves;
    return sh;
  }
  template <bool G2>
  std::size_t scratch_need(std::size_t len, const msm_bases& mb) const {
    auto sh = shape_of(len, mb);
    return G2 ? msm_g2_scratch(sh) : msm_g1_scratch(sh);
  }
  // Points per device run so that the scratch in `ar` fits next to what is allocated (and, when
  // `reserve` is given, next to that many more bytes another lane will take).
  template <bool G2>
  std::size_t chunk_points(std::size_t n, const msm_bases& mb, arena& ar, std::size_t reserve = 0) {
    if (opt.force_msm_chunk) return std::min(n, opt.force_msm_chunk);
    std::size_t avail = ctx.free_bytes() + ar.capacity();
    avail = avail > reserve ? avail - reserve : 0;
    std::size_t chunk = n;
    for (;;) {
      std::size_t need = scratch_need<G2>(chunk, mb);
      if (need <= avail) {
        if (need > ar.capacity()) ctx.make_room(need - ar.capacity() + reserve);
        return chunk;
      }
      if (chunk <= 1024) throw std::runtime_error("cuda msm: not enough device memory even for a small chunk");
      chunk = (chunk + 1) / 2;
    }
  }
  template <bool G2>
  std::size_t chunk_points(std::size_t n, const msm_bases& mb) {
    return chunk_points<G2>(n, mb, ctx.scratch);
  }
  static std::size_t chunks_of(std::size_t n, std::size_t chunk) { return n ? (n + chunk - 1) / chunk : 0; }

  // Enqueues sum s_i b_i in chunks of `chunk` points; chunk j's sum goes to slot first + j.
  // (A chunk of shifted bases is the same point range of every set: the stride stays.)
  template <bool G2>
  void msm_enqueue(const msm_bases& mb, const uint64_t* dscalars, std::size_t n, std::size_t chunk, std::size_t first,
                   arena& ar, cudaStream_t st) {
    constexpr std::size_t aff_bytes = G2 ? 192 : 96;
    for (std::size_t off = 0, j = first; off < n; off += chunk, ++j) {
      std::size_t len = std::min(chunk, n - off);
      auto sh = shape_of(len, mb);
      const void* b = static_cast<const unsigned char*>(mb.ptr) + off * aff_bytes;
      void* out = ctx.result.get() + j * device_context::result_slot_bytes;
      if (G2) ::cuzk::gpu::msm_g2_device(b, dscalars + 4 * off, sh, mb.stride, ar, out, st);
      else ::cuzk::gpu::msm_g1_device(b, dscalars + 4 * off, sh, mb.stride, ar, out, st);
    }
  }
  template <bool G2>
  void msm_enqueue(const msm_bases& mb, const uint64_t* dscalars, std::size_t n, std::size_t chunk, std::size_t first) {
    msm_enqueue<G2>(mb, dscalars, n, chunk, first, ctx.scratch, ctx.compute);
  }
  // Scalars that are bits. A scalar vector that MSMs read (a proof's witness, or the A / B wires'
  // gathered witness) is split once on the device (msm_split_scalars): index lists of its ones and
  // of its other nonzero scalars, and the counts, read back with one small copy while compute_h
  // runs. Each MSM over it (or over a suffix of it: C reads the witness from n_private_from on)
  // then sums the points of its ones without buckets (one result slot) and runs the bucket method
  // on its others only (a slot per chunk); zeros cost nothing.
  struct split_vec {
    const uint64_t* scalars = nullptr;
    std::size_t n = 0, cut = 0;  // cut: the start of the suffix an MSM reads (0: none)
    uint32_t* ones = nullptr;
    uint32_t* others = nullptr;
    int* counts = nullptr;  // device: ones, others, and of each how many below cut
    int host[4] = {};       // the counts, after split_read
  };
  // One MSM's part of a split vector: entry j of a list is scalar j and point j - base.
  struct split_view {
    const uint64_t* scalars = nullptr;
    const uint32_t* ones = nullptr;
    std::size_t n1 = 0;
    const uint32_t* others = nullptr;
    std::size_t n2 = 0;
    uint32_t base = 0;
    const uint64_t* dense = nullptr;  // every scalar of the range is neither 0 nor 1: the plain MSM on these
  };
  static split_view view_of(const split_vec& v, bool suffix) {
    split_view w;
    w.scalars = v.scalars;
    std::size_t o1 = suffix ? std::size_t(v.host[2]) : 0, o2 = suffix ? std::size_t(v.host[3]) : 0;
    w.ones = v.ones + o1;
    w.n1 = std::size_t(v.host[0]) - o1;
    w.others = v.others + o2;
    w.n2 = std::size_t(v.host[1]) - o2;
    w.base = suffix ? uint32_t(v.cut) : 0;
    if (w.n2 == v.n - (suffix ? v.cut : 0)) w.dense = v.scalars + 4 * (suffix ? v.cut : 0);
    return w;
  }
  // The vectors' lists, counts and CUB temp: their bytes, and their places in `mem` (a part of the
  // context's work buffer, kept across proofs).
  static std::size_t split_align(std::size_t b) { return (b + 255) & ~std::size_t(255); }
  static std::size_t split_bytes(std::span<split_vec* const> vs) {
    if (vs.size() > split_max) throw std::logic_error("cuda msm: too many split vectors");
    std::size_t temp = 0, bytes = split_align(4 * split_max * sizeof(int));
    for (auto* v : vs) temp = std::max(temp, msm_split_temp_bytes(v->n)), bytes += 2 * split_align(v->n * 4);
    return bytes + split_align(temp);
  }
  void split_place(std::span<split_vec* const> vs, void* mem) {
    auto* p = static_cast<unsigned char*>(mem);
    int* counts = reinterpret_cast<int*>(p);
    p += split_align(4 * split_max * sizeof(int));
    for (std::size_t k = 0; k < vs.size(); ++k) {
      vs[k]->counts = counts + 4 * k;
      vs[k]->ones = reinterpret_cast<uint32_t*>(p);
      p += split_align(vs[k]->n * 4);
      vs[k]->others = reinterpret_cast<uint32_t*>(p);
      p += split_align(vs[k]->n * 4);
    }
    split_temp = p;
  }
  void* split_temp = nullptr;
  // The splits on st, then their counts to the host (split_ev marks them there).
  void split_enqueue(std::span<split_vec* const> vs, cudaStream_t st) {
    if (vs.empty()) return;
    for (auto* v : vs) msm_split_scalars(v->scalars, v->n, v->cut, v->ones, v->others, v->counts, split_temp, st);
    CUZK_CUDA(cudaMemcpyAsync(split_counts, vs[0]->counts, 4 * vs.size() * sizeof(int), cudaMemcpyDeviceToHost, st));
    CUZK_CUDA(cudaEventRecord(split_ev, st));
  }
  void split_read(std::span<split_vec* const> vs) {
    if (vs.empty()) return;
    CUZK_CUDA(cudaEventSynchronize(split_ev));
    for (std::size_t k = 0; k < vs.size(); ++k) std::memcpy(vs[k]->host, split_counts + 4 * k, sizeof vs[k]->host);
  }
  static std::size_t split_slots(const split_view& v, std::size_t chunk) {
    return v.dense ? chunks_of(v.n2, chunk) : 1 + chunks_of(v.n2, chunk);
  }
  // Enqueues one MSM over a split view: the ones' sum into slot `first`, then the others in chunks
  // (split_slots slots in all). Bases are the whole section (indices are global). With `ones`, the
  // ones' sum runs there instead (a second stream and its own arena), beside the others on st
  // from the moment their last chunk's points are accumulated (or sorted: at_sort), and st waits
  // for it at the end: the sum's additions fill the SMs that the bucket method's latency-bound
  // stages (slot levels, segment starts, window sums, the window combination on one thread) leave
  // idle. (Started with the others on a stream of the same priority, its blocks would hold the
  // SMs first and overlap nothing but itself; with the others on a stream of greater priority,
  // their pending blocks go first and the sum takes what they leave.)
  struct ones_lane {
    arena* ar;
    cudaStream_t st;
    cudaEvent_t ready, done;  // on the MSM's stream after the accumulation (or the sort), on st after the sum
    bool at_sort = false;     // ready once the others are sorted, not accumulated
    unsigned points = 0;      // points per thread of the sum (msm_sum_partials)
  };
  template <bool G2>
  void msm_enqueue_split(const msm_bases& mb, const split_view& v, std::size_t chunk, std::size_t first, arena& ar,
                         cudaStream_t st, const ones_lane* ones = nullptr) {
    if (v.dense) return msm_enqueue<G2>(mb, v.dense, v.n2, chunk, first, ar, st);
    // Few others: shifted sets' one large bucket reduction costs more than the plain method on
    // set 0 (the plain copy) with a window for their number (msm_common.cu's cost model), when
    // its scratch fits in what the chunk was planned for.
    const msm_bases plain{mb.ptr};
    const bool to_plain = mb.stride && !opt.force_window_bits && v.n2 &&
                          msm_plain_cost(v.n2) < msm_shifted_cost(v.n2, mb.c, mb.sets) &&
                          scratch_need<G2>(std::min(chunk, v.n2), plain) <= scratch_need<G2>(chunk, mb);
    const msm_bases& others = to_plain ? plain : mb;
    void* const ones_out = ctx.result.get() + first * device_context::result_slot_bytes;
    auto sum_ones = [&](arena& sum_ar, cudaStream_t sum_st, unsigned points) {
      if (G2) ::cuzk::gpu::msm_g2_sum(mb.ptr, v.ones, v.n1, v.base, sum_ar, ones_out, sum_st, points);
      else ::cuzk::gpu::msm_g1_sum(mb.ptr, v.ones, v.n1, v.base, sum_ar, ones_out, sum_st, points);
    };
    if (!ones || !v.n2) sum_ones(ar, st, 0);
    for (std::size_t off = 0, j = first + 1; off < v.n2; off += chunk, ++j) {
      std::size_t len = std::min(chunk, v.n2 - off);
      auto sh = shape_of(len, others);
      if (ones && off + len == v.n2) (ones->at_sort ? sh.sorted : sh.accumulated) = ones->ready;
      void* out = ctx.result.get() + j * device_context::result_slot_bytes;
      if (G2) ::cuzk::gpu::msm_g2_device(mb.ptr, v.scalars, sh, others.stride, ar, out, st, v.others + off, v.base);
      else ::cuzk::gpu::msm_g1_device(mb.ptr, v.scalars, sh, others.stride, ar, out, st, v.others + off, v.base);
    }
    if (ones && v.n2) {
      CUZK_CUDA(cudaStreamWaitEvent(ones->st, ones->ready, 0));
      sum_ones(*ones->ar, ones->st, ones->points);
      CUZK_CUDA(cudaEventRecord(ones->done, ones->st));
      CUZK_CUDA(cudaStreamWaitEvent(st, ones->done, 0));
    }
  }

  // Copies `slots` results to the host after the compute stream's work (one synchronization).
  void read_results(std::size_t slots) {
    if (!slots) return;
    CUZK_CUDA(cudaMemcpyAsync(ctx.result_host.data(), ctx.result.get(), slots * device_context::result_slot_bytes,
                              cudaMemcpyDeviceToHost, ctx.compute));
    CUZK_CUDA(cudaStreamSynchronize(ctx.compute));
  }
  template <class Jac, class Xyzz>
  Jac sum_results(std::size_t first, std::size_t count) const {
    Jac total = Jac::identity();
    for (std::size_t j = first; j < first + count; ++j) {
      Xyzz r;
      std::memcpy(&r, ctx.result_host.data() + j * device_context::result_slot_bytes, sizeof r);
      total += r.to_jacobian();
    }
    return total;
  }
  template <bool G2, class Jac, class Xyzz>
  Jac msm_resident(const msm_bases& mb, const uint64_t* dscalars, std::size_t n) {
    if (n == 0) return Jac::identity();
    if (opt.msm_split_bits) {
      split_vec v;
      v.scalars = dscalars;
      v.n = n;
      split_vec* vs[] = {&v};
      split_place(vs, ctx.work_buffer(split_bytes(vs), "cuda msm: the split of the scalars"));
      split_enqueue(vs, ctx.compute);
      split_read(vs);
      const split_view w = view_of(v, false);
      // Ones and others both: the ones' sum on the side lane (idle outside a proof, whose B2 it
      // runs), its arena planned beside the others' scratch (cuda_options::msm_ones_start).
      using start = cuda_options::ones_start;
      const unsigned points = opt.msm_ones_points;
      const std::size_t ones_need = opt.msm_ones_start == start::serial || w.dense || !w.n1 || !w.n2
                                        ? 0
                                        : msm_sum_scratch_bytes(w.n1, sizeof(Xyzz), points);
      const std::size_t grow = ones_need > ctx.side_scratch.capacity() ? ones_need : 0;
      std::size_t chunk = chunk_points<G2>(std::max<std::size_t>(w.n2, 1), mb, ctx.scratch, grow),
                  count = split_slots(w, chunk);
      ctx.ensure_result_slots(count);
      if (grow) ctx.make_room(grow);
      const ones_lane lane{&ctx.side_scratch, ctx.side, ctx.lane_ready, ctx.side_done,
                           opt.msm_ones_start == start::sorted, points};
      // The others on the greatest-priority stream: the sum's blocks wait while theirs are pending.
      const bool urgent = ones_need && opt.msm_ones_urgent;
      if (urgent) {
        CUZK_CUDA(cudaEventRecord(ctx.urgent_ready, ctx.compute));
        CUZK_CUDA(cudaStreamWaitEvent(ctx.urgent, ctx.urgent_ready, 0));
      }
      msm_enqueue_split<G2>(mb, w, chunk, 0, ctx.scratch, urgent ? ctx.urgent : ctx.compute,
                            ones_need ? &lane : nullptr);
      if (urgent) {
        CUZK_CUDA(cudaEventRecord(ctx.urgent_done, ctx.urgent));
        CUZK_CUDA(cudaStreamWaitEvent(ctx.compute, ctx.urgent_done, 0));
      }
      read_results(count);
      return sum_results<Jac, Xyzz>(0, count);
    }
    std::size_t chunk = chunk_points<G2>(n, mb), count = chunks_of(n, chunk);
    ctx.ensure_result_slots(count);
    msm_enqueue<G2>(mb, dscalars, n, chunk, 0);
    read_results(count);
    return sum_results<Jac, Xyzz>(0, count);
  }

  // A proof's G1 lane (one scratch arena for A, B1, C and H, run one after the other): its scratch
  // is planned for the most demanding of the four MSMs at the lane's length (g1_length), on the
  // device key's bases (plain or shifted). prove_device and the reserve step size it here.
  struct g1_lane {
    msm_bases most;
    std::size_t need = 0;
  };
  g1_lane g1_lane_of(const device_key& dk, std::size_t g1_len) const {
    g1_lane r{dk.a.bases()};
    for (const msm_bases& mb : {dk.a.bases(), dk.b1.bases(), dk.c.bases(), dk.h.bases()})
      if (const std::size_t need = scratch_need<false>(g1_len, mb); need > r.need) r = {mb, need};
    return r;
  }
  // A proof's work buffer (device_context::work): the witness gathered at a bellperson key's A and
  // B wires, then the split's lists (split_bytes), sized for B2's cut vector whether a proof's B2
  // plan cuts or not (the plan follows measured rates), so the size is the key's and never grows
  // later. 0: the proof needs none. prove_device and the reserve step size it here.
  static std::size_t gathered_bytes_of(const zk::groth16::key_points& key) {
    return key.bellperson ? split_align((key.a_wires.size() + key.b_wires.size()) * 32) : 0;
  }
  std::size_t work_bytes(const zk::groth16::key_points& key) const {
    const bool bp = key.bellperson;
    const std::size_t nv = key.c.size() + key.n_private_from;
    const std::size_t na = bp ? key.a_wires.size() : nv, nb = bp ? key.b_wires.size() : nv;
    if (!opt.msm_split_bits) return gathered_bytes_of(key);
    split_vec sv[4];
    sv[0].n = na;
    sv[1].n = nb;
    sv[2].n = nv;
    sv[3].n = nb;
    std::vector<split_vec*> most = bp ? std::vector<split_vec*>{&sv[0], &sv[1], &sv[2]} : std::vector<split_vec*>{&sv[0]};
    if (nb) most.push_back(&sv[3]);
    return gathered_bytes_of(key) + split_bytes(most);
  }

  // The reserve step's proof scratch (backend::reserve_proof) for `key`, resident here as `dk`: the
  // G1 lane's arena (g1_lane_of), the B2 lane's (the side lane, at b2_lane_points: all of B2's
  // points unless b2_lane_share says fewer, the key's grant's lane), the work buffer (work_bytes), the result
  // slots of an unchunked proof (each MSM: its ones' sum and one chunk) and the NTT's tables, each
  // grown only while the device's free memory less the margin (idle staging slots included: they
  // go back first) holds it. The device's memory is the key's grant here (resident_bytes counts
  // the proof's scratch), so this takes no one else's room; what does not fit is made by the first
  // proof as before. Never throws for want of room. Returns the scratch the context holds now.
  std::uint64_t reserve_proof(const zk::groth16::key_points& key, const device_key& dk) {
    const std::size_t g1_len = g1_length(key);
    if (g1_len == 0) return 0;
    auto fits = [this](std::size_t extra) {
      if (extra > ctx.free_bytes()) return false;
      ctx.make_room(extra);
      return true;
    };
    auto grow = [&](arena& ar, std::size_t need) {
      if (need <= ar.capacity() || !fits(need - ar.capacity())) return;
      CUZK_CUDA(cudaStreamSynchronize(ctx.compute));  // an earlier proof's lanes may still use it
      CUZK_CUDA(cudaStreamSynchronize(ctx.side));
      ar.reserve(need);
    };
    grow(ctx.scratch, g1_lane_of(dk, g1_len).need);
    if (const std::size_t nb = b2_lane(key)) grow(ctx.side_scratch, scratch_need<true>(nb, dk.b2.bases()));
    if (const std::size_t wb = work_bytes(key); wb > ctx.work.bytes() && fits(wb - ctx.work.bytes()))
      ctx.work_buffer(wb, "cuda reserve: the gathered witness and the split of the scalars");
    ctx.ensure_result_slots(5 * 2);
    const std::size_t n = key.bellperson ? key.h.size() + 1 : key.h.size();
    unsigned L = 0;
    while ((std::size_t(1) << L) < n) ++L;
    if (fits(2 * ntt_engine::table_bytes(L))) (key.bellperson ? ntt_bp : ntt).prepare(L, ctx.compute);
    CUZK_CUDA(cudaStreamSynchronize(ctx.compute));
    return scratch_held();
  }
  // The proof scratch the context holds now: both lanes' arenas, the work buffer, the result slots.
  std::uint64_t scratch_held() const {
    return ctx.scratch.capacity() + ctx.side_scratch.capacity() + ctx.work.bytes() + ctx.result.size();
  }

  // The device memory a proof on this key takes beside its device key and staged inputs, at most:
  // both MSM lanes' scratch (for plain or shifted bases, whichever is more: the plan's lanes), and
  // the rest (proof_fixed_scratch).
  std::uint64_t proof_scratch_bytes(const zk::groth16::key_points& key, const shift_policy& p) const {
    if (g1_length(key) == 0) return 0;
    const std::size_t ns[5] = {key.a.size(), key.b1.size(), key.b2.size(), key.c.size(), key.h.size()};
    const shift_policy pl = p.lane_scratch ? p : with_lanes(key, p);
    const sets_plan plan = plan_shifted_sets(ns, {96, 96, 192, 96, 96}, pl);
    return plan.lane[0] + plan.lane[1] + proof_fixed_scratch(key);
  }
  // A proof's scratch beside the two MSM lanes: its work buffer (work_bytes: the witness gathered at
  // a bellperson key's wires, the split of the scalars that are bits), the NTT tables and the
  // result slots.
  std::uint64_t proof_fixed_scratch(const zk::groth16::key_points& key) const {
    const std::size_t n = key.bellperson ? key.h.size() + 1 : key.h.size();
    if (g1_length(key) == 0) return 0;
    unsigned L = 0;
    while ((std::size_t(1) << L) < n) ++L;
    const std::size_t slots = 5 * 64 * device_context::result_slot_bytes;
    return work_bytes(key) + 2 * ntt_engine::table_bytes(L) + slots;
  }

  // A witness-only staging (cuda_staged::witness_only) on `ctx`'s stream when `resident` is a device
  // key of this device holding pce's compact evaluator; null otherwise.
  static std::unique_ptr<zk::groth16::staged_inputs> stage_witness_on(const std::shared_ptr<staging_context>& ctx,
                                                                      const zk::groth16::constraint_evaluator& pce,
                                                                      std::span<const scalar> w,
                                                                      const zk::groth16::resident_key* resident) {
    auto* dk = dynamic_cast<const device_key*>(resident);
    if (!dk || dk->device() != ctx->device || !dk->synthesizes(pce)) return nullptr;
    if (w.size() != pce.n_vars())
      throw zk::input_error("witness has " + std::to_string(w.size()) + " values, the key expects " +
                            std::to_string(pce.n_vars()));
    CUZK_CUDA(cudaSetDevice(ctx->device));
    auto staged = std::make_unique<cuda_staged>(ctx, pce.domain_size(), w.size(), true);
    staged->fill_witness(w);
    return staged;
  }

  // A streamed or partly resident key (device_key::streams): each MSM goes over its section in runs,
  // the device prefix in runs of at most the lane's chunk, the streamed rest in runs of at most the
  // placement's chunk, each copied from pinned host memory into one of the key's two chunk buffers
  // on the `up` stream while the MSM of the run before reads the other (buf_free / buf_loaded order
  // them). With split scalars a run's lists are the entries between the run's two cuts
  // (msm_split_positions, read back with the split's counts): its ones summed, its others by the
  // bucket method, a result slot each where they are not empty.
  struct piece_run {
    std::size_t p0 = 0, p1 = 0;
    bool streamed = false;
  };
  struct piece_msm {
    const device_points* d = nullptr;
    bool g2 = false;
    split_vec* v = nullptr;           // split scalars (null: dense)
    bool suffix = false;              // the view starts at v->cut (C)
    const uint64_t* dense = nullptr;  // no split: the scalar of point p at dense[4 p]
    std::vector<piece_run> runs;
    std::size_t cut_at = 0;           // its cuts' first index in cut_host (runs + 1 of them)
    std::size_t first = 0, count = 0; // result slots
  };
  cudaStream_t up = nullptr;
  cudaEvent_t buf_free[2] = {}, buf_loaded[2] = {};
  dbuf<uint32_t> cut_dev;
  dbuf<int> pos_dev;
  pinned_buf cut_host, pos_host;

  static std::vector<piece_run> runs_of(const device_points& d, std::size_t most) {
    std::vector<piece_run> r;
    most = std::max<std::size_t>(most, 1);
    for (std::size_t p = 0; p < d.on_device; p += most) r.push_back({p, std::min(p + most, d.on_device), false});
    for (std::size_t p = d.on_device; p < d.n; p += most) r.push_back({p, std::min(p + most, d.n), true});
    return r;
  }
  // Enqueues each split MSM's cut positions after the split (compute stream), read back with the
  // split's counts (split_read waits for split_ev, recorded again here).
  void piece_positions(std::vector<piece_msm>& ms) {
    std::size_t cuts = 0;
    for (auto& m : ms)
      if (m.v) m.cut_at = cuts, cuts += m.runs.size() + 1;
    if (!cuts) return;
    if (cut_dev.size() < cuts) {
      ctx.make_room(cuts * (4 + 8));
      cut_dev = dbuf<uint32_t>(cuts);
      pos_dev = dbuf<int>(2 * cuts);
      cut_host = pinned_buf(cuts * 4);
      pos_host = pinned_buf(cuts * 8);
    }
    auto* c = reinterpret_cast<uint32_t*>(cut_host.get());
    for (auto& m : ms) {
      if (!m.v) continue;
      const std::size_t base = m.suffix ? m.v->cut : 0;
      std::size_t j = m.cut_at;
      for (auto& r : m.runs) c[j++] = uint32_t(base + r.p0);
      c[j] = uint32_t(base + m.d->n);
    }
    CUZK_CUDA(cudaMemcpyAsync(cut_dev.get(), c, cuts * 4, cudaMemcpyHostToDevice, ctx.compute));
    for (auto& m : ms)
      if (m.v)
        msm_split_positions(m.v->ones, m.v->others, m.v->counts, cut_dev.get() + m.cut_at, m.runs.size() + 1,
                            pos_dev.get() + 2 * m.cut_at, ctx.compute);
    CUZK_CUDA(cudaMemcpyAsync(pos_host.get(), pos_dev.get(), cuts * 8, cudaMemcpyDeviceToHost, ctx.compute));
    CUZK_CUDA(cudaEventRecord(split_ev, ctx.compute));
  }
  // A run's entries in a split view's lists: [lo, hi) of its ones (k = 0) or others (k = 1), as
  // offsets into the view's lists (which start after the entries below the view's cut).
  std::pair<std::size_t, std::size_t> run_entries(const piece_msm& m, const split_view& w, std::size_t r, int k) const {
    const int* pos = reinterpret_cast<const int*>(pos_host.get()) + 2 * m.cut_at;
    const std::size_t skip = k == 0 ? std::size_t(w.ones - m.v->ones) : std::size_t(w.others - m.v->others);
    return {std::size_t(pos[2 * r + k]) - skip, std::size_t(pos[2 * (r + 1) + k]) - skip};
  }
  // Each MSM's result slots, in order from 0: per run one for its ones and one for its others where
  // they are not empty (split), one per run (dense).
  void piece_slots(std::vector<piece_msm>& ms, const split_view* const (&views)[5]) {
    std::size_t next = 0;
    for (std::size_t k = 0; k < ms.size(); ++k) {
      auto& m = ms[k];
      m.first = next;
      m.count = 0;
      const bool dense = !m.v || views[k]->dense;
      for (std::size_t r = 0; r < m.runs.size(); ++r) {
        if (dense) {
          ++m.count;
          continue;
        }
        auto [o0, o1] = run_entries(m, *views[k], r, 0);
        auto [t0, t1] = run_entries(m, *views[k], r, 1);
        m.count += (o1 > o0) + (t1 > t0);
      }
      next += m.count;
    }
  }
  // The MSMs over their runs on the compute stream; stage[k] recorded after MSM k.
  void enqueue_pieces(const device_key& owner, const std::vector<piece_msm>& ms, const split_view* const (&views)[5],
                      cudaEvent_t* stage) {
    for (auto& e : buf_free) CUZK_CUDA(cudaEventRecord(e, ctx.compute));
    unsigned next_buf = 0;
    for (std::size_t k = 0; k < ms.size(); ++k) {
      const piece_msm& m = ms[k];
      const device_points& d = *m.d;
      const bool dense = !m.v || views[k]->dense;
      const uint64_t* dense_scalars = !m.v ? m.dense : views[k]->dense;
      std::size_t slot = m.first;
      for (std::size_t r = 0; r < m.runs.size(); ++r) {
        const piece_run& run = m.runs[r];
        const std::size_t len = run.p1 - run.p0;
        std::size_t o0 = 0, o1 = 0, t0 = 0, t1 = 0;
        if (!dense) {
          std::tie(o0, o1) = run_entries(m, *views[k], r, 0);
          std::tie(t0, t1) = run_entries(m, *views[k], r, 1);
          if (o1 == o0 && t1 == t0) continue;  // every scalar of the run is zero: no copy either
        }
        // The run's points: the device prefix, or a chunk buffer the run is copied into.
        const unsigned char* pts = d.dev.get();
        std::size_t at = 0;  // the point index pts[0] holds
        unsigned b = 0;
        if (run.streamed) {
          b = next_buf;
          next_buf ^= 1;
          CUZK_CUDA(cudaStreamWaitEvent(up, buf_free[b], 0));
          CUZK_CUDA(cudaMemcpyAsync(owner.stream_buf[b].get(), d.host_point(run.p0), len * d.point_bytes,
                                    cudaMemcpyHostToDevice, up));
          CUZK_CUDA(cudaEventRecord(buf_loaded[b], up));
          CUZK_CUDA(cudaStreamWaitEvent(ctx.compute, buf_loaded[b], 0));
          pts = owner.stream_buf[b].get();
          at = run.p0;
        }
        auto out = [&] { return ctx.result.get() + (slot++) * device_context::result_slot_bytes; };
        if (dense) {
          const msm_shape sh = shape_of(len, msm_bases{});
          const void* p = pts + (run.p0 - at) * d.point_bytes;
          if (m.g2) ::cuzk::gpu::msm_g2_device(p, dense_scalars + 4 * run.p0, sh, 0, ctx.scratch, out(), ctx.compute);
          else ::cuzk::gpu::msm_g1_device(p, dense_scalars + 4 * run.p0, sh, 0, ctx.scratch, out(), ctx.compute);
        } else {
          const split_view& w = *views[k];
          const uint32_t base = uint32_t(w.base + at);  // list entry j: point j - base of pts
          if (o1 > o0) {
            if (m.g2) ::cuzk::gpu::msm_g2_sum(pts, w.ones + o0, o1 - o0, base, ctx.scratch, out(), ctx.compute);
            else ::cuzk::gpu::msm_g1_sum(pts, w.ones + o0, o1 - o0, base, ctx.scratch, out(), ctx.compute);
          }
          if (t1 > t0) {
            const msm_shape sh = shape_of(t1 - t0, msm_bases{});
            if (m.g2)
              ::cuzk::gpu::msm_g2_device(pts, w.scalars, sh, 0, ctx.scratch, out(), ctx.compute, w.others + t0, base);
            else
              ::cuzk::gpu::msm_g1_device(pts, w.scalars, sh, 0, ctx.scratch, out(), ctx.compute, w.others + t0, base);
          }
        }
        if (run.streamed) CUZK_CUDA(cudaEventRecord(buf_free[b], ctx.compute));
      }
      CUZK_CUDA(cudaEventRecord(stage[k], ctx.compute));
    }
  }
  // The device key a proof runs on: the caller's, checked, or one made for this proof only (plain
  // bases: shifted sets cost more to make than one proof saves).
  const device_key& key_for(const zk::groth16::key_points& key, std::unique_ptr<device_key>& temp) {
    if (key.resident) {
      auto* dk = dynamic_cast<const device_key*>(key.resident);
      if (!dk || dk->device() != opt.device || !dk->made_from(key))
        throw std::invalid_argument("cuda prove: the resident key was made for another key or device");
      return *dk;
    }
    temp = std::make_unique<device_key>(ctx, key, shift_policy{});
    return *temp;
  }

  // h and the five MSMs of one proof on inputs staged in device memory: one synchronization.
  zk::groth16::proof_sums prove_device(const zk::groth16::key_points& key, cuda_staged& in,
                                       zk::groth16::prove_timings* t) {
    const auto wall0 = std::chrono::steady_clock::now();
    std::lock_guard lock(ctx.mu);
    CUZK_CUDA(cudaSetDevice(opt.device));
    if (t) CUZK_CUDA(cudaEventRecord(entry_ev, ctx.compute));
    if (in.device() != opt.device) throw std::invalid_argument("cuda prove: inputs staged on another device");
    const std::size_t n = in.n(), nv = in.n_vars(), npf = key.n_private_from;
    const bool bp = key.bellperson;
    const std::size_t na = bp ? key.a_wires.size() : nv, nb = bp ? key.b_wires.size() : nv;
    if (key.h.size() != (bp ? n - 1 : n) || key.a.size() != na || key.b1.size() != nb || key.b2.size() != nb ||
        npf > nv || key.c.size() != nv - npf)
      throw std::invalid_argument("cuda prove: staged inputs do not match the key's sizes");
    unsigned L = 0;
    while ((std::size_t(1) << L) < n) ++L;
    std::unique_ptr<device_key> temp;
    const device_key& dk = key_for(key, temp);  // a first use uploads (staging stream, ordered by event)
    // A witness-only input: a, b, c are evaluated into the device key's vectors (its compact
    // evaluator) at the start of the proof, in compute-stream order after the previous proof.
    const bool abc_here = in.witness_only();
    if (abc_here && (!dk.abc.get() || dk.compact.view.n != n || dk.compact.view.n_inputs + dk.compact.view.n_aux != nv))
      throw std::invalid_argument("cuda prove: a witness-only input needs a resident key with its compact evaluator");
    fr_d* const v[3] = {abc_here ? dk.abc_vec(0) : in.vec(0), abc_here ? dk.abc_vec(1) : in.vec(1),
                        abc_here ? dk.abc_vec(2) : in.vec(2)};
    const msm_bases ba = dk.a.bases(), bb1 = dk.b1.bases(), bb2 = dk.b2.bases(), bc = dk.c.bases(),
                    bh = dk.h.bases();
    ntt_engine& engine = bp ? ntt_bp : ntt;
    engine.prepare(L, ctx.compute);
    const std::size_t g1_len = g1_length(key);  // max(nv, n): the sizes are checked above
    const g1_lane lane1 = g1_lane_of(dk, g1_len);
    const std::size_t g1_need = lane1.need;
    // B2's plan: points [0, k2) on the host (a thread beside the device from here on), the rest on
    // the device. The host part needs the witness in host memory (a staging that kept it).
    const std::span<const scalar> host_w = in.host_witness();
    zk::groth16::b2_choice plan = plan_b2(nb);
    auto on_device = [&plan](const char* why) {
      plan.mode = zk::groth16::b2_mode::device;
      plan.host_points = 0;
      plan.predicted_s = plan.predicted_device_s;
      plan.why = why;
    };
    if (plan.host_points && host_w.size() != nv) on_device("device: the staged inputs keep no host witness");
    // A streamed key's MSMs share its chunk buffers, one after the other on the compute stream.
    const bool streams = dk.streams();
    if (plan.host_points && streams) on_device("device: a streamed key's B2 runs on the device");
    // The B2 points in host memory: the key's own, or the hot key's host copy (read back from this
    // device at its first use); neither (a key made for this proof only): B2 stays here.
    std::span<const g2_affine> hb;
    if (plan.host_points) {
      hb = dk.host_b2(ctx);
      if (hb.size() != nb)
        on_device("device: the key's B2 points are not in host memory and it has no host copy (key_points::b2_host)");
    }
    const std::size_t k2 = plan.host_points, d2 = nb - k2;
    std::future<g2_jacobian> host_b2;
    double host_b2_s = 0;
    if (k2) {
      if (!b2_pool) b2_pool = std::make_unique<zk::thread_pool>(opt.b2_host_threads);
      const std::span<const std::uint32_t> wires = bp ? key.b_wires : std::span<const std::uint32_t>{};
      host_b2 = std::async(std::launch::async, [this, hb, host_w, wires, k2, &host_b2_s] {
        auto t0 = std::chrono::steady_clock::now();
        auto r = zk::groth16::b2_host_sum(hb, host_w, wires, 0, k2, *b2_pool, b2_gathered);
        host_b2_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return r;
      });
    }
    // Scalars that are bits: the witness (snarkjs: A, B1, B2 and, from n_private_from on, C read
    // it) or the A and B wires' gathered witness and the witness (bellperson) are split once.
    const bool split = opt.msm_split_bits;
    // A B2 split at k2 < nb reads the B scalars from k2 on: a vector of its own cut there.
    split_vec sv[4];
    std::vector<split_vec*> svs;
    const bool b2_cut = split && k2 > 0 && d2 > 0;
    if (split) {
      sv[0].n = bp ? na : nv;
      sv[0].cut = bp ? 0 : npf;
      sv[1].n = nb;
      sv[2].n = nv;
      sv[2].cut = npf;
      sv[3].n = nb;
      sv[3].cut = k2;
      svs = bp ? std::vector<split_vec*>{&sv[0], &sv[1], &sv[2]} : std::vector<split_vec*>{&sv[0]};
      if (b2_cut) svs.push_back(&sv[3]);
    }
    // The work buffer (kept across proofs, work_bytes): the gathered witness first, then the
    // split's lists.
    const std::size_t gathered_bytes = gathered_bytes_of(key);
    unsigned char* work = nullptr;
    if (const std::size_t wb = work_bytes(key))
      work = ctx.work_buffer(wb, "cuda prove: the gathered witness and the split of the scalars");
    void* gathered = gathered_bytes ? work : nullptr;
    if (split) split_place(svs, work + gathered_bytes);
    // The device's part of B2 (points k2 on: the bases from there, the same shifted layout) gets
    // the side lane when its lane's scratch (b2_lane_points of them: all, unless b2_lane_share
    // says fewer and the rest run in chunks there) fits whole next to the G1 lane's.
    const msm_bases bb2d{static_cast<const unsigned char*>(bb2.ptr) + k2 * 192, bb2.stride, bb2.c, bb2.sets};
    const std::size_t lane2 = std::min(d2, b2_lane(key));
    std::size_t c2 = !d2 ? 1
                     : streams ? chunk_points<true>(std::min(d2, dk.plan.chunk), msm_bases{})
                               : chunk_points<true>(lane2, bb2d, ctx.side_scratch,
                                                    std::max(g1_need, ctx.scratch.capacity()) - ctx.scratch.capacity());
    const bool two_lanes = !streams && d2 && c2 == lane2 && !opt.force_msm_chunk;
    if (d2 && !two_lanes && !streams) c2 = chunk_points<true>(d2, bb2d);
    std::size_t c1 = streams ? chunk_points<false>(std::min(g1_len, dk.plan.chunk), msm_bases{})
                             : chunk_points<false>(g1_len, lane1.most);
    const std::size_t nh = key.h.size();

    const uint64_t* w = in.witness();
    const uint64_t* sa = w;
    const uint64_t* sb = w;
    CUZK_CUDA(cudaStreamWaitEvent(ctx.compute, in.ready(), 0));
    CUZK_CUDA(cudaEventRecord(stage_ev[0], ctx.compute));
    if (abc_here) {
      ::cuzk::gpu::evaluate_compact(dk.compact.view, w, v[0], v[1], v[2], ctx.compute, opt.compact);
      CUZK_CUDA(cudaEventRecord(abc_ev, ctx.compute));
    }
    if (bp) {
      auto* g = static_cast<uint64_t*>(gathered);
      gather_witness(w, dk.a_wires(), na, g, ctx.compute);
      gather_witness(w, dk.b_wires(), nb, g + 4 * na, ctx.compute);
      sa = g;
      sb = g + 4 * na;
    }
    if (split) {
      sv[0].scalars = bp ? sa : w;
      sv[1].scalars = sb;
      sv[2].scalars = w;
      sv[3].scalars = sb;
      split_enqueue(svs, ctx.compute);
    }
    // A streamed key: its MSMs' runs, and where each run's range starts in the split lists.
    std::vector<piece_msm> pieces;
    if (streams) {
      auto pick = [&](split_vec* v, bool suffix, const uint64_t* dense) {
        piece_msm m;
        if (split) m.v = v, m.suffix = suffix;
        else m.dense = dense;
        return m;
      };
      pieces.resize(5);
      pieces[0] = pick(&sv[0], false, sa);
      pieces[1] = pick(bp ? &sv[1] : &sv[0], false, sb);
      pieces[2] = pick(bp ? &sv[1] : &sv[0], false, sb);
      pieces[3] = pick(bp ? &sv[2] : &sv[0], true, w + 4 * npf);
      pieces[4].dense = reinterpret_cast<const uint64_t*>(v[0]);  // h, in a once computed
      const device_points* ds[5] = {&dk.a, &dk.b1, &dk.b2, &dk.c, &dk.h};
      for (int k = 0; k < 5; ++k) {
        pieces[k].d = ds[k];
        pieces[k].g2 = k == 2;
        pieces[k].runs = runs_of(*ds[k], k == 2 ? c2 : c1);
      }
      piece_positions(pieces);
    }
    // The side lane starts here: inputs staged, a first use's points uploaded (the compute stream
    // waits for those by event), wires gathered, scalars split.
    CUZK_CUDA(cudaEventRecord(ctx.lane_ready, ctx.compute));
    if (bp) {
      engine.coset_h(v[0], v[1], v[2], L, ctx.compute);  // h's coefficients end in a
    } else {
      engine.compute_h(v[0], v[1], v[2], L, ctx.compute);  // h (canonical) ends in a
    }
    CUZK_CUDA(cudaEventRecord(stage_ev[1], ctx.compute));
    // The split's counts (read while h is computed) give each MSM its slots.
    split_read(svs);
    split_view va, vb, vc, vb2;
    if (split) {
      va = view_of(sv[0], false);
      vb = view_of(bp ? sv[1] : sv[0], false);
      vc = view_of(bp ? sv[2] : sv[0], true);
      vb2 = b2_cut ? view_of(sv[3], true) : vb;
    }
    std::size_t ka = 0, kb1 = 0, kb2 = 0, kc = 0, kh = 0;
    const split_view* views[5] = {&va, &vb, &vb2, &vc, nullptr};
    if (streams) {
      piece_slots(pieces, views);
      ka = pieces[0].count, kb1 = pieces[1].count, kb2 = pieces[2].count, kc = pieces[3].count;
      kh = pieces[4].count;
    } else {
      ka = split ? split_slots(va, c1) : chunks_of(na, c1);
      kb1 = split ? split_slots(vb, c1) : chunks_of(nb, c1);
      kb2 = !d2 ? 0 : split ? split_slots(vb2, c2) : chunks_of(d2, c2);
      kc = split ? split_slots(vc, c1) : chunks_of(nv - npf, c1);
      kh = chunks_of(nh, c1);
    }
    std::size_t slot_a = 0, slot_b1 = ka, slot_b2 = ka + kb1, slot_c = slot_b2 + kb2, slot_h = slot_c + kc;
    ctx.ensure_result_slots(slot_h + kh);

    if (streams) {
      enqueue_pieces(dk, pieces, views, &stage_ev[2]);
    } else {
      if (split) msm_enqueue_split<false>(ba, va, c1, slot_a, ctx.scratch, ctx.compute);
      else msm_enqueue<false>(ba, sa, na, c1, slot_a);
      CUZK_CUDA(cudaEventRecord(stage_ev[2], ctx.compute));
      if (split) msm_enqueue_split<false>(bb1, vb, c1, slot_b1, ctx.scratch, ctx.compute);
      else msm_enqueue<false>(bb1, sb, nb, c1, slot_b1);
      CUZK_CUDA(cudaEventRecord(stage_ev[3], ctx.compute));
      if (two_lanes) {
        CUZK_CUDA(cudaStreamWaitEvent(ctx.side, ctx.lane_ready, 0));
        CUZK_CUDA(cudaEventRecord(ctx.side_t0, ctx.side));
        if (split) msm_enqueue_split<true>(bb2d, vb2, c2, slot_b2, ctx.side_scratch, ctx.side);
        else msm_enqueue<true>(bb2d, sb + 4 * k2, d2, c2, slot_b2, ctx.side_scratch, ctx.side);
        CUZK_CUDA(cudaEventRecord(ctx.side_t1, ctx.side));
        CUZK_CUDA(cudaEventRecord(ctx.side_done, ctx.side));
      } else if (!d2) {
        // B2 wholly on the host: nothing here.
      } else if (split) {
        msm_enqueue_split<true>(bb2d, vb2, c2, slot_b2, ctx.scratch, ctx.compute);
      } else {
        msm_enqueue<true>(bb2d, sb + 4 * k2, d2, c2, slot_b2);
      }
      CUZK_CUDA(cudaEventRecord(stage_ev[4], ctx.compute));
      if (split) msm_enqueue_split<false>(bc, vc, c1, slot_c, ctx.scratch, ctx.compute);
      else msm_enqueue<false>(bc, w + 4 * npf, nv - npf, c1, slot_c);
      CUZK_CUDA(cudaEventRecord(stage_ev[5], ctx.compute));
      msm_enqueue<false>(bh, reinterpret_cast<const uint64_t*>(v[0]), nh, c1, slot_h);
      CUZK_CUDA(cudaEventRecord(stage_ev[6], ctx.compute));
    }
    if (two_lanes) CUZK_CUDA(cudaStreamWaitEvent(ctx.compute, ctx.side_done, 0));
    in.release_after(ctx.compute);
    read_results(slot_h + kh);

    zk::groth16::proof_sums out;
    out.a = sum_results<g1_jacobian, g1_xyzz>(slot_a, ka);
    out.b1 = sum_results<g1_jacobian, g1_xyzz>(slot_b1, kb1);
    out.b2 = sum_results<g2_jacobian, g2_xyzz>(slot_b2, kb2);
    if (host_b2.valid()) out.b2 += host_b2.get();  // the host's part, where the device's would be
    out.c = sum_results<g1_jacobian, g1_xyzz>(slot_c, kc);
    out.h = sum_results<g1_jacobian, g1_xyzz>(slot_h, kh);
    if (t) {
      // With two lanes the G2 MSM overlaps the G1 MSMs: each figure is that MSM's own span, and
      // they add up to more than the proof took.
      double* fields[6] = {&t->h, &t->msm_a, &t->msm_b1, &t->msm_b2, &t->msm_c, &t->msm_h};
      for (int i = 0; i < 6; ++i) {
        float ms = 0;
        if (i == 3 && two_lanes) CUZK_CUDA(cudaEventElapsedTime(&ms, ctx.side_t0, ctx.side_t1));
        else if (i == 0 && abc_here) CUZK_CUDA(cudaEventElapsedTime(&ms, abc_ev, stage_ev[1]));
        else CUZK_CUDA(cudaEventElapsedTime(&ms, stage_ev[i], stage_ev[i + 1]));
        *fields[i] = ms * 1e-3;
      }
      if (abc_here) {
        float ms = 0;
        CUZK_CUDA(cudaEventElapsedTime(&ms, stage_ev[0], abc_ev));
        t->abc = ms * 1e-3;
      }
    }
    // The B2 figures: into the timings, and back into the key's rates for the next plan.
    float lane_ms = 0;
    CUZK_CUDA(cudaEventElapsedTime(&lane_ms, stage_ev[0], stage_ev[6]));
    float b2_ms = 0;
    if (two_lanes) CUZK_CUDA(cudaEventElapsedTime(&b2_ms, ctx.side_t0, ctx.side_t1));
    else if (d2) CUZK_CUDA(cudaEventElapsedTime(&b2_ms, stage_ev[3], stage_ev[4]));
    const double main_lane = (lane_ms - (two_lanes ? 0.f : b2_ms)) * 1e-3, device_b2 = b2_ms * 1e-3;
    b2_measured[nb].update(d2, device_b2, k2, host_b2_s, main_lane, two_lanes);
    if (t) {
      t->msm_b2 = device_b2;
      t->b2_host = host_b2_s;
      t->main_lane = main_lane;
      t->b2_points = nb;
      t->b2_host_points = k2;
      t->b2_predicted = plan.predicted_s;
      t->b2_predicted_device = plan.predicted_device_s;
      t->b2_predicted_host = plan.predicted_host_s;
      t->b2_device_rate = zk::groth16::b2_points_per_s(plan.rates.device_s);
      t->b2_host_rate = zk::groth16::b2_points_per_s(plan.rates.host_s);
      t->b2_mode = zk::groth16::b2_mode_name(plan.mode);
      t->b2_plan = plan.why;
      float before_ms = 0;
      CUZK_CUDA(cudaEventElapsedTime(&before_ms, entry_ev, stage_ev[0]));
      t->before_lane = before_ms * 1e-3;
      t->msm_h_sets = bh.sets;
      t->g1_chunks = unsigned(chunks_of(g1_len, c1));
      // B2's runs of its bucket method: of its others when split (b2_lane_share below 1 makes
      // more than one when they outnumber the lane's points), else of its points.
      t->b2_chunks = !d2 ? 0 : split ? unsigned(chunks_of(vb2.n2, c2)) : unsigned(chunks_of(d2, c2));
      t->b2_others = split ? vb2.n2 : d2;
      t->sums_wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    }
    return out;
  }

  // B2's plan for a proof with nb points (zk/groth16/b2_plan.hpp), from the options and the rates
  // measured on this key's earlier proofs (seeded from the options' rates).
  zk::groth16::b2_choice plan_b2(std::size_t nb) {
    auto& r = b2_measured[nb];
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const unsigned threads = opt.b2_host_threads ? opt.b2_host_threads : cores;
    if (r.host_s == 0 && opt.b2_host_s_per_point > 0)
      r.host_s = opt.b2_host_s_per_point * zk::groth16::b2_host_slowdown(threads, opt.host_busy_threads, cores);
    if (r.device_s == 0 && opt.b2_device_s_per_point > 0) r.device_s = opt.b2_device_s_per_point;
    return zk::groth16::choose_b2(opt.b2, nb, r, threads, opt.b2_split_share);
  }

  // An MSM on host arrays: the bases are uploaded for this call only (a key kept on the device is
  // a device_key, made by load_key).
  template <bool G2, class Jac, class Xyzz, class Aff>
  Jac msm_host(std::span<const Aff> b, std::span<const scalar> s) {
    if (b.size() != s.size()) throw std::invalid_argument("cuda msm: bases and scalars differ in length");
    std::lock_guard lock(ctx.mu);
    CUZK_CUDA(cudaSetDevice(opt.device));
    if (b.empty()) return Jac::identity();
    dbuf<unsigned char> bases = ctx.alloc(b.size_bytes(), "cuda msm: the bases");
    ctx.upload_async(bases.get(), b.data(), b.size_bytes());
    if (scalars.size() < 4 * s.size()) {
      scalars.reset();
      ctx.make_room(s.size_bytes());
      scalars = dbuf<uint64_t>(4 * s.size());
    }
    ctx.upload_async(scalars.get(), s.data(), s.size_bytes());
    return msm_resident<G2, Jac, Xyzz>(msm_bases{bases.get()}, scalars.get(), s.size());
  }
};

prover_parts parts_of(cuda_backend::impl& I) { return {I.opt, I.ctx, I.ntt, I.ntt_bp, I.bench}; }
template <class Curve>
zk::jacobian_t<Curve> msm_on_device(cuda_backend::impl& I, const msm_bases& mb, const uint64_t* scalars,
                                    std::size_t n) {
  return I.msm_resident<std::is_same_v<Curve, g2_curve>, zk::jacobian_t<Curve>, zk::xyzz_t<Curve>>(mb, scalars, n);
}
template g1_jacobian msm_on_device<g1_curve>(cuda_backend::impl&, const msm_bases&, const uint64_t*, std::size_t);
template g2_jacobian msm_on_device<g2_curve>(cuda_backend::impl&, const msm_bases&, const uint64_t*, std::size_t);

cuda_backend::cuda_backend(cuda_options opt) : impl_(std::make_unique<impl>(opt)) {}
std::string cuda_backend::name() const {
  return impl_->opt.device == 0 ? "cuda" : "cuda:" + std::to_string(impl_->opt.device);
}
cuda_backend::~cuda_backend() = default;

static unsigned log2_exact(std::size_t n, const char* what) {
  if (n == 0 || (n & (n - 1))) throw std::invalid_argument(std::string(what) + ": size must be a power of two");
  unsigned l = 0;
  while ((std::size_t(1) << l) < n) ++l;
  return l;
}

namespace {
// a, b, c uploaded to `v` (3n, kept by the caller), each vector's transform starting as soon as it
// is on the device.
template <class Transform>
void h_on_device(device_context& ctx, dbuf<fr_d>& v, std::span<fr> a, std::span<fr> b, std::span<fr> c, unsigned L,
                 ntt_engine& engine, Transform per_vector) {
  const std::size_t n = a.size();
  if (v.size() < 3 * n) {
    v.reset();
    std::size_t need = 3 * n * sizeof(fr_d) + ntt_engine::table_bytes(L);
    if (need > ctx.free_bytes()) ctx.release_scratch();
    if (need > ctx.free_bytes()) throw std::runtime_error("cuda compute_h: the three vectors do not fit in device memory");
    ctx.make_room(need);
    v = dbuf<fr_d>(3 * n);
  }
  engine.prepare(L, ctx.compute);
  std::span<fr> hv[3] = {a, b, c};
  for (int i = 0; i < 3; ++i) {
    ctx.upload_async(v.get() + i * n, hv[i].data(), n * sizeof(fr));
    per_vector(v.get() + i * n);
  }
}
}  // namespace

void cuda_backend::compute_h(std::span<fr> a, std::span<fr> b, std::span<fr> c, std::span<scalar> h) {
  std::size_t n = a.size();
  if (b.size() != n || c.size() != n || h.size() != n)
    throw std::invalid_argument("cuda compute_h: a, b, c and h differ in length");
  unsigned L = log2_exact(n, "cuda compute_h");
  auto& I = *impl_;
  std::lock_guard lock(I.ctx.mu);
  CUZK_CUDA(cudaSetDevice(I.opt.device));
  h_on_device(I.ctx, I.h_vectors, a, b, c, L, I.ntt, [&](fr_d* v) { I.ntt.to_odd_coset(v, L, I.ctx.compute); });
  fr_d* d = I.h_vectors.get();
  I.ntt.combine_h(d, d + n, d + 2 * n, L, I.ctx.compute);
  I.ctx.download(h.data(), d, n * sizeof(scalar));
}

void cuda_backend::compute_h_coset(std::span<fr> a, std::span<fr> b, std::span<fr> c, std::span<scalar> h) {
  std::size_t n = a.size();
  if (n < 2 || b.size() != n || c.size() != n || h.size() + 1 < n)
    throw std::invalid_argument("cuda compute_h_coset: a, b, c must share one length n >= 2, h at least n - 1");
  unsigned L = log2_exact(n, "cuda compute_h_coset");
  auto& I = *impl_;
  std::lock_guard lock(I.ctx.mu);
  CUZK_CUDA(cudaSetDevice(I.opt.device));
  h_on_device(I.ctx, I.h_vectors, a, b, c, L, I.ntt_bp, [](fr_d*) {});
  fr_d* d = I.h_vectors.get();
  I.ntt_bp.coset_h(d, d + n, d + 2 * n, L, I.ctx.compute);
  I.ctx.download(h.data(), d, (n - 1) * sizeof(scalar));
}

std::unique_ptr<zk::groth16::staged_inputs> cuda_backend::stage(zk::groth16::synthesis&& syn,
                                                               std::span<const scalar> witness) {
  return stage_on(impl_->ctx.staging, std::move(syn), witness);
}

std::unique_ptr<zk::groth16::staged_inputs> cuda_backend::synthesize(const zk::groth16::constraint_evaluator& pce,
                                                                    std::span<const scalar> witness,
                                                                    const zk::groth16::resident_key* resident) {
  if (witness.size() != pce.n_vars())
    throw zk::input_error("witness has " + std::to_string(witness.size()) + " values, the key expects nVars = " +
                          std::to_string(pce.n_vars()));
  auto& I = *impl_;
  // A compact evaluator (zk/groth16/pce_compact.hpp): the witness alone when the resident key holds
  // the evaluator's device form (a, b, c then evaluated inside the proof); otherwise the evaluator
  // is uploaded for this call and a, b, c evaluated into the staged inputs.
  if (pce.compact()) {
    if (auto s = I.stage_witness_on(I.ctx.staging, pce, witness, resident)) return s;
    std::lock_guard lock(I.ctx.mu);
    CUZK_CUDA(cudaSetDevice(I.opt.device));
    const device_compact temp = upload_compact(I.ctx, *pce.compact());
    const std::size_t n = pce.domain_size();
    auto staged = std::make_unique<cuda_staged>(I.ctx.staging, n, witness.size());
    staged->put_witness(witness);
    ::cuzk::gpu::evaluate_compact(temp.view, staged->witness(), staged->vec(0), staged->vec(1), staged->vec(2), staged->stream(),
                                  I.opt.compact);
    CUZK_CUDA(cudaEventRecord(staged->ready(), staged->stream()));
    CUZK_CUDA(cudaEventSynchronize(staged->ready()));  // before the temporary evaluator goes
    return staged;
  }
  std::lock_guard lock(I.ctx.mu);
  CUZK_CUDA(cudaSetDevice(I.opt.device));
  // The key's matrices when it holds them (load_key with this evaluator), else uploaded for this
  // call (on the staging stream, before the witness).
  auto* dk = dynamic_cast<const device_key*>(resident);
  device_key::matrices temp;
  const device_key::matrices* m = nullptr;
  if (dk && dk->device() == I.opt.device && dk->pce.source == &pce) m = &dk->pce;
  else m = &(temp = device_key::upload_matrices(I.ctx, pce));
  const std::size_t n = pce.domain_size();
  auto staged = std::make_unique<cuda_staged>(I.ctx.staging, n, witness.size());
  staged->put_witness(witness);
  synthesize_device(m->a, m->b, staged->vec(3), n, staged->vec(0), staged->vec(1), staged->vec(2), staged->stream());
  CUZK_CUDA(cudaEventRecord(staged->ready(), staged->stream()));
  // Waited for here, so that the prover's synthesis time is the synthesis (the proof would wait
  // for it anyway), and a temporary copy of the matrices can go.
  CUZK_CUDA(cudaEventSynchronize(staged->ready()));
  return staged;
}

zk::groth16::synthesis cuda_backend::evaluate_compact(const zk::groth16::pce_compact& e, std::span<const scalar> w,
                                                      double* kernel_ms, const compact_kernel_options* kernel) {
  if (w.size() != e.n_inputs() + e.n_aux())
    throw zk::input_error("witness has " + std::to_string(w.size()) + " values, the recorded circuit " +
                          std::to_string(e.n_inputs() + e.n_aux()));
  auto& I = *impl_;
  std::lock_guard lock(I.ctx.mu);
  CUZK_CUDA(cudaSetDevice(I.opt.device));
  const device_compact dc = upload_compact(I.ctx, e);
  const std::size_t n = e.domain_size();
  dbuf<unsigned char> wd = I.ctx.alloc(w.size_bytes(), "cuda evaluate_compact: the witness");
  dbuf<unsigned char> out = I.ctx.alloc(3 * n * sizeof(fr_d), "cuda evaluate_compact: a, b, c");
  I.ctx.upload_async(wd.get(), w.data(), w.size_bytes());
  auto* v = reinterpret_cast<fr_d*>(out.get());
  CUZK_CUDA(cudaEventRecord(I.ctx.t0, I.ctx.compute));
  ::cuzk::gpu::evaluate_compact(dc.view, reinterpret_cast<const uint64_t*>(wd.get()), v, v + n, v + 2 * n, I.ctx.compute,
                                kernel ? *kernel : I.opt.compact);
  CUZK_CUDA(cudaEventRecord(I.ctx.t1, I.ctx.compute));
  zk::groth16::synthesis s;
  s.a.resize(n);
  s.b.resize(n);
  s.c.resize(n);
  I.ctx.download(s.a.data(), v, n * sizeof(fr_d));
  I.ctx.download(s.b.data(), v + n, n * sizeof(fr_d));
  I.ctx.download(s.c.data(), v + 2 * n, n * sizeof(fr_d));
  CUZK_CUDA(cudaStreamSynchronize(I.ctx.compute));
  if (kernel_ms) {
    float ms = 0;
    CUZK_CUDA(cudaEventElapsedTime(&ms, I.ctx.t0, I.ctx.t1));
    *kernel_ms = ms;
  }
  return s;
}

std::unique_ptr<zk::groth16::staged_inputs> cuda_stager::stage_witness(const zk::groth16::constraint_evaluator& pce,
                                                                      std::span<const scalar> w,
                                                                      const zk::groth16::resident_key* resident) {
  return cuda_backend::impl::stage_witness_on(ctx_, pce, w, resident);
}

std::unique_ptr<zk::groth16::stager> cuda_backend::make_stager() {
  return std::make_unique<cuda_stager>(
      std::make_shared<staging_context>(impl_->opt.device, impl_->opt.staging_bytes, impl_->ctx.slots));
}

// Its stagers' pinner, asked of a stager (one place says how a CUDA upload's host memory is pinned).
std::shared_ptr<zk::groth16::host_pinner> cuda_backend::pinner() { return cuda_stager(nullptr).pinner(); }

zk::groth16::proof_sums cuda_backend::prove_sums(const zk::groth16::key_points& key, zk::groth16::staged_inputs& in,
                                                 zk::groth16::prove_timings* t) {
  if (auto* dev = dynamic_cast<cuda_staged*>(&in)) return impl_->prove_device(key, *dev, t);
  // Host-staged inputs go to the device first: one path for every proof.
  auto* host = dynamic_cast<zk::groth16::host_staged*>(&in);
  if (!host) throw std::invalid_argument(name() + " backend: inputs staged by another backend");
  auto staged = stage_on(impl_->ctx.staging, std::move(host->syn), host->witness);
  return impl_->prove_device(key, static_cast<cuda_staged&>(*staged), t);
}

std::unique_ptr<zk::groth16::resident_key> cuda_backend::load_key(const zk::groth16::key_points& key,
                                                                  const zk::groth16::constraint_evaluator* pce,
                                                                  bool sets) {
  auto& I = *impl_;
  std::lock_guard lock(I.ctx.mu);
  CUZK_CUDA(cudaSetDevice(I.opt.device));
  const auto grant = I.placement_for(key, pce, sets);
  auto dk = std::make_unique<device_key>(I.ctx, key, sets ? I.policy_for(key, pce) : shift_policy{}, pce, &grant.plan);
  CUZK_CUDA(cudaStreamSynchronize(I.ctx.compute));  // loaded when this returns
  return dk;
}

std::uint64_t cuda_backend::resident_bytes(const zk::groth16::key_points& key, bool sets,
                                           const zk::groth16::constraint_evaluator* pce) const {
  return impl_->placement_for(key, pce, sets).bytes;
}

placement_report cuda_backend::placement(const zk::groth16::key_points& key,
                                         const zk::groth16::constraint_evaluator* pce) const {
  const auto g = impl_->placement_for(key, pce, true);
  placement_report r;
  r.kind = placement_name(g.plan.kind);
  r.device_bytes = g.bytes;
  r.fits = g.plan.fits;
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s: %.1f GB of points on the device, %.1f GB streamed a proof", r.kind.c_str(),
                double(g.plan.device_points_bytes) / 1e9, double(g.plan.host_bytes) / 1e9);
  r.line = g.plan.fits ? buf : "does not fit: the device cannot hold even the stream buffers beside a proof";
  return r;
}

unsigned cuda_backend::reserve_staging(std::uint64_t bytes, unsigned count) {
  auto& I = *impl_;
  CUZK_CUDA(cudaSetDevice(I.opt.device));
  return I.ctx.slots->reserve(std::size_t(bytes), count, I.ctx.safety_margin);
}

std::uint64_t cuda_backend::reserve_proof(const zk::groth16::key_points& key) {
  auto& I = *impl_;
  std::lock_guard lock(I.ctx.mu);
  CUZK_CUDA(cudaSetDevice(I.opt.device));
  auto* dk = dynamic_cast<const device_key*>(key.resident);
  if (!dk || dk->device() != I.opt.device || !dk->made_from(key)) return 0;
  try {
    return I.reserve_proof(key, *dk);
  } catch (const std::exception&) {
    // A device allocation that failed after all (the room was there when asked): what is made
    // stays, the rest is made by the first proof; the load does not fail for it.
    cudaGetLastError();
    return I.scratch_held();
  }
}

std::size_t cuda_backend::shifted_bytes(const zk::groth16::resident_key& key) {
  auto* dk = dynamic_cast<const device_key*>(&key);
  return dk ? dk->shifted_bytes() : 0;
}

g1_jacobian cuda_backend::msm_g1(std::span<const g1_affine> bases, std::span<const scalar> scalars) {
  return impl_->msm_host<false, g1_jacobian, g1_xyzz>(bases, scalars);
}
g2_jacobian cuda_backend::msm_g2(std::span<const g2_affine> bases, std::span<const scalar> scalars) {
  return impl_->msm_host<true, g2_jacobian, g2_xyzz>(bases, scalars);
}

void cuda_backend::release_caches() {
  std::lock_guard lock(impl_->ctx.mu);
  CUZK_CUDA(cudaSetDevice(impl_->opt.device));
  impl_->ctx.release_scratch();
  impl_->bench = {};
  impl_->scalars.reset();
  impl_->h_vectors.reset();
}

}  // namespace cuzk::gpu
