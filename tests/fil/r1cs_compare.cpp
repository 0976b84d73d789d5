// cuzk_r1cs_compare SHAPE DUMP: synthesizes our circuit of SHAPE in record mode and compares it with
// fil-oracle's R1CS dump of the same shape: the counts, then every constraint (A, B, C term by term:
// variable and coefficient, in stored order), then the witness when the dump has one. The first
// difference is printed with the constraint's index and the namespace (gadget) it came from.
// Exit 0 equal, 1 different, 2 unusable input.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <ctime>
#include <unistd.h>
#include <thread>
#include <string>

#include <filesystem>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "fil/circuit/empty_sector_update.hpp"
#include "fil/circuit/fallback_post.hpp"
#include "fil/circuit/stacked.hpp"
#include "fil/crypto/hashes.hpp"
#include "fil/io/c1_json.hpp"
#include "fil/io/post_bincode.hpp"
#include "fil/io/update_bincode.hpp"
#include "fil/registered_proof.hpp"
#include "fil/synthetic.hpp"
#include "r1cs_dump.hpp"
#include "zk/cs/export.hpp"
#include "zk/groth16/bellperson_key.hpp"
#include "zk/groth16/pce.hpp"
#include "zk/groth16/pce_compact.hpp"
#include "zk/groth16/setup.hpp"

namespace {

using namespace cuzk;
using zk::cs::constraint_system;

// window-post:SIZE / winning-post:SIZE: the registered PoSt circuit of that sector size (blank), with
// the counts of fil/registered_proof (WinningPoSt: 66 sectors x 1 challenge).
bool synthesize_registered(const std::string& shape, constraint_system& cs) {
  const auto colon = shape.find(':');
  const std::string kind = shape.substr(0, colon), size = shape.substr(colon + 1);
  const std::pair<const char*, std::uint64_t> sizes[] = {
      {"2KiB", 2048}, {"8MiB", 8ull << 20}, {"512MiB", 512ull << 20}, {"32GiB", 32ull << 30}, {"64GiB", 64ull << 30}};
  std::uint64_t bytes = 0;
  for (const auto& [n, b] : sizes)
    if (size == n) bytes = b;
  const auto type = kind == "window-post" ? fil::post_type::window : fil::post_type::winning;
  for (const auto& p : fil::post_proofs()) {
    if (p.type != type || p.sector_size != bytes) continue;
    const fil::circuit::tree_arities t{p.tree.base, p.tree.sub, p.tree.top};
    std::vector<fil::circuit::post_sector> sectors(
        p.circuit_sector_count(), fil::circuit::blank_post_sector(t, bytes / 32, p.circuit_challenge_count()));
    fil::circuit::fallback_post(cs, t, sectors);
    return true;
  }
  return false;
}

unsigned threads() { return std::max(2u, std::thread::hardware_concurrency()); }

std::uint64_t size_of(const std::string& size) {
  const std::pair<const char*, std::uint64_t> sizes[] = {{"2KiB", 2048},          {"8MiB", 8ull << 20},
                                                         {"512MiB", 512ull << 20}, {"32GiB", 32ull << 30},
                                                         {"64GiB", 64ull << 30}};
  for (const auto& [n, b] : sizes)
    if (size == n) return b;
  return 0;
}

// porep-test-A[-B[-C]]: the oracle's crate test shape (8 x base-tree-count nodes, 2 layers, 1
// challenge); porep:SIZE: the registered PoRep circuit of that sector size (V1_1, blank).
bool synthesize_porep(const std::string& shape, constraint_system& cs, unsigned n_threads = threads()) {
  fil::circuit::porep_shape ps;
  if (shape.starts_with("porep-test-")) {
    fil::circuit::tree_arities t{};
    const std::string rest = shape.substr(11);
    if (rest == "2") t = {2, 0, 0};
    else if (rest == "8") t = {8, 0, 0};
    else if (rest == "8-4") t = {8, 4, 0};
    else if (rest == "8-4-2") t = {8, 4, 2};
    else return false;
    ps = {8ull * (t.sub ? t.sub : 1) * (t.top ? t.top : 1), 2, 1, t};
  } else if (shape.starts_with("porep:")) {
    const std::uint64_t bytes = size_of(shape.substr(6));
    const fil::seal_proof_info* info = nullptr;
    for (const auto& p : fil::seal_proofs())
      if (p.sector_size == bytes && p.version == fil::api_version::v1_1_0 &&
          p.challenges == fil::porep_challenges::interactive)
        info = &p;
    if (!info) return false;
    ps = fil::circuit::porep_shape_of(*info);
  } else {
    return false;
  }
  // threads: the witness's, and a streaming record's into the compact evaluator (not a kept record's)
  fil::circuit::stacked_circuit(cs, fil::circuit::blank_porep_partition(ps), n_threads);
  return true;
}

bool synthesize(const std::string& shape, constraint_system& cs, unsigned n_threads = threads()) {
  if (shape.starts_with("porep")) return synthesize_porep(shape, cs, n_threads);
  if (shape.starts_with("synth-update:")) {  // synth-update:SIZE[#K]: fil/synthetic's partition K, with its witness
    const auto hash = shape.find('#');
    const std::uint64_t bytes = size_of(shape.substr(13, hash == std::string::npos ? std::string::npos : hash - 13));
    if (!bytes) return false;
    const unsigned k = hash == std::string::npos ? 0 : unsigned(std::stoul(shape.substr(hash + 1)));
    const auto pp = fil::update::from_sector_size(bytes);
    const auto syn = fil::synthetic_update_proofs(bytes, 1);
    fil::circuit::empty_sector_update(cs, fil::circuit::update_partition_from(pp, k, syn.comms, syn.partitions.at(k), shape));
    return true;
  }
  if (shape.starts_with("update:")) {
    const std::uint64_t bytes = size_of(shape.substr(7));
    if (!bytes) return false;
    fil::circuit::empty_sector_update(cs, fil::circuit::blank_update_partition(fil::update::from_sector_size(bytes)));
    return true;
  }
  if (shape.find(':') != std::string::npos) return synthesize_registered(shape, cs);
  fil::circuit::tree_arities t;
  if (shape == "post-test-8") t = {8, 0, 0};
  else if (shape == "post-test-8-4") t = {8, 4, 0};
  else if (shape == "post-test-8-4-2") t = {8, 4, 2};
  else return false;
  // The crates' test shape: 64 x base-tree-count leaves, 5 challenges, 3 sectors.
  const std::uint64_t trees = (t.sub ? t.sub : 1) * (t.top ? t.top : 1);
  std::vector<fil::circuit::post_sector> sectors(3, fil::circuit::blank_post_sector(t, 64 * trees, 5));
  fil::circuit::fallback_post(cs, t, sectors);
  return true;
}

// fil-oracle's post.json (partition 0, all its sectors): the witness of the real circuit. WinningPoSt's
// circuit has one sector per challenge (sector_count = challenges, challenge_count = 1).
void synthesize_post(const std::string& json_path, constraint_system& cs) {
  std::ifstream f(json_path);
  if (!f) throw std::runtime_error(json_path + ": cannot open");
  const auto j = nlohmann::json::parse(f);
  if (j.at("sector_size").get<std::uint64_t>() != 2048) throw std::runtime_error(json_path + ": only 2 KiB shapes");
  const fil::circuit::tree_arities t{8, 0, 0};
  const std::string dir = json_path.substr(0, json_path.find_last_of('/') + 1);
  std::vector<fil::circuit::post_sector> sectors;
  for (const auto& s : j.at("sectors")) {
    const std::string file = dir + s.at("vanilla").get<std::string>();
    std::ifstream v(file, std::ios::binary);
    const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(v)), std::istreambuf_iterator<char>());
    const auto sector = fil::circuit::post_sector_from(fil::io::read_post_vanilla_proof(bytes, file), t);
    if (j.at("kind") == "winning") {
      for (std::size_t i = 0; i < sector.leafs.size(); ++i) {
        auto one = sector;
        one.leafs = {sector.leafs[i]};
        one.paths = {sector.paths[i]};
        sectors.push_back(std::move(one));
      }
    } else {
      sectors.push_back(sector);
    }
  }
  fil::circuit::fallback_post(cs, t, sectors);
}

// fil-oracle's update.json#K: partition K of the SnapDeals proof, from its vanilla proof file.
void synthesize_update(const std::string& arg, constraint_system& cs) {
  const auto hash = arg.rfind('#');
  const std::string json_path = arg.substr(0, hash);
  const unsigned k = hash == std::string::npos ? 0 : unsigned(std::stoul(arg.substr(hash + 1)));
  std::ifstream f(json_path);
  if (!f) throw std::runtime_error(json_path + ": cannot open");
  const auto j = nlohmann::json::parse(f);
  const auto pp = fil::update::from_sector_size(j.at("sector_size").get<std::uint64_t>());
  fil::update::commitments c;
  c.comm_r_old = fil::domain_from_hex(j.at("comm_r_old").get<std::string>(), "comm_r_old");
  c.comm_d_new = fil::domain_from_hex(j.at("comm_d_new").get<std::string>(), "comm_d_new");
  c.comm_r_new = fil::domain_from_hex(j.at("comm_r_new").get<std::string>(), "comm_r_new");
  const std::string file =
      json_path.substr(0, json_path.find_last_of('/') + 1) + j.at("vanilla").at(k).get<std::string>();
  std::ifstream v(file, std::ios::binary);
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(v)), std::istreambuf_iterator<char>());
  const auto proof = fil::io::read_partition_proof(bytes, file);
  fil::circuit::empty_sector_update(cs, fil::circuit::update_partition_from(pp, k, c, proof, file));
}

std::string show(const cuzk::test::r1cs_dump_reader::lc& l) {
  std::string s;
  for (const auto& [v, c] : l) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "%s%llu*0x%016llx%016llx%016llx%016llx", (v >> 63) ? "aux" : "in",
                  (unsigned long long)(v & ~(std::uint64_t{1} << 63)), (unsigned long long)c.limb[3],
                  (unsigned long long)c.limb[2], (unsigned long long)c.limb[1], (unsigned long long)c.limb[0]);
    s += (s.empty() ? "" : " + ") + std::string(buf);
  }
  return "(" + s + ")";
}

cuzk::test::r1cs_dump_reader::lc ours(const zk::cs::linear_combination& l) {
  cuzk::test::r1cs_dump_reader::lc r;
  for (const auto& [v, c] : l.terms()) r.push_back({v.id, c.to_canonical()});
  return r;
}

// The dump's bytes (header with flags 0, then A, B, C of every constraint) through SHA-256.
std::string dump_digest(const constraint_system& cs) {
  fil::crypto::sha256 h;
  std::vector<std::uint8_t> buf;
  auto u32 = [&](std::uint32_t v) { for (int i = 0; i < 4; ++i) buf.push_back(std::uint8_t(v >> (8 * i))); };
  auto u64 = [&](std::uint64_t v) { for (int i = 0; i < 8; ++i) buf.push_back(std::uint8_t(v >> (8 * i))); };
  auto flush = [&] {
    h.update(buf);
    buf.clear();
  };
  const char magic[] = "CUZKR1CS";
  buf.insert(buf.end(), magic, magic + 8);
  u32(1);
  u32(0);
  u64(cs.inputs().size());
  u64(cs.aux().size());
  u64(cs.num_constraints());
  auto lc = [&](const zk::cs::linear_combination& l) {
    u32(std::uint32_t(l.terms().size()));
    for (const auto& [v, c] : l.terms()) {
      u64(v.id);
      const auto r = c.to_canonical();
      for (int k = 0; k < 4; ++k) u64(r.limb[std::size_t(k)]);
    }
  };
  for (const auto& c : cs.constraints()) {
    lc(c.a);
    lc(c.b);
    lc(c.c);
    if (buf.size() > (1u << 20)) flush();
  }
  flush();
  const auto d = h.finish();
  std::string hex;
  for (auto b : d) {
    char x[3];
    std::snprintf(x, sizeof x, "%02x", b);
    hex += x;
  }
  return hex;
}

}  // namespace

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
double cpu_since(std::clock_t c0) { return double(std::clock() - c0) / CLOCKS_PER_SEC; }

// PATH#K: the C1 file and partition K.
std::pair<fil::c1_output, unsigned> read_c1_partition(const std::string& arg) {
  const auto hash = arg.rfind('#');
  if (hash == std::string::npos) throw std::invalid_argument(arg + ": expected C1.json#PARTITION");
  return {fil::io::read_c1_file(arg.substr(0, hash)), unsigned(std::stoul(arg.substr(hash + 1)))};
}

// --pce-record SHAPE FILE [THREADS]: the blank circuit streamed into the compact evaluator's file (key
// SHAPE), PoRep shapes on THREADS threads (default: all cores, at least 2; the file is the same).
int pce_record(const std::string& shape, const std::string& file, unsigned n_threads) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  zk::groth16::pce_recorder rec(file, shape);
  constraint_system cs(rec);
  if (!synthesize(shape, cs, n_threads)) {
    std::cerr << "cuzk_r1cs_compare: unknown shape '" << shape << "'\n";
    return 2;
  }
  rec.finish(cs.num_inputs(), cs.num_aux());
  const auto e = zk::groth16::pce_compact::open(file, shape);
  std::printf("%s: %llu inputs, %llu aux, %llu constraints, %llu A+B entries, %zu coefficients; %s %.2f GB "
              "(recorded in %.1f s, %.1f CPU-s, %u threads)\n",
              shape.c_str(), (unsigned long long)e.n_inputs(), (unsigned long long)e.n_aux(),
              (unsigned long long)e.n_constraints(), (unsigned long long)e.entries(), e.coefficients(), file.c_str(),
              double(e.file_bytes()) / 1e9, seconds_since(t0), cpu_since(c0), n_threads);
  return 0;
}

// --pce-eval SHAPE FILE C1#K: load, witness, a = A w, b = B w, c = a o b; each timed.
int pce_eval(const std::string& shape, const std::string& file, const std::string& c1_arg) {
  auto t0 = std::chrono::steady_clock::now();
  const auto e = zk::groth16::pce_compact::open(file, shape, /*populate=*/true);
  std::printf("loaded %s (%.2f GB, mapped and read in) in %.2f s\n", file.c_str(), double(e.file_bytes()) / 1e9,
              seconds_since(t0));
  const auto [c1, k] = read_c1_partition(c1_arg);
  const auto part = fil::circuit::porep_partition_from(c1.phase1_out, k);
  constraint_system wit(zk::cs::mode::witness);
  t0 = std::chrono::steady_clock::now();
  std::clock_t c0 = std::clock();
  fil::circuit::stacked_circuit(wit, part);
  std::printf("witness %.2f s, %.2f CPU-s\n", seconds_since(t0), cpu_since(c0));
  zk::cs::values a, b, c;  // unwritten until the evaluation's threads write them
  const std::size_t n = e.domain_size();
  a.resize(n), b.resize(n), c.resize(n);
  for (int round = 0; round < 2; ++round) {
    t0 = std::chrono::steady_clock::now();
    c0 = std::clock();
    e.evaluate_into(wit.inputs(), wit.aux(), a, b, c);
    std::printf("a, b, c (%zu rows, %s) %.2f s, %.2f CPU-s\n", n, round ? "again" : "first touch", seconds_since(t0),
                cpu_since(c0));
  }
  std::size_t nonzero = 0;
  for (std::size_t r = 0; r < n; r += 4096) nonzero += !a[r].is_zero();
  std::printf("(a non-zero in %zu of %zu sampled rows)\n", nonzero, (n + 4095) / 4096);
  return 0;
}

// --pce-compare C1#K: the compact evaluator (streamed record of the blank circuit) against the CSR
// evaluator of the recorded R1CS, a, b, c element by element on partition K's witness. Exit 1 on a
// difference.
int pce_compare(const std::string& c1_arg) {
  const auto [c1, k] = read_c1_partition(c1_arg);
  const auto blank = fil::circuit::blank_porep_partition(fil::circuit::porep_shape_of(*c1.phase1_out.registered_proof));
  const std::string file =
      (std::filesystem::temp_directory_path() / ("cuzk-pce-compare-" + std::to_string(::getpid()) + ".pce")).string();
  const std::string key(c1.phase1_out.registered_proof->name);
  {
    zk::groth16::pce_recorder rec(file, key);
    constraint_system cs(rec);
    fil::circuit::stacked_circuit(cs, blank);
    rec.finish(cs.num_inputs(), cs.num_aux());
  }
  const auto e = zk::groth16::pce_compact::open(file, key, false, true);
  std::filesystem::remove(file);  // mapped: stays readable
  constraint_system wit(zk::cs::mode::witness);
  fil::circuit::stacked_circuit(wit, fil::circuit::porep_partition_from(c1.phase1_out, k));
  const auto got = e.evaluate(wit.inputs(), wit.aux());
  zk::groth16::synthesis want;
  {
    constraint_system rec(zk::cs::mode::record);
    fil::circuit::stacked_circuit(rec, blank);
    const auto r1cs = zk::cs::to_r1cs(rec, key);
    zk::io::zkey ref;
    ref.n_vars = r1cs.n_wires;
    ref.n_public = r1cs.n_public();
    ref.domain_size = zk::groth16::bellperson_domain_size(r1cs.n_constraints, r1cs.n_public());
    ref.coefficients = zk::groth16::pce_coefficients(r1cs);
    want = zk::groth16::constraint_evaluator::build(ref).evaluate(zk::cs::to_witness(wit, key));
  }
  if (want.a.size() != got.a.size()) {
    std::printf("DOMAIN DIFFERS: CSR %zu, compact %zu\n", want.a.size(), got.a.size());
    return 1;
  }
  for (std::size_t r = 0; r < want.a.size(); ++r)
    if (!(want.a[r] == got.a[r]) || !(want.b[r] == got.b[r]) || !(want.c[r] == got.c[r])) {
      std::printf("ROW %zu DIFFERS\n", r);
      return 1;
    }
  std::printf("%s: compact evaluator (%llu entries, %zu coefficients, %.1f MB) equals the CSR evaluator on all %zu rows "
              "of a, b, c\n",
              c1_arg.c_str(), (unsigned long long)e.entries(), e.coefficients(), double(e.file_bytes()) / 1e6,
              want.a.size());
  return 0;
}

int main(int argc, char** argv) {
  if (argc >= 3 && std::string(argv[1]).starts_with("--pce-")) {
    try {
      const std::string m = argv[1];
      if (m == "--pce-record" && argc == 4) return pce_record(argv[2], argv[3], threads());
      if (m == "--pce-record" && argc == 5) return pce_record(argv[2], argv[3], unsigned(std::stoul(argv[4])));
      if (m == "--pce-eval" && argc == 5) return pce_eval(argv[2], argv[3], argv[4]);
      if (m == "--pce-compare" && argc == 3) return pce_compare(argv[2]);
      std::cerr << "usage: cuzk_r1cs_compare --pce-record SHAPE FILE [THREADS] | --pce-eval SHAPE FILE C1#K | --pce-compare C1#K\n";
      return 2;
    } catch (const std::exception& e) {
      std::cerr << "cuzk_r1cs_compare: " << e.what() << "\n";
      return 2;
    }
  }
  if (argc == 3 && std::string(argv[1]) == "--digest") {
    // SHA-256 of the dump fil-oracle would write for this blank shape (docs/formats.md "The R1CS
    // dump", no witness): compare with `fil-oracle r1cs --shape ... --digest` where a dump is too big.
    try {
      constraint_system cs(zk::cs::mode::record);
      const auto t0 = std::chrono::steady_clock::now();
      if (!synthesize(argv[2], cs)) {
        std::cerr << "cuzk_r1cs_compare: unknown shape '" << argv[2] << "'\n";
        return 2;
      }
      const double t_syn = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("%s: %zu inputs, %zu aux, %llu constraints (recorded in %.1f s)\nsha256 %s\n", argv[2],
                  cs.inputs().size(), cs.aux().size(), (unsigned long long)cs.num_constraints(), t_syn,
                  dump_digest(cs).c_str());
      return 0;
    } catch (const std::exception& e) {
      std::cerr << "cuzk_r1cs_compare: " << e.what() << "\n";
      return 2;
    }
  }
  if (argc == 3 && (std::string(argv[1]) == "--count" || std::string(argv[1]) == "--witness" ||
                    std::string(argv[1]) == "--check")) {
    // --count: counts only (mode::count: nothing stored), for shapes too big to record here
    // (porep:32GiB). --witness: witness mode alone, timed (a C1 partition: PATH/c1.json#K, its
    // challenges' parts on all cores; twice, the first call also counting the shape's parts). --check: mode::check, every constraint
    // evaluated on the witness as it is enforced, none stored (one thread); exit 1 when one fails.
    try {
      const bool count = std::string(argv[1]) == "--count", check = std::string(argv[1]) == "--check";
      constraint_system cs(count ? zk::cs::mode::count : check ? zk::cs::mode::check : zk::cs::mode::witness);
      const std::string shape = argv[2];
      std::optional<fil::c1_output> c1;
      const auto t_read = std::chrono::steady_clock::now();
      if (const auto hash = shape.rfind('#'); hash != std::string::npos && !shape.starts_with("synth-update:")) {
        c1 = fil::io::read_c1_file(shape.substr(0, hash));
        std::printf("C1 read in %.2f s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - t_read).count());
      }
      const auto t0 = std::chrono::steady_clock::now();
      if (c1) {
        const auto part = fil::circuit::porep_partition_from(c1->phase1_out,
                                                             unsigned(std::stoul(shape.substr(shape.rfind('#') + 1))));
        std::printf("partition decoded in %.2f s\n",
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        if (!check && !count) {
          // Once more on a fresh system: the first call also counts the shape's parts (once per process).
          constraint_system first(zk::cs::mode::witness);
          const auto t1 = std::chrono::steady_clock::now();
          fil::circuit::stacked_circuit(first, part);
          std::printf("first witness (with the per-shape part counts) %.2f s\n",
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count());
        }
        const auto t2 = std::chrono::steady_clock::now();
        const std::clock_t cpu = std::clock();
        fil::circuit::stacked_circuit(cs, part);  // all cores (check mode: one thread)
        std::printf("synthesis %.2f s wall, %.2f CPU-s\n",
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t2).count(),
                    double(std::clock() - cpu) / CLOCKS_PER_SEC);
      } else if (!synthesize(argv[2], cs)) {
        std::cerr << "cuzk_r1cs_compare: unknown shape '" << argv[2] << "'\n";
        return 2;
      }
      std::printf("%s: %llu inputs, %llu aux, %llu constraints (%s in %.2f s)\n", argv[2],
                  (unsigned long long)cs.num_inputs(), (unsigned long long)cs.num_aux(),
                  (unsigned long long)cs.num_constraints(), count ? "counted" : check ? "checked" : "witness",
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      if (check) {
        std::printf("%llu unsatisfied constraints%s%s\n", (unsigned long long)cs.num_unsatisfied(),
                    cs.num_unsatisfied() ? ", the first: " : "", cs.first_unsatisfied().c_str());
        return cs.num_unsatisfied() ? 1 : 0;
      }
      return 0;
    } catch (const std::exception& e) {
      std::cerr << "cuzk_r1cs_compare: " << e.what() << "\n";
      return 2;
    }
  }
  if (argc != 3) {
    std::cerr << "usage: cuzk_r1cs_compare SHAPE DUMP | --count|--witness|--check SHAPE\n"
                 "  SHAPE: post-test-8|post-test-8-4|post-test-8-4-2|window-post:SIZE|winning-post:SIZE|DIR/post.json\n"
                 "         porep-test-2|porep-test-8|porep-test-8-4|porep-test-8-4-2|porep:SIZE|DIR/c1.json[#PARTITION]\n"
                 "         update:SIZE|DIR/update.json[#PARTITION]\n";
    return 2;
  }
  try {
    const std::string shape = argv[1];
    // Synthesis time in each mode (printed for docs/benchmarks.md, never asserted).
    // C1 files: PATH/c1.json or PATH/c1.json#K (partition K), read once.
    std::optional<fil::c1_output> c1;
    unsigned partition = 0;
    std::string c1_path;
    if (const auto hash = shape.rfind('#'); shape.find("c1") != std::string::npos && shape.find("update.json") == std::string::npos &&
                                             (shape.ends_with(".json") || hash != std::string::npos)) {
      c1_path = shape.substr(0, hash);
      if (hash != std::string::npos) partition = unsigned(std::stoul(shape.substr(hash + 1)));
      c1 = fil::io::read_c1_file(c1_path);
    }
    auto run = [&](constraint_system& cs) {
      const auto t0 = std::chrono::steady_clock::now();
      // Witness mode takes the challenges in parallel: the comparison checks that path too.
      if (c1) fil::circuit::stacked_circuit(cs, fil::circuit::porep_partition_from(c1->phase1_out, partition), threads());
      else if (shape.find("update.json") != std::string::npos) synthesize_update(shape, cs);
      else if (shape.ends_with(".json")) synthesize_post(shape, cs);
      else if (!synthesize(shape, cs)) return -1.0;
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    constraint_system cs(zk::cs::mode::record), wit(zk::cs::mode::witness);
    const double t_record = run(cs), t_witness = run(wit);
    if (t_record < 0) {
      std::cerr << "cuzk_r1cs_compare: unknown shape '" << shape << "'\n";
      return 2;
    }
    if (wit.aux() != cs.aux() || wit.inputs() != cs.inputs()) {
      std::cout << "WITNESS MODE DIFFERS from record mode\n";
      return 1;
    }
    std::printf("synthesis: record mode %.3f s, witness mode %.3f s\n", t_record, t_witness);
    cuzk::test::r1cs_dump_reader dump(argv[2]);
    std::cout << shape << ": ours " << cs.inputs().size() << " inputs, " << cs.aux().size() << " aux, "
              << cs.num_constraints() << " constraints; oracle " << dump.num_inputs << ", " << dump.num_aux << ", "
              << dump.num_constraints << "\n";
    const std::uint64_t n = std::min<std::uint64_t>(dump.num_constraints, cs.num_constraints());
    for (std::uint64_t k = 0; k < n; ++k) {
      const auto theirs = dump.next();
      const auto& c = cs.constraints()[k];
      const auto a = ours(c.a), b = ours(c.b), cc = ours(c.c);
      const char* which = a != theirs.a ? "A" : b != theirs.b ? "B" : cc != theirs.c ? "C" : nullptr;
      if (which) {
        std::cout << "FIRST DIFFERENCE at constraint " << k << " (" << which << "), ours from '" << cs.scope_of(k)
                  << "'\n  ours:   " << show(a) << " * " << show(b) << " = " << show(cc) << "\n  oracle: "
                  << show(theirs.a) << " * " << show(theirs.b) << " = " << show(theirs.c) << "\n";
        return 1;
      }
    }
    if (dump.num_inputs != cs.inputs().size() || dump.num_aux != cs.aux().size() ||
        dump.num_constraints != cs.num_constraints()) {
      std::cout << "COUNTS DIFFER (the first " << n << " constraints are equal)\n";
      return 1;
    }
    std::cout << "all " << n << " constraints equal\n";
    if (dump.has_witness()) {
      const auto w = dump.witness();
      for (std::size_t i = 0; i < w.size(); ++i) {
        const bool in = i < cs.inputs().size();
        const auto mine = (in ? cs.inputs()[i] : cs.aux()[i - cs.inputs().size()]).to_canonical();
        if (!(mine == w[i])) {
          std::cout << "WITNESS DIFFERS at " << (in ? "input " : "aux ") << (in ? i : i - cs.inputs().size()) << "\n";
          return 1;
        }
      }
      std::cout << "witness equal (" << w.size() << " values)\n";
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "cuzk_r1cs_compare: " << e.what() << "\n";
    return 2;
  }
}
