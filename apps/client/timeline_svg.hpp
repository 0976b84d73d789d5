// The timeline picture of a proving run (`cuzk bench fil`): one lane per synthesizer and device (or
// per job slot when the daemon reports no per-partition timings), each partition a bar from its
// start to its end, coloured by proof kind, on a shared millisecond axis. Plain SVG 1.1, no
// scripts, readable in a browser or an image viewer.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace cuzk::cli {

struct timeline_bar {
  std::string lane;   // "synth:3", "cuda:0", "job slot 1"
  std::string label;  // shown on the bar when it fits, and in its tooltip
  std::string kind;   // colour: "wpost", "winning", "porep", "circom", "queue"
  double start_ms = 0, end_ms = 0;  // from the run's start
};

// Lanes in order: synthesizers, then devices, then anything else, each by name (numbers in order).
// Throws std::invalid_argument for a bar that ends before it starts or has a negative start.
std::string timeline_svg(const std::vector<timeline_bar>& bars, const std::string& title);

// The bars of a `cuzk bench fil` results JSON (its "jobs" array): per-partition lanes from each
// job's partition_timings when present, else one lane per job slot with the job's queue and
// proving spans. Throws std::invalid_argument naming the field that is missing or malformed.
std::vector<timeline_bar> bars_from_results(const nlohmann::json& results);

}  // namespace cuzk::cli
