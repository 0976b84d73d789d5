// Sizes and host memory limits for the engine's budgets (CAF-free).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>

#include "engine/engine.hpp"

namespace cuzk::engine {

namespace {

std::uint64_t read_number(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  if (!(in >> s) || s == "max") return 0;
  try {
    return std::stoull(s);
  } catch (...) {
    return 0;
  }
}

}  // namespace

std::uint64_t host_memory_limit() {
  std::uint64_t total = 0;
  std::ifstream mi("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (mi >> key >> kib >> unit)
    if (key == "MemTotal:") {
      total = kib * 1024;
      break;
    }
  // cgroup v2, then v1 (v1 reports a huge number when unlimited).
  for (auto* p : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    auto limit = read_number(p);
    if (limit > 0 && (total == 0 || limit < total)) total = limit;
  }
  return total;
}

std::uint64_t parse_budget(const std::string& text, std::uint64_t margin) {
  if (text == "auto") {
    auto total = host_memory_limit();
    if (total == 0) throw engine_error("budget auto: cannot read MemTotal or the cgroup limit");
    // Never less than a quarter of the memory, even with a margin larger than that.
    return std::max(total / 4, total > margin ? total - margin : 0);
  }
  std::size_t pos = 0;
  double value = 0;
  try {
    value = std::stod(text, &pos);
  } catch (...) {
    throw engine_error("budget '" + text + "': expected auto or a size such as 512MiB");
  }
  std::string unit = text.substr(pos);
  unit.erase(std::remove_if(unit.begin(), unit.end(), [](unsigned char c) { return std::isspace(c); }), unit.end());
  for (auto& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  double mult = 1;
  if (unit.empty() || unit == "b") mult = 1;
  else if (unit == "k" || unit == "kib" || unit == "kb") mult = 1024.0;
  else if (unit == "m" || unit == "mib" || unit == "mb") mult = 1024.0 * 1024;
  else if (unit == "g" || unit == "gib" || unit == "gb") mult = 1024.0 * 1024 * 1024;
  else if (unit == "t" || unit == "tib" || unit == "tb") mult = 1024.0 * 1024 * 1024 * 1024;
  else throw engine_error("budget '" + text + "': unknown unit '" + unit + "'");
  if (value < 0 || !std::isfinite(value)) throw engine_error("budget '" + text + "': must be a positive size");
  return static_cast<std::uint64_t>(value * mult);
}

}  // namespace cuzk::engine
