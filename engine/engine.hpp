// cuzk's proving engine, as a library: start(config) -> engine; submit / await / cancel / status.
//
// Behind this facade the engine is a set of actors (C++ Actor Framework 0.17): intake, scheduler,
// key store, host and VRAM memory budgets, a synthesizer pool, one device actor per device, an
// assembler that verifies every partition proof, and a supervisor that respawns what dies. See
// docs/architecture.md. This header deliberately includes no CAF header: what the engine reports (a
// job's outcome, each actor's status) are the actors' own plain structs from messages/status.hpp,
// handed over as they are.
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
#include "messages/status.hpp"
#include "zk/groth16/types.hpp"
#include "zk/io/wtns.hpp"

namespace cuzk::engine {

// The engine's reports (messages/status.hpp): the names callers use.
using msg::job_id;
using msg::priority;
using msg::job_state;
using msg::role;  // supervised workers (status, the test hook kill_worker)
using msg::key_tier;
using msg::to_string;
using msg::job_outcome;  // what await / on_finished answer: proofs, reasons, timings
using msg::partition_output;
using msg::partition_timing;
using msg::job_timings;
using msg::job_report;
using msg::budget_status;
using msg::key_status;
using msg::residency_status;
using msg::staged_bytes;  // a device's VRAM: staged partitions (what its residency does not hold)
using msg::free_bytes;
using msg::node_info;
using msg::node_load;
using msg::agent_status;

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
  // TLS on every cluster link (CAF's OpenSSL module), all three or none: this node's certificate
  // chain and private key (PEM, unencrypted) and the CA that signs every node's certificate. Each
  // end checks the other's certificate against tls_ca; a peer without one it signed cannot connect.
  std::string tls_cert, tls_key, tls_ca;
  std::function<void(const std::string&)> on_event;    // one line per join, refusal, loss (thread-safe)
  std::function<void(const std::string&)> on_refused;  // worker: the coordinator refused it (fatal)
  // Test hook, worker: each partition's proof (the coordinator's job id and partition index) passes
  // through it before it goes back, so that a test can answer with another one.
  std::function<void(std::uint64_t job, std::uint32_t partition, zk::groth16::proof&)> on_answer;
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
  // Where PoRep keys' compact recorded evaluators are cached (<params stem>.cuzk-pce, recorded at a
  // key's first load when absent: fil/evaluator.hpp); "" : next to each params file.
  std::string evaluator_dir;
  unsigned record_threads = 0;  // threads such a recording uses (0: all cores); the file is the same
  // A line when a recording starts and one when it ends (thread-safe; the daemon logs them).
  std::function<void(const std::string&)> on_event;
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
  // The device memory this process may use on each GPU: "off" (the whole card) or a size ([gpus]
  // vram_limit): a big card behaving as a card of that size.
  std::string vram_limit = "off";
  // Where a GPU proof's B2 (G2 MSM) runs: "device", "host", "split" or "auto" (zk/groth16/b2_plan.hpp),
  // and the threads of its host part (0: every core). The synthesizers' threads are passed along.
  std::string b2 = "device";
  unsigned b2_host_threads = 0;
  // The cost model's seed rates in points per second (0: measured by a key's first proof): B2 on
  // the device, and its host part with b2_host_threads threads on an idle host.
  double b2_device_rate = 0, b2_host_rate = 0;
  // The share of B2's points a GPU's side lane (B2's MSM scratch) is sized for, in (0, 1]: 1 (all
  // of them) by default; below 1 B2's others (its scalars not 0 or 1) run in chunks there when
  // they outnumber it, and the room freed goes to the key's shifted sets (H's first; docs/gpu.md).
  double b2_lane_share = 1;
  // A Filecoin PoRep partition proved on a GPU: the synthesizer makes its witness only and the GPU
  // evaluates a, b, c from it with the key's compact evaluator, resident with the key (17 GB less
  // over PCIe a 32 GiB partition; device a, b, c equal the host's byte for byte). Off: a, b, c on
  // the host, staged with the witness (`cuzk bench fil --host-abc`).
  bool device_synthesis = true;
  // Prove requests a device holds at once (actors/settings.hpp): 2 = the next partition waits in
  // the device's mailbox while it proves one; 1 = it is sent when the device's answer arrives.
  unsigned device_depth = 2;
  // Partitions a device holds staged at once (its staging slots; the room a resident key's shifted
  // sets are planned beside): 0 = max(2, device_depth) (at depth 2 one proving, one waiting in its
  // mailbox, the next staged while the one waiting is proved; at depth 1 one proving, one staged),
  // at most device_depth + 1. The device never waits as long as staging a partition is shorter
  // than a proof (the slot of the proof that ends is free long before the next one ends); 3 at
  // depth 2 only helps when it is longer, and takes a partition's room (4.17 GB at 32 GiB) from the
  // key's shifted sets.
  unsigned staged_partitions = 0;
  unsigned synthesizers = 0;                // local synthesizer actors; 0 = hardware threads
  unsigned synthesizer_threads = 0;         // threads per synthesizer (witness, a, b, c); 0 = all cores, shared
  // A PoRep (or synthetic) key keeps this many partitions' buffers between partitions, each reserved
  // with the key. Beyond them it keeps one set per partition grant its buffers hold: a partition's
  // grant comes back to the key with its set, and the next partition takes both (counting a kept set
  // once, zk/groth16/partition_buffers.hpp), so 1 already keeps a set per partition in flight.
  unsigned kept_partitions = 1;
  // One synthesis at a time on the shared pool while fewer than this many partitions per device
  // are synthesized and not yet proved (actors/settings.hpp alone_below): an idle engine's first
  // partitions get every core and reach the device sooner. 1 (default): only while the devices
  // have nothing; 0: off (every free synthesizer starts at once).
  unsigned alone_below = 1;
  // Syntheses sharing the process pool run their pool work ranked in the order the devices want
  // them (zk/util/pool_rank.hpp; actors/settings.hpp ordered_synthesis). Off: they share it phase by
  // phase. With alone_below 0 the first sector's next partitions start beside the first and are
  // ready one proof apart.
  bool ordered_synthesis = false;
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
  // Benchmarks only: `circuit` may be a synthetic key (zk/groth16/synthetic_srs.hpp, NOT A SETUP),
  // whose proofs are then released unverified (job_outcome::unverified). A synthetic key without it
  // is refused ("invalid_request: ...").
  bool synthetic_bench = false;
};

// A Filecoin job, as Curio's SubmitProofRequest describes one (fil/partition.hpp): PoRep C2 = all
// partitions of a sector (the C1 output in input.c1), SnapDeals = all partitions of an update (one
// PartitionProof each in input.vanilla_proofs, the three commitments), one WindowPoSt partition, or
// a WinningPoSt. Each partition's witness is synthesized from the vanilla
// proofs by a synthesizer, under the host budget; every partition proof is verified before the
// job succeeds, and job_outcome::compressed holds them concatenated (192 B each).
struct filecoin_request {
  std::string request_id;    // as for request
  fil::job_input input;      // kind, registered proof (serde name: fil::registered_proof_name maps
                             // Curio's abi numbers), miner id, randomness, vanilla proofs / C1
  std::uint64_t sector_size = 0;  // when non-zero, checked against input.registered_proof
  std::optional<priority> prio;   // default: default_priority(input.kind)
  std::optional<zk::groth16::randomness> randomness;  // tests: fixed r, s for every partition
  // Benchmarks only: prove against this synthetic key path (zk/groth16/synthetic_srs.hpp,
  // "synthetic:SEED:device|host:EVALUATOR", NOT A SETUP) instead of the parameter cache's file; the
  // proofs do not verify and are released unverified (job_outcome::unverified).
  std::string synthetic_key;
  // PoRep: input.c1 as fil::io::read_c1 read it already (the daemon's request check), or null. Given,
  // submit checks it against the request (fil::check_job_input) instead of reading input.c1 again;
  // it must be that read of input.c1.
  std::shared_ptr<const fil::c1_output> c1;
  // A host budget grant (charge_host) for the memory input and c1 hold: kept with the job's input
  // and returned when the job lets go of it (its last partition done, or the job dropped).
  std::shared_ptr<const void> charge;
};
// Deadlines decide: WinningPoSt critical (seconds), WindowPoSt high, PoRep C2 and SnapDeals normal.
priority default_priority(fil::proof_kind kind);

// status(): each actor's own report as it answered, and what only the facade knows (the cluster
// port's connection counters). taken_us is the engine clock when it was taken, the clock of the
// stamps in it (node_info::joined_us, last_seen_us).
struct status_report {
  std::uint64_t taken_us = 0;
  msg::intake_status intake;        // jobs and their counters
  msg::scheduler_status scheduler;  // devices, retries, tasks; a coordinator's nodes' load
  msg::supervisor_status supervisor;  // faults and respawns
  budget_status host;
  std::vector<budget_status> vram;  // per device
  msg::key_store_status key_store;  // every key it has seen (an evicted one is cold), per-device residency
  std::string cluster_role = "standalone";  // standalone | coordinator | worker
  msg::registrar_status registrar;          // coordinator: members, then the latest lost; joins, refusals
  // coordinator: connections open on the cluster port, peers dropped for announcing a message
  // over max_message_bytes, connections turned away beyond max_peers, connections closed for not
  // joining within handshake_timeout
  std::uint32_t cluster_connections = 0;
  std::uint64_t cluster_oversized = 0, cluster_turned_away = 0, cluster_handshake_timeouts = 0;
  std::optional<agent_status> coordinator;  // worker: its link to the coordinator

  // A coordinator's node, as the scheduler uses it (nullptr: none, e.g. lost).
  const node_load* load_of(std::uint64_t node) const {
    for (auto& n : scheduler.nodes)
      if (n.id == node) return &n;
    return nullptr;
  }
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
  //   "unimplemented: "        a proof kind the engine has no circuit for
  //   "not_found: "            the params file (its full path) is not in the parameter cache
  //   "failed_precondition: "  no [filecoin] param_cache configured
  // or, like submit(request), "invalid_request: " / "queue_full: " / "shutting_down: ".
  job_id submit(filecoin_request req);  // by value: an rvalue's vanilla proofs are moved, not copied
  // Takes `bytes` from the host budget (a request's memory, outside the engine's own grants):
  // the grant returns when the last copy of the result goes. Waits up to `wait` while the bytes do
  // not fit beside what is in use, yielding to the grants the engine's jobs wait for (they free
  // memory; a request that queued ahead of them could wait for itself). engine_error
  // "over_budget: ..." naming the sizes when `bytes` exceeds the whole budget or `wait` ran out.
  std::shared_ptr<const void> charge_host(std::uint64_t bytes, const std::string& purpose,
                                          std::chrono::milliseconds wait);
  // The params file a Filecoin job of this kind and registered proof uses (need not exist).
  std::string filecoin_params_path(fil::proof_kind kind, std::string_view registered_proof) const;
  // Loads a key (zkey or Filecoin .params path) through the key store to the hot tier and leaves it
  // there, unleased (PreloadSRS, `cuzk preload`). Blocks until it is hot; engine_error with the
  // reason ("bad_input: FILE: ...") when it cannot be loaded.
  key_status preload_key(const std::string& path, std::chrono::milliseconds timeout = std::chrono::minutes(30));
  // Makes a key hot and resident on `device` (the key store's tier above hot, under that device's
  // VRAM budget) and leaves it there, unleased; returns the device bytes it holds (0 where the
  // backend keeps nothing, or when it did not fit and each proof will upload its points).
  std::uint64_t make_resident(const std::string& path, std::uint32_t device = 0,
                              std::chrono::milliseconds timeout = std::chrono::minutes(30));
  // Drops one hot key that no job holds (EvictSRS); false when it is not hot or is leased.
  bool evict_key(const std::string& path);
  // The job's result; nullopt when it has not finished within `timeout`.
  std::optional<job_outcome> await(job_id id, std::chrono::milliseconds timeout);
  // The way back without a waiting thread: `done` is called once, on an engine thread, with the
  // job's result, or with nullopt and the reason when the engine lost the job (it stopped, or the
  // job is unknown). It must not block (hand the result to a thread of the caller's). Costs one
  // small actor per pending job, no thread; engine_error when the engine is shutting down.
  using finished_fn = std::function<void(std::optional<job_outcome>, const std::string& why)>;
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
  bool kill_worker(role who, unsigned slot);  // exit_reason::kill, as a crash would
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
