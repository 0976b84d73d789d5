// The compact recorded evaluator (zk/groth16/pce_compact) against the CSR evaluator built the way
// `cuzk fil c2` builds it today (recorded R1CS -> section-4 coefficients -> constraint_evaluator): on
// the real 2 KiB PoRep partition of tests/fixtures/filecoin/oracle-2k, streamed out of a constraint
// system that keeps no constraint, a, b and c are equal element by element (from the system's values
// and from the witness file's), c equals C·w of the recorded constraints, and the density bitmaps are
// bellperson's. Damaged or foreign files are refused naming the file and the field.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "fil/circuit/stacked.hpp"
#include "fil/evaluator.hpp"
#include "fil/io/c1_json.hpp"
#include "zk/cs/export.hpp"
#include "zk/error.hpp"
#include "zk/groth16/bellperson_key.hpp"
#include "zk/groth16/pce.hpp"
#include "zk/groth16/pce_compact.hpp"
#include "zk/groth16/setup.hpp"

using namespace cuzk;
using zk::cs::constraint_system;
using zk::groth16::pce_compact;
using zk::groth16::pce_recorder;

namespace {

std::string file_bytes_of(const std::string& path);

const std::string fixture = CUZK_SOURCE_DIR "/tests/fixtures/filecoin/oracle-2k/c1.json";

struct temp_dir {
  std::filesystem::path path;
  temp_dir() {
    path = std::filesystem::temp_directory_path() / ("cuzk-pce-" + std::to_string(::getpid()));
    std::filesystem::create_directories(path);
  }
  ~temp_dir() { std::filesystem::remove_all(path); }
};

}  // namespace

TEST_CASE("compact evaluator: the 2 KiB PoRep partition's a, b, c equal the CSR evaluator's", "[pce][compact][fil]") {
  const auto c1 = fil::io::read_c1_file(fixture).phase1_out;
  const auto blank = fil::circuit::blank_porep_partition(fil::circuit::porep_shape_of(*c1.registered_proof));
  temp_dir tmp;
  const std::string file = (tmp.path / "porep-2k.pce").string(), key = "StackedDrg2KiBV1_1 test";

  // Streamed: the blank circuit, no constraint kept.
  {
    pce_recorder rec(file, key);
    constraint_system cs(rec);
    fil::circuit::stacked_circuit(cs, blank);
    CHECK(cs.constraints().empty());
    CHECK(cs.aux().empty());
    rec.finish(cs.num_inputs(), cs.num_aux());
    CHECK(rec.constraints() == 2687921);
  }
  for (const auto& e : std::filesystem::directory_iterator(tmp.path))
    CHECK(e.path().filename() == "porep-2k.pce");  // temporaries removed

  const auto pce = pce_compact::open(file, key, false, /*verify=*/true);
  CHECK(pce.n_inputs() == 40);
  CHECK(pce.n_aux() == 2685673);
  CHECK(pce.n_constraints() == 2687921);
  CHECK(pce.coefficients() < 65535);

  // The reference: the recorded R1CS as fil c2 builds its key from it.
  constraint_system rec(zk::cs::mode::record);
  fil::circuit::stacked_circuit(rec, blank);
  const auto r1cs = zk::cs::to_r1cs(rec, "porep 2 KiB");
  zk::io::zkey key_ref;
  key_ref.n_vars = r1cs.n_wires;
  key_ref.n_public = r1cs.n_public();
  key_ref.domain_size = zk::groth16::bellperson_domain_size(r1cs.n_constraints, r1cs.n_public());
  key_ref.coefficients = zk::groth16::pce_coefficients(r1cs);
  const auto csr = zk::groth16::constraint_evaluator::build(key_ref);
  CHECK(pce.domain_size() == key_ref.domain_size);
  CHECK(pce.entries() == key_ref.coefficients.size() - (r1cs.n_public() + 1));

  const auto density = zk::groth16::bellperson_density(r1cs);
  {
    std::vector<std::uint32_t> a_wires, b_wires;
    for (std::uint64_t i = 0; i < pce.n_inputs(); ++i) {
      a_wires.push_back(std::uint32_t(i));
      if (pce.input_in_b(i)) b_wires.push_back(std::uint32_t(i));
    }
    for (std::uint64_t j = 0; j < pce.n_aux(); ++j) {
      if (pce.aux_in_a(j)) a_wires.push_back(std::uint32_t(pce.n_inputs() + j));
      if (pce.aux_in_b(j)) b_wires.push_back(std::uint32_t(pce.n_inputs() + j));
    }
    CHECK(a_wires == density.a_wires);
    CHECK(b_wires == density.b_wires);
  }

  constraint_system wit(zk::cs::mode::witness);
  fil::circuit::stacked_circuit(wit, fil::circuit::porep_partition_from(c1, 0));
  const auto w = zk::cs::to_witness(wit, "2 KiB partition 0");
  const auto want = csr.evaluate(w);
  const auto got = pce.evaluate(wit.inputs(), wit.aux());
  const auto got_file = pce.evaluate(std::span<const zk::bigint<4>>(w.values));
  REQUIRE(got.a.size() == want.a.size());
  std::size_t diff = 0, c_diff = 0;
  for (std::size_t r = 0; r < want.a.size(); ++r) {
    if (!(got.a[r] == want.a[r]) || !(got.b[r] == want.b[r]) || !(got.c[r] == want.c[r])) ++diff;
    if (!(got_file.a[r] == want.a[r]) || !(got_file.b[r] == want.b[r]) || !(got_file.c[r] == want.c[r])) ++diff;
  }
  for (std::size_t r = 0; r < rec.constraints().size(); ++r)
    if (!(got.c[r] == rec.constraints()[r].c.evaluate(wit.inputs(), wit.aux()))) ++c_diff;
  CHECK(diff == 0);
  CHECK(c_diff == 0);
  std::size_t nonzero = 0;
  for (const auto& x : got.a) nonzero += !x.is_zero();
  CHECK(nonzero > 1000000);

  CHECK_THROWS_AS(pce.evaluate(std::span<const zk::bls12_381::fr>(wit.inputs()).subspan(1), wit.aux()),
                  zk::input_error);
}

TEST_CASE("compact evaluator: foreign, truncated and damaged files are refused by name", "[pce][compact]") {
  temp_dir tmp;
  const std::string file = (tmp.path / "small.pce").string();
  {
    // x * y = z, with x + 2y + 5 in A to exercise the table.
    pce_recorder rec(file, "toy");
    constraint_system cs(rec);
    using zk::cs::linear_combination;
    const auto x = cs.alloc(zk::bls12_381::fr::zero()), y = cs.alloc(zk::bls12_381::fr::zero());
    const auto z = cs.alloc(zk::bls12_381::fr::zero());
    const auto in = cs.alloc_input(zk::bls12_381::fr::zero());
    linear_combination a(x);
    a.add(y, zk::bls12_381::fr::from_u64(2)).add(zk::cs::one_var, zk::bls12_381::fr::from_u64(5));
    cs.enforce(a, linear_combination(y), linear_combination(z));
    cs.enforce(linear_combination(in), linear_combination(zk::cs::one_var), linear_combination(x, -zk::bls12_381::fr::one()));
    rec.finish(cs.num_inputs(), cs.num_aux());
  }
  const auto e = pce_compact::open(file, "toy", false, true);
  CHECK(e.coefficients() == 4);  // +1, -1, 2, 5
  {
    using zk::bls12_381::fr;
    const std::vector<fr> inputs{fr::one(), fr::from_u64(7)}, aux{fr::from_u64(3), fr::from_u64(4), fr::from_u64(12)};
    const auto s = e.evaluate(inputs, aux);
    REQUIRE(s.a.size() == 4);
    CHECK(s.a[0] == fr::from_u64(3 + 8 + 5));
    CHECK(s.b[0] == fr::from_u64(4));
    CHECK(s.c[0] == fr::from_u64(16 * 4));
    CHECK(s.a[1] == fr::from_u64(7));
    CHECK(s.b[1] == fr::one());
    CHECK(s.a[2] == fr::one());  // input rows: ONE, then the input
    CHECK(s.a[3] == fr::from_u64(7));
    CHECK(s.b[3].is_zero());
    CHECK(e.aux_in_a(0));
    CHECK(e.aux_in_a(1));
    CHECK(!e.aux_in_a(2));
    CHECK(e.aux_in_b(1));
    CHECK(!e.aux_in_b(0));
    CHECK(e.input_in_b(0));
    CHECK(!e.input_in_b(1));
  }
  REQUIRE_THROWS_WITH(pce_compact::open(file, "other"), Catch::Contains(file) && Catch::Contains("key 'toy'"));
  const auto size = std::filesystem::file_size(file);
  std::filesystem::copy_file(file, file + ".cut");
  std::filesystem::resize_file(file + ".cut", size - 8);
  REQUIRE_THROWS_WITH(pce_compact::open(file + ".cut", "toy"), Catch::Contains(".cut: size"));
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(0);
    f.write("NOTAPCE!", 8);
  }
  REQUIRE_THROWS_WITH(pce_compact::open(file, "toy"), Catch::Contains("magic"));
}

namespace {
// The toy circuit of the case above (x * y = z, x + 2y + 5 in A), recorded into `file`.
void record_toy(const std::string& file) {
  pce_recorder rec(file, "toy");
  constraint_system cs(rec);
  using zk::cs::linear_combination;
  const auto x = cs.alloc(zk::bls12_381::fr::zero()), y = cs.alloc(zk::bls12_381::fr::zero());
  const auto z = cs.alloc(zk::bls12_381::fr::zero());
  linear_combination a(x);
  a.add(y, zk::bls12_381::fr::from_u64(2)).add(zk::cs::one_var, zk::bls12_381::fr::from_u64(5));
  cs.enforce(a, linear_combination(y), linear_combination(z));
  rec.finish(cs.num_inputs(), cs.num_aux());
}
void flip_last_byte(const std::string& file) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(-1, std::ios::end);
  const char c = char(f.get() ^ 0x10);
  f.seekp(-1, std::ios::end);
  f.put(c);
}
}  // namespace

TEST_CASE("compact evaluator: a changed byte is found at open and by intact(), never evaluated silently",
          "[pce][compact]") {
  temp_dir tmp;
  const std::string file = (tmp.path / "digest.pce").string();
  record_toy(file);
  const auto e = pce_compact::open(file, "toy");
  CHECK(e.intact());
  CHECK(!e.damaged());
  // The density bitmaps end the file: a flipped bit there leaves every count and offset valid.
  flip_last_byte(file);
  CHECK(!e.intact());  // the mapping reads the file's pages: the change is seen (failure paths ask)
  REQUIRE_THROWS_WITH(pce_compact::open(file, "toy"), Catch::Contains(file) && Catch::Contains("damaged"));
}

TEST_CASE("compact evaluator: temporaries are created exclusively, a planted link is never followed", "[pce][compact]") {
  temp_dir tmp;
  const std::string file = (tmp.path / "target.pce").string(), victim = (tmp.path / "victim").string();
  { std::ofstream(victim) << "keep me"; }
  // The names a recorder of this process used before: links to the victim, planted in advance.
  for (const char* part : {"", ".a_lens", ".a_signals", ".a_coeffs", ".b_lens", ".b_signals", ".b_coeffs"})
    std::filesystem::create_symlink(victim, file + ".tmp." + std::to_string(::getpid()) + part);
  record_toy(file);
  CHECK(file_bytes_of(victim) == "keep me");
  CHECK(pce_compact::open(file, "toy").intact());
}

namespace {

std::string file_bytes_of(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// The blank PoRep partition of `shape` recorded into `file` on `threads` threads (1: this thread).
void record_blank(const fil::circuit::porep_shape& shape, const std::string& file, unsigned threads) {
  pce_recorder rec(file, "porep blank");
  constraint_system cs(rec);
  fil::circuit::stacked_circuit(cs, fil::circuit::blank_porep_partition(shape), threads);
  rec.finish(cs.num_inputs(), cs.num_aux());
}

}  // namespace

TEST_CASE("compact evaluator: a recording on several threads is the one-thread file, byte for byte",
          "[pce][compact][fil][parallel]") {
  temp_dir tmp;
  const auto c1 = fil::io::read_c1_file(fixture).phase1_out;
  // The 2 KiB partition (2 challenges x (prefix, 2 labelings, suffix)) and the crates' test shape
  // (8 nodes, 1 challenge, base-8 trees).
  const std::pair<const char*, fil::circuit::porep_shape> shapes[] = {
      {"2KiB", fil::circuit::porep_shape_of(*c1.registered_proof)},
      {"test-8", fil::circuit::porep_shape{8, 2, 1, {8, 0, 0}}}};
  for (const auto& [name, shape] : shapes) {
    const std::string one = (tmp.path / (std::string(name) + "-1.pce")).string();
    record_blank(shape, one, 1);
    const std::string want = file_bytes_of(one);
    REQUIRE(want.size() > 4096);
    for (unsigned threads : {2u, 3u, 5u}) {
      const std::string many = (tmp.path / (std::string(name) + "-" + std::to_string(threads) + ".pce")).string();
      record_blank(shape, many, threads);
      const std::string got = file_bytes_of(many);
      INFO(name << " on " << threads << " threads");
      REQUIRE(got.size() == want.size());
      std::size_t first = 0;
      while (first < got.size() && got[first] == want[first]) ++first;
      CHECK(first == got.size());  // the first differing byte otherwise
    }
  }
}

TEST_CASE("compact evaluator: parts appended in order number coefficients as one stream would", "[pce][compact][parallel]") {
  using zk::bls12_381::fr;
  using zk::cs::linear_combination;
  temp_dir tmp;
  // Three constraints over aux 0..3 and input 1: (3x) * y = z; (5x + 3y) * (7 + in) = w; (x) * (9w) = z.
  auto c0 = [](constraint_system& cs) {
    const auto x = cs.alloc(fr::zero()), y = cs.alloc(fr::zero()), z = cs.alloc(fr::zero());
    const auto in = cs.alloc_input(fr::zero());
    cs.enforce(linear_combination(x, fr::from_u64(3)), linear_combination(y), linear_combination(z));
    return std::array{x, y, z, in};
  };
  auto c1 = [](constraint_system& cs, std::array<zk::cs::variable, 4> v) {
    const auto w = cs.alloc(fr::zero());
    linear_combination a(v[0], fr::from_u64(5));
    a.add(v[1], fr::from_u64(3));
    linear_combination b(zk::cs::one_var, fr::from_u64(7));
    b.add(v[3]);
    cs.enforce(a, b, linear_combination(w));
    cs.enforce(linear_combination(v[0]), linear_combination(w, fr::from_u64(9)), linear_combination(v[2]));
  };
  const std::string serial = (tmp.path / "serial.pce").string(), parts = (tmp.path / "parts.pce").string();
  {
    pce_recorder rec(serial, "toy");
    constraint_system cs(rec);
    c1(cs, c0(cs));
    rec.finish(cs.num_inputs(), cs.num_aux());
  }
  {
    pce_recorder rec(parts, "toy");
    constraint_system cs(rec);
    // The second part is recorded first (its table meets 5, 3, 7, 9), then the first (3): appended in
    // order, the file's table must still read +1, -1, 3, 5, 7, 9.
    auto second = rec.part(1);
    {
      constraint_system p = constraint_system::part_of(*second, 2, 3);
      c1(p, {zk::cs::variable::aux(0), zk::cs::variable::aux(1), zk::cs::variable::aux(2), zk::cs::variable::input(1)});
    }
    auto first = rec.part(0);
    std::array<zk::cs::variable, 4> v;
    {
      constraint_system p = constraint_system::part_of(*first, 1, 0);
      v = c0(p);
    }
    CHECK(v[3] == zk::cs::variable::input(1));
    rec.append_part(*first);
    rec.append_part(*second);
    cs.extend(1, 4, 3);
    CHECK(rec.constraints() == 3);
    rec.finish(cs.num_inputs(), cs.num_aux());
  }
  CHECK(file_bytes_of(parts) == file_bytes_of(serial));
  const auto e = pce_compact::open(parts, "toy", false, true);
  CHECK(e.coefficients() == 6);
  CHECK(e.n_aux() == 4);
  CHECK(e.n_inputs() == 2);
}

TEST_CASE("PoRep evaluator cache: a directory others may write is refused before anything is read or written",
          "[pce][fil]") {
  temp_dir tmp;
  const auto dir = tmp.path / "shared";
  std::filesystem::create_directories(dir);
  std::filesystem::permissions(dir, std::filesystem::perms::all);  // 0777
  const auto* info = fil::find_seal_proof("StackedDrg2KiBV1_1");
  REQUIRE(info);
  REQUIRE_THROWS_WITH(fil::open_porep_evaluator(*info, (dir / "v28-x.cuzk-pce").string()),
                      Catch::Contains(dir.string()) && Catch::Contains("has mode 777"));
  CHECK(std::filesystem::is_empty(dir));
}
