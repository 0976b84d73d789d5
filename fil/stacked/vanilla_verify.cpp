#include "fil/stacked/vanilla_verify.hpp"

#include <atomic>
#include <mutex>
#include <vector>

#include "fil/crypto/hashes.hpp"
#include "fil/crypto/poseidon.hpp"
#include "fil/merkle/verify.hpp"
#include "fil/stacked/label.hpp"
#include "zk/error.hpp"
#include "zk/util/parallel.hpp"

namespace cuzk::fil::stacked {

namespace {

// One challenge's proof; empty when it holds.
std::string check_one(const seal_commit_phase1_output& c1, const proof& p, const domain& comm_c,
                      const domain& comm_r_last) {
  using merkle::tree_hasher;
  if (p.comm_d_proofs.root() != c1.comm_d) return "comm_d_proofs: root is not comm_d";
  if (!merkle::verify(p.comm_d_proofs, tree_hasher::sha256)) return "comm_d_proofs: path does not reach its root";
  if (p.comm_r_last_proof.root() != comm_r_last) return "comm_r_last_proof: root differs from the others'";
  if (!merkle::verify(p.comm_r_last_proof, tree_hasher::poseidon)) return "comm_r_last_proof: path does not reach comm_r_last";
  auto column = [&](const column_proof& cp, const std::string& name) -> std::string {
    std::vector<fr> rows;
    try {
      for (const auto& r : cp.column.rows) rows.push_back(domain_to_fr(r, "row"));
      if (fr_to_domain(crypto::poseidon(rows)) != cp.inclusion_proof.leaf()) return name + ".column: leaf is not the column hash";
    } catch (const std::exception&) {
      return name + ".column: rows cannot be hashed";
    }
    if (cp.inclusion_proof.root() != comm_c) return name + ".inclusion_proof: root is not comm_c";
    if (!merkle::verify(cp.inclusion_proof, tree_hasher::poseidon)) return name + ".inclusion_proof: path does not reach comm_c";
    return {};
  };
  const auto& r = p.replica_column_proofs;
  if (auto e = column(r.c_x, "replica_column_proofs.c_x"); !e.empty()) return e;
  for (std::size_t i = 0; i < r.drg_parents.size(); ++i)
    if (auto e = column(r.drg_parents[i], "replica_column_proofs.drg_parents[" + std::to_string(i) + "]"); !e.empty()) return e;
  for (std::size_t i = 0; i < r.exp_parents.size(); ++i)
    if (auto e = column(r.exp_parents[i], "replica_column_proofs.exp_parents[" + std::to_string(i) + "]"); !e.empty()) return e;
  for (std::size_t l = 0; l < p.labeling_proofs.size(); ++l) {
    const auto& lp = p.labeling_proofs[l];
    if (create_label(c1.replica_id, lp.layer_index, lp.node, lp.parents) != r.c_x.column.rows[l])
      return "labeling_proofs[" + std::to_string(l) + "]: the label is not the column's row " + std::to_string(l + 1);
  }
  const auto& ep = p.encoding_proof;
  try {
    const fr key = domain_to_fr(create_label(c1.replica_id, ep.layer_index, ep.node, ep.parents), "key");
    const fr data = domain_to_fr(p.comm_d_proofs.leaf(), "data");
    if (fr_to_domain(key + data) != p.comm_r_last_proof.leaf()) return "encoding_proof: key + data is not the replica leaf";
  } catch (const zk::input_error&) {
    return "encoding_proof: the data leaf is not a field element";
  }
  return {};
}

}  // namespace

std::string verify_vanilla_proofs(const seal_commit_phase1_output& c1,
                                  const std::function<void(std::size_t, std::size_t)>& progress) {
  if (c1.vanilla_proofs.empty() || c1.vanilla_proofs[0].empty()) return "no vanilla proofs";
  const domain comm_c = c1.vanilla_proofs[0][0].comm_c(), comm_r_last = c1.vanilla_proofs[0][0].comm_r_last();
  if (crypto::poseidon2(comm_c, comm_r_last) != c1.comm_r) return "comm_r is not Poseidon(comm_c, comm_r_last)";
  std::vector<std::pair<std::size_t, std::size_t>> items;
  for (std::size_t k = 0; k < c1.vanilla_proofs.size(); ++k)
    for (std::size_t j = 0; j < c1.vanilla_proofs[k].size(); ++j) items.emplace_back(k, j);
  std::vector<std::string> errors(items.size());
  std::mutex mu;
  std::size_t done = 0;
  zk::default_pool().run(items.size(), [&](std::size_t i) {
    const auto [k, j] = items[i];
    auto e = check_one(c1, c1.vanilla_proofs[k][j], comm_c, comm_r_last);
    if (!e.empty()) errors[i] = "vanilla_proofs[" + std::to_string(k) + "][" + std::to_string(j) + "]." + e;
    if (progress) {
      std::lock_guard lock(mu);
      progress(++done, items.size());
    }
  });
  for (auto& e : errors)
    if (!e.empty()) return e;
  return {};
}

}  // namespace cuzk::fil::stacked
