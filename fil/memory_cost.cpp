#include "fil/memory_cost.hpp"

#include <variant>

namespace cuzk::fil {

namespace {

constexpr std::uint64_t kHeader = 16;  // glibc malloc's per-chunk overhead, rounded up

template <class T>
std::uint64_t heap(const std::vector<T>& v) {
  return v.capacity() ? v.capacity() * sizeof(T) + kHeader : 0;
}

std::uint64_t bytes(const merkle::inclusion_path& p) {
  std::uint64_t n = heap(p.path);
  for (auto& e : p.path) n += heap(e.hashes);
  return n;
}

std::uint64_t bytes(const merkle::merkle_proof& m) {
  return std::visit(
      [](const auto& p) -> std::uint64_t {
        using P = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<P, merkle::single_proof>) return bytes(p.path);
        else if constexpr (std::is_same_v<P, merkle::sub_tree_proof>) return bytes(p.base_proof) + bytes(p.sub_proof);
        else return bytes(p.base_proof) + bytes(p.sub_proof) + bytes(p.top_proof);
      },
      m.data);
}

std::uint64_t bytes(const stacked::column_proof& c) { return heap(c.column.rows) + bytes(c.inclusion_proof); }

std::uint64_t bytes(const stacked::proof& p) {
  std::uint64_t n = bytes(p.comm_d_proofs) + bytes(p.comm_r_last_proof) + bytes(p.replica_column_proofs.c_x);
  n += heap(p.replica_column_proofs.drg_parents) + heap(p.replica_column_proofs.exp_parents);
  for (auto& c : p.replica_column_proofs.drg_parents) n += bytes(c);
  for (auto& c : p.replica_column_proofs.exp_parents) n += bytes(c);
  n += heap(p.labeling_proofs);
  for (auto& l : p.labeling_proofs) n += heap(l.parents);
  return n + heap(p.encoding_proof.parents);
}

}  // namespace

std::uint64_t memory_bytes(const job_input& in) {
  std::uint64_t n = sizeof(job_input) + heap(in.c1) + heap(in.vanilla_proofs) + in.registered_proof.capacity();
  for (auto& v : in.vanilla_proofs) n += heap(v);
  return n;
}

std::uint64_t memory_bytes(const c1_output& c1) {
  const auto& out = c1.phase1_out;
  std::uint64_t n = sizeof(c1_output) + out.vanilla_proofs_variant.capacity() + heap(out.vanilla_proofs);
  for (auto& partition : out.vanilla_proofs) {
    n += heap(partition);
    for (auto& p : partition) n += bytes(p);
  }
  return n;
}

}  // namespace cuzk::fil
