// What cmd_fil.cpp's proving and verifying share with the other `cuzk fil` files
// (cmd_fil_snap.cpp): the params lookup, key, proving, progress and atomic write of a proof, and the
// verifying key, proof file and batched verification of `verify-*`.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "fil/partition.hpp"
#include "zk/groth16/types.hpp"
#include "zk/groth16/verifier.hpp"
#include "zk/io/wtns.hpp"

namespace CLI {
class App;
}

namespace cuzk::cli {

struct fil_prove_target {
  std::string params_dir, backend = "auto", out;
  std::string evaluator_dir;  // where a compact evaluator is cached ("": params_dir)
  bool timings = false;
};
// Loads c's key from params_dir, proves `partitions` partitions (synthesize(k)), verifies them in one
// batch and writes the proof atomically; exit_proof_failed (nothing written) when one does not verify.
int fil_prove_and_write(const fil_prove_target& t, const fil::circuit_ref& c, std::size_t partitions,
                        const std::function<zk::io::witness(std::size_t)>& synthesize, const std::string& what);

struct fil_vk_source {
  std::string params_dir, vk, vk_format = "bellperson";
};
zk::groth16::verifying_key fil_load_vk(const fil_vk_source& s, const std::string& cache_id);
// A proof file of exactly `partitions` compressed Groth16 proofs (192 B each); input_error otherwise.
std::vector<zk::groth16::proof> fil_load_proofs(const std::string& path, std::size_t partitions, std::string_view what);
// Prints OK / INVALID; exit_ok or exit_invalid.
int fil_verify_partitions(const zk::groth16::verifying_key& vk, const std::vector<std::vector<fil::fr>>& inputs,
                          const std::vector<zk::groth16::proof>& proofs, const std::string& what);

// `cuzk fil snap` and `cuzk fil verify-update` under the `fil` command.
void register_fil_snap(CLI::App& fil);

}  // namespace cuzk::cli
