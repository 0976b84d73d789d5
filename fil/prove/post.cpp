#include "fil/prove/post.hpp"

#include <algorithm>
#include <stdexcept>
#include <type_traits>
#include <variant>

#include "fil/circuit/fallback_post.hpp"
#include "fil/io/post_bincode.hpp"
#include "fil/merkle/verify.hpp"
#include "fil/parameter_cache.hpp"
#include "fil/post/fallback.hpp"
#include "zk/error.hpp"
#include "zk/groth16/compressed_proof.hpp"
#include "zk/groth16/prover.hpp"
#include "zk/groth16/random.hpp"
#include "zk/groth16/verifier.hpp"

namespace cuzk::fil::prove {

namespace {

circuit::tree_arities arities_of(const post_proof_info& p) { return {p.tree.base, p.tree.sub, p.tree.top}; }

std::string where(const post_proof_info& p, std::size_t sector_index, std::uint64_t sector_id) {
  std::string s = "sector " + std::to_string(sector_id);
  if (p.type == post_type::window) s += " (partition " + std::to_string(sector_index / p.sector_count) + ")";
  return s;
}

// The sectors of one partition's circuit, in circuit order (see the header).
std::vector<circuit::post_sector> partition_sectors(const post_job& job, std::size_t partition) {
  const auto& info = *job.proof;
  const auto shape = arities_of(info);
  std::vector<circuit::post_sector> out;
  if (info.type == post_type::winning) {
    const auto s = circuit::post_sector_from(job.sectors.at(0), shape);
    for (std::size_t i = 0; i < s.leafs.size(); ++i) {
      auto one = s;
      one.leafs = {s.leafs[i]};
      one.paths = {s.paths[i]};
      out.push_back(std::move(one));
    }
    return out;
  }
  const std::size_t begin = partition * info.sector_count;
  const std::size_t end = std::min(job.sectors.size(), begin + info.sector_count);
  for (std::size_t i = begin; i < end; ++i) out.push_back(circuit::post_sector_from(job.sectors[i], shape));
  while (out.size() < info.sector_count) out.push_back(out.back());
  return out;
}

}  // namespace

post_job make_post_job(const post_proof_info& proof, const domain& randomness, const domain& prover_id,
                       std::vector<post::fallback_post_sector_proof> vanilla, const std::vector<std::string>& origins) {
  domain_to_fr(randomness, "randomness");
  if (vanilla.empty()) throw zk::input_error("post: no vanilla proofs given");
  if (proof.type == post_type::winning && vanilla.size() != 1)
    throw zk::input_error("post: " + std::string(proof.name) + " proves one sector, " + std::to_string(vanilla.size()) +
                          " vanilla proofs given");
  std::vector<std::size_t> order(vanilla.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return vanilla[a].sector_id < vanilla[b].sector_id; });
  auto origin = [&](std::size_t i) { return i < origins.size() ? origins[i] : "vanilla proof " + std::to_string(i); };
  post_job job;
  job.proof = &proof;
  job.randomness = randomness;
  job.prover_id = prover_id;
  for (std::size_t s = 0; s < order.size(); ++s) {
    const std::size_t i = order[s];
    auto& p = vanilla[i];
    if (s > 0 && p.sector_id == job.sectors.back().sector_id)
      throw zk::input_error(origin(i) + ": sector " + std::to_string(p.sector_id) + " is given twice");
    const std::string what = origin(i) + ": " + where(proof, s, p.sector_id);
    const auto challenges = post::leaf_challenges(proof, randomness, p.sector_id, s);
    io::check_post_shape(p, proof, challenges, what);
    const auto& sp = p.vanilla_proof.sectors[0];
    for (std::size_t c = 0; c < sp.inclusion_proofs.size(); ++c)
      if (!merkle::verify(sp.inclusion_proofs[c], merkle::tree_hasher::poseidon))
        throw zk::input_error(what + " challenge " + std::to_string(c) + " (leaf " + std::to_string(challenges[c]) +
                              "): vanilla_proof.sectors[0].inclusion_proofs[" + std::to_string(c) +
                              "].leaf: the leaf and its path do not hash to comm_r_last");
    job.sectors.push_back(std::move(p));
  }
  return job;
}

std::size_t partition_count(const post_job& job) {
  return job.proof->type == post_type::winning ? 1 : post::partition_count(*job.proof, job.sectors.size());
}

const post_proof_info* post_proof_for(post_type type, api_version version, const post::fallback_post_sector_proof& p) {
  if (p.vanilla_proof.sectors.empty() || p.vanilla_proof.sectors[0].inclusion_proofs.empty()) return nullptr;
  const auto& m = p.vanilla_proof.sectors[0].inclusion_proofs[0];
  std::size_t base_levels = 0;
  std::visit([&](const auto& q) {
    using T = std::decay_t<decltype(q)>;
    if constexpr (std::is_same_v<T, merkle::single_proof>) base_levels = q.path.path.size();
    else base_levels = q.base_proof.path.size();
  }, m.data);
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

zk::io::r1cs post_circuit(const post_proof_info& proof) {
  const auto shape = arities_of(proof);
  std::vector<circuit::post_sector> sectors(
      proof.circuit_sector_count(),
      circuit::blank_post_sector(shape, proof.sector_size / node_size, proof.circuit_challenge_count()));
  zk::cs::constraint_system cs(zk::cs::mode::record);
  circuit::fallback_post(cs, shape, sectors);
  return to_r1cs(cs, std::string(proof.name) + " circuit");
}

std::string post_params_file(const std::string& params_dir, const post_proof_info& proof) {
  return params_file(params_dir, parameter_cache_id(proof), proof.name);
}

partition_witness synthesize_post_partition(const post_job& job, std::size_t partition) {
  const auto& info = *job.proof;
  if (partition >= partition_count(job))
    throw zk::input_error("post: partition " + std::to_string(partition) + " of " +
                          std::to_string(partition_count(job)));
  zk::cs::constraint_system cs(zk::cs::mode::witness);
  circuit::fallback_post(cs, arities_of(info), partition_sectors(job, partition));

  std::vector<post::public_sector> pub;
  for (const auto& s : job.sectors) pub.push_back({s.sector_id, s.comm_r});
  const auto want = post::generate_public_inputs(info, job.randomness, pub, partition);
  partition_witness out;
  if (cs.inputs().size() != want.size() + 1)
    throw std::logic_error("post: partition " + std::to_string(partition) + " has " +
                           std::to_string(cs.inputs().size() - 1) + " public inputs, the verifier expects " +
                           std::to_string(want.size()));
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (cs.inputs()[i + 1] != want[i])
      throw std::logic_error("post: partition " + std::to_string(partition) + " public input " + std::to_string(i) +
                             " differs from the verifier's");
    out.public_inputs.push_back(want[i].to_canonical());
  }
  out.witness = witness_of(cs, std::string(info.name) + " partition " + std::to_string(partition));
  return out;
}

post_proof prove_post(const post_job& job, const circuit_key& key, zk::groth16::backend& be, const progress_fn& progress) {
  namespace g16 = zk::groth16;
  post_proof out;
  out.partitions = partition_count(job);
  std::vector<g16::proof> proofs;
  std::vector<std::vector<zk::bigint<4>>> inputs;
  for (std::size_t k = 0; k < out.partitions; ++k) {
    if (progress) progress("synthesizing", k, out.partitions);
    auto p = synthesize_post_partition(job, k);
    zk::io::check_witness_matches(key.key, p.witness);
    if (progress) progress("proving", k, out.partitions);
    proofs.push_back(g16::prove(key.key, key.pce, p.witness, g16::random_randomness(), be));
    inputs.push_back(std::move(p.public_inputs));
  }
  if (progress) progress("verifying", 0, 1);
  const auto verdict = g16::verify_batch(g16::prepare(key.key.vk), inputs, proofs);
  if (progress) progress("verifying", 1, 1);
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
