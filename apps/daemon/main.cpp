// cuzk-daemon: the proving engine as a local service (gRPC on a unix socket or TCP, HTTP status).
//
// Every start goes through run_daemon(), whatever the configuration: log banner, locks, journal
// and engine, listeners, "ready", then signals. "ready" is printed only once every listener accepts.
#include <CLI/CLI.hpp>
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <thread>

#include "config/config.hpp"
#include "zk/util/cpu_features.hpp"
#include "core.hpp"
#include "lifecycle.hpp"
#include "service.hpp"
#include "status_http.hpp"

namespace fs = std::filesystem;
using namespace cuzk;

namespace {

std::string hash_hex(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a: a fingerprint to tell configs apart, not security
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int fail(const std::string& msg, int status = 1) {
  spdlog::error("{}", msg);
  std::cerr << "cuzk-daemon: " << msg << "\n";
  return status;
}

int run_daemon(const config::daemon_config& cfg) {
  daemon::daemon_info info;
  info.pid = static_cast<std::uint32_t>(::getpid());
  info.version = CUZK_VERSION;
  info.build_id = CUZK_BUILD_ID;
  info.config_hash = hash_hex(cfg.to_toml());
  info.start_unix_ms = unix_ms();

  daemon::setup_logging(cfg.logging.level, cfg.logging.file);
  spdlog::info("==== cuzk-daemon start: pid {} version {} build {} config {} ====", info.pid, info.version,
               info.build_id, info.config_hash);

  // Signals are taken by one thread with sigwait: block them before any other thread starts.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  std::error_code ec;
  if (cfg.daemon.state_dir.empty()) return fail("daemon.state_dir: no default place (no HOME); set it", 2);
  try {
    daemon::make_private_dir(cfg.daemon.state_dir, "daemon.state_dir");
    daemon::make_private_dir(fs::path(cfg.daemon.state_dir) / "jobs", "daemon.state_dir");
  } catch (const std::exception& e) {
    return fail(e.what(), 2);
  }
  daemon::pid_lock state_lock((fs::path(cfg.daemon.state_dir) / "cuzk-daemon.pid").string());
  if (!state_lock.acquired())
    return fail("another cuzk-daemon (pid " + std::to_string(state_lock.holder_pid().value_or(-1)) +
                ") is running with state_dir " + cfg.daemon.state_dir);

  auto listen = config::listen_address::parse(cfg.daemon.listen);
  std::optional<daemon::pid_lock> socket_lock;
  if (listen.type == config::listen_address::kind::unix_socket) {
    try {
      daemon::check_socket_dir(fs::path(listen.path).parent_path(), "daemon.listen");
    } catch (const std::exception& e) {
      return fail(e.what(), 2);
    }
    socket_lock.emplace(listen.path + ".lock");
    if (!socket_lock->acquired())
      return fail("another cuzk-daemon (pid " + std::to_string(socket_lock->holder_pid().value_or(-1)) +
                  ") is serving " + cfg.daemon.listen);
    // We hold the lock, so a socket file left here belongs to a daemon that died (kill -9).
    if (fs::exists(listen.path) && fs::remove(listen.path, ec)) spdlog::info("removed stale socket {}", listen.path);
  } else if (auto owner = daemon::tcp_port_owner(listen.port)) {
    std::string who = *owner;
    if (who.find("(cuzk-daemon)") != std::string::npos)
      return fail("another cuzk-daemon (" + who + ") is listening on " + cfg.daemon.listen);
    return fail("port " + std::to_string(listen.port) + " of " + cfg.daemon.listen + " is in use by " + who);
  }

  daemon::core core(cfg, info);
  try {
    core.start();
  } catch (const std::exception& e) {
    return fail(std::string("engine start failed: ") + e.what());
  }

  daemon::proving_service service(core, cfg.daemon.token, cfg.daemon.max_message_bytes);
  grpc::ServerBuilder builder;
  int tcp_port = 0;
  builder.AddListeningPort(cfg.daemon.listen.rfind("unix://", 0) == 0 ? cfg.daemon.listen : listen.to_string(),
                           grpc::InsecureServerCredentials(), &tcp_port);
  // gRPC binds with SO_REUSEPORT by default: a second daemon started at the same moment (after the
  // owner check above, before this bind) would share the port. Without it the bind is the check.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.SetMaxReceiveMessageSize(int(cfg.daemon.max_message_bytes));
  builder.SetMaxSendMessageSize(int(cfg.daemon.max_message_bytes));
  builder.RegisterService(&service);
  builder.RegisterCallbackGenericService(&service.large());  // SubmitProof, Prove: token before the body
  mode_t old_mask = ::umask(0077);  // the unix socket is the daemon owner's alone (0600)
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ::umask(old_mask);
  if (!server) {
    if (listen.type == config::listen_address::kind::tcp)
      if (auto owner = daemon::tcp_port_owner(listen.port))
        return fail("port " + std::to_string(listen.port) + " is in use by " + *owner);
    return fail("cannot listen on " + cfg.daemon.listen);
  }
  if (listen.type == config::listen_address::kind::unix_socket) ::chmod(listen.path.c_str(), 0600);

  // HTTP status listener: /metrics (Prometheus text) and /status (JSON), bounded against clients
  // that hold connections (status_http.hpp).
  std::unique_ptr<daemon::status_http> http;
  std::thread http_thread;
  std::string http_where;
  if (!cfg.daemon.status_listen.empty()) {
    auto sl = config::listen_address::parse(cfg.daemon.status_listen);
    daemon::status_http::options o;
    o.host = sl.host;
    o.port = sl.port;
    // Beyond loopback the status listener answers only with the daemon's token (config validation
    // requires one there), as the gRPC listener does.
    o.bearer = sl.is_loopback() ? std::string() : "Bearer " + cfg.daemon.token;
    try {
      if (sl.type != config::listen_address::kind::tcp) throw std::runtime_error("not a TCP address");
      http = std::make_unique<daemon::status_http>(o, [&core](const std::string& path) -> daemon::http_answer {
        if (path == "/metrics") return {200, "text/plain; version=0.0.4", core.prometheus_metrics()};
        if (path == "/status") return {200, "application/json", core.status_json()};
        return {404, "text/plain", "not found: /metrics or /status\n"};
      });
    } catch (const std::exception& e) {
      server->Shutdown();
      core.drain_and_stop(std::chrono::milliseconds(0));
      auto owner = sl.type == config::listen_address::kind::tcp ? daemon::tcp_port_owner(sl.port) : std::nullopt;
      return fail("daemon.status_listen " + cfg.daemon.status_listen + ": cannot listen (" + e.what() + ")" +
                  (owner ? " (in use by " + *owner + ")" : std::string()));
    }
    http_thread = std::thread([&] { http->run(); });
    http_where = " status http://" + sl.host + ":" + std::to_string(http->port());
  }

  std::string where = listen.type == config::listen_address::kind::tcp
                          ? listen.host + ":" + std::to_string(tcp_port)
                          : cfg.daemon.listen;
  spdlog::info("ready: listening on {}{} (pid {})", where, http_where, info.pid);
  std::cout << "cuzk-daemon ready: listening on " << where << http_where << " (pid " << info.pid << ")" << std::endl;

  for (;;) {
    int sig = 0;
    sigwait(&signals, &sig);
    if (sig == SIGHUP) {
      daemon::reopen_log();
      continue;
    }
    spdlog::info("{}: draining (grace {} s)", sig == SIGTERM ? "SIGTERM" : "SIGINT", cfg.daemon.shutdown_grace.count());
    break;
  }
  bool engine_stopped = core.drain_and_stop(cfg.daemon.shutdown_grace);
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  if (http_thread.joinable()) {
    http->stop();
    http_thread.join();
  }
  auto refused = core.refused();
  const int status = refused ? 1 : 0;
  if (refused) std::cerr << "cuzk-daemon: refused by the coordinator at " << cfg.cluster.join << ": " << *refused << "\n";
  spdlog::info("stopped");
  if (!engine_stopped) {
    spdlog::default_logger()->flush();
    std::_Exit(status);  // an engine that would not stop must not hang the exit either
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cuzk-daemon: Groth16 (BLS12-381) proving service"};
  app.set_version_flag("--version", std::string("cuzk-daemon ") + CUZK_VERSION + " (" + CUZK_BUILD_ID + ")");
  std::string config_path;
  bool print_config = false;
  std::string join;
  app.add_option("-c,--config", config_path, "TOML configuration file (every key has a default)");
  app.add_option("--join", join, "run as a worker node of the coordinator at HOST:PORT (sets cluster.join)");
  app.add_flag("--print-config", print_config, "print the effective configuration and exit");
  // The library reads no environment: CUZK_NO_IFMA (and --no-ifma) are read here.
  zk::set_ifma_allowed(!zk::ifma_off_requested(std::getenv("CUZK_NO_IFMA")));
  app.add_flag_callback("--no-ifma", [] { zk::set_ifma_allowed(false); },
                        "scalar CPU arithmetic only (no AVX-512 IFMA paths; also CUZK_NO_IFMA=1)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  config::daemon_config cfg;
  try {
    cfg = config_path.empty() ? config::daemon_config::parse("", "<defaults>") : config::daemon_config::load(config_path);
    cfg.use_default_places(config::default_places::from([](const char* k) -> const char* { return std::getenv(k); },
                                                        ::geteuid() == 0));
    if (cfg.daemon.listen.empty()) throw config::config_error("daemon.listen: no default place (no HOME); set it");
    cfg.validate();
    if (!join.empty()) {
      cfg.cluster.join = join;
      if (config::listen_address::parse(join).type != config::listen_address::kind::tcp)
        throw config::config_error("--join " + join + ": expected HOST:PORT");
      cfg.validate();
    }
  } catch (const std::invalid_argument& e) {
    std::cerr << "cuzk-daemon: --join " << join << ": " << e.what() << "\n";
    return 2;
  } catch (const config::config_error& e) {
    std::cerr << "cuzk-daemon: " << e.what() << "\n";
    return 2;
  }
  if (print_config) {
    std::cout << cfg.to_toml();
    return 0;
  }
  return run_daemon(cfg);
}
