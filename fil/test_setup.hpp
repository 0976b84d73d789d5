// TEST-ONLY Groth16 parameters for Filecoin's circuits (`cuzk fil setup`): the circuit synthesized
// blank as filecoin-proofs' parameter generation synthesizes it, a setup from toxic waste derived
// from a seed (zk/groth16/setup.hpp, bellperson's convention), written under the circuit's
// parameters.json name so that filecoin-proofs and cuzk load them as they load the real files.
// Whoever knows the seed can forge proofs: the files are for tests and demonstrations only.
//
// A directory of test files carries a marker beside them, DIR/CUZK-TEST-ONLY (text): '#' lines that
// say what the files are, then one line per file cuzk made, "NAME SEED REGISTERED_PROOF"
// (parameters.json: "parameters.json - -"). A Filecoin parameter file in DIR (.params, .vk, .meta,
// parameters.json) that the marker does not list is a real one, and a setup refuses the directory.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fil/partition.hpp"
#include "zk/groth16/setup.hpp"
#include "zk/groth16/streaming_setup.hpp"
#include "zk/io/zkey.hpp"

namespace cuzk::fil {

inline constexpr std::string_view test_only_marker = "CUZK-TEST-ONLY";

struct test_only_entry {
  std::string file, seed, registered_proof;
};

// The marker's entries, in its order (empty when DIR has no marker). Throws input_error naming the
// marker when it cannot be read or a line is not "NAME SEED REGISTERED_PROOF".
std::vector<test_only_entry> read_test_only_marker(const std::string& dir);
// Writes DIR's marker with `entries` (a temporary renamed over it). Throws input_error naming it.
void write_test_only_marker(const std::string& dir, const std::vector<test_only_entry>& entries);
// The first Filecoin parameter file in DIR (by name) that the marker does not list, or "".
std::string first_real_param_file(const std::string& dir);

// The circuit recorded blank (progress stage "record the circuit", 0 then 1 of 1) and set up in
// memory with the toxic waste of `seed` in bellperson's convention: the r1cs and the key are held
// whole (small circuits; the reference the streamed setup is compared with).
zk::io::zkey test_setup(const circuit_ref& c, std::uint64_t seed, const zk::groth16::setup_progress& progress = {});

// The same parameters streamed (zk/groth16/streaming_setup.hpp) straight into `params_path` and
// `vk_path`, byte for byte what test_setup's key writes: any size, the 32 GiB PoRep included, in
// ~100 B a variable. Stages: "count the circuit" (0 then 1 of 1), "evaluate the QAP at tau"
// (constraints), then the points' stages. PoRep's parts record on `threads` threads (0: all); the
// points are made on `device` when given (zk::groth16::make_point_multiplier), else on the host.
zk::groth16::streamed_setup stream_test_setup(const circuit_ref& c, std::uint64_t seed, const std::string& params_path,
                                      const std::string& vk_path, const zk::groth16::setup_progress& progress = {},
                                      unsigned threads = 0, zk::groth16::point_multiplier* device = nullptr);

}  // namespace cuzk::fil
