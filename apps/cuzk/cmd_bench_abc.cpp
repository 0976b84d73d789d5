// `cuzk bench abc --shape porep-32GiB`: the device kernel that makes a, b, c from the witness
// (gpu/src/compact_evaluator.cuh) at a Filecoin circuit's full scale, on its real recorded evaluator
// (the cache of `cuzk bench fil --shape`, recorded there once on all cores) and a random witness
// (uniform below r, no zeros: the kernel's time does not depend on the values, its products are
// constant-time). Prints the evaluator's row-length histogram (what the kernel's split of long and
// short rows is tuned on), then for each kernel asked (--kernels) the median of --reps runs timed
// with CUDA events after --warmup, each run on a poisoned output, and its a, b, c compared on the
// device with the host's `pce_compact::evaluate` byte for byte: a mismatch fails the command.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench_shape.hpp"
#include "commands.hpp"
#include "fil/partition.hpp"
#include "fil/prove/prove.hpp"
#include "zk/error.hpp"
#include "zk/groth16/pce_compact.hpp"

#ifdef CUZK_HAVE_GPU
#include "cuzk/gpu/cuda_backend.hpp"
#include "cuzk/gpu/testgen.hpp"
#endif

namespace cuzk::cli {

namespace {

namespace fs = std::filesystem;
namespace g16 = zk::groth16;

struct bench_abc_options {
  std::string shape = "porep-32GiB";
  std::string evaluator_dir;
  std::vector<std::string> kernels = {"thread", "256:8", "512:8", "128:8", "256:4", "256:16", "256:32"};
  int reps = 5, warmup = 1;
  std::uint64_t seed = 1;
};

std::string fixed(double v, int prec) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(prec) << v;
  return s.str();
}

// Rows and entries by row length, and the share of entries whose coefficient is +1 or -1; returns
// the entries with another coefficient (a product each).
std::uint64_t print_histogram(const char* name, const g16::pce_compact& e, const g16::pce_compact::matrix_view& m) {
  static constexpr unsigned edges[] = {0, 1, 2, 3, 5, 9, 17, 33, 65, 257, 1025, 65536};
  constexpr std::size_t nb = std::size(edges) - 1;
  std::uint64_t rows[nb] = {}, entries[nb] = {};
  const std::uint64_t n = e.n_constraints();
  for (std::uint64_t r = 0; r < n; ++r) {
    const unsigned len = m.lens[r];
    std::size_t b = 0;
    while (b + 1 < nb && len >= edges[b + 1]) ++b;
    ++rows[b];
    entries[b] += len;
  }
  std::uint64_t ones = 0;
  for (std::uint64_t k = 0; k < m.entries; ++k) ones += m.coeffs[k] < 2;
  std::cout << name << ": " << m.entries << " entries in " << n << " rows; coefficient +1 or -1 on "
            << fixed(100.0 * double(ones) / double(std::max<std::uint64_t>(m.entries, 1)), 1) << "% of the entries\n";
  for (std::size_t b = 0; b < nb; ++b) {
    if (!rows[b]) continue;
    const unsigned lo = edges[b], hi = edges[b + 1] - 1;
    std::cout << "  length " << (lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi)) << ": rows "
              << fixed(100.0 * double(rows[b]) / double(n), 3) << "%, entries "
              << fixed(100.0 * double(entries[b]) / double(std::max<std::uint64_t>(m.entries, 1)), 2) << "%\n";
  }
  return m.entries - ones;
}

#ifdef CUZK_HAVE_GPU
// "thread" or "THREADS:LONG_ROW".
gpu::compact_kernel_options parse_kernel(const std::string& s) {
  gpu::compact_kernel_options k;
  if (s == "thread") {
    k.row_per_thread = true;
    return k;
  }
  const auto colon = s.find(':');
  try {
    if (colon == std::string::npos) throw std::invalid_argument(s);
    k.threads = unsigned(std::stoul(s.substr(0, colon)));
    k.long_row = unsigned(std::stoul(s.substr(colon + 1)));
  } catch (const std::exception&) {
    throw zk::input_error("--kernels: '" + s + "' is not 'thread' or THREADS:LONG_ROW (e.g. 256:8)");
  }
  if (k.threads != 128 && k.threads != 256 && k.threads != 512)
    throw zk::input_error("--kernels: '" + s + "': threads per block must be 128, 256 or 512");
  return k;
}
std::string kernel_name(const gpu::compact_kernel_options& k) {
  return k.row_per_thread ? std::string("thread (a row per thread, the first kernel)")
                          : std::to_string(k.threads) + " threads, a warp per row above " + std::to_string(k.long_row);
}
#endif

int run_bench_abc(const bench_abc_options& o) {
#ifndef CUZK_HAVE_GPU
  (void)o;
  std::cerr << "error: cuzk bench abc: this cuzk was built without the CUDA backend\n";
  return exit_bad_input;
#else
  const auto* proof = shape_proof(o.shape);
  if (o.reps < 1 || o.warmup < 0) throw zk::input_error("--reps: at least 1; --warmup: at least 0");
  std::vector<gpu::compact_kernel_options> kernels;
  for (const auto& k : o.kernels) kernels.push_back(parse_kernel(k));
  if (!gpu::device_present()) {
    std::cerr << "error: cuzk bench abc: no CUDA device on this machine\n";
    return exit_bad_input;
  }
  using clock = std::chrono::steady_clock;
  auto secs = [](clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); };
  const auto circuit = fil::resolve_circuit(fil::proof_kind::porep_seal_commit, proof->name);
  const std::string dir = o.evaluator_dir.empty() ? default_evaluator_dir() : o.evaluator_dir;
  fs::create_directories(dir);
  const std::string pce_file = (fs::path(dir) / (fs::path(circuit.params_file()).stem().string() + ".cuzk-pce")).string();
  std::shared_ptr<const g16::pce_compact> e;
  {
    const auto t = clock::now();
    const bool cached = fs::exists(pce_file);
    progress_bar bar(cached ? "loading the recorded circuit" : "recording the circuit (once per shape)", false);
    e = fil::prove::porep_evaluator(*proof, pce_file, [&](std::string_view, std::size_t d, std::size_t n) { bar.update(d, n); });
    bar.done();
    std::cout << "bench abc --shape " << o.shape << ": evaluator " << pce_file << " (" << fixed(double(e->file_bytes()) / 1e9, 2)
              << " GB, " << (cached ? "loaded" : "recorded") << " in " << fixed(secs(t), 2) << " s): " << e->n_inputs()
              << " inputs, " << e->n_aux() << " aux, " << e->n_constraints() << " constraints, domain " << e->domain_size()
              << ", " << e->coefficients() << " distinct coefficients\n";
  }
  std::uint64_t coefficient_products = print_histogram("A", *e, e->matrix_a());
  coefficient_products += print_histogram("B", *e, e->matrix_b());
  // The field products the kernel cannot avoid: a row's sum of A and of B times R (the witness is
  // canonical), c = a b, the input rows' values times R, and every coefficient other than +1 / -1.
  const std::uint64_t products = 3 * e->n_constraints() + e->n_inputs() + coefficient_products;
  std::cout << "field products: " << fixed(double(products) / 1e6, 1) << "M (" << fixed(double(coefficient_products) / 1e6, 1)
            << "M of them by coefficients other than +1 / -1)\n";

  // A random witness, no zeros, and the host's a, b, c from it (all cores).
  const std::size_t nv = e->n_inputs() + e->n_aux();
  auto t = clock::now();
  std::vector<zk::bigint<4>> w = gpu::testgen::random_scalars(nv, o.seed);
  for (auto& v : w)
    if (v.is_zero()) v.limb[0] = 1;
  std::cout << "witness: " << nv << " random values below r, none zero (" << fixed(secs(t), 2) << " s)\n";
  t = clock::now();
  const g16::synthesis want = e->evaluate(std::span<const zk::bigint<4>>(w));
  std::cout << "host a, b, c (pce_compact::evaluate, all cores): " << fixed(secs(t) * 1000, 0) << " ms\n" << std::flush;

  gpu::cuda_backend be;
  t = clock::now();
  const auto res = be.time_compact(*e, w, want, kernels, o.reps, o.warmup);
  std::cout << "device: " << gpu::device_description() << "; uploads and " << kernels.size() << " kernels x "
            << (o.reps + o.warmup) << " runs in " << fixed(secs(t), 1) << " s\n";
  // The fewest bytes the kernel moves: indices and lengths read once, the witness read once, a, b, c
  // written once.
  const double bytes = double(e->entries()) * 6 + double(e->n_constraints()) * 4 + double(nv) * 32 +
                       3.0 * double(e->domain_size()) * 32;
  std::cout << "fewest bytes: " << fixed(bytes / 1e9, 2) << " GB (indices " << fixed(double(e->entries()) * 6 / 1e9, 2)
            << ", witness " << fixed(double(nv) * 32 / 1e9, 2) << ", a, b, c written "
            << fixed(3.0 * double(e->domain_size()) * 32 / 1e9, 2) << ")\n";
  std::cout << "kernel | median ms | min | max | GB/s of the fewest bytes | elements differing from the host's\n";
  bool ok = true;
  for (const auto& r : res) {
    std::cout << kernel_name(r.kernel) << " | " << fixed(r.median_ms, 2) << " | " << fixed(r.min_ms, 2) << " | "
              << fixed(r.max_ms, 2) << " | " << fixed(bytes / 1e6 / r.median_ms, 0) << " | " << r.elements_differing
              << "\n";
    ok = ok && r.elements_differing == 0;
  }
  if (!ok) {
    std::cerr << "error: bench abc: a kernel's a, b, c differ from the host's\n";
    return exit_internal;
  }
  return exit_ok;
#endif
}

}  // namespace

void register_abc_bench(CLI::App* bench) {
  auto o = std::make_shared<bench_abc_options>();
  auto* abc = bench->add_subcommand("abc", "a, b, c from the witness on the GPU at a Filecoin circuit's full scale: the "
                                           "recorded evaluator, a random witness, kernels timed and checked against the host");
  abc->add_option("--shape", o->shape, "porep-2KiB|porep-8MiB|porep-512MiB|porep-32GiB|porep-64GiB")->capture_default_str();
  abc->add_option("--evaluator-dir", o->evaluator_dir,
                  "cache of compact recorded evaluators (default ~/.cache/cuzk/evaluators; recorded once)");
  abc->add_option("--kernels", o->kernels, "thread | THREADS:LONG_ROW, comma-separated (each timed)")
      ->delimiter(',')
      ->capture_default_str();
  abc->add_option("--reps", o->reps, "timed runs (median reported)")->capture_default_str();
  abc->add_option("--warmup", o->warmup, "untimed runs first")->capture_default_str();
  abc->add_option("--seed", o->seed, "seed of the random witness")->capture_default_str();
  abc->callback([o] { run_command([o] { return run_bench_abc(*o); }); });
}

}  // namespace cuzk::cli
