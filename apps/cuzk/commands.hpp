// What the subcommands of `cuzk` share: registration, exit codes, error reporting, atomic output.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
}

namespace cuzk::cli {

// Exit codes of every subcommand.
enum exit_code : int {
  exit_ok = 0,
  exit_invalid = 1,       // verify: the proof does not verify
  exit_bad_input = 2,     // a file cannot be read or used (message names it); bad arguments
  exit_proof_failed = 3,  // prove: the computed proof did not verify; nothing written
  exit_internal = 4,      // a bug or an environment failure (out of memory, ...)
};

void register_prove(CLI::App& app);
void register_verify(CLI::App& app);
void register_zkey(CLI::App& app);
void register_setup(CLI::App& app);
void register_bench(CLI::App& app);  // cmd_bench.cpp: the GPU benchmarks, when built
void register_fil(CLI::App& app);    // cmd_fil.cpp: Filecoin verify-seal, verify-post, C1 tools
void register_fil_setup(CLI::App* fil);  // cmd_fil_setup.cpp: `cuzk fil setup` (TEST-ONLY params)
void register_params(CLI::App& app);  // cmd_params.cpp: bellperson .params info / check
void register_doctor(CLI::App& app);  // cmd_doctor.cpp: checks before pointing Curio at cuzk

// The status main() returns: set by the subcommand that ran.
int& exit_status();

// Runs a subcommand's body and records its status; input_error and other runtime_errors (I/O on a
// named file) -> "error: <message>" and exit_bad_input, anything else -> "internal error: <message>"
// and exit_internal. One line on stderr.
void run_command(const std::function<int()>& body);

// Writes `bytes` to `path` through a temporary file in the same directory renamed over it, so that
// a failure never leaves a partial file. Throws std::runtime_error naming the path.
void write_file_atomically(const std::string& path, std::span<const std::uint8_t> bytes);
void write_file_atomically(const std::string& path, std::string_view text);

// A stage name and a progress bar on stderr when it is a terminal, nothing in a pipe:
//   "digest v28-...params  [#########.........]  48%  2.1 GiB/4.4 GiB"
// (with `bytes` false the counts are items: "prove partition  [####....]  40%  4/10").
// update() redraws at most ten times a second; done() clears the line.
class progress_bar {
 public:
  explicit progress_bar(std::string stage, bool bytes = true);
  ~progress_bar();
  void update(std::uint64_t done, std::uint64_t total);
  void done();

 private:
  std::string stage_;
  bool tty_;
  bool bytes_;
  bool drawn_ = false;
  std::int64_t last_ns_ = 0;
};

// A whole input file read into memory, at most `max_bytes` (the most its format can hold): a FIFO,
// a device or an oversized file is input_error naming the path (zk/io/binfile.hpp read_file_capped).
std::vector<std::uint8_t> read_input_file(const std::string& path, std::uint64_t max_bytes, std::string_view what);

// Seconds since `t0` (steady clock), for the timing lines.
double seconds_since(std::int64_t t0_ns);
std::int64_t now_ns();

}  // namespace cuzk::cli
