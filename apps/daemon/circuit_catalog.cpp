#include "circuit_catalog.hpp"

#include <grpcpp/support/status_code_enum.h>
#include <spdlog/spdlog.h>

#include <filesystem>

#include "journal.hpp"
#include "request_error.hpp"
#include "zk/io/zkey.hpp"

namespace cuzk::daemon {

namespace fs = std::filesystem;
using grpc::StatusCode;

namespace {

// The key's header (sizes, verifying key; zk::io::zkey_header): full validation is the key
// store's, when the key is loaded.
circuit_catalog::circuit read_header(const std::string& path) {
  auto h = zk::io::zkey_header::read(path);
  circuit_catalog::circuit c;
  c.path = path;
  c.canonical = canonical_path(path);
  c.n_vars = h.n_vars;
  c.n_public = h.n_public;
  c.domain_size = h.domain_size;
  c.file_bytes = h.size_bytes;
  return c;
}

}  // namespace

std::string canonical_path(const std::string& path) {
  std::error_code ec;
  auto c = fs::weakly_canonical(path, ec);
  return ec ? path : c.string();
}

circuit_catalog::circuit_catalog(std::string dir) : dir_(std::move(dir)) {}

std::map<std::string, circuit_catalog::circuit> circuit_catalog::scan() {
  std::map<std::string, circuit> found;
  std::error_code ec;
  for (auto& entry : fs::directory_iterator(dir_, ec)) {
    if (entry.path().extension() != ".zkey") continue;
    std::string name = entry.path().stem().string();
    if (!valid_circuit_name(name)) continue;
    try {
      found[name] = read_header(entry.path().string());
    } catch (const std::exception& e) {
      spdlog::warn("keys: skipping {}: {}", entry.path().string(), e.what());
    }
  }
  std::lock_guard lock(mu_);
  known_ = found;
  return found;
}

circuit_catalog::circuit circuit_catalog::find(const std::string& name) {
  if (!valid_circuit_name(name))
    throw request_error(StatusCode::INVALID_ARGUMENT,
                        "circuit: '" + name + "' is not a circuit name (letters, digits, '_', '-', '.')");
  {
    std::lock_guard lock(mu_);
    if (auto it = known_.find(name); it != known_.end()) return it->second;
  }
  auto now = scan();
  if (auto it = now.find(name); it != now.end()) return it->second;
  throw request_error(StatusCode::NOT_FOUND, "circuit: no key " + name + ".zkey in " + dir_);
}

std::map<std::string, circuit_catalog::circuit> circuit_catalog::known() {
  std::lock_guard lock(mu_);
  return known_;
}

std::map<std::string, std::string> circuit_catalog::paths() {
  std::lock_guard lock(mu_);
  std::map<std::string, std::string> out;
  for (auto& [n, c] : known_) out[n] = c.path;
  return out;
}

}  // namespace cuzk::daemon
