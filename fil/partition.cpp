#include "fil/partition.hpp"

#include <algorithm>
#include <filesystem>

#include "fil/circuit/empty_sector_update.hpp"
#include "fil/circuit/fallback_post.hpp"
#include "fil/circuit/stacked.hpp"
#include "fil/ids.hpp"
#include "fil/io/c1_json.hpp"
#include "fil/io/post_bincode.hpp"
#include "fil/io/update_bincode.hpp"
#include "fil/merkle/verify.hpp"
#include "fil/parameter_cache.hpp"
#include "fil/post/fallback.hpp"
#include "fil/stacked/public_inputs.hpp"
#include "zk/cs/export.hpp"
#include "zk/error.hpp"
#include "zk/groth16/bellperson_key.hpp"
#include "zk/io/bellperson.hpp"

namespace cuzk::fil {

const char* to_string(proof_kind k) {
  switch (k) {
    case proof_kind::porep_seal_commit: return "PoRep C2";
    case proof_kind::snap_deals_update: return "SnapDeals";
    case proof_kind::window_post_partition: return "WindowPoSt";
    case proof_kind::winning_post: return "WinningPoSt";
  }
  return "unknown proof kind";
}

std::string_view registered_proof_name(proof_kind kind, std::uint64_t n) {
  // Both tables are in abi order (fil/registered_proof.cpp): the index is the abi number.
  switch (kind) {
    case proof_kind::porep_seal_commit:
      if (n < seal_proofs().size()) return seal_proofs()[n].name;
      break;
    case proof_kind::snap_deals_update:
      if (n < update::update_proofs().size()) return update::update_proofs()[n].name;
      break;
    case proof_kind::window_post_partition:
    case proof_kind::winning_post:
      if (n < post_proofs().size()) return post_proofs()[n].name;
      break;
  }
  throw zk::input_error("registered_proof: " + std::to_string(n) + " is not a registered " + to_string(kind) +
                        " proof number");
}

namespace {
std::string cache_id(const circuit_ref& c) {
  if (c.update) return update::parameter_cache_id(update::from_sector_size(c.update->sector_size));
  return c.seal ? parameter_cache_id(*c.seal) : parameter_cache_id(*c.post);
}
}  // namespace

std::string circuit_ref::params_file() const { return cache_id(*this) + ".params"; }
std::string circuit_ref::vk_file() const { return cache_id(*this) + ".vk"; }
unsigned circuit_ref::partitions() const {
  if (update) return update::from_sector_size(update->sector_size).partition_count;
  return seal ? seal->partitions : 1;
}
std::uint64_t circuit_ref::sector_size() const {
  return update ? update->sector_size : seal ? seal->sector_size : post->sector_size;
}
bool circuit_ref::implemented() const { return post != nullptr || seal != nullptr || update != nullptr; }
std::string circuit_ref::describe() const {
  return std::string(to_string(kind)) + " " + std::string(update ? update->name : seal ? seal->name : post->name);
}

circuit_ref resolve_update_circuit(std::string_view name) {
  circuit_ref c;
  c.kind = proof_kind::snap_deals_update;
  c.update = update::find_update_proof(name);
  if (!c.update)
    throw zk::input_error("registered_proof: '" + std::string(name) + "' is not a registered update proof (e.g. StackedDrg32GiBV1)");
  return c;
}

circuit_ref resolve_circuit(proof_kind kind, std::string_view name, std::uint64_t sector_size) {
  circuit_ref c;
  c.kind = kind;
  switch (kind) {
    case proof_kind::snap_deals_update:
      c.update = update::find_update_proof(name);
      if (!c.update) throw zk::input_error("registered_proof: '" + std::string(name) + "' is not a registered update proof");
      break;
    case proof_kind::porep_seal_commit:
      c.seal = find_seal_proof(name);
      if (!c.seal) throw zk::input_error("registered_proof: '" + std::string(name) + "' is not a registered seal proof");
      break;
    case proof_kind::window_post_partition:
    case proof_kind::winning_post: {
      c.post = find_post_proof(name);
      const auto want = kind == proof_kind::winning_post ? post_type::winning : post_type::window;
      if (!c.post || c.post->type != want)
        throw zk::input_error("registered_proof: '" + std::string(name) + "' is not a registered " + to_string(kind) +
                              " proof");
      break;
    }
    default:
      throw zk::input_error("proof_kind: " + std::to_string(int(kind)) + " is not a proof kind");
  }
  if (sector_size && sector_size != c.sector_size())
    throw zk::input_error("sector_size: " + std::to_string(sector_size) + " does not match registered_proof " +
                          std::string(name) + " (" + std::to_string(c.sector_size()) + " bytes)");
  return c;
}

std::optional<circuit_ref> circuit_for_params(std::string_view path) {
  std::string file = std::filesystem::path(path).filename().string();
  for (const char* ext : {".params", ".vk"})
    if (file.ends_with(ext)) file.resize(file.size() - std::string_view(ext).size());
  for (const auto& p : post_proofs())
    if (parameter_cache_id(p) == file)
      return circuit_ref{p.type == post_type::winning ? proof_kind::winning_post : proof_kind::window_post_partition,
                         nullptr, &p};
  for (const auto& p : seal_proofs())
    if (parameter_cache_id(p) == file) return circuit_ref{proof_kind::porep_seal_commit, &p, nullptr};
  for (const auto& p : update::update_proofs())
    if (update::parameter_cache_id(update::from_sector_size(p.sector_size)) == file)
      return circuit_ref{proof_kind::snap_deals_update, nullptr, nullptr, &p};
  return std::nullopt;
}

namespace {

circuit::tree_arities arities(const tree_shape& t) { return {t.base, t.sub, t.top}; }

void require_implemented(const circuit_ref& c) {
  if (!c.implemented()) throw not_implemented(c.describe() + ": not implemented");
}

}  // namespace

// The C1 output of a PoRep job, read and checked: its registered proof's circuit is the request's
// (same parameter file), and its replica_id is that of the request's miner and sector (a C1 of
// another sector would give a valid proof that the chain rejects).
c1_output read_porep_c1(const circuit_ref& c, const job_input& in, zk::thread_pool* pool) {
  if (in.c1.empty()) throw zk::input_error("vanilla_proof: empty (PoRep needs Curio's C1 wrapper JSON)");
  auto c1 = io::read_c1(std::span<const std::uint8_t>(in.c1), "vanilla_proof", pool ? *pool : zk::default_pool());
  check_porep_c1(c, in, c1);
  return c1;
}

void check_porep_c1(const circuit_ref& c, const job_input& in, const c1_output& c1) {
  const auto& p1 = c1.phase1_out;
  if (!p1.registered_proof || p1.registered_proof->name != c.seal->name)
    throw zk::input_error("vanilla_proof: Phase1Out.registered_proof is " +
                          std::string(p1.registered_proof ? p1.registered_proof->name : "missing") +
                          ", the request's registered_proof " + std::string(c.seal->name));
  if (c1.wrapped && c1.sector_num != in.sector_number)
    throw zk::input_error("vanilla_proof: SectorNum is " + std::to_string(c1.sector_num) + ", the request's sector_number " +
                          std::to_string(in.sector_number));
  if (fil::replica_id(prover_id(in.miner_id), in.sector_number, p1.ticket, p1.comm_d, porep_id(*p1.registered_proof)) !=
      p1.replica_id)
    throw zk::input_error("vanilla_proof: Phase1Out.replica_id is not that of miner " + std::to_string(in.miner_id) +
                          ", sector " + std::to_string(in.sector_number) + " (another miner, sector, ticket or comm_d)");
}

namespace {

void require_porep_partition(const circuit_ref& c, std::uint32_t k) {
  if (k >= c.seal->partitions)
    throw zk::input_error("partition " + std::to_string(k) + ": " + std::string(c.seal->name) + " has " +
                          std::to_string(c.seal->partitions) + " partitions");
}

// What Filecoin's verifier computes from the seed and the sector.
std::vector<fr> porep_public_inputs(const c1_output& c1, std::uint32_t k) {
  const auto& p1 = c1.phase1_out;
  stacked::stacked_bucket_graph graph(p1.registered_proof->nodes(), porep_id(*p1.registered_proof),
                                      p1.registered_proof->version);
  stacked::public_inputs pub;
  pub.replica_id = p1.replica_id, pub.seed = p1.seed, pub.comm_d = p1.comm_d, pub.comm_r = p1.comm_r;
  return stacked::generate_public_inputs(*p1.registered_proof, graph, pub, k);
}

void synthesize_porep(zk::cs::constraint_system& cs, const circuit_ref& c, const job_input& in, std::uint32_t k,
                      zk::thread_pool& pool, const c1_output* parsed) {
  std::optional<c1_output> own;
  if (!parsed) own = read_porep_c1(c, in, &pool);
  const auto& c1 = parsed ? *parsed : *own;
  require_porep_partition(c, k);
  circuit::stacked_circuit(cs, circuit::porep_partition_from(c1.phase1_out, k), pool);  // checks paths and roots as it goes
  // The inputs Filecoin's verifier computes: the circuit's must equal them.
  const auto expected = porep_public_inputs(c1, k);
  const auto& got = cs.inputs();
  if (got.size() != expected.size() + 1)
    throw zk::input_error(c.describe() + " partition " + std::to_string(k) + ": the circuit has " +
                          std::to_string(got.size() - 1) + " public inputs, the verifier expects " +
                          std::to_string(expected.size()));
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (got[i + 1] != expected[i])
      throw zk::input_error(c.describe() + " partition " + std::to_string(k) + ": public input " + std::to_string(i) +
                            " of the C1 output differs from the verifier's (seed or challenges changed)");
}

// The circuit's sectors for the given ones: WinningPoSt proves one challenge in each of
// circuit_sector_count() copies of its sector; a short WindowPoSt partition repeats its last sector.
std::vector<circuit::post_sector> circuit_sectors(const post_proof_info& p, std::vector<circuit::post_sector> given) {
  std::vector<circuit::post_sector> out;
  if (p.type == post_type::winning) {
    const auto& s = given.at(0);
    for (std::size_t i = 0; i < s.leafs.size(); ++i) {
      auto one = s;
      one.leafs = {s.leafs[i]};
      one.paths = {s.paths[i]};
      out.push_back(std::move(one));
    }
    return out;
  }
  out = std::move(given);
  while (out.size() < p.sector_count) out.push_back(out.back());
  return out;
}

struct checked_post {
  std::vector<circuit::post_sector> sectors;
  std::vector<post::public_sector> publics;
};

checked_post check_post(const post_proof_info& p, const job_input& in, bool verify_paths) {
  const std::size_t n = in.vanilla_proofs.size();
  if (n == 0) throw zk::input_error("vanilla_proofs: no sector proofs");
  if (p.type == post_type::winning && n != p.sector_count)
    throw zk::input_error("vanilla_proofs: WinningPoSt proves " + std::to_string(p.sector_count) + " sector, " +
                          std::to_string(n) + " given");
  if (n > p.sector_count)
    throw zk::input_error("vanilla_proofs: " + std::to_string(n) + " sector proofs, a " + std::string(p.name) +
                          " partition holds at most " + std::to_string(p.sector_count));
  // The partition's index only places its sectors' challenges; no deadline has more partitions
  // than the actors allow (an index of 2^24 is a hostile request, not a proof to make).
  if (p.type == post_type::winning && in.partition_index != 0)
    throw zk::input_error("partition_index: " + std::to_string(in.partition_index) + ", a WinningPoSt has one partition (0)");
  if (in.partition_index >= max_partitions_per_deadline)
    throw zk::input_error("partition_index: " + std::to_string(in.partition_index) + ", a deadline has at most " +
                          std::to_string(max_partitions_per_deadline) + " partitions");
  domain_to_fr(in.randomness, "randomness");  // must be a field element (lotus clears the top bits)
  checked_post out;
  const auto shape = arities(p.tree);
  for (std::size_t i = 0; i < n; ++i) {
    const std::string origin = "vanilla_proofs[" + std::to_string(i) + "]";
    const auto proof = io::read_post_vanilla_proof(in.vanilla_proofs[i], origin);
    // Leaf challenges by the sector's index across the whole proof (API 1.2 ignores it).
    const std::uint64_t global = std::uint64_t{in.partition_index} * p.sector_count + i;
    const auto challenges = post::leaf_challenges(p, in.randomness, proof.sector_id,
                                                  p.type == post_type::winning ? 0 : global);
    const std::string sector = origin + " (sector " + std::to_string(proof.sector_id) + ")";
    io::check_post_shape(proof, p, challenges, sector);
    const auto& sp = proof.vanilla_proof.sectors[0];
    for (std::size_t c = 0; verify_paths && c < sp.inclusion_proofs.size(); ++c)
      if (!merkle::verify(sp.inclusion_proofs[c], merkle::tree_hasher::poseidon))
        throw zk::input_error(sector + ": challenge " + std::to_string(c) + " (leaf " + std::to_string(challenges[c]) +
                              "): inclusion_proofs[" + std::to_string(c) +
                              "]: the path does not lead from the leaf to comm_r_last");
    out.sectors.push_back(circuit::post_sector_from(proof, shape));
    out.publics.push_back(post::public_sector{proof.sector_id, proof.comm_r});
  }
  return out;
}

// WindowPoSt: the partition's own sectors at its index in the proof; WinningPoSt: its one sector.
std::vector<fr> post_public_inputs(const post_proof_info& p, const job_input& in,
                                   std::span<const post::public_sector> sectors) {
  return p.type == post_type::window ? post::partition_public_inputs(p, in.randomness, sectors, in.partition_index)
                                     : post::generate_public_inputs(p, in.randomness, sectors, 0);
}

}  // namespace

namespace {

std::string partition_origin(std::uint32_t k) {
  return "vanilla_proofs[" + std::to_string(k) + "] (partition " + std::to_string(k) + ")";
}

// The commitments as Curio sends them: field elements (update::public_inputs would refuse them
// later, naming no field).
update::commitments checked_commitments(const job_input& in) {
  domain_to_fr(in.comm_r_old, "comm_r_old");
  domain_to_fr(in.comm_r_new, "comm_r_new");
  domain_to_fr(in.comm_d_new, "comm_d_new");
  return in.commitments();
}

void check_update(const update::update_proof_info& info, const job_input& in) {
  if (!in.c1.empty()) throw zk::input_error("vanilla_proof: SnapDeals sends one PartitionProof per partition in vanilla_proofs");
  const auto pp = update::from_sector_size(info.sector_size);
  if (in.vanilla_proofs.size() != pp.partition_count)
    throw zk::input_error("vanilla_proofs: " + std::to_string(in.vanilla_proofs.size()) + " PartitionProofs, a " +
                          std::string(info.name) + " update has " + std::to_string(pp.partition_count) + " partitions");
  const auto comms = checked_commitments(in);
  for (std::uint32_t k = 0; k < pp.partition_count; ++k) {
    const auto origin = partition_origin(k);
    update::check_partition_proof(pp, k, comms, io::read_partition_proof(in.vanilla_proofs[k], origin), origin);
  }
}

void require_update_partition(const update::update_proof_info& info, const update::public_params& pp,
                              const job_input& in, std::uint32_t k) {
  if (k >= pp.partition_count || k >= in.vanilla_proofs.size())
    throw zk::input_error("partition " + std::to_string(k) + ": " + std::string(info.name) + " has " +
                          std::to_string(pp.partition_count) + " partitions, " +
                          std::to_string(in.vanilla_proofs.size()) + " PartitionProofs given");
}

void synthesize_update(zk::cs::constraint_system& cs, const update::update_proof_info& info, const job_input& in,
                       std::uint32_t k) {
  const auto pp = update::from_sector_size(info.sector_size);
  require_update_partition(info, pp, in, k);
  const auto comms = checked_commitments(in);
  const auto origin = partition_origin(k);
  // update_partition_from checks the proof whole (paths, encoding, comm_d_new) before the circuit runs.
  circuit::empty_sector_update(
      cs, circuit::update_partition_from(pp, k, comms, io::read_partition_proof(in.vanilla_proofs[k], origin), origin));
  const auto expected = update::public_inputs(pp, k, comms);
  const auto& got = cs.inputs();
  if (got.size() != expected.size() + 1)
    throw zk::input_error(origin + ": the circuit has " + std::to_string(got.size() - 1) +
                          " public inputs, the verifier expects " + std::to_string(expected.size()));
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (got[i + 1] != expected[i])
      throw zk::input_error(origin + ": public input " + std::to_string(i) + " differs from the verifier's");
}

constexpr char job_magic[8] = {'C', 'U', 'Z', 'K', 'F', 'I', 'L', 'J'};

void put_u64(std::vector<std::uint8_t>& o, std::uint64_t v, int bytes = 8) {
  for (int i = 0; i < bytes; ++i) o.push_back(std::uint8_t(v >> (8 * i)));
}
void put_bytes(std::vector<std::uint8_t>& o, std::span<const std::uint8_t> b) { o.insert(o.end(), b.begin(), b.end()); }

struct job_reader {
  std::span<const std::uint8_t> b;
  const std::string& origin;
  std::size_t at = 0;
  std::span<const std::uint8_t> take(std::uint64_t n, const char* field) {
    if (n > b.size() - at)
      throw zk::input_error(origin + ": " + field + ": " + std::to_string(n) + " bytes at offset " + std::to_string(at) +
                            ", only " + std::to_string(b.size() - at) + " left (truncated)");
    auto s = b.subspan(at, n);
    at += n;
    return s;
  }
  std::uint64_t u(int bytes, const char* field) {
    auto s = take(std::uint64_t(bytes), field);
    std::uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = v << 8 | s[std::size_t(i)];
    return v;
  }
};

}  // namespace

std::vector<std::uint8_t> encode(const job_input& in) {
  std::vector<std::uint8_t> o(job_magic, job_magic + 8);
  put_u64(o, 2, 4);
  put_u64(o, std::uint8_t(in.kind), 1);
  put_u64(o, in.registered_proof.size(), 4);
  put_bytes(o, {reinterpret_cast<const std::uint8_t*>(in.registered_proof.data()), in.registered_proof.size()});
  put_u64(o, in.miner_id);
  put_u64(o, in.sector_number);
  put_bytes(o, in.randomness);
  put_u64(o, in.partition_index, 4);
  put_u64(o, in.vanilla_proofs.size(), 4);
  for (const auto& v : in.vanilla_proofs) {
    put_u64(o, v.size());
    put_bytes(o, v);
  }
  put_u64(o, in.c1.size());
  put_bytes(o, in.c1);
  for (const auto* d : {&in.comm_r_old, &in.comm_r_new, &in.comm_d_new}) put_bytes(o, *d);
  return o;
}

job_input decode_job_input(std::span<const std::uint8_t> bytes, const std::string& origin) {
  job_reader r{bytes, origin};
  auto magic = r.take(8, "magic");
  if (!std::equal(magic.begin(), magic.end(), job_magic)) throw zk::input_error(origin + ": not a cuzk Filecoin job (magic)");
  const auto version = r.u(4, "version");
  if (version != 1 && version != 2)
    throw zk::input_error(origin + ": version " + std::to_string(version) + ", expected 1 or 2");
  job_input in;
  const auto kind = r.u(1, "kind");
  if (kind < 1 || kind > 4) throw zk::input_error(origin + ": kind: " + std::to_string(kind) + " is not a proof kind");
  in.kind = proof_kind(kind);
  auto name = r.take(r.u(4, "registered_proof length"), "registered_proof");
  in.registered_proof.assign(name.begin(), name.end());
  in.miner_id = r.u(8, "miner_id");
  in.sector_number = r.u(8, "sector_number");
  auto rnd = r.take(32, "randomness");
  std::copy(rnd.begin(), rnd.end(), in.randomness.begin());
  in.partition_index = std::uint32_t(r.u(4, "partition_index"));
  const auto n = r.u(4, "vanilla_proofs count");
  for (std::uint64_t i = 0; i < n; ++i) {
    auto v = r.take(r.u(8, "vanilla_proofs length"), "vanilla_proofs");
    in.vanilla_proofs.emplace_back(v.begin(), v.end());
  }
  auto c1 = r.take(r.u(8, "c1 length"), "c1");
  in.c1.assign(c1.begin(), c1.end());
  if (version >= 2) {
    const std::pair<domain*, const char*> comms[] = {
        {&in.comm_r_old, "comm_r_old"}, {&in.comm_r_new, "comm_r_new"}, {&in.comm_d_new, "comm_d_new"}};
    for (auto [d, field] : comms) {
      auto b = r.take(32, field);
      std::copy(b.begin(), b.end(), d->begin());
    }
  }
  if (r.at != bytes.size())
    throw zk::input_error(origin + ": " + std::to_string(bytes.size() - r.at) + " bytes after the job");
  return in;
}

void synthesize_blank(zk::cs::constraint_system& cs, const circuit_ref& c, zk::thread_pool& pool) {
  require_implemented(c);
  if (c.update) {
    circuit::empty_sector_update(cs, circuit::blank_update_partition(update::from_sector_size(c.update->sector_size)));
    return;
  }
  if (c.seal) {
    circuit::stacked_circuit(cs, circuit::blank_porep_partition(circuit::porep_shape_of(*c.seal)), pool);
    return;
  }
  const auto& p = *c.post;
  const auto shape = arities(p.tree);
  std::vector<circuit::post_sector> sectors(
      p.circuit_sector_count(), circuit::blank_post_sector(shape, p.sector_size / node_size, p.circuit_challenge_count()));
  circuit::fallback_post(cs, shape, sectors);
}

zk::io::r1cs record_circuit(const circuit_ref& c) {
  zk::cs::constraint_system cs(zk::cs::mode::record);
  synthesize_blank(cs, c, zk::default_pool());
  return zk::cs::to_r1cs(cs, c.describe());
}

zk::io::zkey proving_key(const std::string& params_path, const circuit_ref& c) {
  require_implemented(c);
  auto params = zk::io::bellperson_params::open(params_path);
  auto r1cs = record_circuit(c);
  auto key = zk::groth16::bellperson_proving_key(params, r1cs);
  key.path = params_path;
  return key;
}

std::shared_ptr<const c1_output> check_job_input(const circuit_ref& c, const job_input& in,
                                                 std::shared_ptr<const c1_output> parsed) {
  require_implemented(c);
  if (c.seal) {
    if (!in.vanilla_proofs.empty()) throw zk::input_error("vanilla_proofs: PoRep sends one C1 output in vanilla_proof");
    if (!parsed) return std::make_shared<const c1_output>(read_porep_c1(c, in));
    if (in.c1.empty()) throw zk::input_error("vanilla_proof: empty (PoRep needs Curio's C1 wrapper JSON)");
    check_porep_c1(c, in, *parsed);
    return parsed;
  }
  if (c.update) {
    check_update(*c.update, in);
    return nullptr;
  }
  if (!in.c1.empty()) throw zk::input_error("vanilla_proof: PoSt sends its sector proofs in vanilla_proofs");
  check_post(*c.post, in, false);
  return nullptr;
}

void synthesize_partition_into(zk::cs::constraint_system& cs, const circuit_ref& c, const job_input& in,
                               std::uint32_t partition, zk::thread_pool& pool, const c1_output* c1) {
  require_implemented(c);
  if (c.seal) return synthesize_porep(cs, c, in, partition, pool, c1);
  if (c.update) return synthesize_update(cs, *c.update, in, partition);
  const auto& p = *c.post;
  if (partition != 0) throw zk::input_error("partition " + std::to_string(partition) + ": a PoSt job has one partition");
  auto checked = check_post(p, in, true);
  circuit::fallback_post(cs, arities(p.tree), circuit_sectors(p, std::move(checked.sectors)));
  // The inputs Filecoin's verifier will use: the circuit's must be the same.
  const auto expected = post_public_inputs(p, in, checked.publics);
  const auto& got = cs.inputs();
  if (got.size() != expected.size() + 1)
    throw zk::input_error(c.describe() + ": the circuit has " + std::to_string(got.size() - 1) +
                          " public inputs, the verifier expects " + std::to_string(expected.size()));
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (got[i + 1] != expected[i])
      throw zk::input_error(c.describe() + ": public input " + std::to_string(i) +
                            " of the vanilla proofs differs from the verifier's (randomness, sector id or challenge)");
}

std::vector<fr> verifier_public_inputs(const circuit_ref& c, const job_input& in, std::uint32_t partition,
                                       const c1_output* c1) {
  require_implemented(c);
  if (c.seal) {
    require_porep_partition(c, partition);
    if (c1) return porep_public_inputs(*c1, partition);
    return porep_public_inputs(read_porep_c1(c, in), partition);
  }
  if (c.update) {
    const auto pp = update::from_sector_size(c.update->sector_size);
    require_update_partition(*c.update, pp, in, partition);
    return update::public_inputs(pp, partition, checked_commitments(in));
  }
  if (partition != 0) throw zk::input_error("partition " + std::to_string(partition) + ": a PoSt job has one partition");
  return post_public_inputs(*c.post, in, check_post(*c.post, in, false).publics);
}

std::string partition_name(const circuit_ref& c, const job_input& in, std::uint32_t partition) {
  return c.describe() + " partition " + std::to_string(c.post ? in.partition_index : partition);
}

zk::io::witness synthesize_partition(const circuit_ref& c, const job_input& in, std::uint32_t partition,
                                     unsigned threads) {
  zk::cs::constraint_system cs(zk::cs::mode::witness);
  if (threads == 0) {
    synthesize_partition_into(cs, c, in, partition, zk::default_pool());
  } else {
    zk::thread_pool pool(threads);
    synthesize_partition_into(cs, c, in, partition, pool);
  }
  return zk::cs::to_witness(cs, partition_name(c, in, partition));
}

}  // namespace cuzk::fil
