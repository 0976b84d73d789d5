// cuzk_r1cs_compare SHAPE DUMP: synthesizes our circuit of SHAPE in record mode and compares it with
// fil-oracle's R1CS dump of the same shape: the counts, then every constraint (A, B, C term by term:
// variable and coefficient, in stored order), then the witness when the dump has one. The first
// difference is printed with the constraint's index and the namespace (gadget) it came from.
// Exit 0 equal, 1 different, 2 unusable input.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>

#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "fil/circuit/fallback_post.hpp"
#include "fil/io/post_bincode.hpp"
#include "fil/registered_proof.hpp"
#include "r1cs_dump.hpp"

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

bool synthesize(const std::string& shape, constraint_system& cs) {
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

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: cuzk_r1cs_compare post-test-8|post-test-8-4|post-test-8-4-2|window-post:SIZE|winning-post:SIZE|DIR/post.json DUMP\n";
    return 2;
  }
  try {
    const std::string shape = argv[1];
    // Synthesis time in each mode (printed for docs/benchmarks.md, never asserted).
    auto run = [&](constraint_system& cs) {
      const auto t0 = std::chrono::steady_clock::now();
      if (shape.ends_with(".json")) synthesize_post(shape, cs);
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
