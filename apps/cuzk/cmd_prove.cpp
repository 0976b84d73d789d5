// `cuzk prove <zkey> <wtns> <proof.json> <public.json>`: snarkjs's groth16 prove, verified before
// anything is written.
// `cuzk prove --params K.params --r1cs C.r1cs <wtns> <proof.bin> [public.json]`: bellperson's
// convention (zk/groth16/bellperson_key.hpp): the 192-byte compressed proof, verified first.
#include <CLI/CLI.hpp>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <future>
#include <optional>
#include <iostream>
#include <memory>

#include "client/client.hpp"
#include "commands.hpp"
#include "zk/error.hpp"
#include "zk/groth16/backend_registry.hpp"
#include "zk/groth16/bellperson_key.hpp"
#include "zk/io/bellperson.hpp"
#include "zk/io/r1cs_dump.hpp"
#include "zk/groth16/compressed_proof.hpp"
#include "zk/groth16/prover.hpp"
#include "zk/groth16/random.hpp"
#include "zk/groth16/verifier.hpp"
#include "zk/io/r1cs.hpp"
#include "zk/io/snarkjs_json.hpp"
#include "zk/io/wtns.hpp"
#include "zk/io/zkey.hpp"
#include "zk/util/parallel.hpp"

namespace cuzk::cli {

namespace {

struct prove_options {
  std::string zkey, wtns, proof, pub, r1cs, compressed, params, backend = "auto";
  unsigned threads = 0;
  bool timings = false;
};

using zk::bls12_381::fr;

fr lc_value(const zk::io::r1cs::linear_combination& lc, const std::vector<fr>& w) {
  fr acc = fr::zero();
  for (const auto& t : lc) acc += t.coeff * w[t.wire];
  return acc;
}

// Every constraint A·w * B·w = C·w, on all threads (2^24 constraints took seconds on one); names
// the first that fails.
void check_satisfied(const zk::io::r1cs& cs, const zk::io::witness& wit, const std::string& wtns_path,
                     const std::string& r1cs_path) {
  std::vector<fr> w(wit.values.size());
  zk::parallel_for(w.size(), [&](std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi; ++i) w[i] = fr::from_canonical(wit.values[i]);
  }, 4096);
  std::atomic<std::size_t> first_bad{SIZE_MAX};
  zk::parallel_for(cs.constraints.size(), [&](std::size_t lo, std::size_t hi) {
    for (std::size_t j = lo; j < hi && j < first_bad.load(std::memory_order_relaxed); ++j) {
      const auto& c = cs.constraints[j];
      if (lc_value(c.a, w) * lc_value(c.b, w) == lc_value(c.c, w)) continue;
      std::size_t cur = first_bad.load();
      while (j < cur && !first_bad.compare_exchange_weak(cur, j)) {
      }
      return;
    }
  }, 4096);
  if (first_bad != SIZE_MAX)
    throw zk::input_error(wtns_path + ": witness does not satisfy constraint " + std::to_string(first_bad.load()) +
                          " of " + r1cs_path + " (A*B != C)");
}

// The bellperson form; positionals shift: zkey = WTNS, wtns = PROOF.BIN, proof = PUBLIC.JSON.
int prove_bellperson(const prove_options& o) {
  namespace g16 = zk::groth16;
  if (o.threads) zk::set_default_threads(o.threads);
  if (o.r1cs.empty() || o.zkey.empty())
    throw zk::input_error("prove --params: needs --r1cs C.r1cs, then WTNS PROOF.BIN [PUBLIC.JSON]");
  std::string backend_name = g16::resolve_backend_name(o.backend);
  // A device that converts the points itself (the CUDA backend) gets them in the file's form: the
  // host does no per-point work (zk/groth16/bellperson_key.hpp); the CPU backend's are decoded here.
  auto be = g16::make_backend(backend_name);
  const bool points_on_host = !be->takes_file_points();
  auto t0 = now_ns();
  // Stage times of the load for --timings (what the first proof after open pays beyond the zkey path).
  double st_params = 0, st_r1cs = 0, st_wtns = 0, st_key = 0;
  auto lap = [t = now_ns()](double& into) mutable {
    into = seconds_since(t);
    t = now_ns();
  };
  auto params = zk::io::bellperson_params::open(o.params);
  lap(st_params);
  // --r1cs: a circom .r1cs, mapped and its A/B terms read straight into the key (the circuit is not
  // held as an r1cs: see zk/io/r1cs.hpp's r1cs_layout), or fil-oracle's R1CS dump (then the witness
  // may come from the dump).
  std::optional<zk::io::r1cs_layout> layout;
  std::optional<zk::io::r1cs> dump_cs;
  std::optional<zk::io::witness> dump_wit;
  // The .wtns is read on another thread while this one walks the .r1cs (one thread each: 0.4 s and
  // 0.8 s at 2^24); its errors still come after the circuit's, where wit_read.get() rethrows them.
  const bool wtns_given = o.zkey.size() > 5 && o.zkey.compare(o.zkey.size() - 5, 5, ".wtns") == 0;
  std::future<zk::io::witness> wit_read;
  if (wtns_given) wit_read = std::async(std::launch::async, [&o] { return zk::io::witness::load(o.zkey); });
  {
    std::ifstream f(o.r1cs, std::ios::binary);
    char magic[8] = {};
    f.read(magic, 8);
    if (f && std::string(magic, 8) == "CUZKR1CS") {
      auto d = zk::io::r1cs_dump::load(o.r1cs);
      dump_cs = std::move(d.cs);
      dump_wit = std::move(d.wit);
    } else {
      layout = zk::io::r1cs_layout::open(o.r1cs);
    }
  }
  lap(st_r1cs);
  if (!wtns_given && !dump_wit) throw zk::input_error("prove --params: the first argument must be a .wtns file");
  const std::string wtns_path = wtns_given ? o.zkey : o.r1cs;
  const std::string bin_path = wtns_given ? o.wtns : o.zkey, pub_path = wtns_given ? o.proof : o.wtns;
  if (bin_path.empty()) throw zk::input_error("prove --params: no PROOF.BIN output named");
  auto wit = wtns_given ? wit_read.get() : std::move(*dump_wit);
  lap(st_wtns);
  auto key = layout ? g16::bellperson_proving_key(params, *layout, points_on_host)
                    : g16::bellperson_proving_key(params, *dump_cs, points_on_host);
  lap(st_key);
  zk::io::check_witness_matches(key, wit);
  double t_load = seconds_since(t0);
  auto t_pce0 = now_ns();
  auto pce = g16::constraint_evaluator::build(key);
  const double t_pce = seconds_since(t_pce0);
  auto t_dev0 = now_ns();
  auto resident = g16::load_for_proofs(*be, g16::points_of(key), pce);
  const double t_dev = seconds_since(t_dev0);
  g16::prove_timings t;
  auto proof = g16::prove(key, pce, wit, g16::random_randomness(), *be, &t, resident.get());
  auto pub = g16::public_inputs(key, wit);
  bool valid = g16::verify(key.vk, pub, proof);
  if (o.timings)
    std::fprintf(stderr,
                 "load stages (s): params open %.3f, r1cs layout (wtns read beside it) %.3f, wtns wait %.3f, key (A/B entries, densities%s) "
                 "%.3f, pce build %.3f, onto the device with its proof's scratch %.3f\n",
                 st_params, st_r1cs, st_wtns,
                 points_on_host ? ", points decoded and checked" : "; points converted on the device at its load",
                 st_key, t_pce, t_dev);
  if (o.timings)
    std::fprintf(stderr, "timings (s): load %.3f, synthesis %.3f, h %.3f, msm A %.3f, B1 %.3f, B2 %.3f, C %.3f, H %.3f\n",
                 t_load, t.synthesis, t.h, t.msm_a, t.msm_b1, t.msm_b2, t.msm_c, t.msm_h);
  if (!valid) {
    // Why: a witness that misses a constraint is the usual cause (checked only now: the check reads
    // the whole circuit, C included, which a good witness need not pay for); it names the constraint.
    check_satisfied(dump_cs ? *dump_cs : zk::io::r1cs::load(o.r1cs), wit, wtns_path, o.r1cs);
    std::cerr << "error: the computed proof does not verify; nothing written\n";
    return exit_proof_failed;
  }
  // Printed once the proof is known good, so that an input error stays the only line.
  std::cerr << "cuzk: backend " << backend_name << (o.backend == "auto" ? " (auto)" : "") << ", bellperson key\n";
  auto bytes = g16::to_compressed(proof);
  write_file_atomically(bin_path, std::span<const std::uint8_t>(bytes));
  if (!pub_path.empty()) write_file_atomically(pub_path, zk::io::snarkjs::dump(zk::io::snarkjs::public_to_json(pub)));
  // The key's gigabytes (its decoded points, entries and evaluator) are left for the process's exit
  // to drop: freeing them piece by piece took seconds after the proof was written. Held from a
  // static, so that a leak checker counts them as reachable.
  struct kept {
    zk::io::zkey key;
    g16::constraint_evaluator pce;
    zk::io::witness wit;
  };
  resident.reset();  // the device's copy of the key, then the backend, go first, as at the end of scope
  be.reset();
  [[maybe_unused]] static kept* const keep = new kept{std::move(key), std::move(pce), std::move(wit)};
  return exit_ok;
}

int prove(const prove_options& o) {
  if (!o.params.empty()) return prove_bellperson(o);
  namespace g16 = zk::groth16;
  if (o.threads) zk::set_default_threads(o.threads);
  std::string backend_name = g16::resolve_backend_name(o.backend);

  auto t0 = now_ns();
  auto key = zk::io::zkey::load(o.zkey);
  double t_key = seconds_since(t0);
  t0 = now_ns();
  auto wit = zk::io::witness::load(o.wtns);
  zk::io::check_witness_matches(key, wit);
  double t_wtns = seconds_since(t0);
  if (!o.r1cs.empty()) {
    auto cs = zk::io::r1cs::load(o.r1cs);
    zk::io::check_r1cs_matches(key, cs);
    check_satisfied(cs, wit, o.wtns, o.r1cs);
  }

  // Printed once the inputs are known good, so that an input error stays the only line.
  std::cerr << "cuzk: backend " << backend_name << (o.backend == "auto" ? " (auto)" : "") << "\n";
  auto be = g16::make_backend(backend_name);
  t0 = now_ns();
  auto pce = g16::constraint_evaluator::build(key);
  double t_pce = seconds_since(t0);
  t0 = now_ns();
  auto resident = g16::load_for_proofs(*be, g16::points_of(key), pce);
  double t_dev = seconds_since(t0);
  g16::prove_timings t;
  auto proof = g16::prove(key, pce, wit, g16::random_randomness(), *be, &t, resident.get());
  auto pub = g16::public_inputs(key, wit);
  t0 = now_ns();
  bool valid = g16::verify(key.vk, pub, proof);
  double t_verify = seconds_since(t0);
  if (o.timings)
    std::fprintf(stderr,
                 "timings (s): load zkey %.3f, load wtns %.3f, pce build %.3f, onto the device %.3f, synthesis %.3f, "
                 "stage %.3f, h %.3f, msm A %.3f, "
                 "msm B1 %.3f, msm B2 %.3f, msm C %.3f, msm H %.3f, assemble %.3f, verify %.3f\n",
                 t_key, t_wtns, t_pce, t_dev, t.synthesis, t.stage, t.h, t.msm_a, t.msm_b1, t.msm_b2, t.msm_c, t.msm_h,
                 t.assemble, t_verify);
  if (!valid) {
    std::cerr << "error: the computed proof does not verify (is the witness for this circuit? try --r1cs); "
                 "nothing written\n";
    return exit_proof_failed;
  }

  namespace js = zk::io::snarkjs;
  write_file_atomically(o.proof, js::dump(js::proof_to_json(proof)));
  write_file_atomically(o.pub, js::dump(js::public_to_json(pub)));
  if (!o.compressed.empty()) {
    auto bytes = g16::to_compressed(proof);
    write_file_atomically(o.compressed, std::span<const std::uint8_t>(bytes));
  }
  return exit_ok;
}

}  // namespace

void register_prove(CLI::App& app) {
  auto opt = std::make_shared<prove_options>();
  auto remote = std::make_shared<remote_prove_options>();
  auto* sub = app.add_subcommand(
      "prove",
      "Make a Groth16 proof (verified before it is written): locally from ZKEY WTNS PROOF PUBLIC, or through a "
      "daemon with --addr/--circuit/--witness/--out");
  // Local form: the argument order of `snarkjs groth16 prove` and rapidsnark's `prover`.
  sub->add_option("zkey", opt->zkey, "proving key (.zkey, snarkjs format, BLS12-381)");
  sub->add_option("wtns", opt->wtns, "witness (.wtns)");
  sub->add_option("proof", opt->proof, "output proof.json");
  sub->add_option("public", opt->pub, "output public.json");
  sub->add_option("--r1cs", opt->r1cs, "check that the witness satisfies every constraint of this circuit first");
  sub->add_option("--params", opt->params, "bellperson form: K.params (needs --r1cs; then WTNS PROOF.BIN [PUBLIC.JSON])");
  sub->add_option("--compressed", opt->compressed, "also write the 192-byte compressed proof (A || B || C)");
  sub->add_option("--backend", opt->backend, "auto | cpu | cuda (auto: cuda when built and a device is present)");
  sub->add_option("--threads", opt->threads, "CPU threads (default: all)");
  sub->add_flag("--timings", opt->timings, "print the time of each stage on stderr");
  // Daemon form.
  sub->add_option("--addr", remote->addr, "prove through the daemon at unix:///path or HOST:PORT");
  sub->add_option("--circuit", remote->circuit, "daemon form: circuit NAME");
  sub->add_option("--witness", remote->witnesses, "daemon form: a partition's .wtns (repeat, in order)");
  sub->add_option("--out", remote->out_dir, "daemon form: directory for proof-K.json, public-K.json, proof.bin");
  sub->add_option("--priority", remote->priority, "daemon form: low | normal | high | critical");
  sub->add_option("--request-id", remote->request_id, "daemon form: idempotency key");
  sub->add_option("--token", remote->token, "daemon form: bearer token (or $CUZK_TOKEN)");
  sub->add_flag("--json", remote->json, "daemon form: machine-readable output");
  sub->callback([opt, remote] {
    run_command([&]() -> int {
      if (remote_prove_requested(*remote)) return run_remote_prove(*remote);
      if (opt->params.empty() && (opt->zkey.empty() || opt->wtns.empty() || opt->proof.empty() || opt->pub.empty())) {
        std::cerr << "error: prove needs ZKEY WTNS PROOF PUBLIC (or --addr/--circuit/--witness/--out for a daemon)\n";
        return exit_bad_input;
      }
      try {
        return prove(*opt);
      } catch (const std::invalid_argument& e) {  // unknown backend name
        std::cerr << "error: --backend: " << e.what() << "\n";
        return exit_bad_input;
      }
    });
  });
}

}  // namespace cuzk::cli
