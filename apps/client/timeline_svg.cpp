#include "client/timeline_svg.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>

namespace cuzk::cli {

namespace {

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// Synthesizers first, then devices, then the rest; "synth:10" after "synth:9".
std::pair<int, std::pair<std::string, long>> lane_key(const std::string& lane) {
  int group = lane.rfind("synth", 0) == 0 ? 0 : (lane.rfind("cuda", 0) == 0 || lane.rfind("cpu", 0) == 0) ? 1 : 2;
  auto digits = lane.find_last_not_of("0123456789");
  long n = digits + 1 < lane.size() ? std::stol(lane.substr(digits + 1)) : -1;
  return {group, {lane.substr(0, digits + 1), n}};
}

const char* colour(const std::string& kind) {
  if (kind == "winning") return "#d62728";
  if (kind == "wpost") return "#ff7f0e";
  if (kind == "porep") return "#1f77b4";
  if (kind == "queue") return "#c7c7c7";
  return "#2ca02c";
}

double number(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || !j[key].is_number()) throw std::invalid_argument(where + "." + key + ": missing or not a number");
  return j[key].get<double>();
}

}  // namespace

std::string timeline_svg(const std::vector<timeline_bar>& bars, const std::string& title) {
  std::vector<std::string> lanes;
  double end = 1;
  for (auto& b : bars) {
    if (!(b.start_ms >= 0) || !(b.end_ms >= b.start_ms))
      throw std::invalid_argument("timeline bar '" + b.label + "' on " + b.lane + ": start " + std::to_string(b.start_ms) +
                                  " ms, end " + std::to_string(b.end_ms) + " ms");
    if (std::find(lanes.begin(), lanes.end(), b.lane) == lanes.end()) lanes.push_back(b.lane);
    end = std::max(end, b.end_ms);
  }
  std::sort(lanes.begin(), lanes.end(), [](auto& a, auto& b) { return lane_key(a) < lane_key(b); });
  const double left = 110, right = 20, top = 40, lane_h = 24, plot_w = 1000;
  const double height = top + lane_h * double(std::max<std::size_t>(lanes.size(), 1)) + 40;
  const double scale = plot_w / end;
  std::ostringstream s;
  s << R"(<?xml version="1.0" encoding="UTF-8"?>)" << "\n"
    << R"(<svg xmlns="http://www.w3.org/2000/svg" width=")" << left + plot_w + right << R"(" height=")" << height
    << R"(" font-family="sans-serif" font-size="11">)" << "\n"
    << R"(<rect width="100%" height="100%" fill="white"/>)" << "\n"
    << R"(<text x=")" << left << R"(" y="18" font-size="13">)" << xml_escape(title) << "</text>\n";
  // Axis: about ten ticks at round milliseconds.
  const double raw = end / 10, mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double step = raw / mag < 2 ? 2 * mag : raw / mag < 5 ? 5 * mag : 10 * mag;
  const double axis_y = top + lane_h * double(lanes.size()) + 4;
  for (double t = 0; t <= end + 1e-9; t += step) {
    const double x = left + t * scale;
    s << R"(<line x1=")" << x << R"(" y1=")" << top - 4 << R"(" x2=")" << x << R"(" y2=")" << axis_y
      << R"(" stroke="#eeeeee"/>)" << "\n"
      << R"(<text x=")" << x << R"(" y=")" << axis_y + 14 << R"(" text-anchor="middle">)"
      << (step >= 1000 ? std::to_string(std::lround(t / 1000)) + " s" : std::to_string(std::lround(t)) + " ms")
      << "</text>\n";
  }
  std::map<std::string, double> lane_y;
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    lane_y[lanes[i]] = top + lane_h * double(i);
    s << R"(<text x=")" << left - 6 << R"(" y=")" << lane_y[lanes[i]] + lane_h * 0.65 << R"(" text-anchor="end">)"
      << xml_escape(lanes[i]) << "</text>\n";
  }
  for (auto& b : bars) {
    const double x = left + b.start_ms * scale, w = std::max(1.0, (b.end_ms - b.start_ms) * scale);
    const double y = lane_y[b.lane] + 3;
    s << R"(<rect x=")" << x << R"(" y=")" << y << R"(" width=")" << w << R"(" height=")" << lane_h - 6
      << R"(" fill=")" << colour(b.kind) << R"(" stroke="white"><title>)" << xml_escape(b.label) << ": "
      << std::lround(b.start_ms) << "-" << std::lround(b.end_ms) << " ms</title></rect>\n";
    if (w > 7.0 * double(b.label.size()))
      s << R"(<text x=")" << x + 3 << R"(" y=")" << y + lane_h * 0.5 << R"(" fill="white">)" << xml_escape(b.label)
        << "</text>\n";
  }
  s << "</svg>\n";
  return s.str();
}

std::vector<timeline_bar> bars_from_results(const nlohmann::json& results) {
  if (!results.contains("jobs") || !results["jobs"].is_array())
    throw std::invalid_argument("results: \"jobs\" missing or not an array");
  std::vector<timeline_bar> bars;
  for (std::size_t i = 0; i < results["jobs"].size(); ++i) {
    const auto& j = results["jobs"][i];
    const std::string where = "jobs[" + std::to_string(i) + "]";
    const std::string kind = j.value("kind", "circom"), id = j.value("job_id", where);
    const auto& parts = j.contains("partition_timings") ? j["partition_timings"] : nlohmann::json::array();
    if (!parts.empty()) {
      for (std::size_t k = 0; k < parts.size(); ++k) {
        const auto& p = parts[k];
        const std::string pw = where + ".partition_timings[" + std::to_string(k) + "]";
        const std::string label = id + "/" + std::to_string(p.value("partition", k));
        bars.push_back({p.value("synthesizer", "synth"), label, kind, number(p, "synth_start_ms", pw),
                        number(p, "synth_end_ms", pw)});
        bars.push_back({p.value("device", "device"), label, kind, number(p, "device_start_ms", pw),
                        number(p, "device_end_ms", pw)});
      }
      continue;
    }
    // Job level: the client's submit-to-answer span on its slot, split at the daemon's queue time.
    const std::string lane = "job slot " + std::to_string(j.value("slot", 0));
    const double start = number(j, "submit_ms", where), done = number(j, "done_ms", where);
    const double queue = std::min(done - start, j.value("queue_wait_ms", 0.0));
    bars.push_back({lane, id + " queue", "queue", start, start + queue});
    bars.push_back({lane, id, kind, start + queue, done});
  }
  return bars;
}

}  // namespace cuzk::cli
