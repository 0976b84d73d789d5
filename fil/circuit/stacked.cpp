#include "fil/circuit/stacked.hpp"

#include <atomic>
#include <exception>
#include <memory>
#include <string>
#include <thread>

#include "fil/circuit/column.hpp"
#include "fil/circuit/create_label.hpp"
#include "fil/circuit/encode.hpp"
#include "fil/circuit/poseidon.hpp"
#include "fil/circuit/uint64.hpp"
#include "fil/stacked/graph.hpp"
#include "zk/error.hpp"

namespace cuzk::fil::circuit {

using zk::cs::constraint_system;
using namespace zk::cs::gadgets;

namespace {

constexpr tree_arities comm_d_tree{2, 0, 0};  // BinaryMerkleTree<Sha256Hasher>

column_witness blank_column(const porep_shape& s) {
  return {std::vector<fr>(s.layers), blank_path(s.tree, s.nodes)};
}

allocated_num alloc_named(constraint_system& cs, const char* name, const fr& v) {
  constraint_system::scope s(cs, name);
  return allocated_num::alloc(cs, v);
}

struct challenge_ctx {
  const porep_partition& p;
  std::size_t index;
  std::string prefix;  // "partition k challenge i (node c)" when checking
  const std::string* name(std::string& buf, const std::string& field) const {
    if (!p.check) return nullptr;
    buf = prefix + ": " + field;
    return &buf;
  }
};

std::vector<allocated_num> alloc_column(constraint_system& cs, const column_witness& c) {
  constraint_system::scope s(cs, "column");
  std::vector<allocated_num> rows;
  rows.reserve(c.rows.size());
  for (const auto& r : c.rows) rows.push_back(allocated_num::alloc(cs, r));
  return rows;
}

void synthesize_challenge(constraint_system& cs, const porep_partition& p, const porep_challenge& ch, std::size_t index,
                          const tree_arities& tree, const allocated_num& comm_d, const allocated_num& comm_c,
                          const allocated_num& comm_r_last, const std::vector<boolean>& replica_id_bits) {
  challenge_ctx ctx{p, index, {}};
  if (p.check)
    ctx.prefix = "partition " + std::to_string(p.partition) + " challenge " + std::to_string(index) + " (node " +
                 std::to_string(ch.challenge) + ")";
  std::string buf;
  const allocated_num data_leaf = alloc_named(cs, "data_leaf", ch.data_leaf);
  {
    constraint_system::scope s(cs, "comm_d_inclusion");
    por(cs, comm_d_tree, tree_hash::sha256, data_leaf, ch.comm_d_path, comm_d, ctx.name(buf, "comm_d_proofs"));
  }
  auto parent_columns = [&](const std::vector<column_witness>& cols, const char* kind) {
    std::vector<std::vector<allocated_num>> out;
    for (std::size_t i = 0; i < cols.size(); ++i) {
      const std::string base = std::string(kind) + "_parent_" + std::to_string(i);
      std::vector<allocated_num> rows;
      {
        constraint_system::scope s(cs, base + "_num");
        rows = alloc_column(cs, cols[i]);
      }
      allocated_num val;
      {
        constraint_system::scope s(cs, base + "_constraint");
        val = hash_single_column(cs, rows);
      }
      constraint_system::scope s(cs, base + "_inclusion");
      por(cs, tree, tree_hash::poseidon, val, cols[i].path, comm_c,
          ctx.name(buf, "replica_column_proofs." + std::string(kind) + "_parents[" + std::to_string(i) + "]"));
      out.push_back(std::move(rows));
    }
    return out;
  };
  const auto drg = parent_columns(ch.drg_parents, "drg");
  const auto exp = parent_columns(ch.exp_parents, "exp");
  if (drg.empty() || exp.empty()) throw std::logic_error("stacked_circuit: a challenge without parents");
  const std::size_t layers = drg[0].size();

  uint64_bits challenge_num;
  {
    constraint_system::scope s(cs, "challenge");
    challenge_num = uint64_bits::alloc(cs, ch.challenge);
  }
  {
    constraint_system::scope s(cs, "challenge input");
    challenge_num.pack_into_input(cs);
  }
  std::vector<allocated_num> labels;
  for (std::size_t layer = 1; layer <= layers; ++layer) {
    constraint_system::scope s(cs, "labeling_" + std::to_string(layer));
    std::vector<std::vector<boolean>> parents;
    for (const auto& col : drg) parents.push_back(reverse_bit_numbering(to_bits_le(cs, col[layer - 1])));
    if (layer > 1)
      for (const auto& col : exp) parents.push_back(reverse_bit_numbering(to_bits_le(cs, col[layer - 2])));
    // Repeated to TOTAL_PARENTS (37): layer 1 has 6 parents (6 x 6 + the first), later ones 14
    // (2 x 14 + the first 9).
    std::vector<const std::vector<boolean>*> expanded;
    while (expanded.size() < stacked::total_parents) expanded.push_back(&parents[expanded.size() % parents.size()]);
    constraint_system::scope c(cs, "create_label");
    labels.push_back(create_label(cs, replica_id_bits, expanded, std::uint32_t(layer), challenge_num));
  }
  {
    allocated_num encoded;
    {
      constraint_system::scope s(cs, "encode_node");
      encoded = encode(cs, labels.back(), data_leaf);
    }
    constraint_system::scope s(cs, "comm_r_last_data_inclusion");
    por(cs, tree, tree_hash::poseidon, encoded, ch.comm_r_last_path, comm_r_last,
        ctx.name(buf, "comm_r_last_proof (the encoded node)"));
  }
  allocated_num column_hash;
  {
    constraint_system::scope s(cs, "c_x_column_hash");
    column_hash = hash_single_column(cs, labels);
  }
  constraint_system::scope s(cs, "c_x_inclusion");
  por(cs, tree, tree_hash::poseidon, column_hash, ch.comm_c_path, comm_c,
      ctx.name(buf, "replica_column_proofs.c_x (the labels computed from the parents)"));
}

}  // namespace

porep_shape porep_shape_of(const seal_proof_info& info) {
  return {info.nodes(), info.layers, info.challenges_per_partition, {info.tree.base, info.tree.sub, info.tree.top}};
}

porep_partition blank_porep_partition(const porep_shape& shape) {
  porep_partition p{};
  p.tree = shape.tree;
  porep_challenge c{};
  c.comm_d_path = blank_path(comm_d_tree, shape.nodes);
  c.comm_r_last_path = blank_path(shape.tree, shape.nodes);
  c.comm_c_path = c.comm_r_last_path;
  c.drg_parents.assign(base_degree, blank_column(shape));
  c.exp_parents.assign(stacked::exp_degree, blank_column(shape));
  p.challenges.assign(shape.challenges, c);
  return p;
}

porep_partition porep_partition_from(const seal_commit_phase1_output& c1, unsigned k) {
  if (!c1.registered_proof) throw zk::input_error("C1: no registered proof");
  const porep_shape shape = porep_shape_of(*c1.registered_proof);
  const std::string part = "partition " + std::to_string(k);
  if (k >= c1.vanilla_proofs.size())
    throw zk::input_error(part + ": the C1 output has " + std::to_string(c1.vanilla_proofs.size()) + " partitions");
  const auto& proofs = c1.vanilla_proofs[k];
  if (proofs.size() != shape.challenges)
    throw zk::input_error(part + ": " + std::to_string(proofs.size()) + " challenges, " +
                          std::string(c1.registered_proof->name) + " has " + std::to_string(shape.challenges));
  porep_partition p;
  p.check = true;
  p.partition = k;
  p.tree = shape.tree;
  p.replica_id = domain_to_fr(c1.replica_id, "replica_id");
  p.comm_d = domain_to_fr(c1.comm_d, "comm_d");
  p.comm_r = domain_to_fr(c1.comm_r, "comm_r");
  if (proofs.empty()) throw zk::input_error(part + ": no vanilla proofs");
  p.comm_r_last = domain_to_fr(proofs[0].comm_r_last(), part + " comm_r_last");
  p.comm_c = domain_to_fr(proofs[0].comm_c(), part + " comm_c");
  for (std::size_t i = 0; i < proofs.size(); ++i) {
    const auto& v = proofs[i];
    const std::string at = part + " challenge " + std::to_string(i);
    if (v.comm_r_last() != proofs[0].comm_r_last())
      throw zk::input_error(at + ": comm_r_last_proof.root differs from challenge 0's");
    if (v.comm_c() != proofs[0].comm_c())
      throw zk::input_error(at + ": replica_column_proofs.c_x.inclusion_proof.root differs from challenge 0's");
    if (v.labeling_proofs.empty()) throw zk::input_error(at + ": labeling_proofs is empty");
    porep_challenge c;
    c.challenge = v.labeling_proofs[0].node;
    if (c.challenge >= shape.nodes)
      throw zk::input_error(at + ": labeling_proofs[0].node " + std::to_string(c.challenge) + " is not below " +
                            std::to_string(shape.nodes) + " nodes");
    c.data_leaf = domain_to_fr(v.comm_d_proofs.leaf(), at + " comm_d_proofs.leaf");
    c.comm_d_path = path_levels_from(v.comm_d_proofs, comm_d_tree, shape.nodes, at + " comm_d_proofs");
    c.comm_r_last_path = path_levels_from(v.comm_r_last_proof, shape.tree, shape.nodes, at + " comm_r_last_proof");
    const auto& rc = v.replica_column_proofs;
    c.comm_c_path = path_levels_from(rc.c_x.inclusion_proof, shape.tree, shape.nodes,
                                     at + " replica_column_proofs.c_x.inclusion_proof");
    auto columns = [&](const std::vector<stacked::column_proof>& in, std::size_t want, const std::string& kind) {
      if (in.size() != want)
        throw zk::input_error(at + ": replica_column_proofs." + kind + " has " + std::to_string(in.size()) +
                              " columns, expected " + std::to_string(want));
      std::vector<column_witness> out;
      for (std::size_t j = 0; j < in.size(); ++j) {
        const std::string f = at + " replica_column_proofs." + kind + "[" + std::to_string(j) + "]";
        if (in[j].column.rows.size() != shape.layers)
          throw zk::input_error(f + ".column.rows: " + std::to_string(in[j].column.rows.size()) + " rows, " +
                                std::to_string(shape.layers) + " layers");
        column_witness w;
        for (const auto& r : in[j].column.rows) w.rows.push_back(domain_to_fr(r, f + ".column.rows"));
        w.path = path_levels_from(in[j].inclusion_proof, shape.tree, shape.nodes, f + ".inclusion_proof");
        out.push_back(std::move(w));
      }
      return out;
    };
    c.drg_parents = columns(rc.drg_parents, base_degree, "drg_parents");
    c.exp_parents = columns(rc.exp_parents, stacked::exp_degree, "exp_parents");
    p.challenges.push_back(std::move(c));
  }
  return p;
}

void stacked_circuit(constraint_system& cs, const porep_partition& p, unsigned threads) {
  const allocated_num replica_id = alloc_named(cs, "replica_id", p.replica_id);
  {
    constraint_system::scope s(cs, "replica_id_input");
    replica_id.inputize(cs);
  }
  std::vector<boolean> replica_id_bits;
  {
    constraint_system::scope s(cs, "replica_id_bits");
    replica_id_bits = reverse_bit_numbering(to_bits_le(cs, replica_id));
  }
  const allocated_num comm_d = alloc_named(cs, "comm_d", p.comm_d);
  {
    constraint_system::scope s(cs, "comm_d_input");
    comm_d.inputize(cs);
  }
  const allocated_num comm_r = alloc_named(cs, "comm_r", p.comm_r);
  {
    constraint_system::scope s(cs, "comm_r_input");
    comm_r.inputize(cs);
  }
  const allocated_num comm_r_last = alloc_named(cs, "comm_r_last", p.comm_r_last);
  const allocated_num comm_c = alloc_named(cs, "comm_c", p.comm_c);
  {
    allocated_num h;
    {
      constraint_system::scope s(cs, "H_comm_c_comm_r_last");
      const allocated_num pre[2] = {comm_c, comm_r_last};
      h = poseidon_hash(cs, pre);
    }
    if (p.check && !(h.value == comm_r.value))
      throw zk::input_error("partition " + std::to_string(p.partition) + ": comm_r is not Poseidon(comm_c, comm_r_last)");
    constraint_system::scope s(cs, "enforce comm_r = H(comm_c || comm_r_last)");
    enforce_equal(cs, comm_r, h);
  }
  if (p.challenges.empty()) throw std::logic_error("stacked_circuit: no challenges");
  const tree_arities& tree = p.tree;
  if (cs.recording() || threads <= 1 || p.challenges.size() < 2) {
    for (std::size_t i = 0; i < p.challenges.size(); ++i) {
      constraint_system::scope s(cs, "challenge_" + std::to_string(i));
      synthesize_challenge(cs, p, p.challenges[i], i, tree, comm_d, comm_c, comm_r_last, replica_id_bits);
    }
    return;
  }
  const std::size_t n = p.challenges.size();
  std::vector<std::unique_ptr<constraint_system>> parts(n);
  std::vector<std::exception_ptr> errors(n);
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        parts[i] = std::make_unique<constraint_system>(cs.current_mode());
        synthesize_challenge(*parts[i], p, p.challenges[i], i, tree, comm_d, comm_c, comm_r_last, replica_id_bits);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::min<std::size_t>(threads, n); ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  for (std::size_t i = 0; i < n; ++i) {
    if (errors[i]) std::rethrow_exception(errors[i]);
    cs.append(*parts[i]);
    parts[i].reset();
  }
}

}  // namespace cuzk::fil::circuit
