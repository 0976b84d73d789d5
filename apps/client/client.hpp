// The daemon client's subcommands for `cuzk` (submit, await, status, cancel, preload, evict,
// metrics, chaos) and the remote form of `cuzk prove`.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace cuzk::cli {

void register_client(CLI::App& app);

// `cuzk prove --addr A --circuit NAME --witness W ... --out DIR`: prove through a daemon.
struct remote_prove_options {
  std::string addr, token, circuit, request_id, priority = "normal", out_dir;
  std::vector<std::string> witnesses;
  bool json = false;
};
bool remote_prove_requested(const remote_prove_options& r);
int run_remote_prove(const remote_prove_options& r);

}  // namespace cuzk::cli
