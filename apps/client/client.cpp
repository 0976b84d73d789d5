// The daemon's client: submit, await, prove (remote), status, cancel, preload, evict, metrics, chaos,
// bench-status (round-trip latency of GetStatus; time until a starting daemon answers), and
// `fil submit` (a Filecoin job sent as Curio sends it).
// Human output by default; --json for scripts. Each gRPC error becomes one line and a non-zero exit.
#include <CLI/CLI.hpp>
#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <thread>

#include "client/client.hpp"
#include "client/fil_requests.hpp"
#include "config/config.hpp"
#include "zk/error.hpp"
#include "zk/io/binfile.hpp"
#include "cuzk/commands.hpp"
#include "cuzk/v1/proving.grpc.pb.h"

namespace cuzk::cli {

namespace pb = ::cuzk::v1;
namespace fs = std::filesystem;

namespace {

// gRPC error -> one line on stderr and an exit code: 2 for a refused request, 5 for an unreachable
// or failing daemon.
constexpr int exit_unavailable = 5;

// The daemon's own default socket (config::default_places), for a daemon run without a listen key.
std::string default_addr() {
  return cuzk::config::default_places::from([](const char* k) -> const char* { return std::getenv(k); },
                                            ::geteuid() == 0)
      .listen;
}

struct client_options {
  std::string addr = default_addr();
  std::string token;
  bool json = false;
};

void add_client_options(CLI::App* cmd, client_options& o) {
  cmd->add_option("--addr", o.addr, "daemon address: unix:///path/to.sock or HOST:PORT")->capture_default_str();
  cmd->add_option("--token", o.token, "bearer token for a daemon on a non-loopback address (or $CUZK_TOKEN)");
  cmd->add_flag("--json", o.json, "machine-readable output");
}

// gRPC target for `unix:///path` or `HOST:PORT`. IP literals get gRPC's ipv4:/ipv6: schemes: the
// default DNS resolver (c-ares in Debian's build) does not resolve "127.0.0.1:PORT" itself.
std::string grpc_target(const std::string& addr) {
  if (addr.rfind("unix:", 0) == 0 || addr.find("://") != std::string::npos || addr.rfind("ipv", 0) == 0) return addr;
  auto colon = addr.rfind(':');
  std::string host = colon == std::string::npos ? addr : addr.substr(0, colon);
  if (!host.empty() && host.front() == '[') return "ipv6:" + addr;
  if (!host.empty() && host.find_first_not_of("0123456789.") == std::string::npos) return "ipv4:" + addr;
  return "dns:///" + addr;
}

std::unique_ptr<pb::ProvingEngine::Stub> connect(const client_options& o) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  return pb::ProvingEngine::NewStub(
      grpc::CreateCustomChannel(grpc_target(o.addr), grpc::InsecureChannelCredentials(), args));
}

void prepare(grpc::ClientContext& ctx, const client_options& o) {
  std::string token = o.token;
  if (token.empty())
    if (const char* env = std::getenv("CUZK_TOKEN")) token = env;
  if (!token.empty()) ctx.AddMetadata("authorization", "Bearer " + token);
}

int report(const grpc::Status& st, const client_options& o) {
  if (st.ok()) return exit_ok;
  bool refused = st.error_code() == grpc::StatusCode::INVALID_ARGUMENT ||
                 st.error_code() == grpc::StatusCode::NOT_FOUND ||
                 st.error_code() == grpc::StatusCode::PERMISSION_DENIED ||
                 st.error_code() == grpc::StatusCode::UNAUTHENTICATED ||
                 st.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED ||
                 st.error_code() == grpc::StatusCode::UNIMPLEMENTED;
  std::string msg = st.error_message();
  if (st.error_code() == grpc::StatusCode::UNAVAILABLE && msg.find("shutting down") == std::string::npos &&
      msg.find("cannot accept jobs now") == std::string::npos)  // the daemon's own refusal: it was reached
    msg = "cannot reach the daemon at " + o.addr + ": " + msg;
  std::cerr << "error: " << msg << "\n";
  return refused ? exit_bad_input : exit_unavailable;
}

// A witness to send: at most what one gRPC message can carry (protobuf's 2 GiB).
std::string read_file(const std::string& path) {
  return cuzk::zk::io::read_file_capped(path, (std::uint64_t{2} << 30) - 1, "witness sent in one request");
}

pb::Priority parse_priority(const std::string& p) {
  pb::Priority v;
  std::string upper;
  for (char c : p) upper.push_back(char(std::toupper(static_cast<unsigned char>(c))));
  if (!pb::Priority_Parse(upper, &v) || v == pb::PRIORITY_UNSPECIFIED)
    throw std::runtime_error("--priority: '" + p + "' is not one of low, normal, high, critical");
  return v;
}

struct submit_options {
  std::string circuit, request_id, priority = "normal";
  std::vector<std::string> witnesses;
};

void add_submit_options(CLI::App* cmd, submit_options& s) {
  cmd->add_option("--circuit", s.circuit, "circuit NAME (the daemon's keys dir holds NAME.zkey)")->required();
  cmd->add_option("--witness", s.witnesses, "a partition's .wtns (repeat, in partition order)")->required();
  cmd->add_option("--priority", s.priority, "low | normal | high | critical")->capture_default_str();
  cmd->add_option("--request-id", s.request_id, "idempotency key: submitting it again returns the same job");
}

pb::SubmitProofRequest make_submit(const submit_options& s) {
  pb::SubmitProofRequest req;
  req.set_circuit(s.circuit);
  req.set_request_id(s.request_id);
  req.set_priority(parse_priority(s.priority));
  for (auto& w : s.witnesses) req.add_partitions()->set_witness_wtns(read_file(w));
  return req;
}

// Writes DIR/proof-K.json, DIR/public-K.json and DIR/proof.bin.
void write_results(const pb::AwaitProofResponse& r, const std::string& dir) {
  fs::create_directories(dir);
  for (int k = 0; k < r.partitions_size(); ++k) {
    write_file_atomically((fs::path(dir) / ("proof-" + std::to_string(k) + ".json")).string(), r.partitions(k).proof_json());
    write_file_atomically((fs::path(dir) / ("public-" + std::to_string(k) + ".json")).string(), r.partitions(k).public_json());
  }
  const std::string& bin = r.proof();
  write_file_atomically((fs::path(dir) / "proof.bin").string(),
                        std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(bin.data()), bin.size()));
}

const char* tier_name(pb::SRSStatus::Tier t) {
  return t == pb::SRSStatus::HOT ? "hot" : t == pb::SRSStatus::WARM ? "warm" : "cold";
}

const char* status_name(pb::AwaitProofResponse::Status s) {
  switch (s) {
    case pb::AwaitProofResponse::COMPLETED: return "completed";
    case pb::AwaitProofResponse::FAILED: return "failed";
    case pb::AwaitProofResponse::CANCELLED: return "cancelled";
    case pb::AwaitProofResponse::TIMEOUT: return "not finished";
    default: return "unknown";
  }
}

// Awaits in one-second slices so that a person sees progress; returns the final response.
int await_job(pb::ProvingEngine::Stub& stub, const client_options& o, const std::string& job, double timeout_s,
              const std::string& out_dir) {
  const bool tty = ::isatty(2) && !o.json;
  auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(std::int64_t(timeout_s * 1000));
  pb::AwaitProofResponse r;
  for (;;) {
    grpc::ClientContext ctx;
    prepare(ctx, o);
    pb::AwaitProofRequest req;
    req.set_job_id(job);
    req.set_timeout_ms(1000);
    auto st = stub.AwaitProof(&ctx, req, &r);
    if (!st.ok()) return report(st, o);
    if (r.status() != pb::AwaitProofResponse::TIMEOUT) break;
    if (tty)
      std::cerr << "\rjob " << job << ": " << r.stage() << ", partition " << r.partitions_done() << "/"
                << r.partitions_total() << "   " << std::flush;
    if (timeout_s > 0 && std::chrono::steady_clock::now() >= until) break;
  }
  if (tty) std::cerr << "\r" << std::string(60, ' ') << "\r";
  if (r.status() == pb::AwaitProofResponse::COMPLETED && !out_dir.empty()) write_results(r, out_dir);
  if (o.json) {
    nlohmann::ordered_json j{{"job_id", r.job_id()},
                             {"status", status_name(r.status())},
                             {"partitions", r.partitions_size()},
                             {"error", r.error_message()},
                             {"invalid_input", r.invalid_input()},
                             {"timings_ms",
                              {{"queue", r.queue_wait_ms()},
                               {"key_load", r.srs_load_ms()},
                               {"synthesis", r.synthesis_ms()},
                               {"device", r.gpu_compute_ms()},
                               {"total", r.total_ms()}}}};
    if (!out_dir.empty()) j["out"] = out_dir;
    std::cout << j.dump() << "\n";
  } else if (r.status() == pb::AwaitProofResponse::COMPLETED) {
    std::cout << "job " << r.job_id() << ": completed, " << r.partitions_size() << " partition(s), total "
              << r.total_ms() << " ms (queue " << r.queue_wait_ms() << ", synthesis " << r.synthesis_ms()
              << ", device " << r.gpu_compute_ms() << ")"
              << (out_dir.empty() ? "" : ", written to " + out_dir) << "\n";
  } else {
    std::cout << "job " << r.job_id() << ": " << status_name(r.status())
              << (r.invalid_input() ? " (invalid input, not retried)" : "")
              << (r.error_message().empty() ? "" : ": " + r.error_message()) << "\n";
  }
  switch (r.status()) {
    case pb::AwaitProofResponse::COMPLETED: return exit_ok;
    case pb::AwaitProofResponse::TIMEOUT: return exit_unavailable;
    default: return r.invalid_input() ? exit_bad_input : exit_invalid;
  }
}

}  // namespace

bool remote_prove_requested(const remote_prove_options& r) { return !r.addr.empty() || !r.circuit.empty(); }

int run_remote_prove(const remote_prove_options& r) {
  client_options o{r.addr.empty() ? client_options{}.addr : r.addr, r.token, r.json};
  if (r.circuit.empty() || r.witnesses.empty() || r.out_dir.empty())
    throw std::runtime_error("prove through a daemon needs --circuit, --witness and --out");
  submit_options s{r.circuit, r.request_id, r.priority, r.witnesses};
  auto stub = connect(o);
  grpc::ClientContext ctx;
  prepare(ctx, o);
  pb::SubmitProofResponse sub;
  auto st = stub->SubmitProof(&ctx, make_submit(s), &sub);
  if (!st.ok()) return report(st, o);
  return await_job(*stub, o, sub.job_id(), 0, r.out_dir);
}

void register_fil_submit(CLI::App* fil) {
  auto* cmd = fil->add_subcommand("submit",
                                  "Send a Filecoin job to a daemon as Curio does (PoRep C2 from a C1 output, a PoSt "
                                  "from fil-oracle's post.json, a SnapDeals update from its update.json) and wait "
                                  "for its proof");
  auto o = std::make_shared<client_options>();
  auto c1 = std::make_shared<std::string>(), post = std::make_shared<std::string>(), out = std::make_shared<std::string>();
  auto update = std::make_shared<std::string>();
  auto miner = std::make_shared<std::uint64_t>(0);
  add_client_options(cmd, *o);
  cmd->add_option("--c1", *c1, "PoRep: Curio's C1 wrapper JSON {SectorNum, Phase1Out, SectorSize}");
  cmd->add_option("--miner-id", *miner, "PoRep: miner actor id (f0... without the prefix)");
  cmd->add_option("--post-dir", *post, "WindowPoSt / WinningPoSt: a directory with post.json and its vanilla-*.bin");
  cmd->add_option("--update-dir", *update,
                  "SnapDeals: a directory with update.json (registered_proof, comm_r_old, comm_r_new, comm_d_new in "
                  "hex, vanilla: the PartitionProof files)");
  cmd->add_option("--out", *out, "directory for proof.bin (192 bytes per partition)")->required();
  cmd->callback([=] {
    run_command([&] {
      if (int(!c1->empty()) + int(!post->empty()) + int(!update->empty()) != 1)
        throw zk::input_error("give one of --c1 (PoRep), --post-dir (PoSt) and --update-dir (SnapDeals)");
      if (!c1->empty() && cmd->count("--miner-id") == 0) throw zk::input_error("--c1 needs --miner-id");
      const auto req = !update->empty() ? fil_snap_request(*update)
                       : c1->empty()    ? fil_post_request(*post)
                                        : fil_porep_request(*c1, *miner);
      auto stub = connect(*o);
      grpc::ClientContext ctx;
      prepare(ctx, *o);
      pb::SubmitProofResponse sub;
      auto st = stub->SubmitProof(&ctx, req, &sub);
      if (!st.ok()) return report(st, *o);
      return await_job(*stub, *o, sub.job_id(), 0, *out);
    });
  });
}

void register_client(CLI::App& app) {
  // submit
  {
    auto* cmd = app.add_subcommand("submit", "submit a job to a daemon; prints its id");
    auto o = std::make_shared<client_options>();
    auto s = std::make_shared<submit_options>();
    add_client_options(cmd, *o);
    add_submit_options(cmd, *s);
    cmd->callback([o, s] {
      run_command([&] {
        auto stub = connect(*o);
        grpc::ClientContext ctx;
        prepare(ctx, *o);
        pb::SubmitProofResponse resp;
        auto st = stub->SubmitProof(&ctx, make_submit(*s), &resp);
        if (!st.ok()) return report(st, *o);
        if (o->json)
          std::cout << nlohmann::json{{"job_id", resp.job_id()}, {"duplicate", resp.duplicate()}}.dump() << "\n";
        else
          std::cout << resp.job_id() << "\n";
        return int(exit_ok);
      });
    });
  }
  // await
  {
    auto* cmd = app.add_subcommand("await", "wait for a job and write its proofs");
    auto o = std::make_shared<client_options>();
    auto job = std::make_shared<std::string>();
    auto out = std::make_shared<std::string>();
    auto timeout = std::make_shared<double>(0);
    add_client_options(cmd, *o);
    cmd->add_option("job", *job, "job id (from submit)")->required();
    cmd->add_option("--out", *out, "directory for proof-K.json, public-K.json and proof.bin");
    cmd->add_option("--timeout", *timeout, "seconds to wait (0: until the job ends)");
    cmd->callback([=] {
      run_command([&] {
        auto stub = connect(*o);
        return await_job(*stub, *o, *job, *timeout, *out);
      });
    });
  }
  // status / metrics
  {
    auto* cmd = app.add_subcommand("status", "show the daemon's status");
    auto o = std::make_shared<client_options>();
    add_client_options(cmd, *o);
    cmd->callback([o] {
      run_command([&] {
        auto stub = connect(*o);
        grpc::ClientContext ctx;
        prepare(ctx, *o);
        pb::GetStatusResponse s;
        auto st = stub->GetStatus(&ctx, pb::GetStatusRequest{}, &s);
        if (!st.ok()) return report(st, *o);
        if (o->json) {
          std::string text;
          google::protobuf::util::JsonPrintOptions opts;
          opts.always_print_primitive_fields = true;
          (void)google::protobuf::util::MessageToJsonString(s, &text, opts);
          std::cout << text << "\n";
          return int(exit_ok);
        }
        std::cout << "cuzk-daemon pid " << s.pid() << ", version " << s.version() << " (" << s.build_id()
                  << "), up " << s.uptime_seconds() << " s, config " << s.config_hash() << "\n";
        std::cout << "jobs: " << s.jobs_running() << " active, " << s.total_proofs_completed() << " completed, "
                  << s.total_proofs_failed() << " failed; retries " << s.retries() << ", faults " << s.faults() << "\n";
        for (auto& d : s.gpus())
          std::cout << "device " << d.name() << " (" << d.kind() << ", " << d.node() << "): " << d.partitions_done()
                    << " partitions, busy " << d.busy_seconds() << " s; vram " << d.vram_resident_bytes()
                    << " resident (" << d.resident_keys() << " keys), " << d.vram_staged_bytes() << " staged, "
                    << d.vram_free_bytes() << " free of " << d.vram_budget_bytes() << "; " << d.resident_loads()
                    << " loads, " << d.resident_evictions() << " evictions\n";
        for (auto& b : s.budgets())
          std::cout << "budget " << b.name() << ": " << b.reserved_bytes() << " / " << b.limit_bytes()
                    << " bytes reserved, peak " << b.peak_bytes() << ", " << b.waiting() << " waiting\n";
        std::cout << "host waits: " << s.host_waits() << " partitions waiting for a host grant, "
                  << s.host_waits_served_home() << " served by a grant coming home to their key\n";
        for (auto& k : s.loaded_srs()) {
          std::cout << "key " << k.circuit_id() << ": " << tier_name(k.tier()) << ", " << k.size_bytes()
                    << " bytes in memory, " << k.ref_count() << " lease(s), file " << k.file_bytes() << " bytes";
          if (k.resident_on_size()) {
            std::cout << "; resident on device";
            for (int i = 0; i < k.resident_on_size(); ++i)
              std::cout << " " << k.resident_on(i) << (i < k.placement_on_size() ? " (" + k.placement_on(i) + ")" : "");
          }
          if (k.b2_host_bytes()) std::cout << "; B2 host copy " << k.b2_host_bytes() << " bytes";
          std::cout << "\n";
          for (auto& p : k.b2_plans()) {
            char line[320];
            std::snprintf(line, sizeof line,
                          "  B2 on device %u: %s, %llu of %llu points on the host; predicted %.1f ms (device alone "
                          "%.1f, host alone %.1f); last proof: device part %.1f ms, host part %.1f ms, main lane "
                          "%.1f ms; rates device %.4g, host %.4g points/s; %llu proofs\n",
                          p.device(), p.mode().c_str(), static_cast<unsigned long long>(p.host_points()),
                          static_cast<unsigned long long>(p.points()), p.predicted_ms(), p.predicted_device_ms(),
                          p.predicted_host_ms(), p.device_ms(), p.host_ms(), p.main_lane_ms(), p.device_rate(),
                          p.host_rate(), static_cast<unsigned long long>(p.proofs()));
            std::cout << line;
          }
        }
        for (auto& q : s.queues())
          std::cout << "queue " << q.proof_kind() << ": " << q.pending() << " jobs pending (" << q.partitions_queued()
                    << " partitions), " << q.in_progress() << " running\n";
        if (s.cluster_role() == "coordinator") {
          std::cout << "cluster: coordinator; " << s.node_joins() << " joins, " << s.node_refusals() << " refused, "
                    << s.node_losses() << " lost, " << s.stale_results() << " stale results dropped\n";
          for (auto& n : s.nodes()) {
            std::cout << "node #" << n.id() << " " << n.name() << ": ";
            if (!n.alive()) {
              std::cout << "LOST (" << n.lost_reason() << ")\n";
              continue;
            }
            std::cout << "up, " << n.busy() << "/" << n.slots() << " slots busy, " << n.partitions_done()
                      << " partitions, " << n.failures() << " failures, seen " << n.last_seen_seconds_ago()
                      << " s ago; devices";
            for (auto& d : n.devices()) std::cout << " " << d;
            std::cout << "; circuits";
            for (int k = 0; k < n.circuits_size(); ++k)
              if (k >= n.proof_kinds_size() || n.proof_kinds(k) == "circom") std::cout << " " << n.circuits(k);
            for (int k = 0; k < n.circuits_size() && k < n.proof_kinds_size(); ++k)
              if (n.proof_kinds(k) != "circom")
                std::cout << "\n  params " << n.circuits(k) << ": " << n.proof_kinds(k) << ", parameters.json digest "
                          << (k < n.fingerprints_size() ? n.fingerprints(k) : std::string("?"));
            std::cout << "\n";
          }
          for (auto& r : s.refusals()) std::cout << "refused: " << r << "\n";
          for (auto& w : s.waiting_for_node())
            std::cout << "job " << w.job_id() << " (" << w.proof_kind() << "): " << w.reason() << "\n";
        } else if (s.cluster_role() == "worker") {
          const auto& c = s.coordinator();
          std::cout << "cluster: worker of " << c.address() << ": " << c.state();
          if (c.state() == "joined") std::cout << " as node #" << c.node_id();
          if (!c.detail().empty()) std::cout << " (" << c.detail() << ")";
          std::cout << "; " << c.tasks() << " partitions received, " << c.failures() << " failed, " << c.joins()
                    << " joins\n";
        }
        return int(exit_ok);
      });
    });
    auto* m = app.add_subcommand("metrics", "print the daemon's Prometheus metrics");
    auto mo = std::make_shared<client_options>();
    add_client_options(m, *mo);
    m->callback([mo] {
      run_command([&] {
        auto stub = connect(*mo);
        grpc::ClientContext ctx;
        prepare(ctx, *mo);
        pb::GetMetricsResponse r;
        auto st = stub->GetMetrics(&ctx, pb::GetMetricsRequest{}, &r);
        if (!st.ok()) return report(st, *mo);
        std::cout << r.prometheus_text();
        return int(exit_ok);
      });
    });
  }
  // cancel / preload / evict: one job id or circuit name each
  auto simple = [&app](const char* name, const char* help, const char* what,
                       std::function<grpc::Status(pb::ProvingEngine::Stub&, grpc::ClientContext&, const std::string&,
                                                  std::string&)> call) {
    auto* cmd = app.add_subcommand(name, help);
    auto o = std::make_shared<client_options>();
    auto arg = std::make_shared<std::string>();
    add_client_options(cmd, *o);
    cmd->add_option(what, *arg, what)->required();
    cmd->callback([o, arg, call] {
      run_command([&] {
        auto stub = connect(*o);
        grpc::ClientContext ctx;
        prepare(ctx, *o);
        std::string line;
        auto st = call(*stub, ctx, *arg, line);
        if (!st.ok()) return report(st, *o);
        std::cout << line << "\n";
        return int(exit_ok);
      });
    });
  };
  simple("cancel", "cancel a job", "job", [](auto& stub, auto& ctx, const std::string& job, std::string& line) {
    pb::CancelProofRequest req;
    req.set_job_id(job);
    pb::CancelProofResponse r;
    auto st = stub.CancelProof(&ctx, req, &r);
    line = "job " + job + (r.was_running() ? ": cancelled" : ": not running (already finished)");
    return st;
  });
  simple("preload", "load a key before jobs need it: a circuit NAME, or Filecoin's (porep-32g, wpost-2k, v28-...)",
         "circuit", [](auto& stub, auto& ctx, const std::string& c, std::string& line) {
           pb::PreloadSrsRequest req;
           req.set_circuit_id(c);
           pb::PreloadSrsResponse r;
           auto st = stub.PreloadSRS(&ctx, req, &r);
           line = "key " + c + ": loaded in " + std::to_string(r.load_time_ms()) + " ms";
           return st;
         });
  simple("evict", "drop a key from memory (names as for preload)", "circuit",
         [](auto& stub, auto& ctx, const std::string& c, std::string& line) {
           pb::EvictSrsRequest req;
           req.set_circuit_id(c);
           pb::EvictSrsResponse r;
           auto st = stub.EvictSRS(&ctx, req, &r);
           line = "key " + c + ": evicted";
           return st;
         });
  // chaos
  {
    auto* chaos = app.add_subcommand("chaos", "fault injection for chaos tests (daemon needs [chaos] enabled)");
    chaos->require_subcommand(1);
    auto* kill = chaos->add_subcommand("kill", "kill a running actor: synthesizer, device, assembler, budget, ...");
    auto o = std::make_shared<client_options>();
    auto actor = std::make_shared<std::string>();
    auto index = std::make_shared<unsigned>(0);
    add_client_options(kill, *o);
    kill->add_option("actor", *actor, "actor kind")->required();
    kill->add_option("--index", *index, "which one of that kind");
    kill->callback([o, actor, index] {
      run_command([&] {
        auto stub = connect(*o);
        grpc::ClientContext ctx;
        prepare(ctx, *o);
        pb::ChaosRequest req;
        req.set_action("kill");
        req.set_actor(*actor);
        req.set_index(*index);
        pb::ChaosResponse r;
        auto st = stub->Chaos(&ctx, req, &r);
        if (!st.ok()) return report(st, *o);
        std::cout << r.done() << "\n";
        return int(exit_ok);
      });
    });
    auto* fa = chaos->add_subcommand("fail-alloc", "make the next N device allocations fail");
    auto fo = std::make_shared<client_options>();
    auto device = std::make_shared<unsigned>(0);
    auto count = std::make_shared<unsigned>(1);
    add_client_options(fa, *fo);
    fa->add_option("--device", *device, "device index")->required();
    fa->add_option("count", *count, "number of allocations to fail")->required();
    fa->callback([fo, device, count] {
      run_command([&] {
        auto stub = connect(*fo);
        grpc::ClientContext ctx;
        prepare(ctx, *fo);
        pb::ChaosRequest req;
        req.set_action("fail-alloc");
        req.set_device(*device);
        req.set_count(*count);
        pb::ChaosResponse r;
        auto st = stub->Chaos(&ctx, req, &r);
        if (!st.ok()) return report(st, *fo);
        std::cout << r.done() << "\n";
        return int(exit_ok);
      });
    });
    auto* jf = chaos->add_subcommand("journal-fail", "make the next N journal writes fail (as a full disk would)");
    auto jo = std::make_shared<client_options>();
    auto writes = std::make_shared<unsigned>(1);
    add_client_options(jf, *jo);
    jf->add_option("count", *writes, "number of journal writes to fail")->required();
    jf->callback([jo, writes] {
      run_command([&] {
        auto stub = connect(*jo);
        grpc::ClientContext ctx;
        prepare(ctx, *jo);
        pb::ChaosRequest req;
        req.set_action("journal-fail");
        req.set_count(*writes);
        pb::ChaosResponse r;
        auto st = stub->Chaos(&ctx, req, &r);
        if (!st.ok()) return report(st, *jo);
        std::cout << r.done() << "\n";
        return int(exit_ok);
      });
    });
  }
  // bench-status: gRPC round trips of the cheapest call, and the wait for a starting daemon
  {
    auto* cmd = app.add_subcommand("bench-status",
                                   "benchmark: N GetStatus round trips on one channel (median, p99), or with "
                                   "--wait-ready the time until a starting daemon first answers");
    auto o = std::make_shared<client_options>();
    auto n = std::make_shared<unsigned>(2000);
    auto warmup = std::make_shared<unsigned>(50);
    auto wait_ready = std::make_shared<double>(0);
    auto rpc = std::make_shared<std::string>("status");
    auto circuit = std::make_shared<std::string>("sample");
    auto witness = std::make_shared<std::string>();
    add_client_options(cmd, *o);
    cmd->add_option("--rpc", *rpc,
                    "status: GetStatus (asks every engine actor for its status); await-unknown: AwaitProof of "
                    "a job that does not exist (NOT_FOUND after one journal lookup: the transport alone); "
                    "prove: Prove of --circuit with one --witness (the whole path: gRPC, daemon, engine)")
        ->check(CLI::IsMember({"status", "await-unknown", "prove"}))
        ->capture_default_str();
    cmd->add_option("--n", *n, "measured calls")->capture_default_str();
    cmd->add_option("--circuit", *circuit, "with --rpc prove: the circuit")->capture_default_str();
    cmd->add_option("--witness", *witness, "with --rpc prove: a .wtns file");
    cmd->add_option("--warmup", *warmup, "calls before measuring (connection set-up, caches)")->capture_default_str();
    cmd->add_option("--wait-ready", *wait_ready,
                    "instead: poll (a fresh channel every 2 ms) until GetStatus answers, for at most this many "
                    "seconds; prints the milliseconds waited");
    cmd->callback([o, n, warmup, wait_ready, rpc, circuit, witness] {
      run_command([&] {
        using clock = std::chrono::steady_clock;
        if (*wait_ready > 0) {
          // A fresh channel per attempt: a channel that failed to connect backs off for up to seconds.
          auto t0 = clock::now();
          auto until = t0 + std::chrono::milliseconds(std::int64_t(*wait_ready * 1000));
          for (;;) {
            auto stub = connect(*o);
            grpc::ClientContext ctx;
            prepare(ctx, *o);
            ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(200));
            pb::GetStatusResponse s;
            auto st = stub->GetStatus(&ctx, pb::GetStatusRequest{}, &s);
            if (st.ok()) break;
            if (clock::now() >= until) return report(st, *o);
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
          }
          double ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
          if (o->json)
            std::cout << nlohmann::json{{"ready_ms", ms}}.dump() << "\n";
          else
            std::cout << "ready after " << ms << " ms\n";
          return int(exit_ok);
        }
        auto stub = connect(*o);
        const bool status_rpc = *rpc == "status";
        pb::ProveRequest prove_req;
        if (*rpc == "prove") {
          if (witness->empty()) throw std::runtime_error("bench-status --rpc prove needs --witness");
          prove_req.mutable_submit()->set_circuit(*circuit);
          prove_req.mutable_submit()->add_partitions()->set_witness_wtns(read_file(*witness));
          prove_req.set_timeout_ms(60000);
        }
        auto call = [&]() -> grpc::Status {
          grpc::ClientContext ctx;
          prepare(ctx, *o);
          if (status_rpc) {
            pb::GetStatusResponse s;
            return stub->GetStatus(&ctx, pb::GetStatusRequest{}, &s);
          }
          if (*rpc == "prove") {
            pb::ProveResponse r;
            auto st = stub->Prove(&ctx, prove_req, &r);
            if (st.ok() && r.result().status() != pb::AwaitProofResponse::COMPLETED)
              return grpc::Status(grpc::StatusCode::INTERNAL, "prove did not complete: " + r.result().error_message());
            return st;
          }
          pb::AwaitProofRequest req;
          req.set_job_id("bench-no-such-job");
          req.set_timeout_ms(1);
          pb::AwaitProofResponse r;
          auto st = stub->AwaitProof(&ctx, req, &r);
          return st.error_code() == grpc::StatusCode::NOT_FOUND ? grpc::Status::OK : st;
        };
        for (unsigned i = 0; i < *warmup; ++i)
          if (auto st = call(); !st.ok()) return report(st, *o);
        std::vector<double> us;
        us.reserve(*n);
        auto t_all = clock::now();
        for (unsigned i = 0; i < *n; ++i) {
          auto t0 = clock::now();
          auto st = call();
          us.push_back(std::chrono::duration<double, std::micro>(clock::now() - t0).count());
          if (!st.ok()) return report(st, *o);
        }
        double total_s = std::chrono::duration<double>(clock::now() - t_all).count();
        std::sort(us.begin(), us.end());
        auto pct = [&](double p) {
          if (us.empty()) return 0.0;
          auto i = std::size_t(p / 100.0 * double(us.size() - 1) + 0.5);
          return us[std::min(i, us.size() - 1)];
        };
        double mean = 0;
        for (double x : us) mean += x;
        mean /= us.empty() ? 1 : double(us.size());
        if (o->json) {
          nlohmann::ordered_json j{{"addr", o->addr}, {"rpc", *rpc}, {"calls", us.size()}, {"median_us", pct(50)},
                                   {"p90_us", pct(90)},  {"p99_us", pct(99)},  {"max_us", us.empty() ? 0 : us.back()},
                                   {"mean_us", mean},     {"calls_per_s", total_s > 0 ? double(us.size()) / total_s : 0}};
          std::cout << j.dump() << "\n";
        } else {
          std::cout << (status_rpc ? "GetStatus" : *rpc == "prove" ? "Prove" : "AwaitProof(unknown job)") << " x" << us.size() << " on " << o->addr << ": median " << pct(50) << " us, p90 "
                    << pct(90) << " us, p99 " << pct(99) << " us, max " << (us.empty() ? 0 : us.back())
                    << " us, mean " << mean << " us (" << (total_s > 0 ? double(us.size()) / total_s : 0)
                    << " calls/s)\n";
        }
        return int(exit_ok);
      });
    });
  }
}

}  // namespace cuzk::cli

namespace cuzk::cli {
std::string daemon_target(const std::string& addr) { return grpc_target(addr); }

std::optional<std::string> daemon_summary(const std::string& addr, const std::string& token,
                                          std::chrono::milliseconds timeout) {
  client_options o;
  o.addr = addr;
  o.token = token;
  auto stub = connect(o);
  grpc::ClientContext ctx;
  prepare(ctx, o);
  ctx.set_deadline(std::chrono::system_clock::now() + timeout);
  pb::GetStatusResponse s;
  if (!stub->GetStatus(&ctx, pb::GetStatusRequest{}, &s).ok()) return std::nullopt;
  return "cuzk-daemon pid " + std::to_string(s.pid()) + ", version " + s.version() + ", up " +
         std::to_string(s.uptime_seconds()) + " s, " + std::to_string(s.jobs_running()) + " jobs active";
}
}  // namespace cuzk::cli
