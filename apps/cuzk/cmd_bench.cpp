// `cuzk bench`: GPU primitive benchmarks (gpu/src/bench.cpp does the work).
//   cuzk bench msm --curve g1|g2 --log-size 20,22,24,26 [--resident [--shifted] [--sets S,...]] [--scalars random|bits90|bits99|ones]
//                  [--no-split] [--affine-lanes N] [--acc-blocks 0|4] [--one-segment-kernel] [--window-bits C]
//                  [--variants xyzz,acc4,split,acc4+split+c21,...]
//                  [--reps N] [--warmup N]
//   cuzk bench ntt --log-size 20,24,26,27
//   cuzk bench h   --log-size 20,24          (compute_h on device-resident vectors)
//   cuzk bench prove <zkey> <wtns> [--backend auto|cpu|cuda] [--shifted-bases off|auto|SIZE] [--reps N]
//                    [--warmup N]
//                                             (whole proofs from one loaded key, by stage)
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "client/client.hpp"
#include "bench_shape.hpp"
#include "commands.hpp"
#include "zk/error.hpp"
#include "zk/groth16/backend_registry.hpp"
#include "zk/groth16/prover.hpp"
#include "zk/groth16/random.hpp"
#include "zk/groth16/verifier.hpp"
#include "zk/io/snarkjs_json.hpp"
#include "zk/io/wtns.hpp"
#include "zk/io/zkey.hpp"

#ifdef CUZK_HAVE_GPU
#include "cuzk/gpu/bench.hpp"
#endif

namespace cuzk::cli {

namespace {

struct prove_bench_options {
  std::string zkey, wtns, backend = "auto", proof, pub, shifted = "off", b2 = "device";
  unsigned reps = 5, warmup = 1, b2_threads = 0;
  double b2_share = 0;
};

// "40GiB", "512MiB", "4096": bytes; nullopt for anything else.
std::optional<std::uint64_t> size_in_bytes(const std::string& v) {
  std::size_t pos = 0;
  double x = 0;
  try {
    x = std::stod(v, &pos);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  const std::string unit = v.substr(pos);
  const std::pair<const char*, double> units[] = {{"", 1}, {"B", 1}, {"KiB", 0x1p10}, {"MiB", 0x1p20}, {"GiB", 0x1p30}, {"TiB", 0x1p40}};
  for (auto [name, scale] : units)
    if (unit == name && x >= 0) return std::uint64_t(x * scale);
  return std::nullopt;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Loads the key once, then proves `warmup + reps` times with one backend object and verifies every
// proof. On a GPU the key's points (and constraint matrices) are loaded onto the device before
// the first proof and held for all of them (a device key, as the daemon's key store holds one),
// with the reserve step the engine's device actor takes (zk::groth16::load_for_proofs: the proof's
// scratch and a staging slot), so that the first proof allocates nothing; that load is printed
// apart. Prints, per stage, the first and the median of the timed runs.
int prove_bench(const prove_bench_options& o) {
  namespace g16 = zk::groth16;
  std::string backend_name = g16::resolve_backend_name(o.backend);
  auto t0 = now_ns();
  auto key = zk::io::zkey::load(o.zkey);
  double t_key = seconds_since(t0);
  auto wit = zk::io::witness::load(o.wtns);
  zk::io::check_witness_matches(key, wit);
  t0 = now_ns();
  auto pce = g16::constraint_evaluator::build(key);
  double t_pce = seconds_since(t0);
  g16::backend_settings bs;
  if (o.shifted == "auto") bs.shifted_bases_bytes = g16::backend_settings::as_much_as_fits;
  else if (o.shifted != "off") bs.shifted_bases_bytes = *size_in_bytes(o.shifted);  // checked by the option
  bs.b2 = g16::parse_b2_mode(o.b2);  // checked by the option
  bs.b2_split_share = o.b2_share;
  bs.b2_host_threads = o.b2_threads;
  auto be = g16::make_backend(backend_name, bs);
  t0 = now_ns();
  auto resident = g16::load_for_proofs(*be, g16::points_of(key), pce);  // with the engine's reserve step
  double t_load = seconds_since(t0);
  std::printf("prove bench: %s, %u rows (domain 2^%u), %u wires, backend %s, shifted bases %s; key load %.3f s, "
              "pce build %.3f s, onto the device with its proof's scratch %.3f s (%.2f GiB)\n",
              o.zkey.c_str(), key.n_rows, key.log_domain, key.n_vars, backend_name.c_str(), o.shifted.c_str(), t_key,
              t_pce, t_load, resident ? double(resident->bytes()) / double(1ull << 30) : 0.0);
  // With the CUDA backend, "stage" is the upload of a, b, c and the witness, and h and the MSMs are
  // device times between CUDA events (the five run back to back with one synchronization).
  // B2's rows (--b2): the device part (side lane or main stream) and the host part's wall time,
  // the main lane (h and the G1 MSMs, B2's device part beside them or not) and the host's share.
  const char* names[] = {"synthesis", "stage (inputs to the device)", "h", "msm A", "msm B1", "msm B2 (device part)", "msm C",
                         "msm H", "assemble", "verify", "witness to verified proof", "B2 host part (wall)",
                         "main lane (h + G1 MSMs)", "B2 points on the host (%)"};
  constexpr int n_stages = 14;
  std::vector<double> first(n_stages);
  std::vector<std::vector<double>> timed(n_stages);
  unsigned runs = o.warmup + o.reps;
  if (runs == 0) runs = 1;
  for (unsigned i = 0; i < runs; ++i) {
    g16::prove_timings t;
    auto tw = now_ns();
    auto proof = g16::prove(key, pce, wit, g16::random_randomness(), *be, &t, resident.get());
    auto pub = g16::public_inputs(key, wit);
    auto tv = now_ns();
    bool valid = g16::verify(key.vk, pub, proof);
    double t_verify = seconds_since(tv), t_total = seconds_since(tw);
    if (!valid) {
      std::fprintf(stderr, "error: proof %u does not verify\n", i);
      return exit_proof_failed;
    }
    double row[n_stages] = {t.synthesis, t.stage, t.h, t.msm_a, t.msm_b1, t.msm_b2, t.msm_c, t.msm_h, t.assemble, t_verify,
                            t_total, t.b2_host, t.main_lane,
                            t.b2_points ? 0.1 * double(t.b2_host_points) / double(t.b2_points) : 0};
    if (!t.b2_mode.empty()) {
      std::printf("proof %u: B2 %s, %zu of %zu points on the host: %s\n", i, t.b2_mode.c_str(), t.b2_host_points,
                  t.b2_points, t.b2_plan.c_str());
    }
    for (int k = 0; k < n_stages; ++k) {
      if (i == 0) first[k] = row[k];
      if (i >= o.warmup || o.warmup + o.reps == 0) timed[k].push_back(row[k]);
    }
    if (i + 1 == runs && !o.proof.empty()) {
      namespace js = zk::io::snarkjs;
      write_file_atomically(o.proof, js::dump(js::proof_to_json(proof)));
      if (!o.pub.empty()) write_file_atomically(o.pub, js::dump(js::public_to_json(pub)));
    }
  }
  std::printf("| stage | first proof (ms) | median of %zu (ms) |\n|---|---|---|\n", timed[0].size());
  for (int k = 0; k < n_stages; ++k)
    std::printf("| %s | %.1f | %.1f |\n", names[k], first[k] * 1e3, median(timed[k]) * 1e3);
  std::printf("all %u proofs verified\n", runs);
  return exit_ok;
}

void register_prove_bench(CLI::App* sub) {
  auto opt = std::make_shared<prove_bench_options>();
  auto* p = sub->add_subcommand("prove", "whole Groth16 proofs from one loaded key, time by stage");
  p->add_option("zkey", opt->zkey, "proving key (.zkey)")->required();
  p->add_option("wtns", opt->wtns, "witness (.wtns)")->required();
  p->add_option("--backend", opt->backend, "auto | cpu | cuda");
  p->add_option("--reps", opt->reps, "timed proofs (median reported)");
  p->add_option("--warmup", opt->warmup, "untimed proofs first (the first uploads the key to a GPU)");
  p->add_option("--shifted-bases", opt->shifted,
                "precomputed shifted copies of the key's bases on a GPU: off, auto (as many as fit) or a size")
      ->check([](const std::string& v) {
        return v == "off" || v == "auto" || size_in_bytes(v) ? std::string() : "off, auto or a size like 40GiB";
      });
  p->add_option("--b2", opt->b2,
                "where B2 (the G2 MSM) runs on a GPU: device (its second stream), host (the host's cores, beside the GPU), "
                "split (points [0, k) on the host, the rest on the GPU) or auto (the cost model per proof)")
      ->check(CLI::IsMember({"auto", "device", "host", "split"}))
      ->capture_default_str();
  p->add_option("--b2-share", opt->b2_share, "--b2 split: the share of B2's points on the host (0: the cost model's)")
      ->check(CLI::Range(0.0, 1.0));
  p->add_option("--b2-threads", opt->b2_threads, "threads of B2's host part (0: every core)");
  p->add_option("--proof", opt->proof, "write the last proof here (proof.json)");
  p->add_option("--public", opt->pub, "write the last public signals here (public.json)");
  p->callback([opt] {
    run_command([opt]() -> int {
      try {
        return prove_bench(*opt);
      } catch (const std::invalid_argument& e) {  // unknown backend name
        std::cerr << "error: --backend: " << e.what() << "\n";
        return exit_bad_input;
      }
    });
  });
}

}  // namespace

// `cuzk bench fil --addr A --kind wpost|winning|porep (--dir D | --c1 F) --mode single|batch|stress`
void register_fil_bench(CLI::App* bench) {
  auto o = std::make_shared<bench_fil_options>();
  auto* fil = bench->add_subcommand("fil", "Filecoin proofs against a daemon, as Curio sends them: proofs/hour, stage times, "
                                           "device busy, and a timeline SVG next to the JSON results");
  fil->add_option("--addr", o->addr, "daemon address: unix:///path/to.sock or HOST:PORT (not with --shape)");
  fil->add_option("--token", o->token, "bearer token (or $CUZK_TOKEN)");
  fil->add_option("--mode", o->mode, "single (one after another) | batch (--count at once) | stress (--concurrency in flight for --duration)")
      ->capture_default_str();
  fil->add_option("--kind", o->kind, "wpost | winning | porep")->capture_default_str();
  fil->add_option("--dir", o->dir, "wpost/winning: fil-oracle post output (post.json, vanilla-*.bin)");
  fil->add_option("--c1", o->c1, "porep: Curio's C1 wrapper JSON");
  fil->add_option("--miner", o->miner, "porep: miner actor id")->capture_default_str();
  fil->add_option("--count", o->count, "single/batch: proofs")->capture_default_str();
  fil->add_option("--concurrency", o->concurrency, "stress: proofs in flight")->capture_default_str();
  fil->add_option("--duration", o->duration_s, "stress: seconds")->capture_default_str();
  fil->add_option("--out", o->out, "results JSON (the SVG goes next to it)")->capture_default_str();
  fil->add_option("--shape", o->shape,
                  "porep-2KiB|...|porep-64GiB, snap-2KiB|...|snap-64GiB, wpost-2KiB|...|wpost-64GiB: no daemon, an in-process engine "
                  "on a synthetic SRS of that shape generated on the GPU (NOT A SETUP: proofs do not verify) and a "
                  "synthetic C1 (or --c1) / synthetic SnapDeals PartitionProofs / synthetic PoSt sector proofs");
  fil->add_option("--partitions", o->partitions, "--shape: partitions per sector (must be the proof's: 10 at 32 GiB)");
  fil->add_option("--sectors", o->sectors, "--shape: sectors, all submitted at once")->capture_default_str();
  fil->add_option("--seed", o->seed, "--shape: seed of the synthetic C1 and SRS")->capture_default_str();
  fil->add_option("--sector", o->sector, "--shape: the synthetic C1's sector number")->capture_default_str();
  fil->add_option("--evaluator-dir", o->evaluator_dir,
                  "--shape: cache of compact recorded evaluators (default ~/.cache/cuzk/evaluators; recorded once)");
  fil->add_option("--synthesizers", o->synthesizers, "--shape: synthesizer actors")->capture_default_str();
  fil->add_option("--kept-partitions", o->kept_partitions,
                  "--shape: partitions' buffers the key keeps reserved with it (beyond them: one per partition grant it holds)")
      ->capture_default_str();
  fil->add_option("--device-depth", o->device_depth,
                  "--shape: prove requests the device holds at once (2: the next waits in its mailbox; 1: sent on "
                  "the previous one's answer)")
      ->capture_default_str();
  fil->add_option("--alone-below", o->alone_below,
                  "--shape: one synthesis at a time while fewer than this many partitions per device are synthesized "
                  "and not yet proved (1: only while the device has nothing; 0: every synthesizer at once)")
      ->capture_default_str();
  fil->add_flag("--ordered-synthesis", o->ordered_synthesis,
               "--shape: syntheses sharing the pool run in the device's order (the first as if alone, the next on "
               "what it leaves); with --alone-below 0 the next starts beside the first");
  fil->add_option("--staged-partitions", o->staged_partitions,
                  "--shape: partitions the device holds staged at once, its staging slots and the room its key's "
                  "shifted sets leave them (0: max(2, device depth); 3 at depth 2 stages a third, for staging slower than a "
                  "proof, at a partition's room less for the sets)")
      ->capture_default_str();
  fil->add_option("--b2-lane-share", o->b2_lane_share,
                  "--shape: the share of B2's points its GPU lane's scratch is sized for, in (0, 1] (below 1: its "
                  "others in chunks when more, the room to the shifted sets; not yet measured on a device)")
      ->capture_default_str();
  fil->add_option("--shifted-bases", o->shifted, "--shape: off | auto | SIZE")->capture_default_str();
  fil->add_option("--vram-limit", o->vram_limit,
                  "--shape: the device memory the engine may use, as [gpus] vram_limit: off | SIZE (the rest of the card "
                  "is taken first, so the key's placement, staging and scratch are those of a card of that size)")
      ->capture_default_str();
  fil->add_flag("!--host-abc", o->device_synthesis,
                "--shape: a, b, c on the host, staged with the witness (default: on the GPU from the witness)");
  fil->add_option("--device", o->device, "--shape: cuda, or cpu (small shapes; the key's points made on the host)")
      ->capture_default_str();
  fil->add_option("--b2", o->b2,
                  "--shape: where B2 (the G2 MSM) runs: device (the GPU's second stream), host (the host's cores), "
                  "split (the cost model's share on the host) or auto (the cost model per proof)")
      ->check(CLI::IsMember({"auto", "device", "host", "split"}))
      ->capture_default_str();
  fil->add_option("--b2-threads", o->b2_host_threads, "--shape: threads of B2's host part (0: every core)")
      ->capture_default_str();
  fil->callback([o] {
    run_command([o] {
      if (!o->shape.empty()) {
        if (!o->addr.empty()) throw zk::input_error("--shape runs its own engine: no --addr");
        return run_bench_fil_shape(*o);
      }
      if (o->addr.empty()) throw zk::input_error("--addr is required (or --shape for the in-process synthetic bench)");
      return run_bench_fil(*o);
    });
  });
}

void register_bench(CLI::App& app) {
  auto* sub = app.add_subcommand("bench", "Benchmark the GPU primitives (MSM, NTT, compute_h) and whole proofs");
  sub->require_subcommand(1);
  register_prove_bench(sub);
  register_fil_bench(sub);
  register_abc_bench(sub);
#ifdef CUZK_HAVE_GPU
  auto opt = std::make_shared<gpu::bench_options>();
  auto add_common = [opt](CLI::App* c) {
    c->add_option("--log-size", opt->log_sizes, "log2 sizes, comma-separated")->delimiter(',')->required();
    c->add_option("--reps", opt->reps, "timed runs (median reported)");
    c->add_option("--warmup", opt->warmup, "untimed runs first");
  };
  auto* msm = sub->add_subcommand("msm", "multi-scalar multiplication");
  msm->add_option("--curve", opt->curve, "g1 or g2")->check(CLI::IsMember({"g1", "g2"}));
  msm->add_flag("--resident", opt->resident, "bases and scalars already in device memory");
  msm->add_flag("--shifted", opt->shifted, "with --resident: also time the MSM on precomputed shifted bases");
  msm->add_option("--sets", opt->sets,
                  "with --resident: also time the MSM on S shifted sets (2 .. the windows; window j uses set j mod S), "
                  "comma-separated: a row each")
      ->delimiter(',')
      ->check(CLI::Range(2u, 24u));
  msm->add_flag("--profile", opt->profile, "with --resident: one more run timed stage by stage");
  msm->add_option("--segment-length", opt->segment_length,
                  "buckets per reduction segment (default: chosen by size; for comparison runs)");
  msm->add_option("--scalars", opt->scalars,
                  "random, bits90 / bits99 (that share of 0 and 1, like a witness) or ones; comma-separated: each");
  msm->add_flag("!--no-split", opt->split_bits, "every scalar through the bucket method (no split of 0 / 1)");
  msm->add_option("--affine-lanes", opt->affine_lanes,
                  "batch-affine bucket accumulation with N slices per thread (default 0: XYZZ accumulators)");
  msm->add_option("--acc-blocks", opt->acc_blocks,
                  "G1's XYZZ accumulation compiled for 4 blocks per SM (registers capped; the default) or 0 (uncapped)")
      ->check(CLI::IsMember({0u, 4u}));
  msm->add_flag("!--one-segment-kernel", opt->segment_split,
                "bucket reduction segments in one kernel (default: two, fewer registers each)");
  msm->add_option("--window-bits", opt->window_bits, "window bits of the plain-bases MSM (default: chosen by size)");
  msm->add_option("--variants", opt->variants,
                  "with --resident: variants one after the other, a row each: xyzz, or acc4 / split / cNN / "
                  "g2smem / g2padd0|4|6|8 / g2pseg / nog2pseg / serial / sorted / accumulated / urgent / equal / pN / waves / nowaves joined by + "
                  "(bench.cpp, msm_variant)")
      ->delimiter(',');
  add_common(msm);
  auto* ntt = sub->add_subcommand("ntt", "natural-order NTT over Fr");
  add_common(ntt);
  auto* h = sub->add_subcommand("h", "compute_h (3 iNTT, coset, 3 NTT, A*B-C)");
  add_common(h);
  for (auto* c : {ntt, h}) {
    c->add_flag("--profile", opt->profile, "more runs with an event after each launch: per-launch medians");
    c->add_option("--threads", opt->ntt_threads, "threads per block of the shared-memory passes (256 or 512)")
        ->check(CLI::IsMember({256u, 512u}));
    c->add_flag("!--no-uniform-roots", opt->ntt_uniform_roots,
                "stages with few roots in the default thread order (a warp mixes roots; for comparison runs)");
    c->add_flag("--compiled-shapes,!--no-compiled-shapes", opt->ntt_compiled_shapes,
                "2^24's and 2^27's pass shapes as kernels with the shape compiled in (256 threads; default on)");
    c->add_flag("--fused-reversal,!--no-fused-reversal", opt->ntt_fused_reversal,
                "the bit reversal on the last DIF pass's store into a second vector (out of place; default on)");
  }
  auto* upload = sub->add_subcommand("upload", "host -> device upload of 2^L 32-byte values, pageable against pinned");
  add_common(upload);
  for (auto* c : {msm, ntt, h, upload})
    c->callback([opt, c] {
      opt->what = c->get_name();
      run_command([opt] { return gpu::run_bench(*opt) == 0 ? int(exit_ok) : int(exit_internal); });
    });
#else
  for (const char* name : {"msm", "ntt", "h", "upload"}) {
    auto* c = sub->add_subcommand(name, "GPU benchmark (not built)");
    c->allow_extras();
    c->callback([] {
      run_command([] {
        std::cerr << "error: cuzk bench: not built (this cuzk has no CUDA backend)\n";
        return int(exit_bad_input);
      });
    });
  }
#endif
}

}  // namespace cuzk::cli
