// A synthetic SRS: a proving key of a real circuit's shape (counts, domain, the density of the A and
// B queries, from the circuit's compact recorded evaluator) whose points are random points of the
// right groups. It is NOT A SETUP: no toxic waste relates its points, so its proofs never verify.
// It exists so that a 32 GiB PoRep partition can be proved at full scale (timings and memory are
// real) without the 44 GiB parameter file. Points come from synthetic_srs_rng.hpp's walk, made on
// the device that proves with them (gpu/src/synthetic_srs.cu) or, for small shapes and CPU devices,
// on the host by the same formula (byte for byte the same points).
//
// A synthetic key is named by a key path of its own, `synthetic:SEED:WHERE:EVALUATOR`, so that it
// travels through the engine's key store like any key (WHERE is "device": the host holds no points,
// only spans over an unbacked zero mapping that nothing reads, or "host": the points are generated
// on the host too). io::zkey::synthetic marks it everywhere: the engine refuses it unless the caller
// asked for a synthetic bench, and only then releases its proofs unverified.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "zk/groth16/bellperson_key.hpp"
#include "zk/groth16/synthetic_srs_rng.hpp"
#include "zk/io/zkey.hpp"

namespace cuzk::zk::groth16 {

class pce_compact;

inline constexpr std::string_view synthetic_key_prefix = "synthetic:";

struct synthetic_key_spec {
  std::uint64_t seed = 0;
  bool host_points = false;  // WHERE = host
  std::string evaluator;     // the compact recorded evaluator's file
};
bool is_synthetic_key_path(std::string_view path);
std::string synthetic_key_path(const synthetic_key_spec& s);
// Throws input_error naming the path and the part that is wrong.
synthetic_key_spec parse_synthetic_key_path(std::string_view path);

// Section `sec`'s n points (lanes: 0 = synthetic::lanes_for(n)), on the host's cores.
std::vector<g1_affine> synthetic_g1(std::uint64_t seed, std::uint32_t sec, std::uint64_t n, std::uint64_t lanes = 0);
std::vector<g2_affine> synthetic_g2(std::uint64_t seed, std::uint32_t sec, std::uint64_t n, std::uint64_t lanes = 0);
// A section's walk step Q_s, and its scalars as a bigint (what a device generator is given).
g1_affine synthetic_step_g1(std::uint64_t seed, std::uint32_t sec);
g2_affine synthetic_step_g2(std::uint64_t seed, std::uint32_t sec);

// The shape of a bellperson key for a recorded circuit.
struct synthetic_shape {
  std::uint64_t n_inputs = 0, n_aux = 0, n_constraints = 0, domain = 0;
  query_density density;
  std::uint64_t g1_points() const { return density.a_wires.size() + density.b_wires.size() + n_aux + domain - 1; }
  std::uint64_t g2_points() const { return density.b_wires.size(); }
  std::uint64_t point_bytes() const { return 96 * g1_points() + 192 * g2_points(); }
};
synthetic_shape synthetic_shape_of(const pce_compact& e);

// The key (bellperson convention, io::zkey::synthetic set) of `e`'s circuit, named `path`; vk points
// random too. Its points on the host only with `host_points`.
io::zkey synthetic_key(const pce_compact& e, std::uint64_t seed, bool host_points, std::string path);

}  // namespace cuzk::zk::groth16
