// TOML loading for the daemon configuration. toml++ is only included here: it is a heavy header.
#include "config/config.hpp"

#include <toml++/toml.h>

#include <arpa/inet.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>

namespace cuzk::config {

// ---- byte sizes ----------------------------------------------------------------------------------

byte_size byte_size::parse(const std::string& text, bool allow_auto) {
  if (text == "auto") {
    if (!allow_auto) throw std::invalid_argument("\"auto\" is not allowed here");
    return {true, 0};
  }
  std::size_t pos = 0;
  double value = 0;
  try {
    value = std::stod(text, &pos);
  } catch (const std::exception&) {
    throw std::invalid_argument("a size like \"48GiB\", \"512MiB\" or \"4096\"");
  }
  if (value < 0 || !std::isfinite(value)) throw std::invalid_argument("a non-negative size");
  std::string unit = text.substr(pos);
  while (!unit.empty() && unit.front() == ' ') unit.erase(unit.begin());
  static const std::map<std::string, double> units = {
      {"", 1},          {"B", 1},         {"KiB", 1024.0},  {"MiB", 1048576.0}, {"GiB", 1073741824.0},
      {"TiB", 1099511627776.0}, {"KB", 1e3}, {"kB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}};
  auto it = units.find(unit);
  if (it == units.end()) throw std::invalid_argument("a size unit B, KiB, MiB, GiB, TiB, KB, MB, GB or TB");
  return {false, static_cast<std::uint64_t>(std::llround(value * it->second))};
}

std::string byte_size::to_string() const {
  if (automatic) return "auto";
  static const char* names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  std::uint64_t v = bytes;
  int u = 0;
  while (u < 4 && v != 0 && v % 1024 == 0) {
    v /= 1024;
    ++u;
  }
  return std::to_string(v) + names[u];
}

// ---- listen addresses ----------------------------------------------------------------------------

listen_address listen_address::parse(const std::string& text) {
  listen_address a;
  const std::string unix_prefix = "unix://";
  if (text.rfind(unix_prefix, 0) == 0) {
    a.type = kind::unix_socket;
    a.path = text.substr(unix_prefix.size());
    if (a.path.empty() || a.path.front() != '/')
      throw std::invalid_argument("unix://ABSOLUTE_PATH, e.g. unix:///run/cuzk/cuzk.sock");
    return a;
  }
  auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
    throw std::invalid_argument("unix:///path/to.sock or HOST:PORT");
  a.type = kind::tcp;
  a.host = text.substr(0, colon);
  if (a.host.size() > 2 && a.host.front() == '[' && a.host.back() == ']') a.host = a.host.substr(1, a.host.size() - 2);
  std::string port = text.substr(colon + 1);
  if (port.find_first_not_of("0123456789") != std::string::npos || port.size() > 5 || std::stoul(port) > 65535)
    throw std::invalid_argument("a port number 0..65535 after the colon");
  a.port = static_cast<std::uint16_t>(std::stoul(port));
  return a;
}

std::string listen_address::to_string() const {
  if (type == kind::unix_socket) return "unix://" + path;
  if (host.find(':') != std::string::npos) return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

bool listen_address::is_loopback() const {
  if (type == kind::unix_socket) return true;
  if (host == "localhost" || host == "::1") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  return false;
}

// ---- the schema ----------------------------------------------------------------------------------

namespace {

std::chrono::milliseconds parse_duration(const toml::node& n) {
  if (auto i = n.value<std::int64_t>()) {
    if (*i < 0) throw std::invalid_argument("a non-negative duration");
    return std::chrono::seconds(*i);
  }
  auto s = n.value<std::string>();
  if (!s) throw std::invalid_argument("a duration like \"30s\", \"500ms\", \"5m\" or a number of seconds");
  std::size_t pos = 0;
  double v = 0;
  try {
    v = std::stod(*s, &pos);
  } catch (const std::exception&) {
    throw std::invalid_argument("a duration like \"30s\", \"500ms\", \"5m\" or a number of seconds");
  }
  std::string unit = s->substr(pos);
  double ms = unit == "ms" ? v : unit == "s" || unit.empty() ? v * 1e3 : unit == "m" ? v * 6e4 : unit == "h" ? v * 3.6e6 : -1;
  if (ms < 0 || v < 0) throw std::invalid_argument("a duration with unit ms, s, m or h");
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(ms)));
}

std::string str(const toml::node& n) {
  auto s = n.value<std::string>();
  if (!s || !n.is_string()) throw std::invalid_argument("a string");
  return *s;
}
bool boolean(const toml::node& n) {
  if (!n.is_boolean()) throw std::invalid_argument("true or false");
  return *n.value<bool>();
}
std::uint32_t u32(const toml::node& n) {
  if (!n.is_integer()) throw std::invalid_argument("a non-negative integer");
  auto v = *n.value<std::int64_t>();
  if (v < 0 || v > 0xffffffffll) throw std::invalid_argument("a non-negative integer below 2^32");
  return static_cast<std::uint32_t>(v);
}
// A rate such as 2.5e6 or 2500000: a non-negative finite number, integer or float.
double rate(const toml::node& n) {
  std::optional<double> v;
  if (n.is_integer()) v = double(*n.value<std::int64_t>());
  else if (n.is_floating_point()) v = *n.value<double>();
  if (!v || *v < 0 || !std::isfinite(*v)) throw std::invalid_argument("a non-negative number of points per second (0: measured)");
  return *v;
}
// A share such as 0.5: a number in (0, 1], integer or float.
double share(const toml::node& n) {
  std::optional<double> v;
  if (n.is_integer()) v = double(*n.value<std::int64_t>());
  else if (n.is_floating_point()) v = *n.value<double>();
  if (!v || !(*v > 0 && *v <= 1)) throw std::invalid_argument("a share in (0, 1] (1: the default)");
  return *v;
}
std::uint64_t size_value(const toml::node& n, bool allow_auto, byte_size* out) {
  if (n.is_integer()) {
    auto v = *n.value<std::int64_t>();
    if (v < 0) throw std::invalid_argument("a non-negative size");
    *out = {false, static_cast<std::uint64_t>(v)};
  } else {
    *out = byte_size::parse(str(n), allow_auto);
  }
  return out->bytes;
}

using setter = std::function<void(daemon_config&, const toml::node&)>;
using section_schema = std::map<std::string, setter>;

const std::map<std::string, section_schema>& schema() {
  static const std::map<std::string, section_schema> s = {
      {"daemon",
       {{"listen", [](daemon_config& c, const toml::node& n) { c.daemon.listen = str(n); if (!c.daemon.listen.empty()) listen_address::parse(c.daemon.listen); }},
        {"status_listen",
         [](daemon_config& c, const toml::node& n) {
           c.daemon.status_listen = str(n);
           if (!c.daemon.status_listen.empty()) listen_address::parse(c.daemon.status_listen);
         }},
        {"token", [](daemon_config& c, const toml::node& n) { c.daemon.token = str(n); }},
        {"shutdown_grace",
         [](daemon_config& c, const toml::node& n) {
           c.daemon.shutdown_grace = std::chrono::duration_cast<std::chrono::seconds>(parse_duration(n));
         }},
        {"state_dir", [](daemon_config& c, const toml::node& n) { c.daemon.state_dir = str(n); }},
        {"result_ttl",
         [](daemon_config& c, const toml::node& n) {
           c.daemon.result_ttl = std::chrono::duration_cast<std::chrono::seconds>(parse_duration(n));
         }},
        {"max_message_size",
         [](daemon_config& c, const toml::node& n) {
           byte_size b;
           c.daemon.max_message_bytes = size_value(n, false, &b);
           if (c.daemon.max_message_bytes < 4096 || c.daemon.max_message_bytes > (2ull << 30) - 1)
             throw std::invalid_argument("a size between 4KiB and 2GiB");
         }}}},
      {"memory",
       {{"total_budget", [](daemon_config& c, const toml::node& n) { size_value(n, true, &c.memory.total_budget); }},
        {"safety_margin", [](daemon_config& c, const toml::node& n) { size_value(n, false, &c.memory.safety_margin); }},
        {"pinned_budget", [](daemon_config& c, const toml::node& n) { size_value(n, true, &c.memory.pinned_budget); }}}},
      {"gpus",
       {{"devices",
         [](daemon_config& c, const toml::node& n) {
           c.gpus.devices.clear();
           if (auto s = n.value<std::string>(); s && n.is_string()) {
             if (*s != "all") throw std::invalid_argument("\"all\" or an array of device ordinals");
             return;
           }
           auto* arr = n.as_array();
           if (!arr) throw std::invalid_argument("\"all\" or an array of device ordinals");
           for (auto& e : *arr) {
             if (!e.is_integer() || *e.value<std::int64_t>() < 0) throw std::invalid_argument("non-negative device ordinals");
             c.gpus.devices.push_back(static_cast<int>(*e.value<std::int64_t>()));
           }
         }},
        {"vram_safety_margin", [](daemon_config& c, const toml::node& n) { size_value(n, false, &c.gpus.vram_safety_margin); }},
        {"vram_limit",
         [](daemon_config& c, const toml::node& n) {
           if (n.is_string() && str(n) == "off") {
             c.gpus.vram_limit = {false, 0};
             return;
           }
           try {
             size_value(n, false, &c.gpus.vram_limit);
           } catch (const std::invalid_argument&) {
             throw std::invalid_argument("\"off\" or a size like \"24GiB\"");
           }
           if (c.gpus.vram_limit.bytes < (1ull << 30)) throw std::invalid_argument("at least 1GiB (or \"off\")");
         }},
        {"shifted_bases",
         [](daemon_config& c, const toml::node& n) {
           c.gpus.shifted_bases_off = n.is_string() && str(n) == "off";
           if (c.gpus.shifted_bases_off) return;
           try {
             size_value(n, true, &c.gpus.shifted_bases);
           } catch (const std::invalid_argument&) {
             throw std::invalid_argument("\"auto\", \"off\" or a size like \"40GiB\"");
           }
         }},
        {"backend",
         [](daemon_config& c, const toml::node& n) {
           c.gpus.backend = str(n);
           if (c.gpus.backend != "auto" && c.gpus.backend != "cpu" && c.gpus.backend != "cuda")
             throw std::invalid_argument("one of \"auto\", \"cpu\", \"cuda\"");
         }},
        {"b2",
         [](daemon_config& c, const toml::node& n) {
           c.gpus.b2 = str(n);
           if (c.gpus.b2 != "auto" && c.gpus.b2 != "device" && c.gpus.b2 != "host" && c.gpus.b2 != "split")
             throw std::invalid_argument("one of \"auto\", \"device\", \"host\", \"split\"");
         }},
        {"b2_host_threads", [](daemon_config& c, const toml::node& n) { c.gpus.b2_host_threads = u32(n); }},
        {"b2_device_rate", [](daemon_config& c, const toml::node& n) { c.gpus.b2_device_rate = rate(n); }},
        {"b2_host_rate", [](daemon_config& c, const toml::node& n) { c.gpus.b2_host_rate = rate(n); }},
        {"staged_partitions",
         [](daemon_config& c, const toml::node& n) {
           c.gpus.staged_partitions = u32(n);
           if (c.gpus.staged_partitions > 3) throw std::invalid_argument("0 (2: the default), 1, 2 or 3");
         }},
        {"b2_lane_share", [](daemon_config& c, const toml::node& n) { c.gpus.b2_lane_share = share(n); }}}},
      {"scheduler",
       {{"max_queued_jobs", [](daemon_config& c, const toml::node& n) { c.scheduler.max_queued_jobs = u32(n); }},
        {"max_partitions", [](daemon_config& c, const toml::node& n) { c.scheduler.max_partitions = u32(n); }},
        {"max_attempts",
         [](daemon_config& c, const toml::node& n) {
           c.scheduler.max_attempts = u32(n);
           if (c.scheduler.max_attempts == 0) throw std::invalid_argument("at least 1");
         }},
        {"step_timeout",
         [](daemon_config& c, const toml::node& n) {
           c.scheduler.step_timeout = std::chrono::duration_cast<std::chrono::seconds>(parse_duration(n));
           if (c.scheduler.step_timeout.count() == 0) throw std::invalid_argument("at least 1s");
         }}}},
      {"synthesis",
       {{"threads", [](daemon_config& c, const toml::node& n) { c.synthesis.threads = u32(n); }},
        {"pool_threads", [](daemon_config& c, const toml::node& n) { c.synthesis.pool_threads = u32(n); }},
        {"kept_partitions", [](daemon_config& c, const toml::node& n) { c.synthesis.kept_partitions = u32(n); }},
        {"alone_below", [](daemon_config& c, const toml::node& n) { c.synthesis.alone_below = u32(n); }},
        {"ordered", [](daemon_config& c, const toml::node& n) { c.synthesis.ordered = boolean(n); }}}},
      {"keys",
       {{"dir", [](daemon_config& c, const toml::node& n) { c.keys.dir = str(n); }},
        {"preload",
         [](daemon_config& c, const toml::node& n) {
           auto* arr = n.as_array();
           if (!arr) throw std::invalid_argument("an array of circuit names");
           c.keys.preload.clear();
           for (auto& e : *arr) c.keys.preload.push_back(str(e));
         }}}},
      {"logging",
       {{"level",
         [](daemon_config& c, const toml::node& n) {
           c.logging.level = str(n);
           static const char* ok[] = {"trace", "debug", "info", "warn", "error"};
           for (auto* l : ok)
             if (c.logging.level == l) return;
           throw std::invalid_argument("one of trace, debug, info, warn, error");
         }},
        {"file", [](daemon_config& c, const toml::node& n) { c.logging.file = str(n); }}}},
      {"chaos", {{"enabled", [](daemon_config& c, const toml::node& n) { c.chaos.enabled = boolean(n); }}}},
      {"filecoin",
       {{"param_cache", [](daemon_config& c, const toml::node& n) { c.filecoin.param_cache = str(n); }},
        {"verify_params", [](daemon_config& c, const toml::node& n) { c.filecoin.verify_params = boolean(n); }},
        {"evaluator_dir", [](daemon_config& c, const toml::node& n) { c.filecoin.evaluator_dir = str(n); }},
        {"record_threads", [](daemon_config& c, const toml::node& n) { c.filecoin.record_threads = u32(n); }}}},
      {"cluster",
       {{"listen",
         [](daemon_config& c, const toml::node& n) {
           c.cluster.listen = str(n);
           if (!c.cluster.listen.empty() && listen_address::parse(c.cluster.listen).type != listen_address::kind::tcp)
             throw std::invalid_argument("HOST:PORT");
         }},
        {"join",
         [](daemon_config& c, const toml::node& n) {
           c.cluster.join = str(n);
           if (!c.cluster.join.empty() && listen_address::parse(c.cluster.join).type != listen_address::kind::tcp)
             throw std::invalid_argument("HOST:PORT");
         }},
        {"secret", [](daemon_config& c, const toml::node& n) { c.cluster.secret = str(n); }},
        {"name", [](daemon_config& c, const toml::node& n) { c.cluster.name = str(n); }},
        {"slots", [](daemon_config& c, const toml::node& n) { c.cluster.slots = u32(n); }},
        {"coordinator_only", [](daemon_config& c, const toml::node& n) { c.cluster.coordinator_only = boolean(n); }},
        {"heartbeat", [](daemon_config& c, const toml::node& n) { c.cluster.heartbeat = parse_duration(n); }},
        {"node_timeout", [](daemon_config& c, const toml::node& n) { c.cluster.node_timeout = parse_duration(n); }},
        {"max_message_size",
         [](daemon_config& c, const toml::node& n) {
           byte_size b;
           c.cluster.max_message_bytes = size_value(n, false, &b);
           if (c.cluster.max_message_bytes < 4096 || c.cluster.max_message_bytes > (1ull << 30))
             throw std::invalid_argument("a size between 4KiB and 1GiB");
         }},
        {"max_peers",
         [](daemon_config& c, const toml::node& n) {
           c.cluster.max_peers = u32(n);
           if (c.cluster.max_peers == 0) throw std::invalid_argument("at least 1");
         }},
        {"handshake_timeout",
         [](daemon_config& c, const toml::node& n) {
           c.cluster.handshake_timeout = parse_duration(n);
           if (c.cluster.handshake_timeout < std::chrono::milliseconds(100))
             throw std::invalid_argument("at least 100ms (a joining node needs a few round trips)");
         }},
        {"tls_cert", [](daemon_config& c, const toml::node& n) { c.cluster.tls_cert = str(n); }},
        {"tls_key", [](daemon_config& c, const toml::node& n) { c.cluster.tls_key = str(n); }},
        {"tls_ca", [](daemon_config& c, const toml::node& n) { c.cluster.tls_ca = str(n); }}}},
  };
  return s;
}

std::string where(const std::string& origin, const toml::node& n) {
  auto line = n.source().begin.line;
  return line ? origin + ":" + std::to_string(line) : origin;
}

}  // namespace

daemon_config daemon_config::parse(const std::string& text, const std::string& origin) {
  toml::table root;
  try {
    root = toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    throw config_error(origin + ":" + std::to_string(e.source().begin.line) + ": " + std::string(e.description()));
  }
  daemon_config c;
  for (auto& [section_key, section_node] : root) {
    std::string section{section_key.str()};
    auto sit = schema().find(section);
    if (sit == schema().end())
      throw config_error(where(origin, section_node) + ": unknown section [" + section + "]");
    auto* table = section_node.as_table();
    if (!table) throw config_error(where(origin, section_node) + ": '" + section + "' must be a table [" + section + "]");
    for (auto& [key_key, value] : *table) {
      std::string key{key_key.str()};
      auto kit = sit->second.find(key);
      if (kit == sit->second.end()) {
        std::string known;
        for (auto& [k, _] : sit->second) known += (known.empty() ? "" : ", ") + k;
        throw config_error(where(origin, value) + ": unknown key '" + section + "." + key + "' (known: " + known + ")");
      }
      try {
        kit->second(c, value);
      } catch (const std::invalid_argument& e) {
        std::ostringstream got;
        got << toml::node_view<const toml::node>{value};
        throw config_error(where(origin, value) + ": key '" + section + "." + key + "': expected " + e.what() +
                           ", got " + got.str());
      }
    }
  }
  c.validate();
  return c;
}

daemon_config daemon_config::load(const std::string& path) {
  // A configuration is a few KiB: a device, a FIFO or a huge file is refused before reading.
  constexpr std::uintmax_t kMaxConfigBytes = 1 << 20;
  std::error_code ec;
  auto st = std::filesystem::status(path, ec);
  if (!ec && st.type() != std::filesystem::file_type::regular)
    throw config_error(path + ": not a regular file");
  if (!ec && std::filesystem::file_size(path, ec) > kMaxConfigBytes && !ec)
    throw config_error(path + ": larger than 1 MiB, not a configuration file");
  std::ifstream in(path);
  if (!in) throw config_error(path + ": cannot open the configuration file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse(ss.str(), path);
}

default_places default_places::from(const std::function<const char*(const char*)>& env, bool root) {
  auto get = [&](const char* name) {
    const char* v = env(name);
    return std::string(v ? v : "");
  };
  auto first = [](const std::string& list) { return list.substr(0, list.find(':')); };  // systemd: "A:B"
  default_places p;
  if (auto sd = first(get("STATE_DIRECTORY")); !sd.empty()) p.state_dir = sd;
  else if (root) p.state_dir = "/var/lib/cuzk";
  else if (auto x = get("XDG_STATE_HOME"); !x.empty() && x[0] == '/') p.state_dir = x + "/cuzk";
  else if (auto h = get("HOME"); !h.empty() && h[0] == '/') p.state_dir = h + "/.local/state/cuzk";
  std::string sock;
  if (auto rd = first(get("RUNTIME_DIRECTORY")); !rd.empty()) sock = rd + "/cuzk.sock";
  else if (root) sock = "/run/cuzk/cuzk.sock";
  else if (auto x = get("XDG_RUNTIME_DIR"); !x.empty() && x[0] == '/') sock = x + "/cuzk/cuzk.sock";
  else if (!p.state_dir.empty()) sock = p.state_dir + "/cuzk.sock";
  if (!sock.empty()) p.listen = "unix://" + sock;
  // filecoin-proofs' own rule (storage-proofs-core settings: the variable, else its default).
  p.param_cache = get("FIL_PROOFS_PARAMETER_CACHE");
  if (p.param_cache.empty()) p.param_cache = "/var/tmp/filecoin-proof-parameters";
  return p;
}

void daemon_config::use_default_places(const default_places& p) {
  if (daemon.state_dir.empty()) daemon.state_dir = p.state_dir;
  if (daemon.listen.empty()) daemon.listen = p.listen;
  if (filecoin.param_cache.empty()) filecoin.param_cache = p.param_cache;
}

void daemon_config::validate() const {
  // An empty listen is the default place, a unix socket (use_default_places).
  auto listen_addr = daemon.listen.empty() ? listen_address::parse("unix:///default.sock") : listen_address::parse(daemon.listen);
  if (listen_addr.type == listen_address::kind::tcp && !listen_addr.is_loopback() && daemon.token.empty())
    throw config_error("daemon.listen " + daemon.listen +
                       " is not a loopback address: set daemon.token so that clients must authenticate");
  if (!daemon.status_listen.empty() && daemon.token.empty()) {
    auto sl = listen_address::parse(daemon.status_listen);
    if (sl.type == listen_address::kind::tcp && !sl.is_loopback())
      throw config_error("daemon.status_listen " + daemon.status_listen +
                         " is not a loopback address: set daemon.token (scrapes then send 'Authorization: Bearer TOKEN')");
  }
  if (chaos.enabled && !listen_addr.is_loopback())
    throw config_error("chaos.enabled = true is refused on the non-loopback listener " + daemon.listen);
  if (!cluster.listen.empty() && cluster.secret.empty())
    throw config_error("cluster.listen is set: cluster.secret is required so that only your nodes can join");
  if (!cluster.join.empty() && cluster.secret.empty())
    throw config_error("cluster.join is set: cluster.secret is required (the coordinator's)");
  if (!cluster.join.empty() && !cluster.listen.empty())
    throw config_error("cluster.join and cluster.listen are both set: a daemon is a worker or a coordinator, not both");
  if (cluster.coordinator_only && cluster.listen.empty())
    throw config_error("cluster.coordinator_only = true needs cluster.listen");
  if (cluster.node_timeout < 2 * cluster.heartbeat)
    throw config_error("cluster.node_timeout must be at least twice cluster.heartbeat");
  {
    const std::pair<const char*, const std::string*> tls[] = {
        {"tls_cert", &cluster.tls_cert}, {"tls_key", &cluster.tls_key}, {"tls_ca", &cluster.tls_ca}};
    int set = 0;
    for (auto& [k, v] : tls) set += !v->empty();
    for (auto& [k, v] : tls)
      if (set && v->empty())
        throw config_error(std::string("cluster.") + k + " is unset: cluster.tls_cert, tls_key and tls_ca are set together");
  }
}

std::string daemon_config::to_toml() const {
  auto durs = [](auto d) {
    return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count()) + "ms";
  };
  toml::array devices;
  for (int d : gpus.devices) devices.push_back(d);
  toml::array preload;
  for (auto& k : keys.preload) preload.push_back(k);
  toml::table t{
      {"daemon", toml::table{{"listen", daemon.listen},
                             {"status_listen", daemon.status_listen},
                             {"token", daemon.token.empty() ? "" : "<set>"},
                             {"shutdown_grace", durs(daemon.shutdown_grace)},
                             {"state_dir", daemon.state_dir},
                             {"result_ttl", durs(daemon.result_ttl)},
                             {"max_message_size", byte_size{false, daemon.max_message_bytes}.to_string()}}},
      {"memory", toml::table{{"total_budget", memory.total_budget.to_string()},
                             {"safety_margin", memory.safety_margin.to_string()},
                             {"pinned_budget", memory.pinned_budget.to_string()}}},
      {"gpus", toml::table{{"vram_safety_margin", gpus.vram_safety_margin.to_string()},
                           {"backend", gpus.backend},
                           {"shifted_bases", gpus.shifted_bases_off ? std::string("off") : gpus.shifted_bases.to_string()},
                           {"vram_limit", gpus.vram_limit.bytes ? gpus.vram_limit.to_string() : std::string("off")},
                           {"b2", gpus.b2},
                           {"b2_host_threads", std::int64_t(gpus.b2_host_threads)},
                           {"b2_device_rate", gpus.b2_device_rate},
                           {"b2_host_rate", gpus.b2_host_rate},
                           {"staged_partitions", std::int64_t(gpus.staged_partitions)},
                           {"b2_lane_share", gpus.b2_lane_share}}},
      {"scheduler", toml::table{{"max_queued_jobs", std::int64_t(scheduler.max_queued_jobs)},
                                {"max_partitions", std::int64_t(scheduler.max_partitions)},
                                {"max_attempts", std::int64_t(scheduler.max_attempts)},
                                {"step_timeout", durs(scheduler.step_timeout)}}},
      {"synthesis", toml::table{{"threads", std::int64_t(synthesis.threads)},
                                {"pool_threads", std::int64_t(synthesis.pool_threads)},
                                {"kept_partitions", std::int64_t(synthesis.kept_partitions)},
                                {"alone_below", std::int64_t(synthesis.alone_below)},
                                {"ordered", synthesis.ordered}}},
      {"keys", toml::table{{"dir", keys.dir}, {"preload", preload}}},
      {"logging", toml::table{{"level", logging.level}, {"file", logging.file}}},
      {"chaos", toml::table{{"enabled", chaos.enabled}}},
      {"filecoin", toml::table{{"param_cache", filecoin.param_cache},
                               {"verify_params", filecoin.verify_params},
                               {"evaluator_dir", filecoin.evaluator_dir},
                               {"record_threads", std::int64_t(filecoin.record_threads)}}},
      {"cluster", toml::table{{"listen", cluster.listen},
                              {"join", cluster.join},
                              {"secret", cluster.secret.empty() ? "" : "<set>"},
                              {"name", cluster.name},
                              {"slots", std::int64_t(cluster.slots)},
                              {"coordinator_only", cluster.coordinator_only},
                              {"heartbeat", durs(cluster.heartbeat)},
                              {"node_timeout", durs(cluster.node_timeout)},
                              {"max_message_size", byte_size{false, cluster.max_message_bytes}.to_string()},
                              {"max_peers", std::int64_t(cluster.max_peers)},
                              {"handshake_timeout", durs(cluster.handshake_timeout)},
                              {"tls_cert", cluster.tls_cert},
                              {"tls_key", cluster.tls_key},
                              {"tls_ca", cluster.tls_ca}}},
  };
  if (gpus.devices.empty()) t["gpus"].as_table()->insert_or_assign("devices", "all");
  else t["gpus"].as_table()->insert_or_assign("devices", devices);
  std::ostringstream out;
  out << t << "\n";
  return out.str();
}

}  // namespace cuzk::config
