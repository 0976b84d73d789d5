// The circom circuits the daemon serves: NAME.zkey files in the keys directory, each the circuit
// NAME. Only a key's header is read here (nVars for witness checks, sizes for status); the engine's
// key store loads and validates the whole key when a job needs it.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace cuzk::daemon {

// `path` with its symbolic links and dots resolved (std::filesystem::weakly_canonical), or `path`
// itself when that fails: how the daemon tells that two spellings name one key file.
std::string canonical_path(const std::string& path);

class circuit_catalog {
 public:
  struct circuit {
    std::string path;
    std::string canonical;  // canonical_path(path), taken at the scan: status matches keys by it
    std::uint32_t n_vars = 0, n_public = 0, domain_size = 0;
    std::uint64_t file_bytes = 0;
  };
  explicit circuit_catalog(std::string dir);
  // Rescans the directory; returns the names found.
  std::map<std::string, circuit> scan();
  // The circuit called `name`, rescanning once if it is new; request_error NOT_FOUND otherwise.
  circuit find(const std::string& name);
  std::map<std::string, std::string> paths();
  // The circuits found by the last scan (no I/O: status and metrics scrapes call this).
  std::map<std::string, circuit> known();

 private:
  std::mutex mu_;
  std::string dir_;
  std::map<std::string, circuit> known_;
};

}  // namespace cuzk::daemon
