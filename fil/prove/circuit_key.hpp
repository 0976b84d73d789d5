// What proving a Filecoin circuit with Filecoin's published parameters needs besides the circuit
// itself. A .params file holds no constraints: the key is the file's points plus our recorded R1CS
// of the same circuit (fil/circuit, bit-identical to bellperson's), joined by
// zk/groth16/bellperson_key. The recorded circuit's variables map to wires as fil-oracle's dump
// does: input i -> wire i (ONE is wire 0), aux j -> wire num_inputs + j; so a witness-mode synthesis
// of the same circuit is the wire vector as it stands (inputs, then aux).
//
// Used per circuit shape, once: record the blank circuit (to_r1cs), find the params file by its
// Filecoin name (params_file), load_key. Per partition: synthesize in witness mode, witness_of.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "zk/cs/constraint_system.hpp"
#include "zk/groth16/pce.hpp"
#include "zk/io/r1cs.hpp"
#include "zk/io/wtns.hpp"
#include "zk/io/zkey.hpp"

namespace cuzk::fil::prove {

// The circuit recorded in `recorded` (mode::record) as an R1CS over wires; `name` is what messages
// call it. Every input but ONE is public. Throws std::logic_error for a witness-mode system.
zk::io::r1cs to_r1cs(const zk::cs::constraint_system& recorded, std::string name);

// The wire values of a synthesis (either mode), canonical: inputs then aux.
zk::io::witness witness_of(const zk::cs::constraint_system& cs, std::string name);

// DIR/<cache_id>.params, checked to exist; throws zk::input_error naming the path looked for and
// the proof it is for ("DIR/v28-...params: no such file (the StackedDrgWindow2KiBV1_2 parameters)").
std::string params_file(const std::string& dir, const std::string& cache_id, std::string_view proof_name);

// A proving key and its constraint evaluator, ready for zk::groth16::prove / the engine.
struct circuit_key {
  zk::io::zkey key;
  zk::groth16::constraint_evaluator pce;
};
// Maps `params_path` (zk/io/bellperson) and joins it with the recorded circuit. Throws
// zk::input_error naming the file when its shape is not the circuit's (another circuit's params).
circuit_key load_key(const std::string& params_path, const zk::io::r1cs& cs);

}  // namespace cuzk::fil::prove
