// The TEST-ONLY setup of setup.hpp in bellperson's convention for circuits too big to hold: neither
// the R1CS nor the key is ever in memory. A 32 GiB PoRep partition (130M constraints, a 47 GB .params
// file) needs ~13 GB this way, where its r1cs and zkey would need several times the host.
//
//  1. The circuit is counted first (the domain size, hence every L_j(tau), depends on it), then
//     synthesized into a qap_accumulator: a constraint sink that adds coeff * L_j(tau) of each term
//     of constraint j into the variable's u (A), v (B) or w (C) and marks the A/B density, on every
//     thread that records a part of the circuit (cs::parallel_sink, told where each part starts).
//  2. write_bellperson_setup makes the points chunk by chunk by fixed-base multiplication and writes
//     them in the .params order (vk, h, l, a, b_g1, b_g2) while the next chunk is computed, hashing
//     as it writes (parameters.json's digest), then the .vk.
// The bytes are those that setup(r1cs, tw, bellperson) + io::bellperson_params_bytes give for the
// same circuit and toxic waste (the scalar formulas and the fixed-base code are shared:
// setup_detail.hpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "zk/cs/constraint_system.hpp"
#include "zk/groth16/setup.hpp"
#include "zk/util/uninitialized_allocator.hpp"

namespace cuzk::zk::groth16 {

// A circuit's size as a constraint system counts it (inputs with ONE).
struct circuit_counts {
  std::uint64_t inputs = 0, aux = 0, constraints = 0;
};

// Where write_bellperson_setup's points are made: out[i] = k[i] G for the generator of a fixed-base
// table (setup_detail.hpp: row j entry d = d 2^(w j) G, affine, identity all zero). The host's
// (all cores) unless a device is named: gpu/ registers "cuda", which takes the same tables.
template <class Affine>
struct fixed_base_table {
  std::span<const Affine> points;
  unsigned window = 0;
  std::size_t windows = 0;
};
class point_multiplier {
 public:
  virtual ~point_multiplier() = default;
  virtual void g1(const fixed_base_table<g1_affine>& table, std::span<const fr> k, std::span<g1_affine> out) = 0;
  virtual void g2(const fixed_base_table<g2_affine>& table, std::span<const fr> k, std::span<g2_affine> out) = 0;
};
using point_multiplier_factory = std::function<std::unique_ptr<point_multiplier>(int device)>;
void register_point_multiplier(const std::string& name, point_multiplier_factory factory);
// The multiplier registered as `name` on device `device`; throws input_error naming it when this
// build has none of that name (e.g. "cuda" without the CUDA backend).
std::unique_ptr<point_multiplier> make_point_multiplier(const std::string& name, int device = 0);

class qap_part;

class qap_accumulator : public cs::parallel_sink {
 public:
  // Holds L_j(tau) for the whole bellperson domain of `counts` (32 B a row) and u, v, w of every
  // variable (96 B each). Throws input_error when the domain is above 2^28.
  // `progress(constraints, total)` is called as constraints are appended, on the appending thread.
  qap_accumulator(const toxic_waste& tw, const circuit_counts& counts,
                  std::function<void(std::uint64_t, std::uint64_t)> progress = {});
  ~qap_accumulator() override;

  void constraint(const cs::linear_combination& a, const cs::linear_combination& b,
                  const cs::linear_combination& c) override;
  std::unique_ptr<cs::constraint_sink> part(std::uint64_t first_constraint) override;
  void append_part(cs::constraint_sink& part) override;
  // After the synthesis: the system's counts must be those given (std::logic_error otherwise);
  // adds bellperson's rows `input_s * 0 = 0` and drops the L_j(tau).
  void finish(const circuit_counts& synthesized);

  // Wire `wire`'s u, v, w at tau (wires: inputs, then aux) and whether it is in the A / B query
  // (before finish(): without bellperson's input rows).
  struct polys {
    fr u, v, w;
    bool in_a = false, in_b = false;
    bool operator==(const polys&) const = default;
  };
  polys at(std::uint64_t wire) const;

  const toxic_waste& waste() const { return tw_; }
  const circuit_counts& counts() const { return counts_; }
  std::uint32_t domain_size() const { return n_; }
  unsigned log_domain() const { return k_; }

 private:
  struct trio {
    fr u, v, w;
  };
  void flush_own();

  toxic_waste tw_;
  circuit_counts counts_;
  std::uint32_t n_ = 0;
  unsigned k_ = 0;
  std::vector<fr> lag_;
  std::vector<trio, uninitialized_allocator<trio>> aux_;
  std::vector<std::uint8_t, uninitialized_allocator<std::uint8_t>> aux_in_a_, aux_in_b_;
  std::vector<trio> in_;
  std::vector<std::uint8_t> in_in_b_;
  std::unique_ptr<std::atomic<std::uint8_t>[]> locks_;  // striped over aux indices
  std::uint64_t next_ = 0;                               // rows appended, in the system's order
  std::unique_ptr<qap_part> own_;                        // constraint()'s rows not yet appended
  std::function<void(std::uint64_t, std::uint64_t)> progress_;
  bool finished_ = false;
  friend class qap_part;
  friend struct streaming_writer;
  friend struct written_setup write_bellperson_setup(const qap_accumulator&, const std::string&, const std::string&,
                                                     const setup_progress&, std::size_t, point_multiplier*);
};

// What write_bellperson_setup wrote.
struct written_setup {
  std::uint64_t params_bytes = 0, vk_bytes = 0;
  std::string params_digest, vk_digest;  // parameters.json's (io::parameters_json_digest)
};

// Writes the .params (streamed: `chunk_points` points at a time, each chunk written while the next
// is computed) and the .vk of a finished accumulator. Throws input_error naming the file when it
// cannot be written, and naming the wire when an aux variable is in no constraint (its L point would
// be the identity, which bellperson's format cannot hold). progress: setup.hpp's stages "points H",
// "points L", "points A", "points B (G1)", "points B (G2)". `device`: where the section points are
// made (null: the host); the vk's few points are always the host's.
written_setup write_bellperson_setup(const qap_accumulator& acc, const std::string& params_path,
                                     const std::string& vk_path, const setup_progress& progress = {},
                                     std::size_t chunk_points = std::size_t{1} << 20, point_multiplier* device = nullptr);

// The whole streamed setup of a circuit that `synthesize` builds into the constraint system it is
// given (called twice: in count mode, then into the accumulator as a streaming record; a circuit
// that records in parts does so there). Stages: "count the circuit" (0 then 1 of 1), "evaluate the
// QAP at tau" (constraints appended), then write_bellperson_setup's.
struct streamed_setup {
  circuit_counts counts;
  unsigned log_domain = 0;
  written_setup files;
};
streamed_setup stream_setup(const std::function<void(cs::constraint_system&)>& synthesize, const toxic_waste& tw,
                            const std::string& params_path, const std::string& vk_path,
                            const setup_progress& progress = {}, point_multiplier* device = nullptr,
                            std::size_t chunk_points = std::size_t{1} << 20);

}  // namespace cuzk::zk::groth16
