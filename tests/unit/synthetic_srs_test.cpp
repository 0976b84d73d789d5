// The synthetic SRS's host side (zk/groth16/synthetic_srs): its shape is the one bellperson's
// density tracker gives for the recorded circuit (computed independently from the R1CS), its points
// follow the documented walk (run starts k_t G, steps of Q), lie on the curve, are not the identity
// and are distinct; its key paths round-trip and bad ones are refused naming the part.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <string>

#include <unistd.h>

#include "zk/cs/constraint_system.hpp"
#include "zk/cs/export.hpp"
#include "zk/error.hpp"
#include "zk/groth16/bellperson_key.hpp"
#include "zk/groth16/pce_compact.hpp"
#include "zk/groth16/synthetic_srs.hpp"

using namespace cuzk;
using namespace cuzk::zk::bls12_381;
using zk::cs::constraint_system;
using zk::cs::linear_combination;

namespace {

// A small circuit with every density case: aux in A only, in B only, in C only, in both; an input
// in B; a term with a zero coefficient (it counts).
template <class Sys>
void small_circuit(Sys& cs) {
  auto x = cs.alloc_input(fr::from_u64(3));
  auto y = cs.alloc_input(fr::from_u64(5));
  std::vector<zk::cs::variable> v;
  for (int i = 0; i < 40; ++i) v.push_back(cs.alloc(fr::from_u64(i + 1)));
  for (int i = 0; i < 30; ++i) {
    linear_combination a(v[i]), b(v[(i * 7) % 40]), c(v[(i + 3) % 40]);
    if (i % 5 == 0) b.add(y);
    if (i % 7 == 0) a.add(v[39], fr::zero());
    cs.enforce(a, b, c);
  }
  cs.enforce(linear_combination(x), linear_combination(x), linear_combination(v[35]));
}

struct temp_file {
  std::string path = (std::filesystem::temp_directory_path() / ("cuzk-synth-srs-" + std::to_string(::getpid()) + ".pce")).string();
  ~temp_file() { std::filesystem::remove(path); }
};

}  // namespace

TEST_CASE("synthetic SRS: the key's shape is bellperson's for the recorded circuit", "[synthetic]") {
  temp_file f;
  {
    zk::groth16::pce_recorder rec(f.path, "synthetic test");
    constraint_system cs(rec);
    small_circuit(cs);
    rec.finish(cs.num_inputs(), cs.num_aux());
  }
  constraint_system rec(zk::cs::mode::record);
  small_circuit(rec);
  const auto r1cs = zk::cs::to_r1cs(rec, "small");
  const auto want = zk::groth16::bellperson_density(r1cs);

  const auto e = zk::groth16::pce_compact::open(f.path, zk::groth16::pce_compact::stored_key(f.path));
  const auto shape = zk::groth16::synthetic_shape_of(e);
  CHECK(shape.density.a_wires == want.a_wires);
  CHECK(shape.density.b_wires == want.b_wires);
  CHECK(shape.n_inputs == 3);
  CHECK(shape.n_aux == 40);
  CHECK(shape.domain == zk::groth16::bellperson_domain_size(std::uint32_t(r1cs.n_constraints), r1cs.n_public()));
  CHECK(shape.g1_points() == want.a_wires.size() + want.b_wires.size() + 40 + shape.domain - 1);
  CHECK(shape.g2_points() == want.b_wires.size());

  for (bool on_host : {false, true}) {
    auto key = zk::groth16::synthetic_key(e, 11, on_host, "synthetic:11:x:" + f.path);
    CHECK(key.synthetic);
    CHECK(key.synthetic_on_host == on_host);
    CHECK(key.convention == zk::io::key_convention::bellperson);
    CHECK(key.n_vars == 43);
    CHECK(key.n_public == 2);
    CHECK(key.a.size() == want.a_wires.size());
    CHECK(key.b1.size() == want.b_wires.size());
    CHECK(key.b2.size() == want.b_wires.size());
    CHECK(key.c.size() == 40);
    CHECK(key.h.size() == shape.domain - 1);
    CHECK(key.vk.ic.size() == 3);
    CHECK(key.vk.alpha1.is_on_curve());
    CHECK(key.vk.delta2.is_on_curve());
    if (on_host) {
      CHECK(key.a[0].is_on_curve());
      CHECK_FALSE(key.a[0].is_identity());
      CHECK(key.b2.back().is_on_curve());
    } else {
      CHECK(key.a[0].is_identity());  // the unbacked zero mapping: a device makes the points
    }
  }
}

TEST_CASE("synthetic SRS: host points follow the walk, on the curve, distinct", "[synthetic]") {
  namespace syn = zk::groth16::synthetic;
  const std::uint64_t n = 300, lanes = 7, m = syn::run_length(n, lanes);
  const auto pts = zk::groth16::synthetic_g1(5, syn::sec_l, n, lanes);
  const auto q = zk::groth16::synthetic_step_g1(5, syn::sec_l);
  REQUIRE(pts.size() == n);
  std::set<std::string> seen;
  for (std::uint64_t i = 0; i < n; ++i) {
    INFO("point " << i);
    REQUIRE(pts[i].is_on_curve());
    REQUIRE_FALSE(pts[i].is_identity());
    seen.insert(std::string(reinterpret_cast<const char*>(&pts[i]), sizeof(g1_affine)));
    if (i % m) REQUIRE((g1_jacobian(pts[i - 1]) + q).to_affine() == pts[i]);
  }
  CHECK(seen.size() == n);
  CHECK(in_prime_subgroup(pts[0]));
  // Lane 0 starts at the same point whatever the lane count.
  CHECK(zk::groth16::synthetic_g1(5, syn::sec_l, 3)[0] == pts[0]);
  const auto g2 = zk::groth16::synthetic_g2(5, syn::sec_b2, 20, 3);
  for (auto& p : g2) {
    CHECK(p.is_on_curve());
    CHECK_FALSE(p.is_identity());
  }
  CHECK(in_prime_subgroup(g2[4]));
}

TEST_CASE("synthetic SRS: key paths round-trip, bad ones are refused naming the part", "[synthetic]") {
  zk::groth16::synthetic_key_spec s{123, true, "/tmp/x:y.cuzk-pce"};
  const auto path = zk::groth16::synthetic_key_path(s);
  CHECK(path == "synthetic:123:host:/tmp/x:y.cuzk-pce");
  CHECK(zk::groth16::is_synthetic_key_path(path));
  CHECK_FALSE(zk::groth16::is_synthetic_key_path("/params/v28.params"));
  const auto back = zk::groth16::parse_synthetic_key_path(path);
  CHECK(back.seed == 123);
  CHECK(back.host_points);
  CHECK(back.evaluator == "/tmp/x:y.cuzk-pce");
  CHECK_THROWS_WITH(zk::groth16::parse_synthetic_key_path("synthetic:12x:device:f"), Catch::Contains("seed '12x'"));
  CHECK_THROWS_WITH(zk::groth16::parse_synthetic_key_path("synthetic:1:gpu:f"), Catch::Contains("'gpu' is not device or host"));
  CHECK_THROWS_WITH(zk::groth16::parse_synthetic_key_path("synthetic:1:device:"), Catch::Contains("no evaluator file"));
  CHECK_THROWS_AS(zk::groth16::parse_synthetic_key_path("synthetic:1"), zk::input_error);
}
