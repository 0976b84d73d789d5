// Process lifecycle helpers for the daemon: exclusive locks that name their holder, finding who owns
// a TCP port, and the log with its start banner.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace cuzk::daemon {

// An flock()ed file holding our pid. Acquired or not: on failure, holder_pid() says who has it.
class pid_lock {
 public:
  explicit pid_lock(std::string path);
  ~pid_lock();
  pid_lock(const pid_lock&) = delete;
  pid_lock& operator=(const pid_lock&) = delete;

  bool acquired() const { return fd_ >= 0; }
  std::optional<long> holder_pid() const { return holder_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
  std::optional<long> holder_;
};

// The daemon's own directories. make_private_dir: `path` is created with mode 0700 when missing
// (its parents as needed), and an existing one is refused unless it is a real directory (not a
// symlink), owned by this user, and closed to group and others; std::runtime_error names the path
// and the fix. `what` names the setting in that message ("daemon.state_dir").
// check_socket_dir: the same for the unix socket's directory, which may be group- or
// world-readable but not writable by anyone else (who could swap the socket).
void make_private_dir(const std::filesystem::path& path, const std::string& what);
void check_socket_dir(const std::filesystem::path& path, const std::string& what);

// "pid 1234 (cuzk-daemon)" for the process listening on the TCP port, if it can be found in /proc.
std::optional<std::string> tcp_port_owner(std::uint16_t port);

// Installs spdlog's default logger: stderr plus, when `file` is set, that file (appended to, after a
// banner line that names this run). reopen_log() is what SIGHUP does (log rotation).
void setup_logging(const std::string& level, const std::string& file);
void reopen_log();

}  // namespace cuzk::daemon
