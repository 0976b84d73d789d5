#include "fil/io/c1_json.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bitset>
#include <cstring>
#include <optional>

#include "fil/stacked/graph.hpp"
#include "zk/error.hpp"

namespace cuzk::fil::io {

namespace {

// ---- reading ---------------------------------------------------------------------------------

template <std::size_t N, class F>
void read_fields(json_stream& js, const std::array<std::string_view, N>& names, F&& on_field) {
  js.begin_object();
  std::bitset<N> seen;
  std::string key;
  while (js.next_key(key)) {
    const auto it = std::find(names.begin(), names.end(), key);
    if (it == names.end()) {  // serde ignores unknown fields
      js.skip_value();
      continue;
    }
    const auto i = std::size_t(it - names.begin());
    if (seen[i]) js.fail("duplicate field");
    seen[i] = true;
    on_field(i);
  }
  for (std::size_t i = 0; i < N; ++i)
    if (!seen[i]) js.fail("missing field \"" + std::string(names[i]) + "\"");
}

template <class F>
void read_array(json_stream& js, F&& on_element) {
  js.begin_array();
  while (js.next_element()) on_element();
}

// The most elements any registered proof's C1 output has at each level, checked as elements are
// read: what a C1 can cost in memory is bounded by the largest real one whatever its size (an
// array of 10^7 empty partitions is refused at the first element too many, not parsed into
// vectors ten times its size). check_shape then checks the exact counts of its registered proof.
struct c1_bounds {
  std::size_t partitions = 0, challenges = 0, layers = 0;
  static constexpr std::size_t path_levels = 32;  // a 64 GiB sector's binary comm_d tree has 31
  static constexpr std::size_t arity_hashes = 15;  // siblings of one path element (arity 8: 7)
  static constexpr std::size_t parents = stacked::total_parents;
};
const c1_bounds& any_proof_bounds() {
  static const c1_bounds b = [] {
    c1_bounds m;
    for (const auto& p : seal_proofs()) {
      m.partitions = std::max<std::size_t>(m.partitions, p.partitions);
      m.challenges = std::max<std::size_t>(m.challenges, p.challenges_per_partition);
      m.layers = std::max<std::size_t>(m.layers, p.layers);
    }
    return m;
  }();
  return b;
}

// read_array, failing at element max + 1 ("more than N <what>").
template <class F>
void read_array_max(json_stream& js, std::size_t max, const char* what, F&& on_element) {
  js.begin_array();
  for (std::size_t n = 0; js.next_element(); ++n) {
    if (n == max) js.fail("more than " + std::to_string(max) + " " + what);
    on_element();
  }
}

domain read_domain(json_stream& js) {
  domain d{};
  std::size_t n = 0;
  js.begin_array();
  while (js.next_element()) {
    if (n == 32) js.fail("expected 32 bytes, found more");
    d[n++] = std::uint8_t(js.read_u64(255));
  }
  if (n != 32) js.fail("expected 32 bytes, found " + std::to_string(n));
  return d;
}

std::vector<domain> read_domains(json_stream& js, std::size_t max, const char* what) {
  std::vector<domain> v;
  read_array_max(js, max, what, [&] { v.push_back(read_domain(js)); });
  return v;
}

merkle::inclusion_path read_inclusion_path(json_stream& js) {
  merkle::inclusion_path p;
  static constexpr std::array<std::string_view, 1> outer{"path"};
  static constexpr std::array<std::string_view, 2> elem{"hashes", "index"};
  read_fields(js, outer, [&](std::size_t) {
    read_array_max(js, c1_bounds::path_levels, "path levels", [&] {
      merkle::path_element e;
      read_fields(js, elem, [&](std::size_t i) {
        if (i == 0) e.hashes = read_domains(js, c1_bounds::arity_hashes, "sibling hashes");
        else e.index = js.read_u64();
      });
      p.path.push_back(std::move(e));
    });
  });
  return p;
}

merkle::merkle_proof read_merkle_proof(json_stream& js) {
  merkle::merkle_proof proof;
  static constexpr std::array<std::string_view, 1> outer{"data"};
  read_fields(js, outer, [&](std::size_t) {
    js.begin_object();
    std::string variant;
    if (!js.next_key(variant)) js.fail("expected one of Single, Sub, Top");
    if (variant == "Single") {
      merkle::single_proof p;
      static constexpr std::array<std::string_view, 3> f{"root", "leaf", "path"};
      read_fields(js, f, [&](std::size_t i) {
        if (i == 0) p.root = read_domain(js);
        else if (i == 1) p.leaf = read_domain(js);
        else p.path = read_inclusion_path(js);
      });
      proof.data = std::move(p);
    } else if (variant == "Sub") {
      merkle::sub_tree_proof p;
      static constexpr std::array<std::string_view, 4> f{"base_proof", "sub_proof", "root", "leaf"};
      read_fields(js, f, [&](std::size_t i) {
        if (i == 0) p.base_proof = read_inclusion_path(js);
        else if (i == 1) p.sub_proof = read_inclusion_path(js);
        else if (i == 2) p.root = read_domain(js);
        else p.leaf = read_domain(js);
      });
      proof.data = std::move(p);
    } else if (variant == "Top") {
      merkle::top_tree_proof p;
      static constexpr std::array<std::string_view, 5> f{"base_proof", "sub_proof", "top_proof", "root", "leaf"};
      read_fields(js, f, [&](std::size_t i) {
        if (i == 0) p.base_proof = read_inclusion_path(js);
        else if (i == 1) p.sub_proof = read_inclusion_path(js);
        else if (i == 2) p.top_proof = read_inclusion_path(js);
        else if (i == 3) p.root = read_domain(js);
        else p.leaf = read_domain(js);
      });
      proof.data = std::move(p);
    } else {
      js.fail("unknown variant \"" + variant + "\" (expected Single, Sub or Top)");
    }
    std::string extra;
    if (js.next_key(extra)) js.fail("more than one variant");
  });
  return proof;
}

stacked::column_proof read_column_proof(json_stream& js) {
  stacked::column_proof cp;
  static constexpr std::array<std::string_view, 2> f{"column", "inclusion_proof"};
  static constexpr std::array<std::string_view, 2> col{"index", "rows"};  // "_h" (null) is ignored
  read_fields(js, f, [&](std::size_t i) {
    if (i == 0)
      read_fields(js, col, [&](std::size_t j) {
        if (j == 0) cp.column.index = std::uint32_t(js.read_u64(UINT32_MAX));
        else cp.column.rows = read_domains(js, any_proof_bounds().layers, "rows (layers)");
      });
    else
      cp.inclusion_proof = read_merkle_proof(js);
  });
  return cp;
}

template <class P>
P read_labeling(json_stream& js) {  // LabelingProof and EncodingProof have the same fields
  P p;
  static constexpr std::array<std::string_view, 3> f{"parents", "layer_index", "node"};
  read_fields(js, f, [&](std::size_t i) {
    if (i == 0) p.parents = read_domains(js, c1_bounds::parents, "parents");
    else if (i == 1) p.layer_index = std::uint32_t(js.read_u64(UINT32_MAX));
    else p.node = js.read_u64();
  });
  return p;
}

stacked::proof read_stacked_proof(json_stream& js) {
  stacked::proof p;
  static constexpr std::array<std::string_view, 5> f{"comm_d_proofs", "comm_r_last_proof", "replica_column_proofs",
                                                     "labeling_proofs", "encoding_proof"};
  static constexpr std::array<std::string_view, 3> rcp{"c_x", "drg_parents", "exp_parents"};
  read_fields(js, f, [&](std::size_t i) {
    switch (i) {
      case 0: p.comm_d_proofs = read_merkle_proof(js); break;
      case 1: p.comm_r_last_proof = read_merkle_proof(js); break;
      case 2:
        read_fields(js, rcp, [&](std::size_t j) {
          auto& r = p.replica_column_proofs;
          if (j == 0) r.c_x = read_column_proof(js);
          else
            read_array_max(js, j == 1 ? base_degree : stacked::exp_degree, j == 1 ? "DRG parents" : "expander parents",
                           [&] { (j == 1 ? r.drg_parents : r.exp_parents).push_back(read_column_proof(js)); });
        });
        break;
      case 3:
        read_array_max(js, any_proof_bounds().layers, "labeling proofs (layers)",
                       [&] { p.labeling_proofs.push_back(read_labeling<stacked::labeling_proof>(js)); });
        break;
      default: p.encoding_proof = read_labeling<stacked::encoding_proof>(js); break;
    }
  });
  return p;
}

// Partitions and challenges: the registered proof's own when it came first (serde writes it first),
// else the most of any.
c1_bounds partition_bounds(const seal_commit_phase1_output& out) {
  c1_bounds b = any_proof_bounds();
  if (out.registered_proof) b.partitions = out.registered_proof->partitions, b.challenges = out.registered_proof->challenges_per_partition;
  return b;
}

constexpr std::array<std::string_view, 7> phase1_fields{"registered_proof", "vanilla_proofs", "comm_r", "comm_d",
                                                        "replica_id", "seed", "ticket"};

// One field of SealCommitPhase1Output (the object is open).
void read_phase1_field(json_stream& js, std::size_t i, seal_commit_phase1_output& out) {
  switch (i) {
    case 0: {
      const auto name = js.read_string(128);
      out.registered_proof = find_seal_proof(name);
      if (!out.registered_proof) js.fail("unknown registered proof \"" + name + "\"");
      break;
    }
    case 1: {
      js.begin_object();
      if (!js.next_key(out.vanilla_proofs_variant)) js.fail("expected a VanillaSealProof variant");
      const auto b = partition_bounds(out);
      read_array_max(js, b.partitions, "partitions", [&] {
        out.vanilla_proofs.emplace_back();
        read_array_max(js, b.challenges, "challenges",
                       [&] { out.vanilla_proofs.back().push_back(read_stacked_proof(js)); });
      });
      std::string extra;
      if (js.next_key(extra)) js.fail("more than one variant");
      break;
    }
    case 2: out.comm_r = read_domain(js); break;
    case 3: out.comm_d = read_domain(js); break;
    case 4: out.replica_id = read_domain(js); break;
    case 5: out.seed = read_domain(js); break;
    default: out.ticket = read_domain(js); break;
  }
}

seal_commit_phase1_output read_phase1(json_stream& js) {
  seal_commit_phase1_output out;
  read_fields(js, phase1_fields, [&](std::size_t i) { read_phase1_field(js, i, out); });
  return out;
}

// Phase1Out's base64 text (the outer parser's current string), decoded as it is read.
class base64_source final : public byte_source {
 public:
  explicit base64_source(json_stream& outer) : outer_(outer) {}

  std::size_t read(std::uint8_t* dst, std::size_t cap) override {
    std::size_t n = 0;
    while (n < cap) {
      if (out_pos_ < out_len_) {
        const std::size_t k = std::min(cap - n, out_len_ - out_pos_);
        std::copy_n(out_.begin() + std::ptrdiff_t(out_pos_), k, dst + n);
        n += k, out_pos_ += k;
        continue;
      }
      if (done_) break;
      decode_more();
    }
    return n;
  }

 private:
  static int sextet(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  }
  void decode_more() {
    out_pos_ = out_len_ = 0;
    const std::size_t got = outer_.read_string_raw(raw_.data(), raw_.size());
    if (got == 0) {  // end of the string
      if (nq_ == 1) outer_.fail("truncated base64");
      flush_partial();
      done_ = true;
      return;
    }
    for (std::size_t i = 0; i < got; ++i) {
      const char c = raw_[i];
      if (c == '=') {
        if (nq_ < 2 || ++pads_ > 2) outer_.fail("bad base64 padding");
        continue;
      }
      if (pads_) outer_.fail("base64 data after padding");
      const int s = sextet(c);
      if (s < 0) outer_.fail(std::string("not base64: character '") + c + "'");
      acc_ = acc_ << 6 | std::uint32_t(s);
      if (++nq_ == 4) {
        out_[out_len_++] = std::uint8_t(acc_ >> 16);
        out_[out_len_++] = std::uint8_t(acc_ >> 8);
        out_[out_len_++] = std::uint8_t(acc_);
        acc_ = 0, nq_ = 0;
      }
    }
  }
  void flush_partial() {
    if (nq_ == 2) out_[out_len_++] = std::uint8_t(acc_ >> 4);
    if (nq_ == 3) out_[out_len_++] = std::uint8_t(acc_ >> 10), out_[out_len_++] = std::uint8_t(acc_ >> 2);
    nq_ = 0;
  }

  json_stream& outer_;
  std::array<char, 1 << 16> raw_{};
  std::array<std::uint8_t, (1 << 16) / 4 * 3> out_{};
  std::size_t out_pos_ = 0, out_len_ = 0;
  std::uint32_t acc_ = 0;
  int nq_ = 0, pads_ = 0;
  bool done_ = false;
};

// ---- writing ---------------------------------------------------------------------------------

void put(std::string& s, const domain& d) {
  s += '[';
  for (std::size_t i = 0; i < 32; ++i) {
    if (i) s += ',';
    s += std::to_string(d[i]);
  }
  s += ']';
}
void put(std::string& s, const std::vector<domain>& v) {
  s += '[';
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += ',';
    put(s, v[i]);
  }
  s += ']';
}
void put(std::string& s, const merkle::inclusion_path& p) {
  s += "{\"path\":[";
  for (std::size_t i = 0; i < p.path.size(); ++i) {
    if (i) s += ',';
    s += "{\"hashes\":";
    put(s, p.path[i].hashes);
    s += ",\"index\":" + std::to_string(p.path[i].index) + "}";
  }
  s += "]}";
}
void put(std::string& s, const merkle::merkle_proof& m) {
  s += "{\"data\":";
  if (const auto* p = std::get_if<merkle::single_proof>(&m.data)) {
    s += "{\"Single\":{\"root\":", put(s, p->root), s += ",\"leaf\":", put(s, p->leaf);
    s += ",\"path\":", put(s, p->path), s += "}}";
  } else if (const auto* p = std::get_if<merkle::sub_tree_proof>(&m.data)) {
    s += "{\"Sub\":{\"base_proof\":", put(s, p->base_proof), s += ",\"sub_proof\":", put(s, p->sub_proof);
    s += ",\"root\":", put(s, p->root), s += ",\"leaf\":", put(s, p->leaf), s += "}}";
  } else {
    const auto& t = std::get<merkle::top_tree_proof>(m.data);
    s += "{\"Top\":{\"base_proof\":", put(s, t.base_proof), s += ",\"sub_proof\":", put(s, t.sub_proof);
    s += ",\"top_proof\":", put(s, t.top_proof), s += ",\"root\":", put(s, t.root), s += ",\"leaf\":", put(s, t.leaf);
    s += "}}";
  }
  s += '}';
}
void put(std::string& s, const stacked::column_proof& c) {
  s += "{\"column\":{\"index\":" + std::to_string(c.column.index) + ",\"rows\":";
  put(s, c.column.rows);
  s += ",\"_h\":null},\"inclusion_proof\":";
  put(s, c.inclusion_proof);
  s += '}';
}
template <class P>
void put_labeling(std::string& s, const P& p) {
  s += "{\"parents\":";
  put(s, p.parents);
  s += ",\"layer_index\":" + std::to_string(p.layer_index) + ",\"node\":" + std::to_string(p.node) + "}";
}
void put(std::string& s, const stacked::proof& p) {
  s += "{\"comm_d_proofs\":", put(s, p.comm_d_proofs);
  s += ",\"comm_r_last_proof\":", put(s, p.comm_r_last_proof);
  s += ",\"replica_column_proofs\":{\"c_x\":", put(s, p.replica_column_proofs.c_x);
  for (int k = 0; k < 2; ++k) {
    const auto& v = k == 0 ? p.replica_column_proofs.drg_parents : p.replica_column_proofs.exp_parents;
    s += k == 0 ? ",\"drg_parents\":[" : ",\"exp_parents\":[";
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i) s += ',';
      put(s, v[i]);
    }
    s += ']';
  }
  s += "},\"labeling_proofs\":[";
  for (std::size_t i = 0; i < p.labeling_proofs.size(); ++i) {
    if (i) s += ',';
    put_labeling(s, p.labeling_proofs[i]);
  }
  s += "],\"encoding_proof\":";
  put_labeling(s, p.encoding_proof);
  s += '}';
}

std::string base64(std::string_view bytes) {
  static constexpr char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t v = std::uint32_t(std::uint8_t(bytes[i])) << 16 | std::uint32_t(std::uint8_t(bytes[i + 1])) << 8 |
                            std::uint8_t(bytes[i + 2]);
    out += a[v >> 18], out += a[(v >> 12) & 63], out += a[(v >> 6) & 63], out += a[v & 63];
  }
  if (const std::size_t rest = bytes.size() - i) {
    std::uint32_t v = std::uint32_t(std::uint8_t(bytes[i])) << 16;
    if (rest == 2) v |= std::uint32_t(std::uint8_t(bytes[i + 1])) << 8;
    out += a[v >> 18], out += a[(v >> 12) & 63];
    out += rest == 2 ? a[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

// ---- shape checks ----------------------------------------------------------------------------

struct shape_error {
  const std::string& origin;
  [[noreturn]] void operator()(const std::string& field, const std::string& what) const {
    throw zk::input_error(origin + ": " + field + ": " + what);
  }
};

unsigned log_arity(std::uint64_t n, unsigned arity) {
  unsigned k = 0;
  while (n > 1) n /= arity, ++k;
  return k;
}

void check_path(const merkle::inclusion_path& p, unsigned arity, unsigned levels, const std::string& field,
                const shape_error& err) {
  if (p.path.size() != levels)
    err(field, "expected " + std::to_string(levels) + " levels, found " + std::to_string(p.path.size()));
  for (std::size_t i = 0; i < p.path.size(); ++i) {
    const auto& e = p.path[i];
    if (e.hashes.size() != arity - 1)
      err(field + ".path[" + std::to_string(i) + "].hashes",
          "expected " + std::to_string(arity - 1) + " hashes, found " + std::to_string(e.hashes.size()));
    if (e.index >= arity)
      err(field + ".path[" + std::to_string(i) + "].index", "index " + std::to_string(e.index) + " >= arity " +
                                                                std::to_string(arity));
  }
}

// A Merkle proof over `nodes` leaves in a tree of this shape (tree_shape{2,0,0}: comm_d's binary tree).
void check_merkle(const merkle::merkle_proof& m, std::uint64_t nodes, tree_shape t, std::uint64_t challenge,
                  const std::string& field, const shape_error& err) {
  const unsigned want_kind = t.top ? 2 : t.sub ? 1 : 0;
  static constexpr const char* kinds[] = {"Single", "Sub", "Top"};
  if (m.kind() != want_kind)
    err(field + ".data", std::string("expected a ") + kinds[want_kind] + " proof, found " + kinds[m.kind()]);
  const std::uint64_t base_leaves = nodes / (t.sub ? t.sub : 1) / (t.top ? t.top : 1);
  const unsigned base_levels = log_arity(base_leaves, t.base);
  std::uint64_t index = 0;
  if (const auto* p = std::get_if<merkle::single_proof>(&m.data)) {
    check_path(p->path, t.base, base_levels, field + ".data.Single.path", err);
    index = p->path.path_index(t.base);
  } else if (const auto* p = std::get_if<merkle::sub_tree_proof>(&m.data)) {
    check_path(p->base_proof, t.base, base_levels, field + ".data.Sub.base_proof", err);
    check_path(p->sub_proof, t.sub, 1, field + ".data.Sub.sub_proof", err);
    index = p->sub_proof.path_index(t.sub) * base_leaves + p->base_proof.path_index(t.base);
  } else {
    const auto& q = std::get<merkle::top_tree_proof>(m.data);
    check_path(q.base_proof, t.base, base_levels, field + ".data.Top.base_proof", err);
    check_path(q.sub_proof, t.sub, 1, field + ".data.Top.sub_proof", err);
    check_path(q.top_proof, t.top, 1, field + ".data.Top.top_proof", err);
    index = (q.top_proof.path_index(t.top) * t.sub + q.sub_proof.path_index(t.sub)) * base_leaves +
            q.base_proof.path_index(t.base);
  }
  if (index != challenge)
    err(field, "path proves node " + std::to_string(index) + ", expected " + std::to_string(challenge));
}

}  // namespace

namespace {

// The serial read (streamed), without the checks of finish_c1.
c1_output parse_c1(byte_source& src, const std::string& origin) {
  json_stream js(src, origin);
  c1_output out;
  js.begin_object();
  std::string key;
  bool have_num = false, have_size = false, have_out = false;
  std::bitset<phase1_fields.size()> bare;
  while (js.next_key(key)) {
    if (key == "SectorNum" || key == "SectorSize" || key == "Phase1Out") {
      if (bare.any()) js.fail("a wrapper field next to SealCommitPhase1Output fields");
      out.wrapped = true;
      bool& seen = key == "SectorNum" ? have_num : key == "SectorSize" ? have_size : have_out;
      if (seen) js.fail("duplicate field");
      seen = true;
      if (key == "SectorNum") {
        out.sector_num = js.read_u64();
      } else if (key == "SectorSize") {
        out.sector_size = js.read_u64();
      } else {
        js.begin_string();
        base64_source b64(js);
        json_stream inner(b64, origin + ": Phase1Out");
        out.phase1_out = read_phase1(inner);
        inner.expect_end();
      }
      continue;
    }
    const auto it = std::find(phase1_fields.begin(), phase1_fields.end(), key);
    if (it == phase1_fields.end()) {
      js.skip_value();
      continue;
    }
    if (out.wrapped) js.fail("a SealCommitPhase1Output field next to wrapper fields");
    const auto i = std::size_t(it - phase1_fields.begin());
    if (bare[i]) js.fail("duplicate field");
    bare[i] = true;
    read_phase1_field(js, i, out.phase1_out);
  }
  js.expect_end();
  if (out.wrapped) {
    if (!have_num) js.fail("missing field \"SectorNum\"");
    if (!have_size) js.fail("missing field \"SectorSize\"");
    if (!have_out) js.fail("missing field \"Phase1Out\"");
  } else {
    for (std::size_t i = 0; i < phase1_fields.size(); ++i)
      if (!bare[i])
        js.fail(bare.none() ? "neither a C1 wrapper (SectorNum, Phase1Out, SectorSize) nor a SealCommitPhase1Output"
                            : "missing field \"" + std::string(phase1_fields[i]) + "\"");
  }
  return out;
}

// The checks every read ends with (the same on the serial and the parallel read's output).
void finish_c1(const c1_output& out, const std::string& origin) {
  const std::string inner_origin = out.wrapped ? origin + ": Phase1Out" : origin;
  check_shape(out.phase1_out, inner_origin);
  if (out.wrapped && out.sector_size != out.phase1_out.registered_proof->sector_size)
    throw zk::input_error(origin + ": SectorSize: " + std::to_string(out.sector_size) + " but Phase1Out is " +
                          std::string(out.phase1_out.registered_proof->name) + " (" +
                          std::to_string(out.phase1_out.registered_proof->sector_size) + " bytes)");
}

// ---- the parallel read (bytes in memory) -----------------------------------------------------
// Curio's wrapper as it is written (the three fields, Phase1Out padded base64 with no escapes; or a
// bare SealCommitPhase1Output): Phase1Out decoded on the pool into memory, a bracket scan (strings
// skipped) finds where each partition's array ends, and the partitions are parsed on the pool, each
// by its own json_stream with the serial reader's functions. Anything else (an escape, another
// key, a damaged byte) gives up (not_fast) and the serial read decides: its result, or its error,
// so both reads give the same output and the same one-line errors.
struct not_fast {};

constexpr std::size_t npos = std::size_t(-1);

// One past the bracket closing the array or object that starts at t[at], or npos.
std::size_t value_end(std::span<const std::uint8_t> t, std::size_t at) {
  if (at >= t.size() || (t[at] != '[' && t[at] != '{')) return npos;
  std::size_t depth = 0;
  for (std::size_t i = at; i < t.size(); ++i) {
    const std::uint8_t c = t[i];
    if (c == '"') {
      for (++i; i < t.size() && t[i] != '"'; ++i)
        if (t[i] == '\\') ++i;
      if (i >= t.size()) return npos;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      if (--depth == 0) return i + 1;
    }
  }
  return npos;
}

constexpr std::array<std::int8_t, 256> sextets = [] {
  std::array<std::int8_t, 256> t{};
  for (auto& v : t) v = -1;
  for (int i = 0; i < 26; ++i) t[std::size_t('A' + i)] = std::int8_t(i), t[std::size_t('a' + i)] = std::int8_t(26 + i);
  for (int i = 0; i < 10; ++i) t[std::size_t('0' + i)] = std::int8_t(52 + i);
  t[std::size_t('+')] = 62, t[std::size_t('/')] = 63;
  return t;
}();

// Padded base64 (length a multiple of 4, '=' only as the last one or two) decoded on the pool.
std::vector<std::uint8_t> decode_base64(std::span<const std::uint8_t> s, zk::thread_pool& pool) {
  if (s.empty() || s.size() % 4) throw not_fast{};
  const std::size_t pads = s.back() != '=' ? 0 : s[s.size() - 2] != '=' ? 1 : 2;
  if (pads == 2 && s.size() >= 3 && s[s.size() - 3] == '=') throw not_fast{};
  const std::size_t quads = s.size() / 4;
  std::vector<std::uint8_t> out(quads * 3);
  std::atomic<bool> bad{false};
  auto quad = [&](std::size_t q, unsigned n) {  // n: the quad's data characters (4, or 4 - pads)
    std::uint32_t acc = 0;
    for (unsigned k = 0; k < n; ++k) {
      const int v = sextets[s[4 * q + k]];
      if (v < 0) return false;
      acc = acc << 6 | std::uint32_t(v);
    }
    acc <<= 6 * (4 - n);
    out[3 * q] = std::uint8_t(acc >> 16), out[3 * q + 1] = std::uint8_t(acc >> 8), out[3 * q + 2] = std::uint8_t(acc);
    return true;
  };
  constexpr std::size_t per_chunk = std::size_t{1} << 16;  // quads
  const std::size_t full = quads - 1;                      // the last quad may hold the padding
  pool.run((full + per_chunk - 1) / per_chunk, [&](std::size_t c) {
    const std::size_t end = std::min(full, (c + 1) * per_chunk);
    for (std::size_t q = c * per_chunk; q < end; ++q)
      if (!quad(q, 4)) return bad.store(true);
  });
  if (bad || !quad(quads - 1, unsigned(4 - pads))) throw not_fast{};
  out.resize(out.size() - pads);
  return out;
}

// A SealCommitPhase1Output's JSON in memory, its partitions parsed on the pool.
seal_commit_phase1_output parse_phase1_parallel(std::span<const std::uint8_t> text, const std::string& origin,
                                                zk::thread_pool& pool) {
  memory_source src(text);
  json_stream js(src, origin);
  seal_commit_phase1_output out;
  std::vector<std::span<const std::uint8_t>> parts;
  read_fields(js, phase1_fields, [&](std::size_t i) {
    if (i != 1) return read_phase1_field(js, i, out);
    js.begin_object();
    if (!js.next_key(out.vanilla_proofs_variant)) throw not_fast{};
    js.begin_array();
    const std::size_t max_parts = partition_bounds(out).partitions;
    while (js.next_element()) {
      if (parts.size() == max_parts) throw not_fast{};  // the serial read names the field
      js.peek();  // past the whitespace
      const std::size_t at = std::size_t(js.offset()), end = value_end(text, at);
      if (end == npos) throw not_fast{};
      parts.push_back(text.subspan(at, end - at));
      js.skip_raw(end - at);
    }
    std::string extra;
    if (js.next_key(extra)) throw not_fast{};
  });
  js.expect_end();
  out.vanilla_proofs.resize(parts.size());
  std::atomic<bool> bad{false};
  pool.run(parts.size(), [&](std::size_t k) {
    try {
      memory_source ps(parts[k]);
      json_stream pj(ps, origin);
      read_array_max(pj, partition_bounds(out).challenges, "challenges",
                     [&] { out.vanilla_proofs[k].push_back(read_stacked_proof(pj)); });
      pj.expect_end();
    } catch (...) {
      bad = true;
    }
  });
  if (bad) throw not_fast{};
  return out;
}

std::optional<c1_output> parse_c1_parallel(std::span<const std::uint8_t> bytes, const std::string& origin,
                                           zk::thread_pool& pool) {
  try {
    memory_source src(bytes);
    json_stream js(src, origin);
    c1_output out;
    js.begin_object();
    std::string key;
    bool have_num = false, have_size = false, have_out = false;
    for (bool first = true; js.next_key(key); first = false) {
      if (first && std::find(phase1_fields.begin(), phase1_fields.end(), key) != phase1_fields.end()) {
        out.phase1_out = parse_phase1_parallel(bytes, origin, pool);  // bare: the whole input
        return out;
      }
      if (key == "SectorNum" && !have_num) {
        have_num = true;
        out.sector_num = js.read_u64();
      } else if (key == "SectorSize" && !have_size) {
        have_size = true;
        out.sector_size = js.read_u64();
      } else if (key == "Phase1Out" && !have_out) {
        have_out = true;
        js.begin_string();
        const std::size_t at = std::size_t(js.offset());
        const auto* q = static_cast<const std::uint8_t*>(std::memchr(bytes.data() + at, '"', bytes.size() - at));
        if (!q) throw not_fast{};
        const std::size_t len = std::size_t(q - bytes.data()) - at;
        const auto text = decode_base64(bytes.subspan(at, len), pool);  // a backslash is not base64
        js.skip_raw(len + 1);
        out.phase1_out = parse_phase1_parallel(text, origin + ": Phase1Out", pool);
      } else {
        throw not_fast{};
      }
    }
    js.expect_end();
    if (!have_num || !have_size || !have_out) throw not_fast{};
    out.wrapped = true;
    return out;
  } catch (const not_fast&) {
  } catch (const zk::input_error&) {
  }
  return std::nullopt;
}

}  // namespace

namespace {
std::atomic<std::uint64_t> reads{0};
}  // namespace

std::uint64_t c1_reads() { return reads.load(); }

c1_output read_c1(byte_source& src, const std::string& origin) {
  reads.fetch_add(1);
  auto out = parse_c1(src, origin);
  finish_c1(out, origin);
  return out;
}

c1_output read_c1(std::span<const std::uint8_t> bytes, const std::string& origin, zk::thread_pool& pool) {
  reads.fetch_add(1);
  std::optional<c1_output> out;
  if (pool.size() > 1) out = parse_c1_parallel(bytes, origin, pool);
  if (!out) {
    memory_source src(bytes);
    out = parse_c1(src, origin);
  }
  finish_c1(*out, origin);
  return std::move(*out);
}

c1_output read_c1_file(const std::string& path, const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  file_source src(path);
  if (progress) src.on_progress(progress);
  return read_c1(src, path);
}

void check_shape(const seal_commit_phase1_output& c1, const std::string& origin) {
  const shape_error err{origin};
  const auto& rp = *c1.registered_proof;
  if (c1.vanilla_proofs_variant != rp.vanilla_key)
    err("vanilla_proofs", "variant " + c1.vanilla_proofs_variant + " does not match registered_proof " +
                              std::string(rp.name) + " (expected " + std::string(rp.vanilla_key) + ")");
  const std::string vp = "vanilla_proofs." + c1.vanilla_proofs_variant;
  if (c1.vanilla_proofs.size() != rp.partitions)
    err(vp, "expected " + std::to_string(rp.partitions) + " partitions, found " + std::to_string(c1.vanilla_proofs.size()));
  const std::uint64_t nodes = rp.nodes();
  for (std::size_t k = 0; k < c1.vanilla_proofs.size(); ++k) {
    const auto& part = c1.vanilla_proofs[k];
    const std::string pk = vp + "[" + std::to_string(k) + "]";
    if (part.size() != rp.challenges_per_partition)
      err(pk, "expected " + std::to_string(rp.challenges_per_partition) + " challenges, found " +
                  std::to_string(part.size()));
    for (std::size_t j = 0; j < part.size(); ++j) {
      const auto& p = part[j];
      const std::string f = pk + "[" + std::to_string(j) + "]";
      const std::uint64_t c = p.challenge();
      if (c >= nodes) err(f + ".replica_column_proofs.c_x.column.index", "challenge " + std::to_string(c) + " >= nodes");
      check_merkle(p.comm_d_proofs, nodes, tree_shape{2, 0, 0}, c, f + ".comm_d_proofs", err);
      check_merkle(p.comm_r_last_proof, nodes, rp.tree, c, f + ".comm_r_last_proof", err);
      const auto& r = p.replica_column_proofs;
      if (r.drg_parents.size() != base_degree)
        err(f + ".replica_column_proofs.drg_parents", "expected 6 columns, found " + std::to_string(r.drg_parents.size()));
      if (r.exp_parents.size() != stacked::exp_degree)
        err(f + ".replica_column_proofs.exp_parents", "expected 8 columns, found " + std::to_string(r.exp_parents.size()));
      auto check_column = [&](const stacked::column_proof& cp, const std::string& cf) {
        if (cp.column.rows.size() != rp.layers)
          err(cf + ".column.rows", "expected " + std::to_string(rp.layers) + " rows, found " +
                                       std::to_string(cp.column.rows.size()));
        if (cp.column.index >= nodes) err(cf + ".column.index", "node " + std::to_string(cp.column.index) + " >= nodes");
        check_merkle(cp.inclusion_proof, nodes, rp.tree, cp.column.index, cf + ".inclusion_proof", err);
      };
      check_column(r.c_x, f + ".replica_column_proofs.c_x");
      for (std::size_t i = 0; i < r.drg_parents.size(); ++i)
        check_column(r.drg_parents[i], f + ".replica_column_proofs.drg_parents[" + std::to_string(i) + "]");
      for (std::size_t i = 0; i < r.exp_parents.size(); ++i)
        check_column(r.exp_parents[i], f + ".replica_column_proofs.exp_parents[" + std::to_string(i) + "]");
      if (p.labeling_proofs.size() != rp.layers)
        err(f + ".labeling_proofs", "expected " + std::to_string(rp.layers) + " proofs, found " +
                                        std::to_string(p.labeling_proofs.size()));
      for (std::size_t l = 0; l < p.labeling_proofs.size(); ++l) {
        const auto& lp = p.labeling_proofs[l];
        const std::string lf = f + ".labeling_proofs[" + std::to_string(l) + "]";
        if (lp.parents.size() != stacked::total_parents)
          err(lf + ".parents", "expected 37 parents, found " + std::to_string(lp.parents.size()));
        if (lp.layer_index != l + 1) err(lf + ".layer_index", "expected " + std::to_string(l + 1));
        if (lp.node != c) err(lf + ".node", "expected the challenge " + std::to_string(c));
      }
      if (p.encoding_proof.parents.size() != stacked::total_parents)
        err(f + ".encoding_proof.parents", "expected 37 parents, found " + std::to_string(p.encoding_proof.parents.size()));
      if (p.encoding_proof.node != c) err(f + ".encoding_proof.node", "expected the challenge " + std::to_string(c));
    }
  }
}

std::string to_json(const seal_commit_phase1_output& c1) {
  std::string s = "{\"registered_proof\":\"" + std::string(c1.registered_proof->name) + "\",\"vanilla_proofs\":{\"" +
                  c1.vanilla_proofs_variant + "\":[";
  for (std::size_t k = 0; k < c1.vanilla_proofs.size(); ++k) {
    if (k) s += ',';
    s += '[';
    for (std::size_t j = 0; j < c1.vanilla_proofs[k].size(); ++j) {
      if (j) s += ',';
      put(s, c1.vanilla_proofs[k][j]);
    }
    s += ']';
  }
  s += "]},\"comm_r\":", put(s, c1.comm_r), s += ",\"comm_d\":", put(s, c1.comm_d);
  s += ",\"replica_id\":", put(s, c1.replica_id), s += ",\"seed\":", put(s, c1.seed);
  s += ",\"ticket\":", put(s, c1.ticket), s += '}';
  return s;
}

std::string wrap_c1(const std::string& phase1_json, std::uint64_t sector_num, std::uint64_t sector_size) {
  return "{\"SectorNum\":" + std::to_string(sector_num) + ",\"Phase1Out\":\"" + base64(phase1_json) +
         "\",\"SectorSize\":" + std::to_string(sector_size) + "}";
}

}  // namespace cuzk::fil::io
