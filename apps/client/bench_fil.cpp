// `cuzk bench fil`: Filecoin proofs against a running daemon, sent as Curio sends them (the
// requests of tests/curio-client, built here from fil-oracle's post.json or a C1 wrapper), timed
// from the client's side and by the daemon's own stage timings. See client/client.hpp.
#include <grpcpp/grpcpp.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>

#include "client/client.hpp"
#include "client/fil_requests.hpp"
#include "client/timeline_svg.hpp"
#include "cuzk/commands.hpp"
#include "cuzk/v1/proving.grpc.pb.h"
#include "fil/registered_proof.hpp"
#include "fil/update/public_params.hpp"
#include "zk/error.hpp"
#include "zk/io/json_bounded.hpp"
#include "zk/io/binfile.hpp"

namespace cuzk::cli {

namespace {

namespace pb = ::cuzk::v1;
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

std::string slurp(const std::string& path) {
  return zk::io::read_file_capped(path, (std::uint64_t{2} << 30) - 1, "payload sent in one request");
}

std::vector<std::uint8_t> hex_bytes(const std::string& hex, const std::string& what) {
  if (hex.size() % 2) throw zk::input_error(what + ": odd number of hex digits");
  std::vector<std::uint8_t> out;
  for (std::size_t i = 0; i < hex.size(); i += 2) out.push_back(std::uint8_t(std::stoul(hex.substr(i, 2), nullptr, 16)));
  return out;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

// WindowPoSt / WinningPoSt from fil-oracle's post.json and its vanilla-*.bin.
pb::SubmitProofRequest fil_post_request(const std::string& dir) {
  const std::string path = (fs::path(dir) / "post.json").string();
  const json p = zk::io::parse_ordered_json_bounded(slurp(path), path);
  const auto name = p.value("registered_proof", "");
  const auto* info = fil::find_post_proof(name);
  if (!info) throw zk::input_error(path + ": registered_proof: unknown '" + name + "'");
  pb::SubmitProofRequest r;
  r.set_proof_kind(info->type == fil::post_type::winning ? pb::WINNING_POST : pb::WINDOW_POST_PARTITION);
  r.set_registered_proof(std::uint64_t(info - fil::post_proofs().data()));  // the table is in abi order
  r.set_sector_size(info->sector_size);
  r.set_miner_id(p.value("miner_id", std::uint64_t{0}));
  auto rnd = hex_bytes(p.value("randomness", ""), path + ": randomness");
  r.set_randomness(std::string(rnd.begin(), rnd.end()));
  for (auto& s : p.at("sectors")) r.add_vanilla_proofs(slurp((fs::path(dir) / s.at("vanilla").get<std::string>()).string()));
  return r;
}

pb::SubmitProofRequest fil_snap_request(const std::string& dir) {
  const std::string path = (fs::path(dir) / "update.json").string();
  const json u = zk::io::parse_ordered_json_bounded(slurp(path), path);
  const auto name = u.value("registered_proof", "");
  const auto* info = fil::update::find_update_proof(name);
  if (!info) throw zk::input_error(path + ": registered_proof: unknown '" + name + "'");
  pb::SubmitProofRequest r;
  r.set_proof_kind(pb::SNAP_DEALS_UPDATE);
  r.set_registered_proof(std::uint64_t(info - fil::update::update_proofs().data()));  // abi order
  r.set_sector_size(info->sector_size);
  const std::pair<const char*, void (pb::SubmitProofRequest::*)(const std::string&)> comms[] = {
      {"comm_r_old", &pb::SubmitProofRequest::set_comm_r_old},
      {"comm_r_new", &pb::SubmitProofRequest::set_comm_r_new},
      {"comm_d_new", &pb::SubmitProofRequest::set_comm_d_new}};
  for (auto [field, set] : comms) {
    const auto b = hex_bytes(u.value(field, ""), path + ": " + field);
    (r.*set)(std::string(b.begin(), b.end()));
  }
  for (auto& v : u.at("vanilla")) r.add_vanilla_proofs(slurp((fs::path(dir) / v.get<std::string>()).string()));
  return r;
}

// PoRep C2 from Curio's C1 wrapper ({"SectorNum", "Phase1Out", "SectorSize"}), as a V1_1 proof.
pb::SubmitProofRequest fil_porep_request(const std::string& c1, std::uint64_t miner) {
  pb::SubmitProofRequest r;
  r.set_vanilla_proof(slurp(c1));
  const json w = zk::io::parse_ordered_json_bounded(r.vanilla_proof(), c1);
  const auto size = w.value("SectorSize", std::uint64_t{0});
  const fil::seal_proof_info* info = nullptr;
  for (auto& s : fil::seal_proofs())
    if (s.sector_size == size && s.version == fil::api_version::v1_1_0) info = &s;
  if (!info) throw zk::input_error(c1 + ": SectorSize: " + std::to_string(size) + " is not a sector size");
  r.set_proof_kind(pb::POREP_SEAL_COMMIT);
  r.set_registered_proof(info->id);
  r.set_sector_size(size);
  r.set_sector_number(w.value("SectorNum", std::uint64_t{0}));
  r.set_miner_id(miner);
  return r;
}

int run_bench_fil(const bench_fil_options& o) {
  if (o.mode != "single" && o.mode != "batch" && o.mode != "stress")
    throw zk::input_error("--mode: '" + o.mode + "' is not single, batch or stress");
  pb::SubmitProofRequest proto;
  if (o.kind == "porep") {
    if (o.c1.empty()) throw zk::input_error("--kind porep needs --c1 FILE (Curio's C1 wrapper JSON)");
    proto = fil_porep_request(o.c1, o.miner);
  } else if (o.kind == "wpost" || o.kind == "winning") {
    if (o.dir.empty()) throw zk::input_error("--kind " + o.kind + " needs --dir DIR (fil-oracle post output)");
    proto = fil_post_request(o.dir);
    if ((o.kind == "winning") != (proto.proof_kind() == pb::WINNING_POST))
      throw zk::input_error(o.dir + "/post.json: not a " + o.kind + " proof");
  } else {
    throw zk::input_error("--kind: '" + o.kind + "' is not wpost, winning or porep");
  }
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  auto stub = pb::ProvingEngine::NewStub(grpc::CreateCustomChannel(daemon_target(o.addr), grpc::InsecureChannelCredentials(), args));
  std::string token = o.token;
  if (token.empty())
    if (const char* env = std::getenv("CUZK_TOKEN")) token = env;
  auto prepare = [&](grpc::ClientContext& ctx) {
    if (!token.empty()) ctx.AddMetadata("authorization", "Bearer " + token);
  };
  auto get_status = [&] {
    grpc::ClientContext ctx;
    prepare(ctx);
    pb::GetStatusResponse s;
    auto st = stub->GetStatus(&ctx, {}, &s);
    if (!st.ok()) throw std::runtime_error("cannot reach the daemon at " + o.addr + ": " + st.error_message());
    return s;
  };

  const auto before = get_status();
  const auto t0 = std::chrono::steady_clock::now();
  const auto t0_unix = unix_ms();
  auto since = [&] { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(); };
  std::mutex mu;
  json jobs = json::array();
  std::atomic<unsigned> done{0}, failed{0};
  std::atomic<unsigned> seq{0};

  // One proof: submit, await to the end, record.
  auto one = [&](unsigned slot) {
    auto req = proto;
    req.set_request_id("bench-fil-" + std::to_string(t0_unix) + "-" + std::to_string(seq++));
    json rec{{"slot", slot}, {"kind", o.kind}, {"submit_ms", since()}};
    grpc::ClientContext c1;
    prepare(c1);
    pb::SubmitProofResponse sub;
    auto st = stub->SubmitProof(&c1, req, &sub);
    pb::AwaitProofResponse r;
    if (st.ok()) {
      grpc::ClientContext c2;
      prepare(c2);
      pb::AwaitProofRequest a;
      a.set_job_id(sub.job_id());
      st = stub->AwaitProof(&c2, a, &r);
    }
    rec["done_ms"] = since();
    rec["job_id"] = sub.job_id();
    if (!st.ok()) {
      rec["status"] = "error";
      rec["error"] = st.error_message();
    } else {
      rec["status"] = pb::AwaitProofResponse::Status_Name(r.status());
      if (!r.error_message().empty()) rec["error"] = r.error_message();
      rec["proof_bytes"] = r.proof().size();
      rec["partitions"] = r.partitions_total();
      rec["queue_wait_ms"] = r.queue_wait_ms();
      rec["srs_load_ms"] = r.srs_load_ms();
      rec["synthesis_ms"] = r.synthesis_ms();
      rec["gpu_compute_ms"] = r.gpu_compute_ms();
      rec["total_ms"] = r.total_ms();
      json parts = json::array();
      for (auto& p : r.partition_timings())
        parts.push_back({{"partition", p.partition()},
                         {"synthesizer", p.synthesizer()},
                         {"device", p.device()},
                         {"synth_start_ms", double(std::int64_t(p.synth_start_ms()) - t0_unix)},
                         {"synth_end_ms", double(std::int64_t(p.synth_end_ms()) - t0_unix)},
                         {"device_start_ms", double(std::int64_t(p.device_start_ms()) - t0_unix)},
                         {"device_end_ms", double(std::int64_t(p.device_end_ms()) - t0_unix)}});
      rec["partition_timings"] = parts;
    }
    const bool ok = st.ok() && r.status() == pb::AwaitProofResponse::COMPLETED;
    (ok ? done : failed)++;
    std::lock_guard lock(mu);
    jobs.push_back(rec);
  };

  // Workers in threads; this thread draws the progress (jobs finished, or seconds of a stress run)
  // on a terminal while they run, and nothing in a pipe.
  progress_bar bar("bench fil " + o.mode + " " + o.kind, false);
  const unsigned n_jobs = o.mode == "stress" ? 0u : std::max(1u, o.count);
  const auto until = t0 + std::chrono::milliseconds(std::int64_t(o.duration_s * 1000));
  std::atomic<unsigned> running{0};
  std::vector<std::thread> threads;
  auto worker = [&](auto body) {
    ++running;
    threads.emplace_back([&running, body] {
      body();
      --running;
    });
  };
  if (o.mode == "single") {
    worker([&] {
      for (unsigned i = 0; i < n_jobs; ++i) one(0);
    });
  } else {
    const unsigned n = o.mode == "batch" ? n_jobs : std::max(1u, o.concurrency);
    for (unsigned slot = 0; slot < n; ++slot)
      worker([&, slot] {
        if (o.mode == "batch") return one(slot);
        while (std::chrono::steady_clock::now() < until) one(slot);
      });
  }
  while (running > 0) {
    if (o.mode == "stress")
      bar.update(std::uint64_t(std::min(since(), o.duration_s * 1000) / 1000), std::uint64_t(o.duration_s));
    else
      bar.update(done + failed, n_jobs);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (auto& t : threads) t.join();
  bar.done();
  const double wall_ms = since();
  const auto after = get_status();

  std::vector<double> synth, device, queue;
  for (auto& j : jobs) {
    if (j.value("status", "") != "COMPLETED") continue;
    const double parts = std::max(1.0, j.value("partitions", 1.0));
    synth.push_back(j.value("synthesis_ms", 0.0) / parts);
    device.push_back(j.value("gpu_compute_ms", 0.0) / parts);
    queue.push_back(j.value("queue_wait_ms", 0.0));
  }
  json devices = json::array();
  for (auto& a : after.gpus()) {
    double busy0 = 0;
    for (auto& b : before.gpus())
      if (b.name() == a.name()) busy0 = b.busy_seconds();
    devices.push_back({{"name", a.name()}, {"busy_fraction", (a.busy_seconds() - busy0) / (wall_ms / 1000)}});
  }
  const std::string svg_path = fs::path(o.out).replace_extension(".svg").string();
  json out{{"command", "cuzk bench fil"},
           {"mode", o.mode},
           {"kind", o.kind},
           {"addr", o.addr},
           {"start_unix_ms", t0_unix},
           {"wall_s", wall_ms / 1000},
           {"completed", done.load()},
           {"failed", failed.load()},
           {"proofs_per_hour", done.load() / (wall_ms / 1000) * 3600},
           {"per_partition_median_ms", {{"queue", median(queue)}, {"synthesis", median(synth)}, {"device", median(device)}}},
           {"devices", devices},
           {"timeline_svg", svg_path},
           {"jobs", jobs}};
  write_file_atomically(o.out, out.dump(1) + "\n");
  write_file_atomically(svg_path, timeline_svg(bars_from_results(out), "cuzk bench fil " + o.mode + " " + o.kind + ": " +
                                                                             std::to_string(done.load()) + " proofs in " +
                                                                             std::to_string(std::lround(wall_ms / 1000)) + " s"));
  std::cout << "bench fil " << o.mode << " " << o.kind << ": " << done << " completed, " << failed << " failed in "
            << wall_ms / 1000 << " s: " << out["proofs_per_hour"].get<double>() << " proofs/hour; per partition median "
            << "synthesis " << median(synth) << " ms, device " << median(device) << " ms, queue " << median(queue) << " ms\n";
  for (auto& d : devices)
    std::cout << "device " << d["name"].get<std::string>() << ": busy " << 100 * d["busy_fraction"].get<double>() << "%\n";
  std::cout << "results: " << o.out << ", timeline: " << svg_path << "\n";
  return failed == 0 ? int(exit_ok) : int(exit_internal);
}

}  // namespace cuzk::cli
