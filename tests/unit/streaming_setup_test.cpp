// The streamed TEST-ONLY setup (zk/groth16/streaming_setup.hpp, fil::stream_test_setup) writes the
// bytes of the in-memory one (groth16::setup + io::bellperson_params_bytes): a toy circuit recorded
// in parts out of order and written a few points a chunk, and the 2 KiB WindowPoSt circuit; the 2 KiB
// PoRep's QAP recorded in parts on threads equal to its serial record's; the refusals.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fil/circuit/stacked.hpp"
#include "fil/partition.hpp"
#include "fil/test_setup.hpp"
#include "zk/cs/export.hpp"
#include "zk/error.hpp"
#include "zk/groth16/streaming_setup.hpp"
#include "zk/io/bellperson.hpp"

using namespace cuzk;
using zk::cs::constraint_system;
using zk::cs::linear_combination;
using zk::cs::variable;
using fr = zk::bls12_381::fr;

namespace {

struct temp_dir {
  std::filesystem::path path;
  temp_dir() {
    path = std::filesystem::temp_directory_path() / ("cuzk-stream-setup-" + std::to_string(::getpid()));
    std::filesystem::create_directories(path);
  }
  ~temp_dir() { std::filesystem::remove_all(path); }
};

std::vector<std::uint8_t> read_all(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// Two parts: the first allocates x, y, z and an input; the second w, two inputs, and names the first
// part's variables (as a PoRep labeling names its challenge's prefix).
std::array<variable, 4> part0(constraint_system& cs) {
  const auto x = cs.alloc(fr::zero()), y = cs.alloc(fr::zero()), z = cs.alloc(fr::zero());
  const auto in = cs.alloc_input(fr::zero());
  cs.enforce(linear_combination(x, fr::from_u64(3)), linear_combination(y), linear_combination(z));
  cs.enforce(linear_combination(in), linear_combination(zk::cs::one_var, -fr::one()), linear_combination(x));
  return {x, y, z, in};
}
void part1(constraint_system& cs, const std::array<variable, 4>& v) {
  const auto w = cs.alloc(fr::zero());
  const auto in2 = cs.alloc_input(fr::zero());
  const auto in3 = cs.alloc_input(fr::zero());
  linear_combination a(v[0], fr::from_u64(5));
  a.add(v[1], fr::from_u64(3));
  linear_combination b(zk::cs::one_var, fr::from_u64(7));
  b.add(v[3]);
  b.add(in2);
  cs.enforce(a, b, linear_combination(w));
  cs.enforce(linear_combination(v[0]), linear_combination(w, fr::from_u64(9)), linear_combination(v[2]));
  linear_combination c(in3);
  c.add(v[1], fr::from_u64(2));
  cs.enforce(linear_combination(w), linear_combination(zk::cs::one_var), c);
}

}  // namespace

TEST_CASE("streamed setup: a circuit recorded in parts out of order writes the in-memory setup's bytes",
          "[setup][stream]") {
  temp_dir tmp;
  const auto tw = zk::groth16::toxic_waste_from_seed(21);
  constraint_system rec(zk::cs::mode::record);
  part1(rec, part0(rec));
  const auto r1cs = zk::cs::to_r1cs(rec, "toy");
  const auto key = zk::groth16::setup(r1cs, tw, zk::io::key_convention::bellperson);
  const auto want = zk::io::bellperson_params_bytes(key);

  const zk::groth16::circuit_counts counts{rec.num_inputs(), rec.num_aux(), rec.num_constraints()};
  REQUIRE(counts.inputs == 4);
  zk::groth16::qap_accumulator acc(tw, counts);
  constraint_system cs(acc);
  // The second part is recorded first, then the first; appended in the system's order.
  auto second = acc.part(2);
  {
    auto p = constraint_system::part_of(*second, 2, 3);
    part1(p, {variable::aux(0), variable::aux(1), variable::aux(2), variable::input(1)});
  }
  auto first = acc.part(0);
  {
    auto p = constraint_system::part_of(*first, 1, 0);
    part0(p);
  }
  SECTION("appended out of order: refused") {
    CHECK_THROWS_AS(acc.append_part(*second), std::logic_error);
  }
  SECTION("in order") {
    acc.append_part(*first);
    acc.append_part(*second);
    cs.extend(3, 4, 5);
    SECTION("counts other than the system's: refused") {
      CHECK_THROWS_AS(acc.finish({counts.inputs, counts.aux + 1, counts.constraints}), std::logic_error);
    }
    SECTION("the same bytes, three points a chunk") {
      acc.finish({cs.num_inputs(), cs.num_aux(), cs.num_constraints()});
      const auto params = tmp.path / "toy.params", vk = tmp.path / "toy.vk";
      const auto made = zk::groth16::write_bellperson_setup(acc, params.string(), vk.string(), {}, 3);
      CHECK(read_all(params) == want);
      CHECK(read_all(vk) == zk::io::bellperson_vk_bytes(key.vk));
      CHECK(made.params_bytes == want.size());
      CHECK(made.params_digest == zk::io::parameters_json_digest(want));
      CHECK(made.vk_digest == zk::io::parameters_json_digest(vk.string()));
    }
  }
}

TEST_CASE("streamed setup: a variable in no constraint is refused naming its wire", "[setup][stream]") {
  temp_dir tmp;
  const auto tw = zk::groth16::toxic_waste_from_seed(3);
  zk::groth16::qap_accumulator acc(tw, {1, 2, 1});
  constraint_system cs(acc);
  const auto x = cs.alloc(fr::zero());
  cs.alloc(fr::zero());  // aux 1, wire 2: in no constraint
  cs.enforce(linear_combination(x), linear_combination(x), linear_combination(x));
  acc.finish({cs.num_inputs(), cs.num_aux(), cs.num_constraints()});
  try {
    zk::groth16::write_bellperson_setup(acc, (tmp.path / "p").string(), (tmp.path / "v").string());
    FAIL("no error");
  } catch (const zk::input_error& e) {
    CHECK(std::string(e.what()).find("wire 2 has a zero L point") != std::string::npos);
  }
  CHECK_FALSE(std::filesystem::exists(tmp.path / "p"));
}

// (SnapDeals' circuit records the same way, one constraint() after another: its 2 KiB setup, two
// minutes of CPU, is left out of CI.)
TEST_CASE("streamed setup: the 2 KiB WindowPoSt parameters equal the in-memory setup's", "[setup][stream][fil]") {
  temp_dir tmp;
  {
    const auto c = fil::resolve_circuit(fil::proof_kind::window_post_partition, "StackedDrgWindow2KiBV1_2");
    const auto key = fil::test_setup(c, 5);
    const auto params = tmp.path / c.params_file(), vk = tmp.path / c.vk_file();
    const auto made = fil::stream_test_setup(c, 5, params.string(), vk.string());
    const auto want = zk::io::bellperson_params_bytes(key);
    CHECK(made.counts.constraints == key.n_rows - key.n_public - 1);
    CHECK(made.log_domain == key.log_domain);
    CHECK(read_all(params) == want);
    CHECK(read_all(vk) == zk::io::bellperson_vk_bytes(key.vk));
    CHECK(made.files.params_digest == zk::io::parameters_json_digest(want));
  }
}

// The 2 KiB PoRep circuit's points take minutes on two cores (its streamed setup is judged by
// filecoin-proofs in tests/fil/oracle_setup.sh); its QAP takes seconds. Recorded as parts on four
// threads (two challenges, each its prefix, two labelings and its suffix, appended in order), it
// must accumulate what the serial record (constraint() after constraint(), as the WindowPoSt above)
// does.
TEST_CASE("streamed setup: the 2 KiB PoRep recorded in parts on threads accumulates the serial record's QAP",
          "[setup][stream][fil]") {
  const auto c = fil::resolve_circuit(fil::proof_kind::porep_seal_commit, "StackedDrg2KiBV1_1");
  const auto blank = fil::circuit::blank_porep_partition(fil::circuit::porep_shape_of(*c.seal));
  const auto tw = zk::groth16::toxic_waste_from_seed(8);
  constraint_system counted(zk::cs::mode::count);
  fil::circuit::stacked_circuit(counted, blank, 1);
  const zk::groth16::circuit_counts counts{counted.num_inputs(), counted.num_aux(), counted.num_constraints()};
  REQUIRE(counts.constraints == 2687921);
  auto run = [&](zk::thread_pool& pool) {
    auto acc = std::make_unique<zk::groth16::qap_accumulator>(tw, counts);
    constraint_system cs(*acc);
    fil::circuit::stacked_circuit(cs, blank, pool);
    acc->finish({cs.num_inputs(), cs.num_aux(), cs.num_constraints()});
    return acc;
  };
  zk::thread_pool one(1), four(4);
  const auto serial = run(one), parts = run(four);
  std::uint64_t differ = 0, first = 0, in_a = 0;
  for (std::uint64_t w = 0; w < counts.inputs + counts.aux; ++w) {
    const auto s = serial->at(w);
    if (!(s == parts->at(w)) && differ++ == 0) first = w;
    in_a += s.in_a;
  }
  INFO("first differing wire " << first);
  CHECK(differ == 0);
  CHECK(in_a > counts.inputs);  // the comparison saw the A density, not only zeros
}
