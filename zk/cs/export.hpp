// A synthesized constraint system in the forms the prover takes: the recorded constraints as an
// io::r1cs (circom's wire order: ONE, the public inputs, then aux), the values as an io::witness in
// the same order. This is the bridge from zk/cs's gadgets to a bellperson key
// (groth16::bellperson_proving_key) and the constraint evaluator, whose wire order it is: input i
// -> wire i, aux j -> wire num_inputs + j (as fil-oracle's R1CS dump maps them, zk/io/r1cs_dump.hpp).
#pragma once

#include <string>

#include "zk/cs/constraint_system.hpp"
#include "zk/io/r1cs.hpp"
#include "zk/io/wtns.hpp"
#include "zk/util/parallel.hpp"

namespace cuzk::zk::cs {

// Record mode only (throws std::logic_error otherwise). `name` is what messages call it.
io::r1cs to_r1cs(const constraint_system& cs, std::string name);
// Either mode: the values, canonical.
io::witness to_witness(const constraint_system& cs, std::string name);
// The same values (canonical) into `out`, resized (its memory reused when it has the room), on `pool`.
void to_witness_values(const constraint_system& cs, std::vector<bigint<4>>& out, thread_pool& pool);

}  // namespace cuzk::zk::cs
