#include "fil/circuit/stacked.hpp"

#include <atomic>
#include <condition_variable>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>

#include "fil/circuit/column.hpp"
#include "fil/circuit/create_label.hpp"
#include "fil/circuit/encode.hpp"
#include "fil/circuit/poseidon.hpp"
#include "fil/circuit/uint64.hpp"
#include "fil/stacked/graph.hpp"
#include "zk/error.hpp"
#include "zk/util/parallel.hpp"

namespace cuzk::fil::circuit {

using zk::cs::constraint_system;
using zk::cs::variable;
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

// A challenge is synthesized in three kinds of parts, in this order: its prefix (data leaf, comm_d
// inclusion, the 14 parent columns hashed and included in comm_c, the challenge's bits and input),
// one labeling per layer, and its suffix (encode, comm_r_last inclusion, the column of labels hashed
// and included in comm_c). Outside record mode a part reads what earlier parts allocated only
// through values, so the parts of all challenges can run on threads (see stacked_circuit).
struct prefix_out {
  allocated_num data_leaf;
  std::vector<std::vector<allocated_num>> drg, exp;  // the parents' rows (one per layer)
  uint64_bits challenge_num;
};

challenge_ctx context_of(const porep_partition& p, const porep_challenge& ch, std::size_t index) {
  challenge_ctx ctx{p, index, {}};
  if (p.check)
    ctx.prefix = "partition " + std::to_string(p.partition) + " challenge " + std::to_string(index) + " (node " +
                 std::to_string(ch.challenge) + ")";
  return ctx;
}

prefix_out challenge_prefix(constraint_system& cs, const porep_partition& p, const porep_challenge& ch,
                            std::size_t index, const tree_arities& tree, const allocated_num& comm_d,
                            const allocated_num& comm_c) {
  const challenge_ctx ctx = context_of(p, ch, index);
  std::string buf;
  prefix_out out;
  out.data_leaf = alloc_named(cs, "data_leaf", ch.data_leaf);
  {
    constraint_system::scope s(cs, "comm_d_inclusion");
    por(cs, comm_d_tree, tree_hash::sha256, out.data_leaf, ch.comm_d_path, comm_d, ctx.name(buf, "comm_d_proofs"));
  }
  auto parent_columns = [&](const std::vector<column_witness>& cols, const char* kind) {
    std::vector<std::vector<allocated_num>> rows_of;
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
      rows_of.push_back(std::move(rows));
    }
    return rows_of;
  };
  out.drg = parent_columns(ch.drg_parents, "drg");
  out.exp = parent_columns(ch.exp_parents, "exp");
  if (out.drg.empty() || out.exp.empty()) throw std::logic_error("stacked_circuit: a challenge without parents");
  {
    constraint_system::scope s(cs, "challenge");
    out.challenge_num = uint64_bits::alloc(cs, ch.challenge);
  }
  {
    constraint_system::scope s(cs, "challenge input");
    out.challenge_num.pack_into_input(cs);
  }
  return out;
}

// The label of layer `layer` (1-based) from the parents' rows: the 6 DRG parents of this layer and,
// from layer 2 on, the 8 expander parents of the layer before.
allocated_num challenge_label(constraint_system& cs, std::size_t layer, const std::vector<std::vector<allocated_num>>& drg,
                              const std::vector<std::vector<allocated_num>>& exp, const uint64_bits& challenge_num,
                              const std::vector<boolean>& replica_id_bits) {
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
  return create_label(cs, replica_id_bits, expanded, std::uint32_t(layer), challenge_num);
}

void challenge_suffix(constraint_system& cs, const porep_partition& p, const porep_challenge& ch, std::size_t index,
                      const tree_arities& tree, std::span<const allocated_num> labels, const allocated_num& data_leaf,
                      const allocated_num& comm_c, const allocated_num& comm_r_last) {
  const challenge_ctx ctx = context_of(p, ch, index);
  std::string buf;
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

void synthesize_challenge(constraint_system& cs, const porep_partition& p, const porep_challenge& ch, std::size_t index,
                          const tree_arities& tree, const allocated_num& comm_d, const allocated_num& comm_c,
                          const allocated_num& comm_r_last, const std::vector<boolean>& replica_id_bits) {
  const prefix_out pre = challenge_prefix(cs, p, ch, index, tree, comm_d, comm_c);
  std::vector<allocated_num> labels;
  for (std::size_t layer = 1; layer <= pre.drg[0].size(); ++layer)
    labels.push_back(challenge_label(cs, layer, pre.drg, pre.exp, pre.challenge_num, replica_id_bits));
  challenge_suffix(cs, p, ch, index, tree, labels, pre.data_leaf, comm_c, comm_r_last);
}

// ---- The parallel witness --------------------------------------------------------------------------
// A part's inputs that an earlier part allocated, rebuilt from the challenge's witness: the same values
// under a placeholder variable (outside record mode only values are read).
allocated_num unallocated(const fr& v) { return {variable::aux(0), v}; }

std::vector<std::vector<allocated_num>> unallocated_rows(const std::vector<column_witness>& cols) {
  std::vector<std::vector<allocated_num>> out;
  for (const auto& c : cols) {
    std::vector<allocated_num> rows;
    for (const auto& r : c.rows) rows.push_back(unallocated(r));
    out.push_back(std::move(rows));
  }
  return out;
}

uint64_bits unallocated_uint64(std::uint64_t v) {
  uint64_bits r;
  r.value = v;
  for (unsigned i = 0; i < 64; ++i) r.bits[i] = boolean{boolean::kind::is, ((v >> i) & 1) != 0, variable::aux(0)};
  return r;
}

// What each part of a challenge allocates: part 0 the prefix, 1..layers the labelings, layers + 1 the
// suffix. It depends only on the challenge's shape (path arities, columns, layers), never on values,
// so it is counted once per shape (mode::count on the first challenge, its parts on threads) and
// kept for the process.
struct part_count {
  std::uint64_t inputs = 0, aux = 0, constraints = 0;
  part_count& operator+=(const part_count& o) {
    inputs += o.inputs, aux += o.aux, constraints += o.constraints;
    return *this;
  }
};
struct challenge_layout {
  std::vector<part_count> parts, offsets;  // offsets: where each part starts within its challenge
  part_count total;
};

std::vector<std::uint64_t> shape_key(const porep_challenge& ch, const tree_arities& tree,
                                     const std::vector<boolean>& replica_id_bits) {
  std::vector<std::uint64_t> key{tree.base, tree.sub, tree.top, ch.drg_parents.size(), ch.exp_parents.size()};
  for (const auto& b : replica_id_bits)  // its constant bits fold, by value
    key.push_back(2 * std::uint64_t(b.k) + (b.k == boolean::kind::constant && b.value ? 1 : 0));
  auto path = [&](const std::vector<path_level>& levels) {
    key.push_back(levels.size());
    for (const auto& l : levels) key.push_back(l.arity);
  };
  path(ch.comm_d_path);
  path(ch.comm_r_last_path);
  path(ch.comm_c_path);
  for (const auto* cols : {&ch.drg_parents, &ch.exp_parents})
    for (const auto& c : *cols) {
      key.push_back(c.rows.size());
      path(c.path);
    }
  return key;
}

part_count count_of(const constraint_system& cs) { return {cs.num_inputs() - 1, cs.num_aux(), cs.num_constraints()}; }

std::atomic<std::size_t> layouts_counted{0};

// `counted`, when given, says whether this call counted the layout (false: it was kept already).
const challenge_layout& layout_of(const porep_challenge& ch, const tree_arities& tree,
                                  const std::vector<boolean>& replica_id_bits, zk::thread_pool& pool,
                                  bool* counted = nullptr) {
  static std::mutex m;
  static std::map<std::vector<std::uint64_t>, std::unique_ptr<challenge_layout>> cache;
  const auto key = shape_key(ch, tree, replica_id_bits);
  std::lock_guard lk(m);
  if (counted) *counted = false;
  if (auto it = cache.find(key); it != cache.end()) return *it->second;
  if (counted) *counted = true;
  ++layouts_counted;
  if (ch.drg_parents.empty() || ch.exp_parents.empty()) throw std::logic_error("stacked_circuit: a challenge without parents");
  const std::size_t layers = ch.drg_parents[0].rows.size();
  porep_partition blank;  // no checks: the values of a count do not matter
  blank.tree = tree;
  const allocated_num zero = unallocated(fr::zero());
  const auto drg = unallocated_rows(ch.drg_parents), exp = unallocated_rows(ch.exp_parents);
  const auto challenge_num = unallocated_uint64(0);
  auto layout = std::make_unique<challenge_layout>();
  layout->parts.resize(layers + 2);
  pool.run(layers + 2, [&](std::size_t part) {
    constraint_system cs(zk::cs::mode::count);
    if (part == 0) {
      challenge_prefix(cs, blank, ch, 0, tree, zero, zero);
    } else if (part <= layers) {
      challenge_label(cs, part, drg, exp, challenge_num, replica_id_bits);
    } else {
      const std::vector<allocated_num> labels(layers, zero);
      challenge_suffix(cs, blank, ch, 0, tree, labels, zero, zero, zero);
    }
    layout->parts[part] = count_of(cs);
  });
  for (const auto& c : layout->parts) {
    layout->offsets.push_back(layout->total);
    layout->total += c;
  }
  return *cache.emplace(key, std::move(layout)).first->second;
}

// Witness (or count) mode: the challenges' parts on the pool, each writing its slice of the
// partition's preallocated values (constraint_system::extend / witness_into): no part waits for a
// copy, and 18 challenges x (1 + layers) parts balance on any number of cores. The prefixes (the
// biggest parts: a 30-level SHA-256 path at 32 GiB) are handed out first, then the labelings; the
// suffixes need the labels and run after them.
void parallel_challenges(constraint_system& cs, const porep_partition& p, const allocated_num& comm_d,
                         const allocated_num& comm_c, const allocated_num& comm_r_last,
                         const std::vector<boolean>& replica_id_bits, zk::thread_pool& pool) {
  const std::size_t n = p.challenges.size();
  const challenge_layout& layout = layout_of(p.challenges[0], p.tree, replica_id_bits, pool);
  const std::size_t layers = layout.parts.size() - 2, parts = layers + 2;
  const auto out = cs.extend(layout.total.inputs * n, layout.total.aux * n, layout.total.constraints * n);
  const bool witness = cs.current_mode() == zk::cs::mode::witness;
  std::vector<allocated_num> labels(n * layers);
  std::vector<std::exception_ptr> errors(n * parts);  // by challenge, then part: the serial order
  auto run_part = [&](std::size_t c, std::size_t part) {
    try {
      const part_count& want = layout.parts[part];
      const part_count& at = layout.offsets[part];
      constraint_system pcs =
          witness ? constraint_system::witness_into(out.inputs.subspan(c * layout.total.inputs + at.inputs, want.inputs),
                                                    out.aux.subspan(c * layout.total.aux + at.aux, want.aux))
                  : constraint_system(zk::cs::mode::count);
      const porep_challenge& ch = p.challenges[c];
      if (part == 0) {
        challenge_prefix(pcs, p, ch, c, p.tree, comm_d, comm_c);
      } else if (part <= layers) {
        labels[c * layers + part - 1] = challenge_label(pcs, part, unallocated_rows(ch.drg_parents),
                                                        unallocated_rows(ch.exp_parents),
                                                        unallocated_uint64(ch.challenge), replica_id_bits);
      } else {
        challenge_suffix(pcs, p, ch, c, p.tree, std::span<const allocated_num>(labels).subspan(c * layers, layers),
                         unallocated(ch.data_leaf), comm_c, comm_r_last);
      }
      const part_count got = count_of(pcs);
      if (got.inputs != want.inputs || got.aux != want.aux || got.constraints != want.constraints)
        throw std::logic_error("stacked_circuit: challenge " + std::to_string(c) + " part " + std::to_string(part) +
                               " differs in shape from challenge 0");
    } catch (...) {
      errors[c * parts + part] = std::current_exception();
    }
  };
  // Phase 1: prefixes, then labelings layer by layer (challenge-major within a layer).
  pool.run(n * (1 + layers), [&](std::size_t t) {
    if (t < n) run_part(t, 0);
    else run_part((t - n) % n, 1 + (t - n) / n);
  });
  // Phase 2: the suffixes of the challenges whose labels all came out.
  std::vector<std::size_t> ready;
  for (std::size_t c = 0; c < n; ++c) {
    bool ok = true;
    for (std::size_t part = 0; part <= layers; ++part) ok = ok && !errors[c * parts + part];
    if (ok) ready.push_back(c);
  }
  pool.run(ready.size(), [&](std::size_t i) { run_part(ready[i], layers + 1); });
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

// Streaming record on the pool (the sink is a zk::cs::parallel_sink, e.g. the compact evaluator's
// recorder): the same parts as the parallel witness, each recorded into its own buffer by a part_of
// system whose counters start where the part starts in the whole (the layout's offsets), so its
// variables get their final numbers; the buffers are appended to the sink in the serial order
// (challenge by challenge: prefix, labelings, suffix) by whichever thread finishes the next one due.
// Unlike the witness, a part needs the variables earlier parts allocated: a labeling waits for its
// challenge's prefix, a suffix for its labelings. Tasks are claimed in increasing order (all
// prefixes, then per challenge its labelings and its suffix), so what a task waits for has already
// been claimed by a running thread: the waits end.
void parallel_record(constraint_system& cs, zk::cs::parallel_sink& sink, const porep_partition& p,
                     const allocated_num& comm_d, const allocated_num& comm_c, const allocated_num& comm_r_last,
                     const std::vector<boolean>& replica_id_bits, zk::thread_pool& pool) {
  const std::size_t n = p.challenges.size();
  const challenge_layout& layout = layout_of(p.challenges[0], p.tree, replica_id_bits, pool);
  const std::size_t layers = layout.parts.size() - 2, parts = layers + 2;
  const std::uint64_t in0 = cs.num_inputs(), aux0 = cs.num_aux(), con0 = cs.num_constraints();
  std::vector<prefix_out> pre(n);
  std::vector<allocated_num> labels(n * layers);
  std::vector<std::unique_ptr<zk::cs::constraint_sink>> buffers(n * parts);  // serial order
  std::vector<char> done(n * parts, 0);
  std::vector<std::exception_ptr> errors(n * parts);
  std::mutex m;
  std::condition_variable changed;
  std::size_t next_append = 0;
  bool appending = false, failed = false;
  // Waits until part `k` (serial index) is done; false when some part failed.
  auto wait_for = [&](std::size_t k) {
    std::unique_lock lk(m);
    changed.wait(lk, [&] { return failed || done[k]; });
    return !failed;
  };
  // Hands a recorded buffer over, and appends what is due unless another thread is at it.
  auto deposit = [&](std::size_t k, std::unique_ptr<zk::cs::constraint_sink> buf) {
    std::unique_lock lk(m);
    buffers[k] = std::move(buf);
    done[k] = 1;
    changed.notify_all();
    if (appending) return;
    appending = true;
    while (!failed && next_append < buffers.size() && buffers[next_append]) {
      auto b = std::move(buffers[next_append]);
      lk.unlock();
      try {
        sink.append_part(*b);
      } catch (...) {
        lk.lock();
        errors[next_append] = std::current_exception();
        failed = true;
        changed.notify_all();
        break;
      }
      b.reset();
      lk.lock();
      ++next_append;
    }
    appending = false;
  };
  auto run_part = [&](std::size_t c, std::size_t part) {
    const std::size_t k = c * parts + part;
    try {
      const part_count& want = layout.parts[part];
      const part_count& at = layout.offsets[part];
      auto buf = sink.part(con0 + c * layout.total.constraints + at.constraints);
      constraint_system pcs = constraint_system::part_of(*buf, in0 + c * layout.total.inputs + at.inputs,
                                                         aux0 + c * layout.total.aux + at.aux);
      const part_count start = count_of(pcs);
      const porep_challenge& ch = p.challenges[c];
      if (part == 0) {
        pre[c] = challenge_prefix(pcs, p, ch, c, p.tree, comm_d, comm_c);
      } else if (part <= layers) {
        if (!wait_for(c * parts)) return;
        labels[c * layers + part - 1] =
            challenge_label(pcs, part, pre[c].drg, pre[c].exp, pre[c].challenge_num, replica_id_bits);
      } else {
        for (std::size_t l = 1; l <= layers; ++l)
          if (!wait_for(c * parts + l)) return;
        challenge_suffix(pcs, p, ch, c, p.tree, std::span<const allocated_num>(labels).subspan(c * layers, layers),
                         pre[c].data_leaf, comm_c, comm_r_last);
      }
      const part_count end = count_of(pcs);
      if (end.inputs - start.inputs != want.inputs || end.aux - start.aux != want.aux ||
          end.constraints - start.constraints != want.constraints)
        throw std::logic_error("stacked_circuit: challenge " + std::to_string(c) + " part " + std::to_string(part) +
                               " differs in shape from challenge 0");
      deposit(k, std::move(buf));
    } catch (...) {
      std::lock_guard lk(m);
      errors[k] = std::current_exception();
      failed = true;
      changed.notify_all();
    }
  };
  pool.run(n * parts, [&](std::size_t t) {
    if (t < n) return run_part(t, 0);
    const std::size_t c = (t - n) / (parts - 1), part = 1 + (t - n) % (parts - 1);
    run_part(c, part);
  });
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  if (next_append != buffers.size()) throw std::logic_error("stacked_circuit: a recorded part was not appended");
  cs.extend(layout.total.inputs * n, layout.total.aux * n, layout.total.constraints * n);
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

namespace {

// The replica id, its input and its bits: how every challenge's labels see it.
std::vector<boolean> replica_id_prelude(constraint_system& cs, const fr& value) {
  const allocated_num replica_id = alloc_named(cs, "replica_id", value);
  {
    constraint_system::scope s(cs, "replica_id_input");
    replica_id.inputize(cs);
  }
  constraint_system::scope s(cs, "replica_id_bits");
  return reverse_bit_numbering(to_bits_le(cs, replica_id));
}

void stacked_circuit_on(constraint_system& cs, const porep_partition& p, zk::thread_pool* pool) {
  const std::vector<boolean> replica_id_bits = replica_id_prelude(cs, p.replica_id);
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
  if (auto* sink = dynamic_cast<zk::cs::parallel_sink*>(cs.sink()); sink && pool && pool->size() > 1) {
    parallel_record(cs, *sink, p, comm_d, comm_c, comm_r_last, replica_id_bits, *pool);
    return;
  }
  if (cs.recording() || !pool || pool->size() == 1 || p.challenges.size() < 2) {
    for (std::size_t i = 0; i < p.challenges.size(); ++i) {
      constraint_system::scope s(cs, "challenge_" + std::to_string(i));
      synthesize_challenge(cs, p, p.challenges[i], i, tree, comm_d, comm_c, comm_r_last, replica_id_bits);
    }
    return;
  }
  parallel_challenges(cs, p, comm_d, comm_c, comm_r_last, replica_id_bits, *pool);
}

}  // namespace

void stacked_circuit(constraint_system& cs, const porep_partition& p, zk::thread_pool& pool) {
  stacked_circuit_on(cs, p, &pool);
}

bool prepare_porep_layout(const porep_shape& shape, zk::thread_pool& pool) {
  porep_shape one = shape;
  one.challenges = 1;
  const porep_partition blank = blank_porep_partition(one);
  constraint_system cs(zk::cs::mode::witness);  // the bits as a witness has them (values do not matter)
  const auto bits = replica_id_prelude(cs, fr::zero());
  bool counted = false;
  layout_of(blank.challenges[0], blank.tree, bits, pool, &counted);
  return counted;
}

std::size_t porep_layouts_counted() { return layouts_counted.load(); }

void stacked_circuit(constraint_system& cs, const porep_partition& p, unsigned threads) {
  if (threads == 1) return stacked_circuit_on(cs, p, nullptr);
  if (threads == 0) return stacked_circuit_on(cs, p, &zk::default_pool());
  zk::thread_pool pool(threads);
  stacked_circuit_on(cs, p, &pool);
}

}  // namespace cuzk::fil::circuit
