#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <new>
#include <stdexcept>

#include "commands.hpp"
#include "zk/error.hpp"
#include "zk/io/binfile.hpp"

namespace cuzk::cli {

int& exit_status() {
  static int status = exit_ok;
  return status;
}

void run_command(const std::function<int()>& body) {
  try {
    exit_status() = body();
  } catch (const zk::input_error& e) {
    std::cerr << "error: " << e.what() << "\n";
    exit_status() = exit_bad_input;
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory\n";
    exit_status() = exit_internal;
  } catch (const std::runtime_error& e) {  // I/O on the named files
    std::cerr << "error: " << e.what() << "\n";
    exit_status() = exit_bad_input;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n";
    exit_status() = exit_internal;
  }
}

void write_file_atomically(const std::string& path, std::span<const std::uint8_t> bytes) {
  namespace fs = std::filesystem;
  fs::path target(path);
  fs::path tmp = target;
  tmp += ".tmp." + std::to_string(::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw zk::input_error(path + ": cannot create: " + std::strerror(errno));
  bool ok = bytes.empty() || std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = (std::fflush(f) == 0) && ok;
  int err = errno;
  if (std::fclose(f) != 0) ok = false;
  if (!ok || std::rename(tmp.c_str(), target.c_str()) != 0) {
    err = err ? err : errno;
    std::remove(tmp.c_str());
    throw zk::input_error(path + ": cannot write: " + std::strerror(err));
  }
}

void write_file_atomically(const std::string& path, std::string_view text) {
  write_file_atomically(path, std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(text.data()),
                                                            text.size()));
}

std::vector<std::uint8_t> read_input_file(const std::string& path, std::uint64_t max_bytes, std::string_view what) {
  const std::string text = zk::io::read_file_capped(path, max_bytes, what);
  return {text.begin(), text.end()};
}

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double seconds_since(std::int64_t t0_ns) { return double(now_ns() - t0_ns) * 1e-9; }

}  // namespace cuzk::cli

namespace cuzk::cli {

namespace {
std::string human_bytes(std::uint64_t b) {
  char buf[32];
  if (b >= (std::uint64_t{1} << 30)) std::snprintf(buf, sizeof buf, "%.1f GiB", double(b) / double(1u << 30));
  else std::snprintf(buf, sizeof buf, "%.1f MiB", double(b) / double(1u << 20));
  return buf;
}
}  // namespace

progress_bar::progress_bar(std::string stage, bool bytes)
    : stage_(std::move(stage)), tty_(::isatty(2) != 0), bytes_(bytes) {}
progress_bar::~progress_bar() { done(); }

void progress_bar::update(std::uint64_t done_bytes, std::uint64_t total) {
  if (!tty_) return;
  const std::int64_t t = now_ns();
  if (drawn_ && t - last_ns_ < 100'000'000 && done_bytes < total) return;
  last_ns_ = t;
  drawn_ = true;
  const int width = 30;
  const double f = total ? double(done_bytes) / double(total) : 1.0;
  const int full = int(f * width);
  const std::string count = bytes_ ? human_bytes(done_bytes) + "/" + human_bytes(total)
                                   : std::to_string(done_bytes) + "/" + std::to_string(total);
  std::fprintf(stderr, "\r%s  [%s%s] %3d%%  %s ", stage_.c_str(), std::string(full, '#').c_str(),
               std::string(width - full, '.').c_str(), int(f * 100), count.c_str());
  std::fflush(stderr);
}

void progress_bar::done() {
  if (!drawn_) return;
  drawn_ = false;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
}

}  // namespace cuzk::cli
