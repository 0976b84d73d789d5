#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "config/config.hpp"

using namespace cuzk::config;

namespace {
// What parsing `text` as "bad.toml" throws, or "no error".
std::string parse_error(const std::string& text) {
  try {
    daemon_config::parse(text, "bad.toml");
  } catch (const config_error& e) {
    return std::string(e.what());
  }
  return std::string("no error");
}
}  // namespace

TEST_CASE("defaults need no file and validate", "[config]") {
  daemon_config c = daemon_config::parse("", "empty.toml");
  CHECK(c.memory.total_budget.automatic);
  CHECK(c.gpus.vram_safety_margin.bytes == 512ull << 20);
  CHECK(c.daemon.listen.empty());  // the default place, below
  CHECK(c.daemon.state_dir.empty());
}

TEST_CASE("default places are private directories, never the shared /tmp", "[config]") {
  std::map<std::string, std::string> env;
  auto getenv = [&](const char* k) -> const char* {
    auto it = env.find(k);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  auto root = default_places::from(getenv, true);
  CHECK(root.state_dir == "/var/lib/cuzk");
  CHECK(root.listen == "unix:///run/cuzk/cuzk.sock");
  env["HOME"] = "/home/a";
  auto user = default_places::from(getenv, false);
  CHECK(user.state_dir == "/home/a/.local/state/cuzk");
  CHECK(user.listen == "unix:///home/a/.local/state/cuzk/cuzk.sock");
  env["XDG_RUNTIME_DIR"] = "/run/user/1000";
  env["XDG_STATE_HOME"] = "/home/a/state";
  auto xdg = default_places::from(getenv, false);
  CHECK(xdg.state_dir == "/home/a/state/cuzk");
  CHECK(xdg.listen == "unix:///run/user/1000/cuzk/cuzk.sock");
  env["STATE_DIRECTORY"] = "/var/lib/cuzk:/var/lib/other";  // systemd's StateDirectory=
  env["RUNTIME_DIRECTORY"] = "/run/cuzk";
  auto unit = default_places::from(getenv, false);
  CHECK(unit.state_dir == "/var/lib/cuzk");
  CHECK(unit.listen == "unix:///run/cuzk/cuzk.sock");
  daemon_config c = daemon_config::parse("[daemon]\nstate_dir = \"/srv/s\"\n", "t.toml");
  c.use_default_places(unit);
  CHECK(c.daemon.state_dir == "/srv/s");  // the file's own choice stays
  CHECK(c.daemon.listen == "unix:///run/cuzk/cuzk.sock");
  // Filecoin parameters: filecoin-proofs' rule, unless the file names a directory.
  CHECK(c.filecoin.param_cache == "/var/tmp/filecoin-proof-parameters");
  env["FIL_PROOFS_PARAMETER_CACHE"] = "/data/params";
  daemon_config f = daemon_config::parse("[filecoin]\nverify_params = true\n", "t.toml");
  f.use_default_places(default_places::from(getenv, false));
  CHECK(f.filecoin.param_cache == "/data/params");
  CHECK(f.filecoin.verify_params);
  daemon_config g = daemon_config::parse("[filecoin]\nparam_cache = \"/p\"\n", "t.toml");
  g.use_default_places(default_places::from(getenv, false));
  CHECK(g.filecoin.param_cache == "/p");
  CHECK_FALSE(g.filecoin.verify_params);
}

TEST_CASE("sizes, durations and addresses parse", "[config]") {
  auto c = daemon_config::parse(R"(
[memory]
total_budget = "48GiB"
safety_margin = "1.5GB"
[daemon]
listen = "127.0.0.1:9000"
shutdown_grace = "2m"
[gpus]
devices = [0, 1]
)", "t.toml");
  CHECK(c.memory.total_budget.bytes == 48ull << 30);
  CHECK(c.memory.safety_margin.bytes == 1500000000ull);
  CHECK(c.daemon.shutdown_grace == std::chrono::seconds(120));
  CHECK(c.gpus.devices == std::vector<int>{0, 1});
  // The printed configuration parses back to the same values.
  auto again = daemon_config::parse(c.to_toml(), "printed.toml");
  CHECK(again.memory.total_budget.bytes == c.memory.total_budget.bytes);
  CHECK(again.daemon.listen == c.daemon.listen);
  CHECK(again.gpus.devices == c.gpus.devices);
}

TEST_CASE("gpus.shifted_bases: auto by default, off, or a size, printed back", "[config]") {
  auto d = daemon_config::parse("", "empty.toml");
  CHECK(d.gpus.shifted_bases.automatic);
  CHECK_FALSE(d.gpus.shifted_bases_off);
  auto off = daemon_config::parse("[gpus]\nshifted_bases = \"off\"\n", "t.toml");
  CHECK(off.gpus.shifted_bases_off);
  CHECK(daemon_config::parse(off.to_toml(), "printed.toml").gpus.shifted_bases_off);
  auto sized = daemon_config::parse("[gpus]\nshifted_bases = \"40GiB\"\n", "t.toml");
  CHECK_FALSE(sized.gpus.shifted_bases.automatic);
  CHECK(sized.gpus.shifted_bases.bytes == 40ull << 30);
  CHECK(daemon_config::parse(sized.to_toml(), "printed.toml").gpus.shifted_bases.bytes == 40ull << 30);
  try {
    daemon_config::parse("[gpus]\nshifted_bases = \"lots\"\n", "bad.toml");
    FAIL("no error");
  } catch (const config_error& e) {
    CHECK_THAT(std::string(e.what()), Catch::StartsWith("bad.toml:2: key 'gpus.shifted_bases': expected \"auto\", \"off\""));
  }
}

TEST_CASE("gpus.vram_limit: off by default, a size, printed back, a bad value names the key", "[config]") {
  auto d = daemon_config::parse("", "empty.toml");
  CHECK(d.gpus.vram_limit.bytes == 0);
  CHECK(daemon_config::parse(d.to_toml(), "printed.toml").gpus.vram_limit.bytes == 0);
  auto sized = daemon_config::parse("[gpus]\nvram_limit = \"24GiB\"\n", "t.toml");
  CHECK(sized.gpus.vram_limit.bytes == 24ull << 30);
  CHECK(daemon_config::parse(sized.to_toml(), "printed.toml").gpus.vram_limit.bytes == 24ull << 30);
  CHECK(daemon_config::parse("[gpus]\nvram_limit = \"off\"\n", "t.toml").gpus.vram_limit.bytes == 0);
  for (const char* bad : {"\"lots\"", "\"100MiB\""}) {
    try {
      daemon_config::parse(std::string("[gpus]\nvram_limit = ") + bad + "\n", "bad.toml");
      FAIL("no error for " << bad);
    } catch (const config_error& e) {
      CHECK_THAT(std::string(e.what()), Catch::StartsWith("bad.toml:2: key 'gpus.vram_limit': "));
    }
  }
}

TEST_CASE("gpus.b2: device by default, auto | device | host | split, printed back, a bad value names the key", "[config][b2]") {
  auto d = daemon_config::parse("", "empty.toml");
  CHECK(d.gpus.b2 == "device");
  CHECK(d.gpus.b2_host_threads == 0);
  for (const char* v : {"auto", "device", "host", "split"}) {
    auto c = daemon_config::parse(std::string("[gpus]\nb2 = \"") + v + "\"\nb2_host_threads = 12\n", "t.toml");
    CHECK(c.gpus.b2 == v);
    CHECK(c.gpus.b2_host_threads == 12);
    auto back = daemon_config::parse(c.to_toml(), "printed.toml");
    CHECK(back.gpus.b2 == v);
    CHECK(back.gpus.b2_host_threads == 12);
  }
  CHECK_THAT(parse_error("[gpus]\nb2 = \"gpu\"\n"),
             Catch::StartsWith("bad.toml:2: key 'gpus.b2': expected one of \"auto\", \"device\", \"host\", \"split\""));
  CHECK_THAT(parse_error("[gpus]\nb2 = 3\n"), Catch::StartsWith("bad.toml:2: key 'gpus.b2'"));
  CHECK_THAT(parse_error("[gpus]\nb2_host_threads = -1\n"), Catch::StartsWith("bad.toml:2: key 'gpus.b2_host_threads'"));
}

TEST_CASE("gpus.b2_device_rate / b2_host_rate: 0 by default, points per second (integer or float), printed back, bad values name the key",
          "[config][b2]") {
  auto d = daemon_config::parse("", "empty.toml");
  CHECK(d.gpus.b2_device_rate == 0);
  CHECK(d.gpus.b2_host_rate == 0);
  auto c = daemon_config::parse("[gpus]\nb2_device_rate = 4.5e7\nb2_host_rate = 12000000\n", "t.toml");
  CHECK(c.gpus.b2_device_rate == 4.5e7);
  CHECK(c.gpus.b2_host_rate == 12e6);
  auto back = daemon_config::parse(c.to_toml(), "printed.toml");
  CHECK(back.gpus.b2_device_rate == 4.5e7);
  CHECK(back.gpus.b2_host_rate == 12e6);
  CHECK_THAT(d.to_toml(), Catch::Contains("b2_host_rate = 0"));
  CHECK_THAT(parse_error("[gpus]\nb2_host_rate = -1.0\n"),
             Catch::StartsWith("bad.toml:2: key 'gpus.b2_host_rate': expected a non-negative number of points per second"));
  CHECK_THAT(parse_error("[gpus]\nb2_device_rate = \"fast\"\n"), Catch::StartsWith("bad.toml:2: key 'gpus.b2_device_rate'"));
  CHECK_THAT(parse_error("[gpus]\nb2_device_rate = nan\n"), Catch::StartsWith("bad.toml:2: key 'gpus.b2_device_rate'"));
  CHECK_THAT(parse_error("[gpus]\nb2_host_rate = inf\n"), Catch::StartsWith("bad.toml:2: key 'gpus.b2_host_rate'"));
}

TEST_CASE("gpus.staged_partitions: 0 (the engine's default, 2) by default, 1 to 3, printed back, bad values name "
          "the key",
          "[config][staging]") {
  auto d = daemon_config::parse("", "empty.toml");
  CHECK(d.gpus.staged_partitions == 0);
  CHECK_THAT(d.to_toml(), Catch::Contains("staged_partitions = 0"));
  auto c = daemon_config::parse("[gpus]\nstaged_partitions = 2\n", "t.toml");
  CHECK(c.gpus.staged_partitions == 2);
  CHECK(daemon_config::parse(c.to_toml(), "printed.toml").gpus.staged_partitions == 2);
  CHECK_THAT(parse_error("[gpus]\nstaged_partitions = 4\n"),
             Catch::StartsWith("bad.toml:2: key 'gpus.staged_partitions': expected 0 (2: the default), 1, 2 or 3"));
  for (const char* bad : {"[gpus]\nstaged_partitions = -1\n", "[gpus]\nstaged_partitions = \"two\"\n"})
    CHECK_THAT(parse_error(bad), Catch::StartsWith("bad.toml:2: key 'gpus.staged_partitions'"));
}

TEST_CASE("gpus.b2_lane_share: 1 by default, a share above 0 and at most 1, printed back, bad values name the key", "[config]") {
  auto d = daemon_config::parse("", "empty.toml");
  CHECK(d.gpus.b2_lane_share == 1);
  CHECK_THAT(d.to_toml(), Catch::Contains("b2_lane_share = 1"));
  auto c = daemon_config::parse("[gpus]\nb2_lane_share = 0.375\n", "t.toml");
  CHECK(c.gpus.b2_lane_share == 0.375);
  CHECK(daemon_config::parse(c.to_toml(), "printed.toml").gpus.b2_lane_share == 0.375);
  CHECK(daemon_config::parse("[gpus]\nb2_lane_share = 1\n", "t.toml").gpus.b2_lane_share == 1);
  for (const char* bad : {"0", "0.0", "-0.5", "1.5", "2", "inf", "nan", "\"half\"", "true"})
    CHECK_THAT(parse_error(std::string("[gpus]\nb2_lane_share = ") + bad + "\n"),
               Catch::StartsWith("bad.toml:2: key 'gpus.b2_lane_share': expected a share in (0, 1] (1: the default)"));
}

TEST_CASE("synthesis.ordered: off by default, printed back, a non-boolean names the key", "[config]") {
  auto d = daemon_config::parse("", "empty.toml");
  CHECK_FALSE(d.synthesis.ordered);
  CHECK_THAT(d.to_toml(), Catch::Contains("ordered = false"));
  auto c = daemon_config::parse("[synthesis]\nordered = true\n", "t.toml");
  CHECK(c.synthesis.ordered);
  CHECK(daemon_config::parse(c.to_toml(), "printed.toml").synthesis.ordered);
  CHECK_THAT(parse_error("[synthesis]\nordered = 1\n"),
             Catch::StartsWith("bad.toml:2: key 'synthesis.ordered': expected true or false"));
  CHECK_THAT(parse_error("[synthesis]\nordered = \"yes\"\n"), Catch::StartsWith("bad.toml:2: key 'synthesis.ordered'"));
}

TEST_CASE("errors name the file, line, key and what was expected", "[config]") {
  CHECK_THAT(parse_error("[memory]\ntotal_budgett = \"1GiB\"\n"),
             Catch::StartsWith("bad.toml:2: unknown key 'memory.total_budgett'"));
  CHECK_THAT(parse_error("[memory]\n\ntotal_budget = \"lots\"\n"),
             Catch::StartsWith("bad.toml:3: key 'memory.total_budget': expected a size"));
  CHECK_THAT(parse_error("[nosuch]\nx = 1\n"), Catch::Contains("unknown section [nosuch]"));
  CHECK_THAT(parse_error("[daemon]\nlisten = \"0.0.0.0:9000\"\n"), Catch::Contains("daemon.token"));
  CHECK_THAT(parse_error("[daemon]\nlisten = \"0.0.0.0:9000\"\ntoken = \"t\"\n[chaos]\nenabled = true\n"),
             Catch::Contains("chaos.enabled"));
  CHECK_THAT(parse_error("[scheduler]\nmax_attempts = 0\n"), Catch::Contains("at least 1"));
  CHECK_THAT(parse_error("[daemon\n"), Catch::StartsWith("bad.toml:1:"));
  CHECK_THAT(parse_error("[cluster]\nlisten = \"0.0.0.0:7000\"\n"), Catch::Contains("cluster.secret is required"));
  CHECK_THAT(parse_error("[cluster]\njoin = \"10.0.0.1:7000\"\n"), Catch::Contains("cluster.secret is required"));
  CHECK_THAT(parse_error("[cluster]\nsecret = \"s\"\njoin = \"unix:///x\"\n"),
             Catch::StartsWith("bad.toml:3: key 'cluster.join': expected HOST:PORT"));
  CHECK_THAT(parse_error("[cluster]\nsecret = \"s\"\njoin = \"h:1\"\nlisten = \"h:2\"\n"),
             Catch::Contains("not both"));
  CHECK_THAT(parse_error("[cluster]\ncoordinator_only = true\n"), Catch::Contains("needs cluster.listen"));
  CHECK_THAT(parse_error("[cluster]\nheartbeat = \"2s\"\nnode_timeout = \"3s\"\n"),
             Catch::Contains("at least twice"));
}

TEST_CASE("cluster keys parse and print", "[config]") {
  auto c = daemon_config::parse(R"(
[cluster]
join = "10.1.2.3:7700"
secret = "hunter2"
name = "gpu-box-7"
slots = 6
heartbeat = "250ms"
node_timeout = "2s"
)", "worker.toml");
  CHECK(c.cluster.join == "10.1.2.3:7700");
  CHECK(c.cluster.name == "gpu-box-7");
  CHECK(c.cluster.slots == 6);
  CHECK(c.cluster.heartbeat == std::chrono::milliseconds(250));
  CHECK(c.cluster.node_timeout == std::chrono::milliseconds(2000));
  auto printed = c.to_toml();
  CHECK(printed.find("hunter2") == std::string::npos);  // secrets are never printed
  auto again = daemon_config::parse(printed, "printed.toml");
  CHECK(again.cluster.join == c.cluster.join);
  CHECK(again.cluster.slots == 6);
}

TEST_CASE("cluster.tls_cert, tls_key, tls_ca: read, printed, and set together", "[config]") {
  auto c = daemon_config::parse("[cluster]\njoin = \"10.0.0.1:7700\"\nsecret = \"s\"\ntls_cert = \"/etc/cuzk/n.pem\"\n"
                                "tls_key = \"/etc/cuzk/n.key\"\ntls_ca = \"/etc/cuzk/ca.pem\"\n",
                                "c.toml");
  CHECK(c.cluster.tls_cert == "/etc/cuzk/n.pem");
  CHECK(c.cluster.tls_key == "/etc/cuzk/n.key");
  CHECK(c.cluster.tls_ca == "/etc/cuzk/ca.pem");
  auto again = daemon_config::parse(c.to_toml(), "printed.toml");
  CHECK(again.cluster.tls_cert == c.cluster.tls_cert);
  CHECK(again.cluster.tls_key == c.cluster.tls_key);
  CHECK(again.cluster.tls_ca == c.cluster.tls_ca);
  try {
    daemon_config::parse("[cluster]\ntls_cert = \"n.pem\"\ntls_ca = \"ca.pem\"\n", "half.toml");
    FAIL("tls_cert without tls_key accepted");
  } catch (const config_error& e) {
    CHECK(std::string(e.what()) == "cluster.tls_key is unset: cluster.tls_cert, tls_key and tls_ca are set together");
  }
}

TEST_CASE("cluster.handshake_timeout: read, printed, and bounded below", "[config]") {
  auto c = daemon_config::parse("[cluster]\nlisten = \"127.0.0.1:7700\"\nsecret = \"s\"\nhandshake_timeout = \"750ms\"\n", "c.toml");
  CHECK(c.cluster.handshake_timeout == std::chrono::milliseconds(750));
  CHECK(daemon_config::parse(c.to_toml(), "printed.toml").cluster.handshake_timeout == std::chrono::milliseconds(750));
  CHECK(daemon_config::parse("", "<defaults>").cluster.handshake_timeout == std::chrono::milliseconds(5000));
  try {
    daemon_config::parse("[cluster]\nhandshake_timeout = \"10ms\"\n", "bad.toml");
    FAIL("10ms accepted");
  } catch (const config_error& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("cluster.handshake_timeout"));
  }
}
