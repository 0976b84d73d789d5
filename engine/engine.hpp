// cuzk's proving engine, as a library: start(config) -> engine; submit / await / cancel / status.
//
// Behind this facade the engine is a set of actors (C++ Actor Framework 0.17): intake, scheduler,
// key store, host and VRAM memory budgets, a synthesizer pool, one device actor per device, an
// assembler that verifies every partition proof, and a supervisor that respawns what dies. See
// docs/architecture.md. This header deliberately includes no CAF header.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "fil/partition.hpp"
#include "zk/groth16/types.hpp"
#include "zk/io/wtns.hpp"

namespace cuzk::engine {

using job_id = std::uint64_t;

enum class priority : std::uint8_t { low = 0, normal = 1, high = 2, critical = 3 };
enum class job_state : std::uint8_t { queued = 0, running = 1, succeeded = 2, failed = 3, canceled = 4 };
const char* to_string(job_state s);

// Supervised worker roles (for status and the test hook kill_worker).
enum class worker_role : std::uint8_t {
  host_budget = 0, vram_budget, key_store, synthesizer, device, assembler, scheduler, intake, remote_synthesizer,
  stager
};
const char* to_string(worker_role r);

// Seeded fault injection (tests): probability per operation.
struct fault_plan {
  double synth_throw = 0;         // a synthesizer throws inside synthesis
  double device_kernel_fail = 0;  // a device backend call (h, MSM) throws, like a failed kernel
  double device_alloc_fail = 0;   // a device allocation fails before computing
  std::uint64_t seed = 0;
};

struct remote_node {
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;
};

// Several machines, one engine (docs/operations.md). A coordinator publishes a registrar on
// `listen`; a worker dials `join`, proves with the same secret that it belongs, offers its slots
// and the fingerprints of its keys, and then takes whole partitions (witness in, proof out).
struct cluster_config {
  std::string listen;       // coordinator: "HOST:PORT" where nodes join (port 0: any; see cluster_port())
  std::string join;         // worker: the coordinator's "HOST:PORT"
  std::string secret;       // shared by the coordinator and its nodes; required for either role
  std::string build;        // nodes of another build are refused ("": the engine's wire protocol)
  std::string node_name;    // worker: its name in the coordinator's status ("": hostname-pid)
  bool coordinator_only = false;  // coordinator: no local synthesizers or devices, all work to nodes
  unsigned slots = 0;             // worker: partitions it takes at once (0: 2 per device)
  std::chrono::milliseconds heartbeat{1000};     // pings both ways, and CAF's middleman heartbeat
  std::chrono::milliseconds node_timeout{5000};  // silence after which a peer is treated as gone
  // coordinator: the largest message a peer may send (what it sends is small: joins, one proof's
  // result, pings) and the most connections at once; a larger announced payload drops the peer
  // before anything is allocated for it (CAF's own doorman would allocate whatever it is told).
  std::uint64_t max_message_bytes = std::uint64_t{1} << 20;
  unsigned max_peers = 64;
  // coordinator: a connection that has not joined (proved the secret) by then is closed, so idle
  // or hostile peers cannot hold the max_peers slots (checked at every heartbeat)
  std::chrono::milliseconds handshake_timeout{5000};
  std::function<void(const std::string&)> on_event;    // one line per join, refusal, loss (thread-safe)
  std::function<void(const std::string&)> on_refused;  // worker: the coordinator refused it (fatal)
};

// Filecoin's own default parameter cache: filecoin-proofs uses it when FIL_PROOFS_PARAMETER_CACHE
// is unset. The engine reads no environment: the daemon resolves the directory and passes it in.
inline constexpr const char* default_fil_param_cache = "/var/tmp/filecoin-proof-parameters";

// [filecoin]: where Filecoin jobs find their keys. A job's key is the `.params` file that
// parameters.json names for its registered proof (fil::circuit_ref::params_file()), under
// param_cache; it goes through the key store's tiers and the host budget like a zkey.
struct filecoin_config {
  std::string param_cache;       // "" : Filecoin jobs are refused (failed_precondition)
  bool verify_params = false;    // each .params file's BLAKE2b digest checked at its first load
  std::string parameters_json;   // the digests for verify_params ("" : param_cache/parameters.json)
};

struct config {
  std::string host_budget = "auto";  // "auto" (MemTotal or the cgroup limit, minus the margin) or a size
  std::uint64_t host_margin_bytes = std::uint64_t{1} << 30;
  std::vector<std::string> devices{"cpu"};  // compute backend per device actor: "cpu", "cuda", "auto"
  // VRAM budget per device: the keys resident there (points, shifted sets, a proof's MSM scratch)
  // and the partitions staged there (inputs, h) take grants from it. "auto" is a GPU's memory less
  // vram_margin_bytes, or for a CPU device a quarter of the host's memory; or a size such as 8GiB.
  std::string device_budget = "auto";
  std::uint64_t vram_margin_bytes = std::uint64_t{512} << 20;
  // Precomputed shifted copies of the keys' bases on GPU devices (faster MSMs for more memory):
  // "off", "auto" (as many as a resident key's grant can hold) or a size such as 40GiB (per key).
  std::string shifted_bases = "off";
  unsigned synthesizers = 0;                // local synthesizer actors; 0 = hardware threads
  std::vector<remote_node> remote_synthesizers;
  unsigned max_attempts = 3;                // per partition; then the job fails with the reasons
  std::size_t max_active_jobs = 1024;
  std::size_t max_partitions = 1024;
  std::string key_cache = "0";              // hot keys kept beyond their leases, within this size (0: no limit)
  std::chrono::milliseconds step_timeout{120000};
  unsigned scheduler_threads = 0;           // CAF scheduler threads; 0 = CAF's default
  std::map<std::string, std::string> circuits;  // registered circuit name -> zkey path
  fault_plan faults;
  cluster_config cluster;
  filecoin_config filecoin;
};

struct witness_input {
  std::string path;                               // a .wtns file, or
  std::shared_ptr<const zk::io::witness> data;    // a witness in memory (never copied)
};

struct request {
  std::string request_id;  // the client's id: submitting the same id again returns the same job
  std::string circuit;     // zkey path or a registered name
  priority prio = priority::normal;
  std::vector<witness_input> partitions;  // 1..N
  std::optional<zk::groth16::randomness> randomness;  // tests: fixed r, s for every partition
};

// A Filecoin job, as Curio's SubmitProofRequest describes one (fil/partition.hpp): PoRep C2 = all
// partitions of a sector (the C1 output in input.c1), one
// WindowPoSt partition, or a WinningPoSt. Each partition's witness is synthesized from the vanilla
// proofs by a synthesizer, under the host budget; every partition proof is verified before the
// job succeeds, and job_result::compressed holds them concatenated (192 B each).
struct filecoin_request {
  std::string request_id;    // as for request
  fil::job_input input;      // kind, registered proof (serde name: fil::registered_proof_name maps
                             // Curio's abi numbers), miner id, randomness, vanilla proofs / C1
  std::uint64_t sector_size = 0;  // when non-zero, checked against input.registered_proof
  std::optional<priority> prio;   // default: default_priority(input.kind)
  std::optional<zk::groth16::randomness> randomness;  // tests: fixed r, s for every partition
};
// Deadlines decide: WinningPoSt critical (seconds), WindowPoSt high, PoRep C2 normal.
priority default_priority(fil::proof_kind kind);

struct partition_proof {
  zk::groth16::proof proof;
  std::vector<zk::bigint<4>> public_inputs;
  std::array<std::uint8_t, 192> compressed{};
};

struct job_timings {  // milliseconds
  double queue = 0, key_load = 0, synthesis = 0, device = 0, total = 0;
  // When the job's first partition started on a device, on the engine's steady clock (comparable
  // between jobs of one engine; 0 when none did, e.g. proved by a cluster node).
  double device_start = 0;
};

// One partition's stages in its latest attempt, in unix milliseconds (0: the stage did not run in
// this engine, e.g. proved by a cluster node): which synthesizer ("synth:N") and device ("cpu:0",
// "cuda:1") it ran on, for timelines and for checking priorities from outside.
struct partition_timing {
  std::uint32_t partition = 0;
  std::string synthesizer, device;
  double synth_start_unix_ms = 0, synth_end_unix_ms = 0, device_start_unix_ms = 0, device_end_unix_ms = 0;
};

struct job_result {
  job_id id = 0;
  job_state state = job_state::queued;
  std::vector<partition_proof> partitions;  // when succeeded, in partition order
  std::vector<std::uint8_t> compressed;     // the N compressed proofs concatenated (192 B each)
  std::vector<std::string> reasons;         // failed attempts (also on success after retries)
  std::uint32_t attempts = 0;
  job_timings timings;
  bool bad_input = false;  // failed because of its input (e.g. an unsatisfiable witness): not retried
  std::vector<partition_timing> partition_timings;  // in partition order
};

struct budget_usage {
  std::string name;
  std::uint64_t capacity = 0, in_use = 0, peak = 0, queued_bytes = 0, reclaimed = 0;
  std::uint32_t reservations = 0, queued = 0;
  std::uint64_t held = 0;  // of in_use: grants whose reservation token is alive (memory really held)
};

struct device_report {
  std::string name;
  double busy_ms = 0;
  std::uint64_t proofs = 0;
  // Partitions that were already waiting (staged) when the previous one ended, and the device's
  // idle time before them: the engine's own gap between consecutive partitions.
  std::uint64_t back_to_back = 0;
  double gap_ms_total = 0, gap_ms_max = 0;
  job_id current_job = 0;  // the job it proves now, else the one staged next on it; 0: none
};

struct fault_report {
  worker_role who;
  std::uint32_t slot = 0;
  std::string reason;
  double at_ms = 0;
};

// A proving key as the key store holds it: cold (not loaded), warm (zkey parsed), hot (evaluator
// built, ready to prove). `bytes` is what it has reserved from the host budget (the evaluator).
enum class key_tier : std::uint8_t { cold = 0, warm = 1, hot = 2 };
const char* to_string(key_tier t);

struct key_report {
  std::string path;  // the zkey file
  key_tier tier = key_tier::cold;
  std::uint32_t leases = 0;  // partitions holding it now
  std::uint64_t bytes = 0;
  std::vector<std::uint32_t> resident_on;  // devices holding its points (the tier above hot)
};

// One device's VRAM budget by owner: keys resident there (their grants), partitions staged there,
// and what is free; with the resident tier's loads and evictions.
struct device_memory {
  std::uint32_t device = 0;
  std::uint64_t capacity = 0, resident = 0, staged = 0, free = 0;
  std::uint32_t resident_keys = 0;
  std::uint64_t loads = 0, evictions = 0;
};

struct job_summary {
  job_id id = 0;
  std::string request_id;
  job_state state = job_state::queued;
  priority prio = priority::normal;
  std::uint32_t partitions = 0, attempts = 0;
  job_timings timings;
  std::vector<std::string> reasons;
};

struct node_report {  // a cluster node, as the coordinator sees it
  std::uint64_t id = 0;
  std::string name, build;
  bool alive = false;
  std::string lost_reason;
  std::uint32_t slots = 0, busy = 0;
  std::vector<std::string> devices, keys;  // backends; circuit names there
  std::uint64_t proofs = 0, failures = 0;
  double busy_ms = 0, joined_ms_ago = 0, last_seen_ms_ago = 0;
};

struct coordinator_report {  // a worker's link to its coordinator
  std::string address, state, detail;  // state: connecting | joining | joined | refused
  std::uint64_t node_id = 0, joins = 0, tasks = 0, failures = 0;
};

struct status_report {
  std::vector<job_summary> jobs;
  std::vector<device_report> devices;
  budget_usage host;
  std::vector<budget_usage> vram;
  std::uint64_t accepted = 0, rejected = 0, duplicates = 0, succeeded = 0, failed = 0, canceled = 0;
  std::uint64_t retries = 0, respawns = 0, tasks_queued = 0, tasks_running = 0;
  std::vector<fault_report> faults;
  std::uint64_t key_loads = 0, evaluator_builds = 0, key_evictions = 0, key_reserved_bytes = 0;
  std::string cluster_role = "standalone";  // standalone | coordinator | worker
  std::vector<node_report> nodes;           // coordinator: members, then the latest lost
  std::uint64_t node_joins = 0, node_refusals = 0, node_losses = 0, stale_results = 0;
  std::vector<std::string> refusals;        // coordinator: the latest, one line each
  // coordinator: connections open on the cluster port, peers dropped for announcing a message
  // over max_message_bytes, connections turned away beyond max_peers, connections closed for not
  // joining within handshake_timeout
  std::uint32_t cluster_connections = 0;
  std::uint64_t cluster_oversized = 0, cluster_turned_away = 0, cluster_handshake_timeouts = 0;
  std::optional<coordinator_report> coordinator;  // worker
  std::vector<key_report> keys;  // every key the key store has seen (an evicted one is cold)
  std::vector<device_memory> memory;  // per device: resident / staged / free
};

// Request errors (invalid request, queue full, unknown job, engine stopped): one line.
class engine_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class engine {
 public:
  // The one start path, whatever the configuration.
  static engine start(const config& cfg);

  engine(engine&&) noexcept;
  engine& operator=(engine&&) noexcept;
  ~engine();  // shutdown()

  job_id submit(const request& req);
  // A Filecoin job. Checked before it is accepted (cheap: counts, shapes, challenges; the Merkle
  // paths are recomputed by the synthesizer); throws engine_error whose message starts with
  //   "bad_input: "            a field of the request or a vanilla proof (named) is unusable
  //   "unimplemented: "        SnapDeals
  //   "not_found: "            the params file (its full path) is not in the parameter cache
  //   "failed_precondition: "  no [filecoin] param_cache configured
  // or, like submit(request), "invalid_request: " / "queue_full: " / "shutting_down: ".
  job_id submit(filecoin_request req);  // by value: an rvalue's vanilla proofs are moved, not copied
  // The params file a Filecoin job of this kind and registered proof uses (need not exist).
  std::string filecoin_params_path(fil::proof_kind kind, std::string_view registered_proof) const;
  // Loads a key (zkey or Filecoin .params path) through the key store to the hot tier and leaves it
  // there, unleased (PreloadSRS, `cuzk preload`). Blocks until it is hot; engine_error with the
  // reason ("bad_input: FILE: ...") when it cannot be loaded.
  key_report preload_key(const std::string& path, std::chrono::milliseconds timeout = std::chrono::minutes(30));
  // Drops one hot key that no job holds (EvictSRS); false when it is not hot or is leased.
  bool evict_key(const std::string& path);
  // The job's result; nullopt when it has not finished within `timeout`.
  std::optional<job_result> await(job_id id, std::chrono::milliseconds timeout);
  // The way back without a waiting thread: `done` is called once, on an engine thread, with the
  // job's result, or with nullopt and the reason when the engine lost the job (it stopped, or the
  // job is unknown). It must not block (hand the result to a thread of the caller's). Costs one
  // small actor per pending job, no thread; engine_error when the engine is shutting down.
  using finished_fn = std::function<void(std::optional<job_result>, const std::string& why)>;
  void on_finished(job_id id, finished_fn done);
  // The caller has kept a finished job's result: the engine drops its record (and the request id
  // that named it), so that a long-running service does not grow with every job. No-op otherwise.
  void forget(job_id id);
  bool cancel(job_id id);  // false when unknown or finished
  status_report status();

  // Stops every actor and waits for them (bounded by the work in progress). Idempotent. Every
  // call may come from any thread; one that races shutdown finishes first (shutdown waits for it),
  // and calls made after shutdown began throw engine_error("shutting_down: ...").
  void shutdown();

  // Test hooks.
  bool kill_worker(worker_role who, unsigned slot);  // exit_reason::kill, as a crash would
  void evict_idle_keys();                            // drop hot keys that no job holds
  // Chaos hook: the device actor in `device`'s slot fails its next `count` allocations, as a seeded
  // device_alloc_fail would (the partitions are retried with attempt + 1). Returns once the device
  // has the count; false when there is no such device. A respawned device starts with none pending.
  bool fail_next_allocations(unsigned device, unsigned count);
  unsigned synthesizer_count() const;
  unsigned device_count() const;
  std::uint16_t cluster_port() const;  // coordinator: the port nodes join on (0 otherwise)

 private:
  struct impl;
  explicit engine(std::unique_ptr<impl> p);
  std::unique_ptr<impl> p_;
};

// A synthesizer on its own actor system, published over CAF's middleman: what a remote node runs.
// The engine connects to it through config::remote_synthesizers.
class synthesizer_node {
 public:
  static std::unique_ptr<synthesizer_node> serve(std::uint16_t port = 0, const std::string& host = "127.0.0.1");
  ~synthesizer_node();
  std::uint16_t port() const;

 private:
  struct impl;
  synthesizer_node();
  std::unique_ptr<impl> p_;
};

// Host memory: MemTotal, or the cgroup limit if lower (bytes).
std::uint64_t host_memory_limit();
// "auto" -> host_memory_limit() - margin; else a size: "123", "64KiB", "512MiB", "2GiB", "1.5G".
std::uint64_t parse_budget(const std::string& text, std::uint64_t margin = 0);

}  // namespace cuzk::engine
