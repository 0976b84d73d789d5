// The daemon's configuration: every key has a default in code, so `cuzk-daemon` runs without a file.
// A TOML file overrides keys; an unknown key or a bad value is a config_error naming file, line and key.
#pragma once

#include <chrono>
#include <functional>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace cuzk::config {

class config_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A byte count written as "48GiB", "512MiB", "1.5GB", "4096" or the word "auto" where allowed.
struct byte_size {
  bool automatic = false;
  std::uint64_t bytes = 0;
  static byte_size parse(const std::string& text, bool allow_auto);  // throws std::invalid_argument
  std::string to_string() const;
};

// `unix:///path/to.sock` or `HOST:PORT`.
struct listen_address {
  enum class kind { unix_socket, tcp } type = kind::unix_socket;
  std::string path;  // unix
  std::string host;  // tcp
  std::uint16_t port = 0;
  static listen_address parse(const std::string& text);  // throws std::invalid_argument
  std::string to_string() const;
  bool is_loopback() const;
};

// Where the daemon keeps its state and socket when the configuration names no place: never the
// shared temporary directory (other local users could plant or read files there). systemd's
// StateDirectory / RuntimeDirectory when the unit sets them; /var/lib/cuzk and /run/cuzk for root;
// $XDG_STATE_HOME/cuzk (~/.local/state/cuzk) and $XDG_RUNTIME_DIR/cuzk/cuzk.sock (else the state
// directory's cuzk.sock) for other users. The daemon and the client compute the same socket.
struct default_places {
  std::string state_dir;  // "" when there is no home to put it in
  std::string listen;     // "unix://PATH"
  std::string param_cache;  // FIL_PROOFS_PARAMETER_CACHE, else filecoin-proofs' default directory
  // `env` is the caller's getenv (this library reads no environment itself).
  static default_places from(const std::function<const char*(const char*)>& env, bool root);
};

struct daemon_section {
  std::string listen;                            // "": default_places (a private unix socket)
  std::string status_listen = "127.0.0.1:9820";  // HTTP /metrics and /status; "" disables
  std::string token;                             // required on a non-loopback TCP listener
  std::chrono::seconds shutdown_grace{30};
  std::string state_dir;                         // journal, pid file, witnesses; "": default_places
  std::chrono::seconds result_ttl{3600};         // how long finished results stay awaitable
  std::uint64_t max_message_bytes = 1ull << 30;  // gRPC message size limit
};

struct memory_section {
  byte_size total_budget{true, 0};                  // "auto": MemTotal or cgroup limit, minus margin
  byte_size safety_margin{false, 2ull << 30};
  byte_size pinned_budget{true, 0};                 // hot keys in pinned memory; auto = half the host budget
};

struct gpus_section {
  std::vector<int> devices;  // empty: every visible GPU
  byte_size vram_safety_margin{false, 512ull << 20};
  std::string backend = "auto";  // auto | cpu | cuda
  // Precomputed shifted copies of resident key bases (MSMs ~15% faster, one copy of the bases per
  // MSM window, inside the resident key's VRAM grant): "auto" = as many as the budget can hold;
  // "off"; or a size (at most, per key).
  byte_size shifted_bases{true, 0};
  bool shifted_bases_off = false;
  // The device memory this process may use on each GPU ("off": the whole card). Under a limit the
  // daemon takes the rest of the card at start, so a big card behaves as a card of that size
  // (its key placement, staging and proof scratch planned in it).
  byte_size vram_limit{false, 0};
  // Where a proof's B2 (its G2 MSM) runs (zk/groth16/b2_plan.hpp): "device" (the GPU's second
  // stream), "host" (the host's cores, beside the GPU), "split" (the first points on the host, the
  // rest on the GPU, k by the cost model) or "auto" (the cost model per proof).
  std::string b2 = "device";
  std::uint32_t b2_host_threads = 0;  // threads of B2's host part; 0: every core
  // The cost model's seed rates, points per second (0: measured, the first proof of a key probes):
  // B2 on the device's side lane, and B2's host part with b2_host_threads threads on an idle host
  // (the engine scales it by the synthesizers' share of the cores). Measured ones replace them
  // after each proof; `cuzk status` shows the measured rates to copy here.
  double b2_device_rate = 0, b2_host_rate = 0;
  // Partitions each GPU holds staged at once, its staging slots and the room a resident key's
  // shifted sets leave them (engine::config::staged_partitions): 0 = 2 (one proving, one waiting in
  // the device's mailbox, the next staged while that one is proved); 3 stages a third partition,
  // which helps only when staging one takes longer than a proof, at a partition's room less for
  // the sets.
  std::uint32_t staged_partitions = 0;
  // The share of B2's points each GPU's side lane (B2's MSM scratch) is sized for, in (0, 1]
  // (engine::config::b2_lane_share): 1 = all of them; below 1 B2's others run there in chunks and
  // the room freed goes to the resident key's shifted sets (H's first).
  double b2_lane_share = 1;
};

struct scheduler_section {
  std::uint32_t max_queued_jobs = 1024;
  std::uint32_t max_partitions = 64;
  std::uint32_t max_attempts = 3;
  // The longest one pipeline step (a partition's synthesis, staging or device proof) may take before
  // it is given up and retried: large circuits on the CPU backend need more than the default.
  std::chrono::seconds step_timeout{120};
};

struct synthesis_section {
  std::uint32_t threads = 0;         // synthesizers (partitions synthesized at once); 0: all cores
  std::uint32_t pool_threads = 0;    // threads each synthesizer computes a partition on; 0: all cores, shared
  std::uint32_t kept_partitions = 1;  // PoRep keys: partitions' buffers kept between partitions (engine.hpp)
  std::uint32_t alone_below = 1;     // one synthesis at a time below this many partitions ahead (engine.hpp)
  bool ordered = false;              // pool work ranked in the devices' order (engine.hpp ordered_synthesis)
};

struct keys_section {
  std::string dir = "keys";
  std::vector<std::string> preload;  // circuit names loaded at start
};

struct logging_section {
  std::string level = "info";  // trace | debug | info | warn | error
  std::string file;            // "" logs to stderr only
};

struct chaos_section {
  bool enabled = false;  // fault injection over the API; refused on a non-loopback listener
};

struct cluster_section {
  std::string listen;  // coordinator: "HOST:PORT" to accept worker nodes; "" disables
  std::string join;    // worker: the coordinator's "HOST:PORT" (also --join); "" disables
  std::string secret;  // shared by the coordinator and its workers
  std::string name;    // worker: its name in the coordinator's status; "" = hostname-pid
  std::uint32_t slots = 0;  // worker: partitions it takes at once; 0 = 2 per device
  bool coordinator_only = false;
  std::chrono::milliseconds heartbeat{1000};
  std::chrono::milliseconds node_timeout{5000};
  // coordinator: the largest message a peer may send on the cluster port, and the most
  // connections there at once (a peer announcing more is dropped before anything is allocated)
  std::uint64_t max_message_bytes = std::uint64_t{1} << 20;
  std::uint32_t max_peers = 64;
  // coordinator: a connection that has not joined with the secret by then is closed (its slot
  // among max_peers freed); checked every heartbeat
  std::chrono::milliseconds handshake_timeout{5000};
  // TLS on the cluster's links (all three or none; PEM files): this node's certificate and
  // unencrypted key, and the CA that signs every node's certificate (peers without one are refused)
  std::string tls_cert, tls_key, tls_ca;
};

// Filecoin parameters (.params / .vk by their parameters.json names, fil/parameter_cache.hpp).
struct filecoin_section {
  std::string param_cache;     // "": FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters
  bool verify_params = false;  // check each file's digest against parameters.json at first use
  std::string evaluator_dir;   // PoRep compact evaluators (<params stem>.cuzk-pce); "": next to the params
  std::uint32_t record_threads = 0;  // threads recording such an evaluator (first use); 0: all cores
};

struct daemon_config {
  daemon_section daemon;
  memory_section memory;
  gpus_section gpus;
  scheduler_section scheduler;
  synthesis_section synthesis;
  keys_section keys;
  logging_section logging;
  chaos_section chaos;
  cluster_section cluster;
  filecoin_section filecoin;

  // Defaults overridden by the file; throws config_error("FILE:LINE: key 'a.b': expected ..., got ...").
  static daemon_config load(const std::string& path);
  // Parses TOML text; `origin` names it in errors.
  static daemon_config parse(const std::string& toml_text, const std::string& origin);
  // Cross-key rules (token for non-loopback TCP, chaos only on loopback...); throws config_error.
  void validate() const;
  // Fills daemon.state_dir and daemon.listen where the configuration left them empty.
  void use_default_places(const default_places& p);
  // The effective configuration as TOML (what --print-config shows).
  std::string to_toml() const;
};

}  // namespace cuzk::config
