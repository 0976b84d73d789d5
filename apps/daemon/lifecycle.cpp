#include "lifecycle.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/file.h>
#include <unistd.h>

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

namespace cuzk::daemon {

namespace fs = std::filesystem;

namespace {

void owned_dir(const fs::path& path, const std::string& what, mode_t forbidden) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) {
    if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
    if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
      throw std::runtime_error(what + " " + path.string() + ": cannot create: " + std::strerror(errno));
  }
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0)
    throw std::runtime_error(what + " " + path.string() + ": " + std::strerror(errno));
  if (S_ISLNK(st.st_mode))
    throw std::runtime_error(what + " " + path.string() + " is a symlink: refused (name the real directory)");
  if (!S_ISDIR(st.st_mode)) throw std::runtime_error(what + " " + path.string() + " is not a directory");
  if (st.st_uid != ::geteuid())
    throw std::runtime_error(what + " " + path.string() + " belongs to uid " + std::to_string(st.st_uid) +
                             ", not to this user (uid " + std::to_string(::geteuid()) + "): refused");
  if (st.st_mode & forbidden) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%03o", unsigned(st.st_mode & 0777));
    throw std::runtime_error(what + " " + path.string() + " has mode " + mode + ": refused (other users could " +
                             (forbidden == 077 ? "read or plant files there" : "swap the socket") + "); chmod " +
                             (forbidden == 077 ? "700" : "go-w") + " it");
  }
}

}  // namespace

void make_private_dir(const fs::path& path, const std::string& what) { owned_dir(path, what, 077); }
void check_socket_dir(const fs::path& path, const std::string& what) { owned_dir(path, what, 022); }

pid_lock::pid_lock(std::string path) : path_(std::move(path)) {
  int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return;
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    char buf[32] = {};
    auto n = ::pread(fd, buf, sizeof(buf) - 1, 0);
    if (n > 0) holder_ = std::strtol(buf, nullptr, 10);
    ::close(fd);
    return;
  }
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) != ssize_t(pid.size())) {
    ::close(fd);
    return;
  }
  fd_ = fd;
}

pid_lock::~pid_lock() {
  if (fd_ >= 0) {
    ::unlink(path_.c_str());
    ::close(fd_);
  }
}

std::optional<std::string> tcp_port_owner(std::uint16_t port) {
  // /proc/net/tcp{,6}: local address "HEXIP:HEXPORT", state 0A = LISTEN, then the socket inode.
  std::string inode;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
      std::istringstream f(line);
      std::string sl, local, remote, state, queues, timer, retr, uid, timeout, ino;
      f >> sl >> local >> remote >> state >> queues >> timer >> retr >> uid >> timeout >> ino;
      auto colon = local.rfind(':');
      if (colon == std::string::npos || state != "0A") continue;
      if (std::stoul(local.substr(colon + 1), nullptr, 16) == port) {
        inode = ino;
        break;
      }
    }
    if (!inode.empty()) break;
  }
  if (inode.empty()) return std::nullopt;
  const std::string target = "socket:[" + inode + "]";
  std::error_code ec;
  for (auto& proc : fs::directory_iterator("/proc", ec)) {
    const std::string pid = proc.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::error_code ec2;
    for (auto& fd : fs::directory_iterator(proc.path() / "fd", ec2)) {
      std::error_code ec3;
      if (fs::read_symlink(fd.path(), ec3).string() == target) {
        std::ifstream comm(proc.path() / "comm");
        std::string name;
        std::getline(comm, name);
        return "pid " + pid + " (" + name + ")";
      }
    }
  }
  return std::string("a process this user cannot see");
}

namespace {
std::mutex log_mu;
std::string log_file, log_level;

void install() {
  std::vector<spdlog::sink_ptr> sinks;
  sinks.push_back(std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  if (!log_file.empty()) {
    fs::create_directories(fs::path(log_file).parent_path().empty() ? fs::path(".") : fs::path(log_file).parent_path());
    sinks.push_back(std::make_shared<spdlog::sinks::basic_file_sink_mt>(log_file, /*truncate=*/false));
  }
  auto logger = std::make_shared<spdlog::logger>("cuzk", sinks.begin(), sinks.end());
  logger->set_level(spdlog::level::from_str(log_level));
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%-5l%$ [%P] %v");
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
}
}  // namespace

void setup_logging(const std::string& level, const std::string& file) {
  std::lock_guard lock(log_mu);
  log_level = level;
  log_file = file;
  install();
}

void reopen_log() {
  std::lock_guard lock(log_mu);
  install();
  spdlog::info("log reopened (SIGHUP)");
}

}  // namespace cuzk::daemon
