// Proving keys in bellperson's convention (io::key_convention::bellperson): what the circuit says
// about them (domain size, the density of the A and B queries) and a key from a .params file plus
// the circuit it was made for.
//
// bellperson appends one constraint `input_i * 0 = 0` per input (ONE included) after the circuit's
// own: the same rows that snarkjs appends to A, so the constraint evaluator is shared. Variables are
// ordered inputs first (ONE, then the public wires), then aux: circom's wire order, so wire w is
// bellperson's input w for w <= nPublic and aux w - nPublic - 1 after.
#pragma once

#include <cstdint>
#include <vector>

#include "zk/io/bellperson.hpp"
#include "zk/io/r1cs.hpp"
#include "zk/io/zkey.hpp"

namespace cuzk::zk::groth16 {

// The smallest 2^k >= nConstraints + nPublic + 1 (bellperson's EvaluationDomain over the a vector).
std::uint32_t bellperson_domain_size(std::uint32_t n_constraints, std::uint32_t n_public);

// The wires whose points the key's a (b_g1, b_g2) query holds, ascending: every input, and the aux
// wires named in some A term (B: inputs and aux named in some B term). A term counts whatever its
// coefficient, as bellperson's density tracker counts it.
struct query_density {
  std::vector<std::uint32_t> a_wires, b_wires;
};
query_density bellperson_density(const io::r1cs& cs);
class pce_compact;
// The same from a compact recorded evaluator's density bitmaps.
query_density bellperson_density(const pce_compact& e);

// A proving key for `cs` from a mapped .params file: the points are decoded and checked (see
// io::bellperson_params), the constraint matrices come from cs. Throws input_error naming the file
// when its shape (inputs, aux, h, a, b counts) is not the circuit's.
//
// points_on_host false: the points are neither decoded nor checked here; the key's file_points
// holds the sections as the file stores them and a device (the CUDA backend) converts and checks
// them as it uploads them, with the same errors (the host does no per-point work; only such a
// backend proves with this key). The shape checks above are made either way.
io::zkey bellperson_proving_key(const io::bellperson_params& params, const io::r1cs& cs, bool points_on_host = true);
// The same from a mapped .r1cs, its A and B terms read straight into the key's entries (the first
// proof after open: no r1cs in between; the C terms are not read, the l query holds C).
io::zkey bellperson_proving_key(const io::bellperson_params& params, const io::r1cs_layout& layout,
                                bool points_on_host = true);
// The same from a compact recorded evaluator (its counts and density bitmaps): the key holds no
// section-4 coefficients; evaluate with constraint_evaluator::from_compact.
io::zkey bellperson_proving_key(const io::bellperson_params& params, const pce_compact& compact,
                                bool points_on_host = true);

}  // namespace cuzk::zk::groth16
