// The Groth16 prover, in stages that the engine can run on different actors:
//   synthesis = constraint_evaluator::evaluate(witness)      (CPU, memory-bound)
//   proof     = prove_synthesized(key, synthesis, witness)   (h polynomial and MSMs on a backend)
// and prove_synthesized itself in two: backend::stage (inputs onto the device) and prove_staged, so
// that a stager can upload the next partition while the device computes this one.
// Proof assembly is exactly snarkjs's (groth16_prove.js), so snarkjs verifies what this produces.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "zk/groth16/backend.hpp"
#include "zk/groth16/pce.hpp"
#include "zk/groth16/types.hpp"
#include "zk/io/wtns.hpp"
#include "zk/io/zkey.hpp"

namespace cuzk::zk::groth16 {

// Synthesis (backend::synthesize: on the host, or on the device for the CUDA backend) then
// prove_staged.
// `resident`: the key's points on the backend's device (backend::load_key), or null.
proof prove(const io::zkey& key, const constraint_evaluator& pce, const io::witness& w, const randomness& rnd,
            backend& be, prove_timings* timings = nullptr, const resident_key* resident = nullptr);

// From a finished synthesis (consumed: the backend uses a, b, c as scratch).
//   A  = alpha1 + sum w_i A_i + r delta1
//   B  = beta2 + sum w_i B2_i + s delta2          (B1: the same in G1, with beta1 and delta1)
//   C  = sum_{i > nPublic} w_i C_i + sum h_i H_i + s A + r B1 - r s delta1
// Throws input_error when the witness or synthesis does not fit the key.
proof prove_synthesized(const io::zkey& key, synthesis&& syn, const io::witness& w, const randomness& rnd,
                        backend& be, prove_timings* timings = nullptr, const resident_key* resident = nullptr);

// Throws input_error when the witness or the synthesis does not fit the key (before staging: the
// staged inputs no longer say what they were).
void check_inputs(const io::zkey& key, const synthesis& syn, const io::witness& w);
// check_inputs less check_key: for a key already checked once (the engine's key store checks each
// key when it loads it, so its stagers check only the partition's synthesis and witness).
void check_synthesis(const io::zkey& key, const synthesis& syn, const io::witness& w);
// The key's point sections against its nVars and domain size.
void check_key(const io::zkey& key);

// The key's MSM points, as backends take them.
key_points points_of(const io::zkey& key);

// From inputs staged on be (by be.stage or one of be's stagers), checked by check_inputs.
proof prove_staged(const io::zkey& key, staged_inputs& in, const randomness& rnd, backend& be,
                   prove_timings* timings = nullptr, const resident_key* resident = nullptr);

// The public inputs of a witness: w_1 .. w_nPublic (outputs first), canonical.
std::vector<bigint<4>> public_inputs(const io::zkey& key, const io::witness& w);

}  // namespace cuzk::zk::groth16
