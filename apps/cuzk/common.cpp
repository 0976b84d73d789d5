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

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double seconds_since(std::int64_t t0_ns) { return double(now_ns() - t0_ns) * 1e-9; }

}  // namespace cuzk::cli
