#include "fil/evaluator.hpp"

#include <filesystem>

#include "fil/circuit/stacked.hpp"
#include "zk/cs/constraint_system.hpp"
#include "zk/error.hpp"

namespace cuzk::fil {

std::string porep_evaluator_key(const seal_proof_info& info) {
  return "cuzk porep " + std::string(info.name) + " partition";
}

std::string porep_evaluator_path(const std::string& params_path, const std::string& dir) {
  const std::filesystem::path params(params_path);
  const std::filesystem::path d = dir.empty() ? params.parent_path() : std::filesystem::path(dir);
  return (d / (params.stem().string() + ".cuzk-pce")).string();
}

porep_evaluator open_porep_evaluator(const seal_proof_info& info, const std::string& file,
                                     const evaluator_progress& progress) {
  namespace g16 = zk::groth16;
  const std::string key = porep_evaluator_key(info);
  std::error_code ec;
  if (std::filesystem::is_regular_file(file, ec)) {
    try {
      return {std::make_shared<const g16::pce_compact>(g16::pce_compact::open(file, key)), false};
    } catch (const zk::input_error&) {
      // another version, circuit or a damaged file: recorded again below, replacing it
    }
  }
  if (progress) progress("recording the circuit", 0, 1);
  {
    g16::pce_recorder rec(file, key);
    zk::cs::constraint_system cs(rec);
    circuit::stacked_circuit(cs, circuit::blank_porep_partition(circuit::porep_shape_of(info)));
    rec.finish(cs.num_inputs(), cs.num_aux());
  }
  if (progress) progress("recording the circuit", 1, 1);
  return {std::make_shared<const g16::pce_compact>(g16::pce_compact::open(file, key)), true};
}

}  // namespace cuzk::fil
