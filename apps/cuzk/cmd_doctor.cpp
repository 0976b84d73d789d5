// `cuzk doctor [--config FILE] [--param-cache DIR] [--parameters-json FILE] [--no-digest] [--json]`:
// what an operator runs before pointing Curio at cuzk. One line per check (ok, warn, FAIL), a fix on
// each failure: GPUs and driver, host memory and the host budget, the parameter files and their
// digests against parameters.json, where each key would sit on each GPU (or on a card of
// --assume-vram SIZE: the placement planner is pure), the evaluator cache, the
// daemon's socket and status port. Exit 0 when every proof kind it has params for can be proved,
// 1 when a check failed, 2 for unusable input (the configuration).
#include <CLI/CLI.hpp>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "client/client.hpp"
#include "commands.hpp"
#include "config/config.hpp"
#include "engine/engine.hpp"
#include "fil/evaluator.hpp"
#include "fil/partition.hpp"
#include "zk/error.hpp"
#include "zk/groth16/backend_registry.hpp"
#include "zk/groth16/pce.hpp"
#include "zk/groth16/pce_compact.hpp"
#include "zk/io/bellperson.hpp"
#include "cuzk/gpu/placement_plan.hpp"
#ifdef CUZK_HAVE_GPU
#include "cuzk/gpu/cuda_backend.hpp"
#endif

namespace cuzk::cli {

namespace {

namespace fs = std::filesystem;

struct doctor_options {
  std::string config, param_cache, parameters_json, assume_vram;
  bool no_digest = false, json = false;
};

enum class verdict { ok, warn, fail };

struct check_line {
  verdict v = verdict::ok;
  std::string check, detail, fix;
};

struct report {
  std::vector<check_line> lines;
  void add(verdict v, std::string check, std::string detail, std::string fix = {}) {
    lines.push_back({v, std::move(check), std::move(detail), std::move(fix)});
  }
};

std::string gb(std::uint64_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f GB", double(bytes) / 1e9);
  return b;
}

// ---- placement -----------------------------------------------------------------------------------

// Where a key would sit on a card of `memory` bytes: the planner's placement (resident, partly
// resident, streamed: gpu/include/cuzk/gpu/placement_plan.hpp) of its point sections, from the
// .params headers, in the room the card leaves beside [gpus] vram_safety_margin and `staged`
// staged partitions (a PoRep key with its compact evaluator stages the witness alone).
struct placement {
  gpu::placement_plan plan;
  std::uint64_t points = 0, room = 0, memory = 0;
  std::string describe() const {
    if (!plan.fits)
      return "does not fit: " + gb(room) + " of room (of " + gb(memory) +
             ") holds not even the two stream buffers of its points";
    std::string out = std::string(gpu::placement_name(plan.kind)) + " (" + std::to_string(points) + " bytes of points, " +
                      std::to_string(room) + " bytes of room";
    if (plan.kind != gpu::key_placement::resident)
      out += "; " + gb(plan.device_points_bytes) + " on the card, " + gb(plan.host_bytes) +
             " copied from pinned host memory each proof";
    return out + ")";
  }
};

placement place_key(const zk::io::bellperson_params& p, bool witness_only, std::uint64_t memory, std::uint64_t margin,
                    unsigned staged) {
  placement pl;
  pl.memory = memory;
  const std::size_t n[gpu::placement_plan::sections] = {p.a.count, p.b_g1.count, p.b_g2.count, p.l.count, p.h.count};
  const std::size_t point_bytes[gpu::placement_plan::sections] = {96, 96, 192, 96, 96};  // G1, G1, G2, G1, G1
  for (int k = 0; k < gpu::placement_plan::sections; ++k) pl.points += std::uint64_t(n[k]) * point_bytes[k];
  const std::uint64_t beside =
      margin + std::uint64_t(staged) * zk::groth16::staged_bytes(p.domain_size(), p.n_inputs() + p.l.count, witness_only);
  pl.room = memory > beside ? memory - beside : 0;
  pl.plan = gpu::plan_placement(n, point_bytes, pl.room);
  return pl;
}

// ---- the daemon's addresses ----------------------------------------------------------------------

// Whether a TCP port can be bound now on `host` (the daemon would bind it).
bool tcp_free(const config::listen_address& a, std::string& why) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) {
    why = std::strerror(errno);
    return false;
  }
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(a.port);
  const std::string host = a.host.empty() || a.host == "localhost" ? "127.0.0.1" : a.host;
  if (::inet_pton(AF_INET, host.c_str(), &sa.sin_addr) != 1) {
    ::close(fd);
    why = "not an IPv4 address: " + host;
    return false;
  }
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0;
  if (!ok) why = std::strerror(errno);
  ::close(fd);
  return ok;
}

void check_listen(report& r, const std::string& name, const std::string& text, const std::optional<std::string>& daemon,
                  const std::string& key) {
  config::listen_address a;
  try {
    a = config::listen_address::parse(text);
  } catch (const std::exception& e) {
    r.add(verdict::fail, name, text + ": " + e.what(), "fix [daemon] " + key);
    return;
  }
  if (a.type == config::listen_address::kind::unix_socket) {
    if (!fs::exists(a.path)) {
      const auto dir = fs::path(a.path).parent_path();
      r.add(verdict::ok, name, a.path + " free" + (fs::exists(dir) ? "" : " (the daemon creates " + dir.string() + ")"));
    } else if (daemon) {
      r.add(verdict::ok, name, a.path + ": " + *daemon);
    } else {
      r.add(verdict::warn, name, a.path + " exists but no daemon answers (a stale socket: the daemon replaces it)");
    }
    return;
  }
  std::string why;
  if (tcp_free(a, why)) {
    r.add(verdict::ok, name, text + " free");
  } else if (daemon) {
    r.add(verdict::ok, name, text + " in use by the running daemon");
  } else {
    r.add(verdict::fail, name, text + " cannot be bound: " + why,
          "stop the program holding it (ss -ltnp 'sport = :" + std::to_string(a.port) + "') or set [daemon] " + key);
  }
}

// ---- the checks ----------------------------------------------------------------------------------

bool writable_dir(const fs::path& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    auto parent = dir;
    while (!parent.empty() && !fs::exists(parent, ec)) parent = parent.parent_path();
    return !parent.empty() && ::access(parent.c_str(), W_OK | X_OK) == 0;
  }
  return fs::is_directory(dir, ec) && ::access(dir.c_str(), W_OK | X_OK) == 0;
}

std::map<std::string, std::string> read_digests(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw zk::input_error(path + ": cannot open");
  nlohmann::json j;
  try {
    in >> j;
  } catch (const std::exception& e) {
    throw zk::input_error(path + ": not JSON: " + e.what());
  }
  if (!j.is_object()) throw zk::input_error(path + ": not a JSON object of file names");
  std::map<std::string, std::string> out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it.value().is_object() || !it.value().contains("digest") || !it.value()["digest"].is_string())
      throw zk::input_error(path + ": " + it.key() + ": no \"digest\" string");
    out[it.key()] = it.value()["digest"].get<std::string>();
  }
  return out;
}

struct proof_kind_state {
  std::string name, params;
  bool provable = true;
  std::string why;
};

int doctor(const doctor_options& o) {
  config::daemon_config cfg;
  try {
    cfg = o.config.empty() ? config::daemon_config::parse("", "<defaults>") : config::daemon_config::load(o.config);
  } catch (const config::config_error& e) {
    throw zk::input_error(e.what());
  }
  cfg.use_default_places(config::default_places::from([](const char* k) -> const char* { return std::getenv(k); },
                                                      ::geteuid() == 0));
  if (!o.param_cache.empty()) cfg.filecoin.param_cache = o.param_cache;
  const std::string cache = cfg.filecoin.param_cache;
  const std::string manifest =
      o.parameters_json.empty() ? (fs::path(cache) / "parameters.json").string() : o.parameters_json;
  report r;
  bool any_fail_global = false;

  // GPUs and driver.
  const bool cuda_built = [] {
    auto names = zk::groth16::registered_backends();
    return std::find(names.begin(), names.end(), "cuda") != names.end();
  }();
  const int gpus = cuda_built ? zk::groth16::backend_device_count("cuda") : 0;
  const bool want_cuda = cfg.gpus.backend == "cuda";
  struct card {
    std::string name;
    std::uint64_t memory = 0;
  };
  std::vector<card> devices;
  if (!o.assume_vram.empty()) {
    std::uint64_t bytes = 0;
    try {
      bytes = engine::parse_budget(o.assume_vram);
    } catch (const std::exception& e) {
      throw zk::input_error("--assume-vram: " + o.assume_vram + ": " + e.what());
    }
    if (bytes == 0) throw zk::input_error("--assume-vram: " + o.assume_vram + ": not a size of memory");
    devices.push_back({"a card of " + o.assume_vram + " (--assume-vram)", bytes});
  }
  if (!cuda_built) {
    r.add(want_cuda ? verdict::fail : verdict::warn, "gpu", "this build has no CUDA backend: proofs run on the CPU",
          "build where nvcc is found (scripts/install-deps.sh installs it), or set [gpus] backend = \"cpu\"");
  } else if (gpus == 0) {
    r.add(want_cuda ? verdict::fail : verdict::warn, "gpu", "no GPU visible: proofs run on the CPU backend",
          "install the NVIDIA driver (nvidia-smi must list the card) and check CUDA_VISIBLE_DEVICES");
  } else {
    for (int d = 0; d < gpus; ++d) {
      if (!cfg.gpus.devices.empty() && std::find(cfg.gpus.devices.begin(), cfg.gpus.devices.end(), d) == cfg.gpus.devices.end())
        continue;
      const std::string name = "cuda:" + std::to_string(d);
      devices.push_back({name, zk::groth16::backend_device_memory(name)});
      r.add(verdict::ok, "gpu", name + ": " + gb(devices.back().memory) + " of memory");
    }
#ifdef CUZK_HAVE_GPU
    r.add(verdict::ok, "driver", gpu::device_description());
#endif
  }
  if (want_cuda && (!cuda_built || gpus == 0)) any_fail_global = true;

  // Host memory and the host budget (the daemon's rule: engine::parse_budget).
  const std::uint64_t host = engine::host_memory_limit();
  std::uint64_t budget = 0;
  try {
    budget = engine::parse_budget(cfg.memory.total_budget.automatic ? "auto" : std::to_string(cfg.memory.total_budget.bytes),
                                  cfg.memory.safety_margin.bytes);
  } catch (const std::exception&) {
  }
  if (host == 0 || budget == 0) {
    r.add(verdict::fail, "host", "cannot read MemTotal or the cgroup limit", "set [memory] total_budget to a size");
    any_fail_global = true;
  } else {
    r.add(verdict::ok, "host", gb(host) + " of memory, host budget " + gb(budget) + " ([memory] total_budget " +
                                   cfg.memory.total_budget.to_string() + ", safety_margin " +
                                   cfg.memory.safety_margin.to_string() + ")");
  }

  // Parameter files and their digests.
  std::vector<proof_kind_state> kinds;
  std::optional<std::map<std::string, std::string>> digests;
  if (!fs::is_directory(cache)) {
    r.add(verdict::fail, "params", cache + ": no such directory",
          "fetch the parameters there (curio fetch-params 32GiB) or set [filecoin] param_cache / FIL_PROOFS_PARAMETER_CACHE");
    any_fail_global = true;
  } else {
    if (fs::exists(manifest)) {
      digests = read_digests(manifest);
      r.add(verdict::ok, "params", manifest + ": " + std::to_string(digests->size()) + " files listed");
    } else {
      r.add(verdict::warn, "params", manifest + ": not found, digests not checked",
            "copy the parameters.json of your Curio release there, or pass --parameters-json FILE");
    }
    std::vector<fs::path> files;
    for (auto& e : fs::directory_iterator(cache)) {
      const auto name = e.path().filename().string();
      const auto ext = e.path().extension().string();
      if (name.rfind("v28-", 0) == 0 && (ext == ".params" || ext == ".vk")) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    if (files.empty())
      r.add(verdict::warn, "params", cache + ": no parameter files (v28-*.params): no Filecoin proof can run",
            "fetch them: curio fetch-params 32GiB (or your sector size)");
    for (auto& path : files) {
      const auto name = path.filename().string();
      const bool is_params = path.extension() == ".params";
      std::optional<proof_kind_state> kind;
      if (is_params) {
        auto c = fil::circuit_for_params(path.string());
        kind.emplace();
        kind->name = c ? c->describe() : name;
        kind->params = name;
        if (!c) {
          r.add(verdict::warn, "params", name + ": not a parameter file of a proof cuzk knows");
          continue;
        }
        try {
          (void)zk::io::bellperson_params::open(path.string());
        } catch (const std::exception& e) {
          kind->provable = false;
          kind->why = e.what();
          r.add(verdict::fail, "params", e.what(), "fetch " + name + " again");
        }
      }
      if (o.no_digest) {
        r.add(verdict::ok, "params", name + " present (digest not checked: --no-digest)");
      } else if (digests) {
        auto it = digests->find(name);
        if (it == digests->end()) {
          r.add(verdict::warn, "params", name + ": not listed in " + manifest);
        } else {
          progress_bar bar("digest " + name);
          const auto got = zk::io::parameters_json_digest(path.string(), [&](std::uint64_t d, std::uint64_t t) { bar.update(d, t); });
          bar.done();
          if (got == it->second) {
            r.add(verdict::ok, "params", name + ": digest " + got + " as parameters.json");
          } else {
            r.add(verdict::fail, "params", name + ": digest " + got + " differs from parameters.json's " + it->second,
                  "delete it and fetch it again (a partial or damaged download)");
            if (kind) {
              kind->provable = false;
              kind->why = "digest differs from parameters.json";
            }
          }
        }
      }
      if (kind) kinds.push_back(*kind);
    }
  }

  // Evaluator cache (PoRep keys' compact evaluators, recorded at first use when absent) and where
  // each key would sit on each GPU.
  const fs::path ev_dir = cfg.filecoin.evaluator_dir.empty() ? fs::path(cache) : fs::path(cfg.filecoin.evaluator_dir);
  // The key store's own rule for the directory (fil::check_evaluator_dir), then this user's write.
  std::string ev_problem;
  try {
    fil::check_evaluator_dir(ev_dir.string());
    if (!writable_dir(ev_dir)) ev_problem = "evaluator cache " + ev_dir.string() + " is not writable by this user";
  } catch (const std::exception& e) {
    ev_problem = e.what();
  }
  const bool ev_writable = ev_problem.empty();
  r.add(ev_writable ? verdict::ok : verdict::warn, "evaluator",
        ev_writable ? ev_dir.string() + " writable (PoRep evaluators are recorded there at first use)" : ev_problem,
        ev_writable ? "" : "PoRep keys need it when their evaluator is not recorded yet: set [filecoin] evaluator_dir");
  const unsigned staged = cfg.gpus.staged_partitions ? cfg.gpus.staged_partitions : 2;
  for (auto& k : kinds) {
    if (!k.provable) continue;
    const auto path = (fs::path(cache) / k.params).string();
    auto c = fil::circuit_for_params(path);
    std::shared_ptr<const zk::groth16::pce_compact> compact;
    if (c && c->seal) {
      const auto file = fil::porep_evaluator_path(path, cfg.filecoin.evaluator_dir);
      if (fs::exists(file)) {
        try {
          compact = std::make_shared<const zk::groth16::pce_compact>(
              zk::groth16::pce_compact::open(file, fil::porep_evaluator_key(*c->seal)));
          r.add(verdict::ok, "evaluator", file + ": mapped at load");
        } catch (const std::exception& e) {
          r.add(ev_writable ? verdict::warn : verdict::fail, "evaluator", std::string(e.what()) + ": recorded again at first use",
                ev_writable ? "" : "make " + ev_dir.string() + " writable or set [filecoin] evaluator_dir");
          if (!ev_writable) {
            k.provable = false;
            k.why = "its evaluator cannot be recorded";
          }
        }
      } else if (ev_writable) {
        r.add(verdict::ok, "evaluator", file + ": recorded at first use (minutes at 32 GiB, once per sector size)");
      } else {
        r.add(verdict::fail, "evaluator", k.params + "'s evaluator is not recorded and cannot be: " + ev_problem,
              "set [filecoin] evaluator_dir to a directory of the daemon's user, closed to others' writes");
        k.provable = false;
        k.why = "its evaluator cannot be recorded";
      }
    }
    if (devices.empty()) continue;
    try {
      const auto params = zk::io::bellperson_params::open(path);
      for (const auto& dev : devices) {
        const placement pl = place_key(params, compact != nullptr, dev.memory, cfg.gpus.vram_safety_margin.bytes, staged);
        const bool resident = pl.plan.fits && pl.plan.kind == gpu::key_placement::resident;
        r.add(!pl.plan.fits ? verdict::fail : resident ? verdict::ok : verdict::warn, "placement",
              k.name + " on " + dev.name + ": " + pl.describe(),
              resident ? ""
              : pl.plan.fits
                  ? "proofs copy the streamed points each time: a card with more memory, or fewer staged partitions "
                    "([gpus] staged_partitions)"
                  : "a card with more memory, or a smaller [gpus] vram_safety_margin / staged_partitions");
        if (!pl.plan.fits) {
          k.provable = false;
          k.why = "its key does not fit " + dev.name;
        }
      }
    } catch (const std::exception& e) {
      r.add(verdict::warn, "placement", k.name + ": " + e.what());
    }
  }

  // The daemon's socket and status port, or the running daemon.
  const std::string listen = cfg.daemon.listen;
  std::optional<std::string> daemon;
  if (!listen.empty()) daemon = daemon_summary(listen, cfg.daemon.token, std::chrono::milliseconds(2000));
  if (listen.empty())
    r.add(verdict::fail, "daemon", "no listen address (no HOME for the default socket)", "set [daemon] listen");
  else
    check_listen(r, "daemon", listen, daemon, "listen");
  if (!cfg.daemon.status_listen.empty()) check_listen(r, "status", cfg.daemon.status_listen, daemon, "status_listen");
  for (auto& l : r.lines)
    if ((l.check == "daemon" || l.check == "status") && l.v == verdict::fail) any_fail_global = true;

  // The verdict per proof kind.
  for (auto& k : kinds) {
    if (any_fail_global && k.provable) {
      k.provable = false;
      k.why = "a check above failed";
    }
    r.add(k.provable ? verdict::ok : verdict::fail, "proof", k.name + (k.provable ? ": can be proved" : ": cannot be proved: " + k.why),
          k.provable ? "" : "fix the failures above");
  }
  bool failed = false;
  for (auto& l : r.lines) failed |= l.v == verdict::fail;

  if (o.json) {
    nlohmann::json j;
    j["ok"] = !failed;
    j["param_cache"] = cache;
    j["checks"] = nlohmann::json::array();
    for (auto& l : r.lines)
      j["checks"].push_back({{"check", l.check},
                             {"status", l.v == verdict::ok ? "ok" : l.v == verdict::warn ? "warn" : "fail"},
                             {"detail", l.detail},
                             {"fix", l.fix}});
    j["proof_kinds"] = nlohmann::json::array();
    for (auto& k : kinds) j["proof_kinds"].push_back({{"kind", k.name}, {"params", k.params}, {"provable", k.provable}});
    std::cout << j.dump(2) << "\n";
  } else {
    for (auto& l : r.lines) {
      std::printf("%-4s %-9s %s", l.v == verdict::ok ? "ok" : l.v == verdict::warn ? "warn" : "FAIL", l.check.c_str(),
                  l.detail.c_str());
      if (!l.fix.empty()) std::printf("; fix: %s", l.fix.c_str());
      std::printf("\n");
    }
  }
  return failed ? exit_invalid : exit_ok;
}

}  // namespace

void register_doctor(CLI::App& app) {
  auto o = std::make_shared<doctor_options>();
  auto* sub = app.add_subcommand("doctor", "Check this machine before pointing Curio at cuzk (exit 0: every proof kind "
                                           "with params can be proved)");
  sub->add_option("--config", o->config, "the daemon's cuzk.toml (default: built-in defaults)");
  sub->add_option("--param-cache", o->param_cache, "parameter directory (default: [filecoin] param_cache)");
  sub->add_option("--parameters-json", o->parameters_json, "the digests (default: PARAM_CACHE/parameters.json)");
  sub->add_option("--assume-vram", o->assume_vram,
                  "also plan each key's placement on a card of this much memory (e.g. 24GiB), GPU or not");
  sub->add_flag("--no-digest", o->no_digest, "skip the digests (each reads its whole file)");
  sub->add_flag("--json", o->json, "machine-readable output");
  sub->callback([o] { run_command([&] { return doctor(*o); }); });
}

}  // namespace cuzk::cli
