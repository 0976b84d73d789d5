// `cuzk bench fil --shape porep-32GiB --partitions 10 [--sectors N] [--seed S]`: the PoRep C2
// workload at full scale with no daemon and no parameter file; `--shape snap-32GiB` the SnapDeals
// update's (16 partitions of the update circuit from synthetic PartitionProofs that verify),
// `--shape wpost-32GiB` one WindowPoSt partition's (2349 synthetic sector proofs that verify). An engine runs in this process (the
// same actors and the same Filecoin path as the daemon's: C1 -> synthesizer -> stager -> device ->
// assembler), fed a synthetic C1 (fil/synthetic, or --c1) and a synthetic SRS of the circuit's real
// shape (zk/groth16/synthetic_srs: counts and densities from the compact recorded evaluator, points
// generated on the GPU straight into a resident device key under a grant of the VRAM budget).
//
// The SRS is NOT A SETUP: the proofs do not verify, and the engine releases them unverified only
// because this bench asks for it (filecoin_request::synthetic_key); timings and memory are real.
//
// Sectors are all submitted at once, so consecutive sectors overlap as a prover's queue would; the
// steady rate is taken between the end of the first sector and the end of the last. Allocation
// counts (cudaMalloc, cudaMallocAsync, host allocations >= 1 MiB) are sampled at each sector's end:
// what the steady state allocates shows between two ends after the first.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "client/client.hpp"
#include "client/timeline_svg.hpp"
#include "bench_shape.hpp"
#include "commands.hpp"
#include "engine/engine.hpp"
#include "fil/evaluator.hpp"
#include "fil/io/c1_json.hpp"
#include "fil/io/post_bincode.hpp"
#include "fil/io/update_bincode.hpp"
#include "fil/partition.hpp"
#include "fil/prove/prove.hpp"
#include "fil/synthetic.hpp"
#include "zk/error.hpp"
#include "zk/groth16/backend_registry.hpp"
#include "zk/groth16/synthetic_srs.hpp"
#include "zk/io/binfile.hpp"
#include "zk/util/large_page_stats.hpp"
#include "zk/util/parallel.hpp"

#ifdef CUZK_HAVE_GPU
#include "cuzk/gpu/cuda_backend.hpp"
#endif

namespace cuzk::cli {

const fil::seal_proof_info* shape_proof(const std::string& shape) {
  const fil::seal_proof_info* p = nullptr;
  if (shape.rfind("porep-", 0) == 0) p = fil::find_seal_proof("StackedDrg" + shape.substr(6) + "V1_1");
  if (!p)
    throw zk::input_error("--shape: '" + shape + "' is not porep-2KiB, porep-8MiB, porep-512MiB, porep-32GiB or porep-64GiB");
  return p;
}

fil::circuit_ref snap_circuit_of(const std::string& shape) {
  const auto* p = shape.rfind("snap-", 0) == 0 ? fil::update::find_update_proof("StackedDrg" + shape.substr(5) + "V1") : nullptr;
  if (!p) throw zk::input_error("--shape: '" + shape + "' is not snap-2KiB, snap-8MiB, snap-512MiB, snap-32GiB or snap-64GiB");
  return fil::resolve_update_circuit(p->name);
}

fil::circuit_ref wpost_circuit_of(const std::string& shape) {
  const auto* p = shape.rfind("wpost-", 0) == 0 ? fil::find_post_proof("StackedDrgWindow" + shape.substr(6) + "V1_2") : nullptr;
  if (!p) throw zk::input_error("--shape: '" + shape + "' is not wpost-2KiB, wpost-8MiB, wpost-512MiB, wpost-32GiB or wpost-64GiB");
  return fil::resolve_circuit(fil::proof_kind::window_post_partition, p->name);
}

std::string default_evaluator_dir() {
  namespace fs = std::filesystem;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return (fs::path(x) / "cuzk" / "evaluators").string();
  if (const char* h = std::getenv("HOME"); h && *h) return (fs::path(h) / ".cache" / "cuzk" / "evaluators").string();
  return "./cuzk-evaluators";
}

namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;
using clock_type = std::chrono::steady_clock;

// kB fields of /proc/self/status ("VmHWM", "VmRSS"), in bytes; 0 where absent.
std::uint64_t proc_status_bytes(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field + ":", 0) == 0) return std::strtoull(line.c_str() + field.size() + 1, nullptr, 10) * 1024;
  return 0;
}
// Resets VmHWM to the current RSS (Linux clear_refs 5), so the peak is this phase's.
void reset_peak_rss() { std::ofstream("/proc/self/clear_refs") << "5"; }

double gb(std::uint64_t b) { return double(b) / 1e9; }

// Device 0's VRAM by owner, from the engine's status: its budget, the resident keys' grants, the
// staged partitions' grants, what is free.
struct vram_view {
  std::uint64_t capacity = 0, resident = 0, staged = 0, free = 0;
  bool present = false;
};
vram_view vram_of(const engine::status_report& s) {
  vram_view v;
  if (s.vram.empty()) return v;
  v.present = true;
  v.capacity = s.vram[0].capacity;
  v.free = engine::free_bytes(s.vram[0]);
  if (!s.key_store.devices.empty()) {
    v.resident = s.key_store.devices[0].resident_bytes;
    v.staged = engine::staged_bytes(s.vram[0], s.key_store.devices[0]);
  }
  return v;
}
std::uint64_t device_proofs(const engine::status_report& s) {
  return s.scheduler.devices.empty() ? 0 : s.scheduler.devices[0].proofs;
}
double device_busy_ms(const engine::status_report& s) {
  return s.scheduler.devices.empty() ? 0 : double(s.scheduler.devices[0].busy_us) / 1000;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct alloc_sample {
  std::uint64_t dev_malloc = 0, dev_malloc_bytes = 0, dev_async = 0, dev_async_bytes = 0, host = 0, host_bytes = 0;
};
alloc_sample sample_allocations() {
  alloc_sample s;
#ifdef CUZK_HAVE_GPU
  auto d = gpu::device_allocations();
  s.dev_malloc = d.malloc_calls, s.dev_malloc_bytes = d.malloc_bytes, s.dev_async = d.async_calls,
  s.dev_async_bytes = d.async_bytes;
#endif
  auto h = large_allocations();
  s.host = h.calls, s.host_bytes = h.bytes;
  return s;
}
json alloc_delta(const alloc_sample& a, const alloc_sample& b) {
  return {{"cuda_malloc", b.dev_malloc - a.dev_malloc},
          {"cuda_malloc_bytes", b.dev_malloc_bytes - a.dev_malloc_bytes},
          {"cuda_malloc_async", b.dev_async - a.dev_async},
          {"cuda_malloc_async_bytes", b.dev_async_bytes - a.dev_async_bytes},
          {"host_allocs_1mib", b.host - a.host},
          {"host_alloc_bytes", b.host_bytes - a.host_bytes}};
}

std::string fmt(double v, int prec = 2) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(prec) << v;
  return s.str();
}

}  // namespace

int run_bench_fil_shape(const bench_fil_options& o) {
  // snap-SIZE: the SnapDeals update of a sector (its PartitionProofs synthetic, fil/synthetic_update);
  // wpost-SIZE: one full WindowPoSt partition (synthetic sector proofs that verify); porep-SIZE: PoRep C2.
  const bool snap = o.shape.rfind("snap-", 0) == 0, wpost = o.shape.rfind("wpost-", 0) == 0;
  const fil::circuit_ref circuit = snap    ? snap_circuit_of(o.shape)
                                   : wpost ? wpost_circuit_of(o.shape)
                                           : fil::resolve_circuit(fil::proof_kind::porep_seal_commit, shape_proof(o.shape)->name);
  const std::string proof_name(snap ? circuit.update->name : wpost ? circuit.post->name : circuit.seal->name);
  const unsigned parts = circuit.partitions();
  if (o.partitions && o.partitions != parts)
    throw zk::input_error("--partitions " + std::to_string(o.partitions) + ": a " + proof_name + " sector has " +
                          std::to_string(parts) + " partitions");
  if ((snap || wpost) && !o.c1.empty()) throw zk::input_error("--c1: only a porep shape proves a C1");
  if (o.sectors == 0) throw zk::input_error("--sectors: at least 1");
  if (o.device != "cuda" && o.device != "cpu") throw zk::input_error("--device: '" + o.device + "' is not cuda or cpu");
  const auto names = zk::groth16::registered_backends();
  if (o.device == "cuda" && std::find(names.begin(), names.end(), "cuda") == names.end()) {
    std::cerr << "error: cuzk bench fil --shape: this cuzk was built without the CUDA backend (the synthetic SRS is "
                 "generated on a GPU)\n";
    return exit_bad_input;
  }
  if (o.device == "cuda" && zk::groth16::backend_device_count("cuda") < 1) {
    std::cerr << "error: cuzk bench fil --shape: no CUDA device on this machine (the synthetic SRS is generated on a GPU)\n";
    return exit_bad_input;
  }
  // The engine evaluates a, b, c on the device only when every device is a GPU (engine.cpp).
  const bool abc_on_device = o.device_synthesis && o.device == "cuda";
  std::cout << "bench fil --shape " << o.shape << ": " << circuit.describe() << ", " << parts << (parts == 1 ? " partition x " : " partitions x ")
            << o.sectors << (o.sectors == 1 ? " sector on " : " sectors on ") << o.device << " (a, b, c " << (abc_on_device ? "on the device from the witness" : "on the host")
            << ")\n"
            << "NOT A SETUP: synthetic SRS (random points of the real shape); the proofs do NOT verify and are released "
               "unverified; the timings are real\n"
            << std::flush;
  json stages = json::object();
  auto secs = [](clock_type::time_point a) { return std::chrono::duration<double>(clock_type::now() - a).count(); };

  // The C1 output: synthetic (never sealed, its witness satisfies the circuit) or the caller's.
  std::string c1;
  fil::job_input input;
  if (snap) {  // PartitionProofs that verify for a sector never sealed
    auto t = clock_type::now();
    progress_bar bar("synthetic PartitionProofs (" + o.shape + ")", false);
    bar.update(0, 1);
    const auto syn = fil::synthetic_update_proofs(circuit.sector_size(), o.seed);
    bar.done();
    input.kind = fil::proof_kind::snap_deals_update;
    input.registered_proof = proof_name;
    input.comm_r_old = syn.comms.comm_r_old, input.comm_r_new = syn.comms.comm_r_new, input.comm_d_new = syn.comms.comm_d_new;
    for (const auto& p : syn.partitions) input.vanilla_proofs.push_back(fil::io::to_bincode(p));
    stages["vanilla_make_s"] = secs(t);
    t = clock_type::now();
    fil::check_job_input(circuit, input);
    stages["vanilla_check_s"] = secs(t);
  } else if (wpost) {  // a full partition of sector proofs that verify
    auto t = clock_type::now();
    const auto& p = *circuit.post;
    progress_bar bar("synthetic sector proofs (" + o.shape + ", " + std::to_string(p.sector_count) + " sectors)", false);
    bar.update(0, 1);
    std::mt19937_64 rng(o.seed);
    input.kind = fil::proof_kind::window_post_partition;
    input.registered_proof = proof_name;
    input.miner_id = o.miner;
    for (auto& b : input.randomness) b = std::uint8_t(rng());
    input.randomness[31] &= 0x3f;
    for (const auto& s : fil::synthetic_valid_post_proofs(p, input.randomness, 0, p.sector_count, o.sector, o.seed))
      input.vanilla_proofs.push_back(fil::io::to_bincode(s));
    bar.done();
    stages["vanilla_make_s"] = secs(t);
    t = clock_type::now();
    fil::check_job_input(circuit, input);
    stages["vanilla_check_s"] = secs(t);
  } else {
    auto t = clock_type::now();
    if (!o.c1.empty()) {
      c1 = zk::io::read_file_capped(o.c1, (std::uint64_t{2} << 30) - 1, "C1 output");
    } else {
      progress_bar bar("synthetic C1 (" + o.shape + ")", false);
      bar.update(0, 1);
      c1 = fil::io::wrap_c1(fil::io::to_json(fil::synthetic_c1(*circuit.seal, o.sector, o.miner, o.seed)), o.sector,
                            circuit.sector_size());
      bar.done();
    }
    stages["c1_make_s"] = secs(t);
    input.kind = fil::proof_kind::porep_seal_commit;
    input.registered_proof = proof_name;
    input.miner_id = o.miner;
    input.sector_number = o.sector;
    input.c1.assign(c1.begin(), c1.end());
  }
  // Read (errors name --c1's file) and checked before anything is made. The timed sectors do not
  // use this read: each one's submit reads its C1 as the daemon reads each request's (once, inside
  // the first sector's time, its partitions sharing it), so c1_reads is 1 + sectors.
  const std::uint64_t c1_reads0 = fil::io::c1_reads();
  if (!snap && !wpost) {
    auto t = clock_type::now();
    auto parsed = std::make_shared<const fil::c1_output>(
        fil::io::read_c1(input.c1, o.c1.empty() ? "synthetic C1" : o.c1, zk::default_pool()));
    fil::check_job_input(circuit, input, std::move(parsed));
    stages["c1_parse_check_s"] = secs(t);
  }

  // The compact recorded evaluator: loaded from the cache, or recorded there once.
  const std::string dir = o.evaluator_dir.empty() ? default_evaluator_dir() : o.evaluator_dir;
  fs::create_directories(dir);
  const std::string params = circuit.params_file();
  const std::string pce_file = (fs::path(dir) / (fs::path(params).stem().string() + ".cuzk-pce")).string();
  std::shared_ptr<const zk::groth16::pce_compact> pce;
  {
    auto t = clock_type::now();
    const bool cached = fs::exists(pce_file);
    progress_bar bar(cached ? "loading the recorded circuit" : "recording the circuit (once per shape)", false);
    const auto progress = [&](std::string_view, std::size_t d, std::size_t n) { bar.update(d, n); };
    pce = snap    ? fil::open_update_evaluator(*circuit.update, pce_file, progress).compact
          : wpost ? fil::open_post_evaluator(*circuit.post, pce_file, progress).compact
                  : fil::prove::porep_evaluator(*circuit.seal, pce_file, progress);
    bar.done();
    stages[cached ? "evaluator_load_s" : "evaluator_record_s"] = secs(t);
  }
  const auto shape = zk::groth16::synthetic_shape_of(*pce);
  std::cout << "circuit: " << shape.n_inputs << " inputs, " << shape.n_aux << " aux, " << shape.n_constraints
            << " constraints (+" << shape.n_inputs << " input rows), domain " << shape.domain << "; a "
            << shape.density.a_wires.size() << ", b " << shape.density.b_wires.size() << " points (density); key points "
            << fmt(gb(shape.point_bytes())) << " GB; evaluator " << fmt(gb(pce->file_bytes())) << " GB (" << pce_file
            << ")\n";

  // The engine: same actors as the daemon's.
  engine::config cfg;
  cfg.devices = {o.device};
  cfg.shifted_bases = o.shifted;
  cfg.vram_limit = o.vram_limit;
  cfg.device_synthesis = o.device_synthesis;
  cfg.b2 = o.b2;
  cfg.b2_host_threads = o.b2_host_threads;
  cfg.synthesizers = o.synthesizers;
  cfg.kept_partitions = o.kept_partitions;
  cfg.device_depth = o.device_depth;
  cfg.alone_below = o.alone_below;
  cfg.ordered_synthesis = o.ordered_synthesis;
  cfg.staged_partitions = o.staged_partitions;
  cfg.b2_lane_share = o.b2_lane_share;
  cfg.step_timeout = std::chrono::minutes(30);
  cfg.host_margin_bytes = std::uint64_t{8} << 30;  // the mapped evaluator, pinned staging, the page cache
  // The key store's line on the resident key's layout (its shifted sets made, planned and why fewer).
  std::mutex layout_mu;
  std::string layout;
  cfg.filecoin.on_event = [&](const std::string& line) {
    if (line.find(" resident on device ") == std::string::npos) return;
    std::lock_guard lock(layout_mu);
    layout = line;
  };
  auto e = engine::engine::start(cfg);
  const std::string key = zk::groth16::synthetic_key_path({o.seed, o.device == "cpu", pce_file});
  std::uint64_t key_bytes = 0;
  {
    auto t = clock_type::now();
    progress_bar bar("synthetic key: evaluator hot, points generated on the " + o.device, false);
    bar.update(0, 2);
    e.preload_key(key);
    stages["key_hot_s"] = secs(t);
    bar.update(1, 2);
    auto t2 = clock_type::now();
    key_bytes = e.make_resident(key, 0);
    stages["key_generate_resident_s"] = secs(t2);
    bar.done();
  }
  auto st0 = e.status();
  json memory = json::object();
  if (const auto m = vram_of(st0); m.present) {
    const std::uint64_t wires = 4 * (shape.density.a_wires.size() + shape.density.b_wires.size());
    const std::uint64_t shifted = key_bytes > shape.point_bytes() + wires ? key_bytes - shape.point_bytes() - wires : 0;
    memory = {{"vram_budget_bytes", m.capacity},
              {"resident_grant_bytes", m.resident},
              {"device_key_bytes", key_bytes},
              {"plain_points_bytes", shape.point_bytes()},
              {"shifted_sets_bytes", shifted},
              {"free_after_key_bytes", m.free}};
    {
      std::lock_guard lock(layout_mu);
      memory["resident_layout"] = layout;
    }
    std::cout << "synthetic key resident on device 0: " << fmt(gb(key_bytes)) << " GB (points " << fmt(gb(shape.point_bytes()))
              << " GB, beyond them (sets, device evaluator, proof scratch) " << fmt(gb(shifted)) << " GB; grant " << fmt(gb(m.resident))
              << " GB of a " << fmt(gb(m.capacity)) << " GB budget, " << fmt(gb(m.free)) << " GB free); generated in "
              << fmt(stages["key_generate_resident_s"].get<double>()) << " s\n";
    if (const auto& l = memory["resident_layout"].get_ref<const std::string&>(); !l.empty()) std::cout << l << "\n";
    std::cout << std::flush;
  }

  // The sectors, all submitted at once.
  reset_peak_rss();
  const auto t0 = clock_type::now();
  const auto t0_unix = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
  auto since_ms = [&] { return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count(); };
  const std::uint64_t proofs0 = device_proofs(st0);
  const double busy0 = device_busy_ms(st0);
  std::vector<engine::job_id> ids;
  std::vector<double> submit_ms;
  for (unsigned s = 0; s < o.sectors; ++s) {
    engine::filecoin_request r;
    r.request_id = "bench-shape-" + std::to_string(t0_unix) + "-" + std::to_string(s);
    r.input = input;
    r.synthetic_key = key;
    submit_ms.push_back(since_ms());
    ids.push_back(e.submit(std::move(r)));
  }
  // Progress and memory samples while they run.
  std::mutex mu;
  std::uint64_t staged_max = 0, free_min = UINT64_MAX, host_budget_peak = 0;
  std::atomic<bool> running{true};
  std::thread sampler([&] {
    progress_bar bar("proving " + std::to_string(o.sectors) + " sectors (partitions)", false);
    while (running) {
      auto s = e.status();
      {
        std::lock_guard lock(mu);
        if (const auto m = vram_of(s); m.present) {
          staged_max = std::max(staged_max, m.staged);
          free_min = std::min(free_min, m.free);
        }
        host_budget_peak = std::max(host_budget_peak, s.host.in_use);
      }
      bar.update(device_proofs(s) - proofs0, std::uint64_t(o.sectors) * parts);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    bar.done();
  });
  std::vector<engine::job_outcome> results;
  std::vector<double> end_ms;
  std::vector<alloc_sample> allocs{sample_allocations()};
  bool ok = true;
  std::string failure;
  for (auto id : ids) {
    auto r = e.await(id, std::chrono::hours(2));
    end_ms.push_back(since_ms());
    allocs.push_back(sample_allocations());
    std::cout << "sector " << end_ms.size() << " " << (r ? engine::to_string(r->state) : "timed out") << " at "
              << fmt(end_ms.back() / 1000, 1) << " s; allocations since the previous mark "
              << alloc_delta(allocs[allocs.size() - 2], allocs.back()).dump() << "\n"
              << std::flush;
    if (!r || r->state != engine::job_state::succeeded) {
      ok = false;
      failure = r ? (r->reasons.empty() ? std::string(engine::to_string(r->state)) : r->reasons.back()) : "timed out";
      results.push_back(r ? *r : engine::job_outcome{});
      continue;
    }
    if (!r->unverified) {  // the engine must never pass a synthetic key's proof off as verified
      ok = false;
      failure = "the engine did not mark the synthetic key's proofs unverified";
    }
    results.push_back(std::move(*r));
  }
  running = false;
  sampler.join();
  const double wall_ms = since_ms();
  const auto st1 = e.status();
  const std::uint64_t peak_rss = proc_status_bytes("VmHWM");

  // Per-partition figures.
  std::map<std::string, std::vector<double>> by_stage;
  std::vector<std::string> stage_order;
  std::vector<double> synth_ms, device_ms, synth_wait_ms, device_wait_ms;
  struct span_t {
    double a, b;
  };
  std::vector<span_t> device_spans, inflight;
  json jobs = json::array();
  for (std::size_t s = 0; s < results.size(); ++s) {
    json parts_json = json::array();
    for (auto& p : results[s].partition_timings) {
      auto rel = [&](double unix) { return unix ? unix - double(t0_unix) : 0.0; };
      const double ss = rel(double(p.synth_start_unix_us) / 1000), se = rel(double(p.synth_end_unix_us) / 1000),
                   ds = rel(double(p.device_start_unix_us) / 1000), de = rel(double(p.device_end_unix_us) / 1000);
      parts_json.push_back({{"partition", p.partition},
                            {"synthesizer", p.synthesizer},
                            {"device", p.device},
                            {"synth_start_ms", ss},
                            {"synth_end_ms", se},
                            {"device_start_ms", ds},
                            {"device_end_ms", de},
                            {"staged_ms", rel(double(p.staged_unix_us) / 1000)},
                            {"dispatch_ms", rel(double(p.dispatch_unix_us) / 1000)},
                            {"synth_alone", p.synth_alone}});
      json st = json::object();
      for (std::size_t k = 0; k < p.stage_names.size() && k < p.stage_ms.size(); ++k) {
        const auto& name = p.stage_names[k];
        const double ms = p.stage_ms[k];
        st[name] = ms;
        if (!by_stage.count(name)) stage_order.push_back(name);
        by_stage[name].push_back(ms);
      }
      parts_json.back()["stages_ms"] = st;
      synth_ms.push_back(se - ss);
      device_ms.push_back(de - ds);
      synth_wait_ms.push_back(ss - submit_ms[s]);
      device_wait_ms.push_back(ds - se);
      device_spans.push_back({ds, de});
      inflight.push_back({ss, de});
    }
    jobs.push_back({{"slot", s},
                    {"job_id", "sector" + std::to_string(s + 1)},
                    {"kind", "porep"},
                    {"submit_ms", submit_ms[s]},
                    {"done_ms", s < end_ms.size() ? end_ms[s] : 0.0},
                    {"status", results[s].state == engine::job_state::succeeded ? "COMPLETED" : "FAILED"},
                    {"unverified", results[s].unverified},
                    {"partitions", parts},
                    {"partition_timings", parts_json}});
  }
  // The device's idle time between consecutive partitions (one device: its spans in order), and the
  // scheduler's own account of it (device_usage: back-to-back starts, requests sent ahead).
  std::vector<double> between;
  {
    auto spans = device_spans;
    std::sort(spans.begin(), spans.end(), [](const span_t& x, const span_t& y) { return x.a < y.a; });
    for (std::size_t i = 1; i < spans.size(); ++i) between.push_back(std::max(0.0, spans[i].a - spans[i - 1].b));
  }
  const double between_total = std::accumulate(between.begin(), between.end(), 0.0);
  const double between_max = between.empty() ? 0 : *std::max_element(between.begin(), between.end());
  msg::device_usage du0, du1;
  if (!st0.scheduler.devices.empty()) du0 = st0.scheduler.devices[0];
  if (!st1.scheduler.devices.empty()) du1 = st1.scheduler.devices[0];
  const json device_gaps{{"between_partitions_median_ms", median(between)},
                         {"between_partitions_max_ms", between_max},
                         {"between_partitions_total_ms", between_total},
                         {"back_to_back", du1.gaps - du0.gaps},
                         {"back_to_back_gap_ms", double(du1.gap_us - du0.gap_us) / 1000},
                         {"back_to_back_gap_max_ms", double(du1.gap_max_us) / 1000},
                         {"sent_ahead", du1.ahead - du0.ahead}};
  double first_dev = 1e300, last_dev = 0, busy = 0;
  for (auto& sp : device_spans) {
    first_dev = std::min(first_dev, sp.a);
    last_dev = std::max(last_dev, sp.b);
    busy += sp.b - sp.a;
  }
  const double busy_pct = last_dev > first_dev ? 100 * busy / (last_dev - first_dev) : 0;
  double busy_steady_pct = 0;
  if (end_ms.size() >= 2) {  // the device's busy share after the first sector ended
    double b = 0;
    for (auto& sp : device_spans) b += std::max(0.0, std::min(sp.b, last_dev) - std::max(sp.a, end_ms[0]));
    busy_steady_pct = last_dev > end_ms[0] ? 100 * b / (last_dev - end_ms[0]) : 0;
  }
  std::vector<std::pair<double, int>> ev;
  for (auto& sp : inflight) ev.push_back({sp.a, 1}), ev.push_back({sp.b, -1});
  std::sort(ev.begin(), ev.end());
  int cur = 0, max_inflight = 0;
  for (auto& [t, d] : ev) max_inflight = std::max(max_inflight, cur += d);
  const double first_sector_s = end_ms.empty() ? 0 : (end_ms[0] - submit_ms[0]) / 1000;
  // The first sector's path to its first proof, from its submission: the first partition to reach
  // the device (its synthesis start and end, staged, device start and end), then the last proof's
  // end and the sector's answer.
  json first_path = json::object();
  if (!jobs.empty() && !end_ms.empty() && !jobs[0]["partition_timings"].empty()) {
    const auto& pts = jobs[0]["partition_timings"];
    const json* p0 = nullptr;
    double last_end = 0;
    for (auto& p : pts) {
      if (!p0 || p["device_start_ms"].get<double>() < (*p0)["device_start_ms"].get<double>()) p0 = &p;
      last_end = std::max(last_end, p["device_end_ms"].get<double>());
    }
    const double t = submit_ms[0];
    auto at = [&](const char* k) { return (*p0)[k].get<double>() - t; };
    first_path = {{"partition", (*p0)["partition"]},     {"synth_alone", (*p0)["synth_alone"]},
                  {"synth_start_ms", at("synth_start_ms")}, {"synth_end_ms", at("synth_end_ms")},
                  {"staged_ms", at("staged_ms")},         {"device_start_ms", at("device_start_ms")},
                  {"device_end_ms", at("device_end_ms")}, {"last_proof_end_ms", last_end - t},
                  {"sector_done_ms", end_ms[0] - t}};
  }
  const double steady_s_per_sector =
      end_ms.size() >= 2 ? (end_ms.back() - end_ms[0]) / 1000 / double(end_ms.size() - 1) : first_sector_s;
  const double per_hour = steady_s_per_sector > 0 ? 3600 / steady_s_per_sector : 0;
  json stage_medians = json::object();
  for (auto& name : stage_order) stage_medians[name] = median(by_stage[name]);
  json alloc_json = json::array();
  for (std::size_t i = 1; i < allocs.size(); ++i)
    alloc_json.push_back({{"between", i == 1 ? "submit and the end of sector 1"
                                             : "the ends of sectors " + std::to_string(i - 1) + " and " + std::to_string(i)},
                          {"counts", alloc_delta(allocs[i - 1], allocs[i])}});
  memory["vram_staged_max_bytes"] = staged_max;
  memory["vram_free_min_bytes"] = free_min == UINT64_MAX ? 0 : free_min;
  memory["host_peak_rss_bytes"] = peak_rss;
  memory["host_budget_peak_bytes"] = host_budget_peak;
  memory["host_budget_capacity_bytes"] = st1.host.capacity;
  const double dev_busy_engine = device_busy_ms(st1) - busy0;
  const std::uint64_t c1_reads = fil::io::c1_reads() - c1_reads0;  // the check above, then one per sector

  const std::string svg_path = fs::path(o.out).replace_extension(".svg").string();
  json out{{"command", "cuzk bench fil --shape " + o.shape},
           {"not_a_setup", "synthetic SRS: the proofs do NOT verify; timings and memory are real"},
           {"registered_proof", proof_name},
           {"device", o.device},
           {"sectors", o.sectors},
           {"partitions_per_sector", parts},
           {"seed", o.seed},
           {"start_unix_ms", t0_unix},
           {"setup_s", stages},
           {"c1_reads", c1_reads},
           {"wall_s", wall_ms / 1000},
           {"completed", std::count_if(results.begin(), results.end(),
                                       [](auto& r) { return r.state == engine::job_state::succeeded; })},
           {"first_sector_s", first_sector_s},
           {"first_sector_path_ms", first_path},
           {"steady_s_per_sector", steady_s_per_sector},
           {"proofs_per_hour", per_hour},
           {"gpu_busy_pct", busy_pct},
           {"gpu_busy_after_first_sector_pct", busy_steady_pct},
           {"device_busy_ms_engine", dev_busy_engine},
           {"max_partitions_in_flight", max_inflight},
           {"device_gaps", device_gaps},
           {"per_partition_median_ms",
            {{"synthesis", median(synth_ms)},
             {"device", median(device_ms)},
             {"wait_for_synthesizer", median(synth_wait_ms)},
             {"wait_staged_for_device", median(device_wait_ms)}}},
           {"stage_median_ms", stage_medians},
           {"memory", memory},
           {"allocations", alloc_json},
           {"timeline_svg", svg_path},
           {"jobs", jobs}};
  write_file_atomically(o.out, out.dump(1) + "\n");

  std::cout << "setup:";
  for (auto& [k, v] : stages.items()) std::cout << " " << k << " " << fmt(v.get<double>());
  std::cout << "; C1 reads " << c1_reads;
  std::cout << "\nper partition (median of " << synth_ms.size() << "): synthesis " << fmt(median(synth_ms), 0)
            << " ms, device " << fmt(median(device_ms), 0) << " ms; waits: for a synthesizer "
            << fmt(median(synth_wait_ms), 0) << " ms, synthesized -> device start " << fmt(median(device_wait_ms), 0)
            << " ms\nstages (median ms):";
  for (auto& name : stage_order) std::cout << "  " << name << " " << fmt(median(by_stage[name]), 1);
  std::cout << "\nsectors: first " << fmt(first_sector_s, 1) << " s; steady " << fmt(steady_s_per_sector, 1)
            << " s/sector = " << fmt(per_hour, 0) << " proofs/hour; GPU busy " << fmt(busy_pct, 1) << "% (after sector 1: "
            << fmt(busy_steady_pct, 1) << "%); partitions in flight max " << max_inflight << "\n";
  if (!first_path.empty()) {
    auto ms = [&](const char* k) { return fmt(first_path[k].get<double>(), 0); };
    std::cout << "first sector from its submit (ms): partition " << first_path["partition"].get<unsigned>()
              << " synthesis " << ms("synth_start_ms") << " -> " << ms("synth_end_ms")
              << (first_path["synth_alone"].get<bool>() ? " (alone)" : " (shared)") << ", staged " << ms("staged_ms")
              << ", proof " << ms("device_start_ms") << " -> " << ms("device_end_ms") << "; last proof end "
              << ms("last_proof_end_ms") << ", answer " << ms("sector_done_ms") << "\n";
  }
  std::cout
            << "device idle between partitions: median " << fmt(median(between), 1) << " ms, max " << fmt(between_max, 1)
            << " ms, total " << fmt(between_total, 0) << " ms; back to back " << (du1.gaps - du0.gaps) << " (gap "
            << fmt(double(du1.gap_us - du0.gap_us) / 1000, 1) << " ms in all), sent ahead " << (du1.ahead - du0.ahead)
            << "\n"
            << "memory: host peak RSS " << fmt(gb(peak_rss)) << " GB (host budget peak " << fmt(gb(host_budget_peak))
            << " GB); VRAM staged max " << fmt(gb(staged_max)) << " GB, free min "
            << fmt(gb(free_min == UINT64_MAX ? 0 : free_min)) << " GB\n";
  for (auto& a : alloc_json) std::cout << "allocations between " << a["between"].get<std::string>() << ": " << a["counts"].dump() << "\n";
  try {
    write_file_atomically(svg_path, timeline_svg(bars_from_results(out),
                                                 "cuzk bench fil --shape " + o.shape + " (synthetic SRS, NOT A SETUP): " +
                                                     std::to_string(o.sectors) + " sectors x " + std::to_string(parts) +
                                                     " partitions in " + fmt(wall_ms / 1000, 1) + " s"));
  } catch (const std::exception& e) {
    std::cerr << "warning: no timeline: " << e.what() << "\n";
  }
  std::cout << "NOT A SETUP: these proofs do not verify. results: " << o.out << ", timeline: " << svg_path << "\n";
  if (!ok) {
    std::cerr << "error: bench fil --shape: " << failure << "\n";
    return exit_internal;
  }
  return exit_ok;
}

}  // namespace cuzk::cli
