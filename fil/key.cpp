#include "fil/key.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "fil/circuit/stacked.hpp"
#include "fil/partition.hpp"
#include "zk/error.hpp"
#include "zk/groth16/bellperson_key.hpp"
#include "zk/groth16/pce_compact.hpp"
#include "zk/groth16/prover.hpp"
#include "zk/groth16/synthetic_srs.hpp"
#include "zk/io/bellperson.hpp"

namespace cuzk::fil {

namespace {

std::shared_ptr<const zk::groth16::pce_compact> open_synthetic_evaluator(const std::string& path) {
  const auto spec = zk::groth16::parse_synthetic_key_path(path);
  return std::make_shared<const zk::groth16::pce_compact>(
      zk::groth16::pce_compact::open(spec.evaluator, zk::groth16::pce_compact::stored_key(spec.evaluator)));
}

circuit_key synthetic_circuit_key(const std::string& path) {
  // Loaded with its compact evaluator, as a PoRep key is: the synthesizers then take the kept
  // partition buffers and evaluate a, b, c from the circuit's values.
  circuit_key ck;
  const auto spec = zk::groth16::parse_synthetic_key_path(path);
  auto compact = open_synthetic_evaluator(path);
  if (const auto* seal = porep_of_evaluator_key(zk::groth16::pce_compact::stored_key(spec.evaluator)))
    circuit::prepare_porep_layout(circuit::porep_shape_of(*seal), zk::default_pool());
  ck.zkey = std::make_shared<const zk::io::zkey>(zk::groth16::synthetic_key(*compact, spec.seed, spec.host_points, path));
  ck.evaluator_bytes = compact->file_bytes();
  ck.evaluator = std::make_shared<const zk::groth16::constraint_evaluator>(
      zk::groth16::constraint_evaluator::from_compact(std::move(compact)));
  return ck;
}

void check_digest(const std::string& path, const std::map<std::string, std::string>& digests) {
  const auto name = std::filesystem::path(path).filename().string();
  auto it = digests.find(name);
  if (it == digests.end()) throw zk::input_error(path + ": not listed in parameters.json (verify_params is on)");
  auto got = zk::io::parameters_json_digest(path);
  if (got != it->second) throw zk::input_error(path + ": digest " + got + " differs from parameters.json's " + it->second);
}

// A PoRep or SnapDeals key: the compact recorded evaluator, cached beside the params (or in
// evaluator_dir), and the key's density from it.
circuit_key compact_circuit_key(const std::string& path, const circuit_ref& c, const key_options& options) {
  const auto file = porep_evaluator_path(path, options.evaluator_dir);
  std::chrono::steady_clock::time_point started;
  const auto progress = [&](std::string_view stage, std::size_t done, std::size_t total) {
    if (options.progress) options.progress(stage, done, total);
    if (!options.on_event) return;
    if (done == 0) {
      started = std::chrono::steady_clock::now();
      options.on_event("recording the compact evaluator of " + c.describe() + " into " + file +
                       " (once per sector size; " +
                       (!c.seal ? std::string("1")
                        : options.record_threads ? std::to_string(options.record_threads)
                                                 : std::string("all")) +
                       " threads)");
    } else if (done == total) {
      char secs[32];
      std::snprintf(secs, sizeof secs, "%.1f",
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
      options.on_event("recorded " + file + " in " + secs + " s");
    }
  };
  auto ev = c.seal ? open_porep_evaluator(*c.seal, file, progress, options.record_threads)
                         : open_update_evaluator(*c.update, file, progress);
  // The witness's per-part counts, once per shape and process, now rather than in the first partition.
  if (c.seal) circuit::prepare_porep_layout(circuit::porep_shape_of(*c.seal), zk::default_pool());
  auto key = zk::groth16::bellperson_proving_key(zk::io::bellperson_params::open(path), *ev.compact);
  key.path = path;
  circuit_key ck;
  ck.zkey = std::make_shared<const zk::io::zkey>(std::move(key));
  ck.evaluator_recorded = ev.recorded;
  ck.evaluator_bytes = ev.compact->file_bytes();  // mapped: its pages come in as partitions read them
  ck.evaluator = std::make_shared<const zk::groth16::constraint_evaluator>(
      zk::groth16::constraint_evaluator::from_compact(std::move(ev.compact)));
  return ck;
}

circuit_key load_unchecked(const std::string& path, const key_options& options) {
  if (zk::groth16::is_synthetic_key_path(path)) return synthetic_circuit_key(path);
  circuit_key ck;
  auto circuit = circuit_for_params(path);
  if (!circuit) {
    ck.zkey = std::make_shared<const zk::io::zkey>(zk::io::zkey::load(path));
    return ck;
  }
  if (!std::filesystem::exists(path)) throw zk::input_error(path + ": params file not found");
  if (options.param_digests && !options.param_digests->empty()) check_digest(path, *options.param_digests);
  if (circuit->seal || circuit->update) return compact_circuit_key(path, *circuit, options);
  // PoSt: the R1CS in memory, the CSR evaluator.
  ck.zkey = std::make_shared<const zk::io::zkey>(proving_key(path, *circuit));
  return ck;
}

}  // namespace

// The key's own consistency (its point sections against its wires and domain: zk::groth16::check_key,
// a scan of every A and B wire index, ~160M at 32 GiB) is checked once here, where the key is made;
// the engine's stagers then check each partition's witness and synthesis against it, not the key again.
circuit_key load_circuit_key(const std::string& path, const key_options& options) {
  circuit_key ck = load_unchecked(path, options);
  zk::groth16::check_key(*ck.zkey);
  if (options.with_evaluator && !ck.evaluator) {
    ck.evaluator = build_evaluator(*ck.zkey);
    ck.evaluator_bytes = ck.evaluator->memory_bytes();
  }
  return ck;
}

std::shared_ptr<const zk::groth16::constraint_evaluator> build_evaluator(const zk::io::zkey& key) {
  if (key.synthetic)
    return std::make_shared<const zk::groth16::constraint_evaluator>(
        zk::groth16::constraint_evaluator::from_compact(open_synthetic_evaluator(key.path)));
  return std::make_shared<const zk::groth16::constraint_evaluator>(zk::groth16::constraint_evaluator::build(key));
}

std::uint64_t evaluator_bytes(const zk::io::zkey& key) {
  if (!key.synthetic) return zk::groth16::constraint_evaluator::estimate_bytes(key);
  const auto spec = zk::groth16::parse_synthetic_key_path(key.path);
  std::error_code ec;
  const auto file = std::filesystem::file_size(spec.evaluator, ec);
  return (ec ? 0 : file) + 3 * std::uint64_t{key.domain_size} * sizeof(zk::bls12_381::fr);
}

}  // namespace cuzk::fil
