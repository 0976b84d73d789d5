// What the actors cost: a 10-partition job of the sample circuit through the engine (CPU device)
// against ten direct calls of the prover (and of the verifier, since the engine's assembler
// verifies every partition before releasing it). Tiny circuit on purpose: the math takes little
// time, so what remains is messaging, scheduling, budgets and supervision.
//
//   engine_overhead [jobs=30]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "engine/engine.hpp"
#include "zk/groth16/backend_registry.hpp"
#include "zk/groth16/pce.hpp"
#include "zk/groth16/prover.hpp"
#include "zk/groth16/random.hpp"
#include "zk/groth16/verifier.hpp"

using namespace cuzk;
using clk = std::chrono::steady_clock;

namespace {

std::shared_ptr<const zk::io::witness> sample_witness(std::mt19937_64& rng) {
  using zk::bls12_381::fr;
  auto draw = [&] {
    zk::bigint<4> v;
    for (auto& l : v.limb) l = rng();
    v.limb[3] &= (std::uint64_t{1} << 60) - 1;
    return fr::from_canonical(v);
  };
  fr a = draw(), b = draw(), d = draw();
  fr c = a * b, sq = b * b, e = c * d + a, t = (sq + a) * (d + fr::one());
  auto w = std::make_shared<zk::io::witness>();
  for (const fr& x : {fr::one(), c, e, a, b, d, sq, t}) w->values.push_back(x.to_canonical());
  return w;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double ms_since(clk::time_point t0) { return std::chrono::duration<double, std::milli>(clk::now() - t0).count(); }

}  // namespace

int main(int argc, char** argv) {
  const int jobs = argc > 1 ? std::atoi(argv[1]) : 30;
  const int n = 10;
  const std::string zkey = std::string(CUZK_SOURCE_DIR) + "/tests/fixtures/sample/sample.zkey";
  std::mt19937_64 rng(1);
  std::vector<std::shared_ptr<const zk::io::witness>> witnesses;
  for (int i = 0; i < n; ++i) witnesses.push_back(sample_witness(rng));

  auto key = zk::io::zkey::load(zkey);
  auto pce = zk::groth16::constraint_evaluator::build(key);
  auto be = zk::groth16::make_backend("cpu");
  std::vector<double> direct_prove, direct_verify;
  for (int j = 0; j < jobs + 1; ++j) {
    auto t0 = clk::now();
    std::vector<zk::groth16::proof> proofs;
    std::vector<std::vector<zk::bigint<4>>> publics;
    for (auto& w : witnesses) {
      proofs.push_back(zk::groth16::prove(key, pce, *w, zk::groth16::random_randomness(), *be));
      publics.push_back(zk::groth16::public_inputs(key, *w));
    }
    double tp = ms_since(t0);
    auto t1 = clk::now();
    for (int i = 0; i < n; ++i)
      if (!zk::groth16::verify(key.vk, publics[i], proofs[i])) return std::puts("direct proof does not verify"), 1;
    double tv = ms_since(t1);
    if (j > 0) {  // the first round warms caches
      direct_prove.push_back(tp);
      direct_verify.push_back(tv);
    }
  }

  auto run_engine = [&](unsigned synthesizers, const char* label) {
    engine::config c;
    c.host_budget = "1GiB";
    c.device_budget = "256MiB";
    c.synthesizers = synthesizers;
    c.devices = {"cpu"};
    auto e = engine::engine::start(c);
    engine::request r;
    r.circuit = zkey;
    for (auto& w : witnesses) r.partitions.push_back({"", w});
    // Latency of one partition through every stage (no pipelining to hide anything): what the
    // actors add to one prove + verify.
    engine::request one;
    one.circuit = zkey;
    one.partitions.push_back({"", witnesses[0]});
    std::vector<double> single, outside;
    for (int j = 0; j < jobs + 1; ++j) {
      auto t0 = clk::now();
      auto res = e.await(e.submit(one), std::chrono::seconds(60));
      if (!res || res->state != engine::job_state::succeeded) std::exit(1);
      if (j > 0) {
        single.push_back(ms_since(t0));
        // What the engine measured outside synthesis and the device: queueing, key lease,
        // reservations, messages, thread wake-ups and the assembler's verification.
        outside.push_back(double(res->timings.total_us - res->timings.synthesis_us - res->timings.device_us) / 1000.0);
      }
    }
    std::vector<double> wall, device;
    for (int j = 0; j < jobs + 1; ++j) {
      auto t0 = clk::now();
      auto res = e.await(e.submit(r), std::chrono::seconds(60));
      double t = ms_since(t0);
      if (!res || res->state != engine::job_state::succeeded) {
        std::puts("engine job failed");
        std::exit(1);
      }
      if (j > 0) {
        wall.push_back(t);
        device.push_back(double(res->timings.device_us) / 1000.0);
      }
    }
    double per_partition = median(wall) / n;
    double prove = median(direct_prove) / n, verify = median(direct_verify) / n;
    std::printf("%-34s job %8.3f ms  per partition %7.3f ms  (device time %7.3f ms/partition)\n", label, median(wall),
                per_partition, median(device) / n);
    std::printf("%-34s 10-partition job vs 10 x (prove + verify): %+7.3f ms per partition\n", "",
                per_partition - prove - verify);
    std::printf("%-34s 1-partition job %7.3f ms: overhead vs one prove + verify %+7.3f ms\n", "", median(single),
                median(single) - prove - verify);
    std::printf("%-34s 1-partition job outside synthesis + device %7.3f ms (of which verification ~%.3f ms)\n", "",
                median(outside), verify);
  };

  std::printf("sample circuit (%u constraints rows, domain %u), %d partitions per job, median of %d jobs\n", key.n_rows,
              key.domain_size, n, jobs);
  std::printf("%-34s job %8.3f ms  per partition %7.3f ms\n", "direct prove (synthesis + prove)", median(direct_prove),
              median(direct_prove) / n);
  std::printf("%-34s job %8.3f ms  per partition %7.3f ms\n", "direct verify", median(direct_verify),
              median(direct_verify) / n);
  run_engine(1, "engine, 1 synthesizer, 1 device");
  run_engine(4, "engine, 4 synthesizers, 1 device");
  return 0;
}
