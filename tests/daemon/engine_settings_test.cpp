// The daemon's keys reach the engine's settings (daemon::engine_settings, what core::start passes
// to engine::start): each tuning key read from TOML is the engine's, and the defaults are the
// engine's defaults.
#include <catch2/catch.hpp>

#include "config/config.hpp"
#include "core.hpp"

using namespace cuzk;

TEST_CASE("engine_settings: the defaults are the engine's", "[daemon][config]") {
  const auto ec = daemon::engine_settings(config::daemon_config::parse("", "empty.toml"));
  const engine::config def;
  CHECK(ec.ordered_synthesis == def.ordered_synthesis);
  CHECK(ec.b2_lane_share == def.b2_lane_share);
  CHECK(ec.staged_partitions == def.staged_partitions);
  CHECK(ec.alone_below == def.alone_below);
  CHECK(ec.kept_partitions == def.kept_partitions);
}

TEST_CASE("engine_settings: [synthesis] ordered and [gpus] b2_lane_share, staged_partitions reach the engine",
          "[daemon][config]") {
  const auto ec = daemon::engine_settings(config::daemon_config::parse(
      "[gpus]\nb2_lane_share = 0.5\nstaged_partitions = 3\n[synthesis]\nordered = true\nalone_below = 0\n", "t.toml"));
  CHECK(ec.ordered_synthesis);
  CHECK(ec.b2_lane_share == 0.5);
  CHECK(ec.staged_partitions == 3);
  CHECK(ec.alone_below == 0);
}
