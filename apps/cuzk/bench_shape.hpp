// What the benchmarks of a Filecoin circuit's shape share (`cuzk bench fil --shape`, `cuzk bench abc`):
// the shape's proof and the cache of compact recorded evaluators.
#pragma once

#include <string>

#include "fil/partition.hpp"
#include "fil/registered_proof.hpp"

namespace CLI {
class App;
}

namespace cuzk::cli {

// porep-2KiB ... porep-64GiB -> its seal proof; throws input_error naming --shape otherwise.
const fil::seal_proof_info* shape_proof(const std::string& shape);
// snap-2KiB ... snap-64GiB -> the SnapDeals update circuit of that size (input_error otherwise).
fil::circuit_ref snap_circuit_of(const std::string& shape);
// wpost-2KiB ... wpost-64GiB -> the WindowPoSt (V1_2) circuit of that size.
fil::circuit_ref wpost_circuit_of(const std::string& shape);
// $XDG_CACHE_HOME/cuzk/evaluators, else ~/.cache/cuzk/evaluators, else ./cuzk-evaluators.
std::string default_evaluator_dir();

// `cuzk bench abc` (cmd_bench_abc.cpp).
void register_abc_bench(CLI::App* bench);

}  // namespace cuzk::cli
