// The bench timeline (apps/client/timeline_svg.hpp): lanes, bars and the results JSON it reads.
#include <catch2/catch.hpp>

#include <string>

#include "client/timeline_svg.hpp"

using cuzk::cli::bars_from_results;
using cuzk::cli::timeline_bar;
using cuzk::cli::timeline_svg;

namespace {
std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}
double attr(const std::string& s, std::size_t from, const std::string& name) {
  auto at = s.find(name + "=\"", from);
  REQUIRE(at != std::string::npos);
  return std::stod(s.substr(at + name.size() + 2));
}
}  // namespace

TEST_CASE("timeline: one lane per synthesizer and device, synthesizers first, bars placed by time", "[timeline]") {
  std::vector<timeline_bar> bars{{"cuda:0", "j1/0", "wpost", 100, 300},
                                 {"synth:10", "j2/0", "porep", 0, 100},
                                 {"synth:2", "j1/0", "wpost", 0, 100},
                                 {"cuda:0", "j2/0", "porep", 300, 1000}};
  auto svg = timeline_svg(bars, "run <1>");
  CHECK(count(svg, "<rect x=") == 4);
  CHECK(svg.find("run &lt;1&gt;") != std::string::npos);  // escaped
  // Lanes: synth:2, synth:10 (numeric order), then cuda:0.
  auto s2 = svg.find(">synth:2<"), s10 = svg.find(">synth:10<"), c0 = svg.find(">cuda:0<");
  REQUIRE(s2 != std::string::npos);
  REQUIRE(s10 != std::string::npos);
  REQUIRE(c0 != std::string::npos);
  CHECK(s2 < s10);
  CHECK(s10 < c0);
  // The 300..1000 ms bar is 3.5 times as wide as the 100..300 ms one and starts where the other ends.
  auto r1 = svg.find("<rect x=", svg.find(">cuda:0<"));  // bars follow the lane labels, in order
  double x1 = attr(svg, r1, "x"), w1 = attr(svg, r1, "width");
  auto r4 = svg.rfind("<rect x=");
  double x4 = attr(svg, r4, "x"), w4 = attr(svg, r4, "width");
  CHECK(w4 == Approx(3.5 * w1));
  CHECK(x4 == Approx(x1 + w1));
  CHECK_THROWS_AS(timeline_svg({{"cuda:0", "bad", "wpost", 50, 10}}, "t"), std::invalid_argument);
}

TEST_CASE("timeline: bars from bench results, per partition or per job slot", "[timeline]") {
  auto results = nlohmann::json::parse(R"({"jobs": [
    {"job_id": "a", "kind": "wpost", "slot": 0, "submit_ms": 0, "done_ms": 50, "queue_wait_ms": 5,
     "partition_timings": [{"partition": 0, "synthesizer": "synth:1", "device": "cpu:0",
                            "synth_start_ms": 6, "synth_end_ms": 30, "device_start_ms": 31, "device_end_ms": 49}]},
    {"job_id": "b", "kind": "winning", "slot": 1, "submit_ms": 10, "done_ms": 40, "queue_wait_ms": 100,
     "partition_timings": []}]})");
  auto bars = bars_from_results(results);
  REQUIRE(bars.size() == 4);
  CHECK(bars[0].lane == "synth:1");
  CHECK(bars[1].lane == "cpu:0");
  CHECK(bars[1].start_ms == 31);
  CHECK(bars[2].lane == "job slot 1");
  CHECK(bars[2].end_ms == 40);  // the queue span is clipped to the job's own span
  CHECK(bars[3].start_ms == 40);
  CHECK(count(timeline_svg(bars, "t"), "<rect x=") == 4);
  results["jobs"][0]["partition_timings"][0].erase("device_end_ms");
  CHECK_THROWS_WITH(bars_from_results(results), Catch::Contains("partition_timings[0].device_end_ms"));
  CHECK_THROWS_AS(bars_from_results(nlohmann::json::object()), std::invalid_argument);
}
