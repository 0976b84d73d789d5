// A TEST-ONLY Groth16 setup: a proving key from an .r1cs and toxic waste derived from a seed.
//
// Whoever knows the seed can forge proofs for the key: it exists so that tests and benchmarks can
// make keys of any size in seconds (snarkjs needs a powers-of-tau ceremony file and hours at 2^20).
// The key is bit-compatible with snarkjs's `groth16 setup` output (section 4 order and values, the
// extra nPublic + 1 A rows, gamma = 1, H = L^{(2n)}_{2i+1}(tau) / delta), so snarkjs proves and
// verifies with it. A circuit too big to hold as an r1cs or a zkey: streaming_setup.hpp (the same
// bytes in bellperson's convention).
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "zk/io/r1cs.hpp"
#include "zk/io/zkey.hpp"

namespace cuzk::zk::groth16 {

using namespace cuzk::zk::bls12_381;

struct toxic_waste {
  fr tau, alpha, beta, gamma, delta;
};

// tau, alpha, beta, delta: uniform nonzero field elements from std::mt19937_64(seed) (4 draws of 64
// bits, masked to 255 bits, rejected when >= r or zero); gamma = 1 as in snarkjs.
toxic_waste toxic_waste_from_seed(std::uint64_t seed);

// snarkjs's rule (zkey_new.js): 2^(floor(log2(nConstraints + nPublic)) + 1), which leaves room for
// the nPublic + 1 extra A rows.
std::uint32_t snarkjs_domain_size(std::uint32_t n_constraints, std::uint32_t n_public);

// The 2^k-th root of unity snarkjs uses: 5^((r-1)/2^32) squared 32 - k times.
fr snarkjs_root_of_unity(unsigned k);

// The key in memory (path empty; points owned by key.storage). Parallel over hardware threads.
// Throws input_error when the r1cs is too large for BLS12-381's 2-adicity (domain > 2^28, snarkjs's
// limit) or names a wire outside nWires.
//
// convention bellperson (zk/groth16/bellperson_key.hpp): domain bellperson_domain_size, roots from 7,
// H_i = tau^i (tau^n - 1) / delta for i < n - 1, a/b queries filtered by bellperson_density; the
// rest (IC, L = c, the matrices) as for snarkjs. gamma stays 1.
//
// progress(stage, done, total): the stage ("QAP at tau", then "points A", "points B (G1)", "points B
// (G2)", "points L", "points H") and how many of its points are made; called from one thread at a
// time, not always the caller's.
using setup_progress = std::function<void(std::string_view stage, std::size_t done, std::size_t total)>;
io::zkey setup(const io::r1cs& cs, const toxic_waste& tw, io::key_convention convention = io::key_convention::snarkjs,
               const setup_progress& progress = {});

// The constraint evaluator's A/B entries of a circuit as a zkey's section 4 holds them (coef * R in
// the Montgomery sense), with the nPublic + 1 input rows appended to A. Throws input_error for a
// wire outside nWires.
std::vector<io::zkey_coefficient> pce_coefficients(const io::r1cs& cs);
// The same straight from a mapped .r1cs (its A and B terms decoded and checked in parallel, C left
// unread): no r1cs in between. Throws input_error naming the first bad term, as r1cs::load does.
std::vector<io::zkey_coefficient> pce_coefficients(const io::r1cs_layout& layout);

}  // namespace cuzk::zk::groth16
