#include "fil/prove/prove.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <type_traits>
#include <variant>

#include "fil/circuit/empty_sector_update.hpp"
#include "fil/circuit/stacked.hpp"
#include "fil/evaluator.hpp"
#include "fil/ids.hpp"
#include "fil/io/post_bincode.hpp"
#include "fil/io/update_bincode.hpp"
#include "fil/stacked/graph.hpp"
#include "fil/stacked/public_inputs.hpp"
#include "zk/cs/export.hpp"
#include "zk/error.hpp"
#include "zk/groth16/bellperson_key.hpp"
#include "zk/groth16/compressed_proof.hpp"
#include "zk/groth16/pce_compact.hpp"
#include "zk/io/bellperson.hpp"
#include "zk/groth16/prover.hpp"
#include "zk/groth16/random.hpp"
#include "zk/groth16/verifier.hpp"

namespace cuzk::fil::prove {

std::string find_params(const std::string& dir, const circuit_ref& c) {
  const std::string path = (dir.empty() ? std::string(".") : dir) + "/" + c.params_file();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw zk::input_error(path + ": no such file (the " + c.describe() + " parameters)");
  return path;
}

zk::io::r1cs porep_circuit(const seal_proof_info& info) {
  zk::cs::constraint_system cs(zk::cs::mode::record);
  circuit::stacked_circuit(cs, circuit::blank_porep_partition(circuit::porep_shape_of(info)));
  return zk::cs::to_r1cs(cs, std::string(info.name) + " circuit");
}

std::shared_ptr<const zk::groth16::pce_compact> porep_evaluator(const seal_proof_info& info, const std::string& file,
                                                                const progress_fn& progress) {
  return open_porep_evaluator(info, file, progress).compact;
}

const post_proof_info* post_proof_for(post_type type, api_version version, std::span<const std::uint8_t> vanilla,
                                      const std::string& origin) {
  const auto p = io::read_post_vanilla_proof(vanilla, origin);
  if (p.vanilla_proof.sectors.empty() || p.vanilla_proof.sectors[0].inclusion_proofs.empty()) return nullptr;
  const auto& m = p.vanilla_proof.sectors[0].inclusion_proofs[0];
  std::size_t base_levels = 0;
  std::visit(
      [&](const auto& q) {
        if constexpr (std::is_same_v<std::decay_t<decltype(q)>, merkle::single_proof>) base_levels = q.path.path.size();
        else base_levels = q.base_proof.path.size();
      },
      m.data);
  for (const auto& info : post_proofs()) {
    if (info.type != type || info.version != version) continue;
    const unsigned kind = info.tree.top ? 2 : info.tree.sub ? 1 : 0;
    std::uint64_t leaves = info.sector_size / node_size / (info.tree.sub ? info.tree.sub : 1) / (info.tree.top ? info.tree.top : 1);
    std::size_t levels = 0;
    for (; leaves > 1; leaves /= info.tree.base) ++levels;
    if (kind == m.kind() && levels == base_levels) return &info;
  }
  return nullptr;
}

post_job post_partitions(const circuit_ref& c, const domain& randomness, std::uint64_t miner_id,
                         std::vector<named_bytes> vanilla) {
  if (!c.post) throw std::logic_error("post_partitions: not a PoSt circuit");
  if (vanilla.empty()) throw zk::input_error("post: no vanilla proofs given");
  std::vector<std::pair<std::uint64_t, std::size_t>> order;  // (sector id, index)
  for (std::size_t i = 0; i < vanilla.size(); ++i)
    order.push_back({io::read_post_vanilla_proof(vanilla[i].bytes, vanilla[i].name).sector_id, i});
  std::stable_sort(order.begin(), order.end());
  for (std::size_t s = 1; s < order.size(); ++s)
    if (order[s].first == order[s - 1].first)
      throw zk::input_error(vanilla[order[s].second].name + ": sector " + std::to_string(order[s].first) +
                            " is given twice");
  const std::size_t per = c.post->type == post_type::winning ? order.size() : c.post->sector_count;
  post_job job;
  for (std::size_t s = 0; s < order.size(); ++s) {
    if (s % per == 0) {
      job_input in;
      in.kind = c.kind;
      in.registered_proof = std::string(c.post->name);
      in.miner_id = miner_id;
      in.randomness = randomness;
      in.partition_index = std::uint32_t(s / per);
      job.partitions.push_back(std::move(in));
      job.names.emplace_back();
    }
    job.partitions.back().vanilla_proofs.push_back(std::move(vanilla[order[s].second].bytes));
    job.names.back().push_back(vanilla[order[s].second].name);
  }
  return job;
}

namespace {

// fn() with an input_error's "vanilla_proofs[i] ..." turned into "partition k: FILE ..." (the file of
// partition k's i-th proof).
template <class Fn>
auto naming_files(const post_job& job, std::size_t k, Fn&& fn) {
  try {
    return fn();
  } catch (const zk::input_error& e) {
    std::string msg = e.what();
    if (msg.starts_with("vanilla_proofs[")) {
      const auto close = msg.find(']');
      const std::size_t i = std::stoul(msg.substr(15, close - 15));
      if (i < job.names.at(k).size()) msg = job.names[k][i] + msg.substr(close + 1);
    }
    throw zk::input_error("partition " + std::to_string(k) + ": " + msg);
  }
}

}  // namespace

void check_post_job(const circuit_ref& c, const post_job& job) {
  for (std::size_t k = 0; k < job.partitions.size(); ++k)
    naming_files(job, k, [&] { check_job_input(c, job.partitions[k]); return 0; });
}

zk::io::witness synthesize_post_partition(const circuit_ref& c, const post_job& job, std::size_t k) {
  return naming_files(job, k, [&] { return synthesize_partition(c, job.partitions.at(k), 0); });
}

zk::io::witness synthesize_porep_partition(const seal_commit_phase1_output& c1, unsigned k) {
  const auto& info = *c1.registered_proof;
  zk::cs::constraint_system cs(zk::cs::mode::witness);
  circuit::stacked_circuit(cs, circuit::porep_partition_from(c1, k));
  stacked::stacked_bucket_graph graph(info.nodes(), porep_id(info), info.version);
  stacked::public_inputs in;
  in.replica_id = c1.replica_id, in.seed = c1.seed, in.comm_d = c1.comm_d, in.comm_r = c1.comm_r;
  const auto want = stacked::generate_public_inputs(info, graph, in, k);
  const auto& got = cs.inputs();
  if (got.size() != want.size() + 1)
    throw zk::input_error("partition " + std::to_string(k) + ": the circuit has " + std::to_string(got.size() - 1) +
                          " public inputs, the verifier expects " + std::to_string(want.size()));
  for (std::size_t i = 0; i < want.size(); ++i)
    if (got[i + 1] != want[i])
      throw zk::input_error("partition " + std::to_string(k) + ": public input " + std::to_string(i) +
                            " of the vanilla proofs differs from the verifier's (seed, replica_id or challenge)");
  return zk::cs::to_witness(cs, std::string(info.name) + " partition " + std::to_string(k));
}

update_job update_partitions(const circuit_ref& c, const update::commitments& comms, std::vector<named_bytes> vanilla) {
  if (!c.update) throw std::logic_error("update_partitions: not a SnapDeals circuit");
  update_job job;
  job.pp = update::from_sector_size(c.update->sector_size);
  job.comms = comms;
  if (vanilla.size() != job.pp.partition_count)
    throw zk::input_error("vanilla: " + std::to_string(vanilla.size()) + " partition proofs, a " +
                          std::to_string(c.update->sector_size) + "-byte sector's update has " +
                          std::to_string(job.pp.partition_count) + " partitions");
  for (std::size_t k = 0; k < vanilla.size(); ++k) {
    job.partitions.push_back(io::read_partition_proof(vanilla[k].bytes, vanilla[k].name));
    job.names.push_back(vanilla[k].name);
    update::check_partition_proof(job.pp, unsigned(k), comms, job.partitions.back(),
                                  vanilla[k].name + " (partition " + std::to_string(k) + ")");
  }
  return job;
}

zk::io::witness synthesize_update_partition(const update_job& job, std::size_t k) {
  const std::string origin = job.names.at(k) + " (partition " + std::to_string(k) + ")";
  zk::cs::constraint_system cs(zk::cs::mode::witness);
  circuit::empty_sector_update(cs, circuit::update_partition_from(job.pp, unsigned(k), job.comms, job.partitions.at(k), origin));
  const auto want = update::public_inputs(job.pp, unsigned(k), job.comms);
  const auto& got = cs.inputs();
  if (got.size() != want.size() + 1)
    throw zk::input_error(origin + ": the circuit has " + std::to_string(got.size() - 1) + " public inputs, the verifier expects " +
                          std::to_string(want.size()));
  for (std::size_t i = 0; i < want.size(); ++i)
    if (got[i + 1] != want[i])
      throw zk::input_error(origin + ": public input " + std::to_string(i) + " differs from the verifier's");
  return zk::cs::to_witness(cs, origin);
}

proof_result prove_partitions(const circuit_key& key, std::size_t partitions,
                              const std::function<zk::io::witness(std::size_t)>& synthesize, zk::groth16::backend& be,
                              const progress_fn& progress, stage_seconds* times) {
  namespace g16 = zk::groth16;
  using clock = std::chrono::steady_clock;
  auto since = [](clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); };
  if (!key.zkey || !key.evaluator) throw std::logic_error("prove_partitions: a key without its evaluator (load it with_evaluator)");
  std::vector<g16::proof> proofs;
  std::vector<std::vector<zk::bigint<4>>> inputs;
  for (std::size_t k = 0; k < partitions; ++k) {
    if (progress) progress("synthesizing", k, partitions);
    auto t = clock::now();
    const auto w = synthesize(k);
    zk::io::check_witness_matches(*key.zkey, w);
    if (times) times->witness += since(t);
    if (progress) progress("proving", k, partitions);
    g16::prove_timings pt;
    t = clock::now();
    proofs.push_back(g16::prove(*key.zkey, *key.evaluator, w, g16::random_randomness(), be, &pt));
    if (times) {
      const double all = since(t);
      times->abc += pt.synthesis;
      times->prove += all - pt.synthesis;
      times->h += pt.h;
      times->msm += pt.msm_a + pt.msm_b1 + pt.msm_b2 + pt.msm_c + pt.msm_h;
    }
    inputs.push_back(g16::public_inputs(*key.zkey, w));
  }
  if (progress) progress("verifying", 0, 1);
  const auto tv = clock::now();
  const auto verdict = g16::verify_batch(g16::prepare(key.zkey->vk), inputs, proofs);
  if (times) times->verify += since(tv);
  if (progress) progress("verifying", 1, 1);
  proof_result out;
  if (!verdict.all_valid) {
    out.invalid = verdict.invalid;
    return out;
  }
  for (const auto& p : proofs) {
    const auto b = g16::to_compressed(p);
    out.bytes.insert(out.bytes.end(), b.begin(), b.end());
  }
  return out;
}

}  // namespace cuzk::fil::prove
