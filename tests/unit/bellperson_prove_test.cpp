// bellperson-convention keys: setup, proving (coset h, density-filtered queries) and verification;
// the .params writer and reader (points and bytes identical after a round trip); the reader's
// one-line errors; and snarkjs keys unchanged beside them.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>

#include "groth16_test_support.hpp"
#include "zk/error.hpp"
#include "zk/groth16/bellperson_key.hpp"
#include "zk/groth16/cpu_backend.hpp"
#include "zk/groth16/prover.hpp"
#include "zk/groth16/setup.hpp"
#include "zk/groth16/verifier.hpp"
#include "zk/io/bellperson.hpp"
#include "zk/ntt/domain.hpp"

using namespace cuzk::zk;
using namespace cuzk::zk::bls12_381;
using namespace cuzk::zk::groth16;

namespace {

randomness fixed_rnd(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  return {test::random_fr(rng), test::random_fr(rng)};
}

std::vector<std::uint8_t> read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}
void write_all(const std::string& path, const std::vector<std::uint8_t>& b) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

// circom's .r1cs bytes of a circuit (sections 1 and 2; what r1cs::load reads).
std::vector<std::uint8_t> r1cs_file_bytes(const io::r1cs& cs) {
  std::vector<std::uint8_t> out;
  auto u32 = [&](std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(std::uint8_t(v >> (8 * i)));
  };
  auto u64 = [&](std::uint64_t v) { u32(std::uint32_t(v)), u32(std::uint32_t(v >> 32)); };
  auto fe = [&](const bigint<4>& v) {
    out.resize(out.size() + 32);
    v.to_le_bytes(out.data() + out.size() - 32);
  };
  out = {'r', '1', 'c', 's'};
  u32(1), u32(2);
  u32(1), u64(4 + 32 + 4 * 4 + 8 + 4), u32(32), fe(fr::P);
  u32(cs.n_wires), u32(cs.n_pub_out), u32(cs.n_pub_in), u32(cs.n_prv_in), u64(cs.n_labels), u32(cs.n_constraints);
  u32(2);
  const std::size_t size_at = out.size();
  u64(0);
  for (const auto& c : cs.constraints)
    for (const auto* lc : {&c.a, &c.b, &c.c}) {
      u32(std::uint32_t(lc->size()));
      for (const auto& t : *lc) u32(t.wire), fe(t.coeff.to_canonical());
    }
  const std::uint64_t size = out.size() - size_at - 8;
  for (int i = 0; i < 8; ++i) out[size_at + i] = std::uint8_t(size >> (8 * i));
  return out;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("cuzk_bp_" + std::to_string(::getpid()) + "_" + name)).string();
}

}  // namespace

TEST_CASE("bellperson roots of unity: 7-based, of exact order, differ from snarkjs's", "[bellperson][ntt]") {
  for (unsigned k : {3u, 10u, 20u}) {
    fr w = ntt::root_of_unity(k, ntt::bellperson_generator);
    CHECK(w.pow(std::uint64_t{1} << k) == fr::one());
    CHECK(w.pow(std::uint64_t{1} << (k - 1)) != fr::one());
    CHECK(w != ntt::root_of_unity(k));
  }
}

TEST_CASE("bellperson h: (A B - C) / Z as coefficients, checked at a random point", "[bellperson][ntt]") {
  std::mt19937_64 rng(3);
  const unsigned k = 5;
  const std::size_t n = std::size_t{1} << k;
  // A satisfied system: c_i = a_i b_i on the domain.
  std::vector<fr> a(n), b(n), c(n);
  for (std::size_t i = 0; i < n; ++i) a[i] = test::random_fr(rng), b[i] = test::random_fr(rng), c[i] = a[i] * b[i];
  const ntt::domain d(k, true, ntt::bellperson_generator);
  std::vector<fr> pa = a, pb = b, pc = c;  // coefficient forms
  d.intt(pa), d.intt(pb), d.intt(pc);
  std::vector<scalar> h(n - 1);
  bellperson_h(a, b, c, h);
  auto eval = [](const std::vector<fr>& p, const fr& x) {
    fr acc = fr::zero();
    for (std::size_t j = p.size(); j-- > 0;) acc = acc * x + p[j];
    return acc;
  };
  std::vector<fr> ph;
  for (const auto& s : h) ph.push_back(fr::from_canonical(s));
  fr x = test::random_fr(rng);
  CHECK(eval(ph, x) * (x.pow(std::uint64_t(n)) - fr::one()) == eval(pa, x) * eval(pb, x) - eval(pc, x));
}

TEST_CASE("bellperson-convention keys prove and verify, .params round trip is byte-identical", "[bellperson][prover]") {
  std::mt19937_64 rng(2025);
  auto rc = test::make_random_circuit(rng, 3, 6, 26);
  {  // One more constraint, 0 * (sum of the wires no constraint uses) = 0: every wire gets an L point.
    std::vector<bool> used(rc.cs.n_wires, false);
    for (const auto& con : rc.cs.constraints)
      for (const auto* lc : {&con.a, &con.b, &con.c})
        for (const auto& t : *lc) used[t.wire] = true;
    io::r1cs::constraint extra;
    for (std::uint32_t w = 4; w < rc.cs.n_wires; ++w)
      if (!used[w]) extra.b.push_back({w, fr::one()});
    rc.cs.constraints.push_back(extra);
    rc.cs.n_constraints += 1;
  }
  auto tw = toxic_waste_from_seed(91);
  SECTION("an aux wire used by no constraint cannot be written in bellperson's format") {
    auto unused = rc.cs;
    unused.n_wires += 1;
    CHECK_THROWS_WITH(setup(unused, tw, io::key_convention::bellperson), Catch::Contains("zero L point"));
  }
  io::zkey key = setup(rc.cs, tw, io::key_convention::bellperson);
  REQUIRE(key.convention == io::key_convention::bellperson);
  CHECK(key.domain_size == bellperson_domain_size(27, 3));
  CHECK(key.domain_size == 32);  // 27 + 3 + 1 = 31 rows
  CHECK(key.h.size() == key.domain_size - 1);
  CHECK(key.a.size() == key.a_wires.size());
  CHECK(key.a_wires.size() < key.n_vars);
  CHECK(key.b1.size() < key.n_vars);
  CHECK(key.c.size() == key.n_vars - 4);

  auto pce = constraint_evaluator::build(key);
  auto w = rc.witness();
  auto cpu = make_cpu_backend();
  proof p = prove(key, pce, w, fixed_rnd(1), *cpu);
  auto pub = public_inputs(key, w);
  CHECK(verify(key.vk, pub, p));
  CHECK(prove_synthesized(key, pce.evaluate(w), w, fixed_rnd(1), *cpu) == p);
  test::naive_backend naive;  // its MSMs, the shared host h
  CHECK(prove(key, pce, w, fixed_rnd(1), naive) == p);
  auto bad_pub = pub;
  bad_pub[0].limb[0] ^= 1;
  CHECK_FALSE(verify(key.vk, bad_pub, p));

  // A snarkjs key of the same circuit still proves, and the two proofs are unrelated.
  io::zkey sk = setup(rc.cs, tw);
  proof ps = prove(sk, constraint_evaluator::build(sk), w, fixed_rnd(1), *cpu);
  CHECK(verify(sk.vk, pub, ps));
  CHECK_FALSE(verify(key.vk, pub, ps));

  // Written, read back, written again: the same bytes; proving with the read key: the same proof.
  const std::string path = temp_path("k.params"), path2 = temp_path("k2.params");
  io::write_bellperson_params(path, key);
  auto params = io::bellperson_params::open(path);
  CHECK(params.n_inputs() == 4);
  CHECK(params.h.count == key.domain_size - 1);
  CHECK(params.a.count == key.a.size());
  CHECK(params.domain_size() == key.domain_size);
  io::zkey loaded = bellperson_proving_key(params, rc.cs);
  CHECK(std::equal(loaded.a.begin(), loaded.a.end(), key.a.begin(), key.a.end()));
  CHECK(std::equal(loaded.h.begin(), loaded.h.end(), key.h.begin(), key.h.end()));
  CHECK(std::equal(loaded.b2.begin(), loaded.b2.end(), key.b2.begin(), key.b2.end()));
  io::write_bellperson_params(path2, loaded);
  const auto bytes = read_all(path);
  CHECK(read_all(path2) == bytes);
  CHECK(prove(loaded, constraint_evaluator::build(loaded), w, fixed_rnd(1), *cpu) == p);
  // The .params file starts with the .vk bytes.
  const auto vkb = io::bellperson_vk_bytes(key.vk);
  CHECK(std::equal(vkb.begin(), vkb.end(), bytes.begin()));

  SECTION("the key from the mapped .r1cs (r1cs_layout) is the key from the r1cs") {
    const std::string rpath = temp_path("c.r1cs");
    auto file = r1cs_file_bytes(rc.cs);
    write_all(rpath, file);
    auto layout = io::r1cs_layout::open(rpath);
    CHECK(layout.header.n_constraints == rc.cs.n_constraints);
    io::zkey direct = bellperson_proving_key(params, layout);
    CHECK(direct.a_wires == loaded.a_wires);
    CHECK(direct.b_wires == loaded.b_wires);
    REQUIRE(direct.coefficients.size() == loaded.coefficients.size());
    bool same = true;
    for (std::size_t i = 0; i < direct.coefficients.size(); ++i) {
      const auto &x = direct.coefficients[i], &y = loaded.coefficients[i];
      same &= x.matrix == y.matrix && x.constraint == y.constraint && x.signal == y.signal && x.value == y.value;
    }
    CHECK(same);
    CHECK(prove(direct, constraint_evaluator::build(direct), w, fixed_rnd(1), *cpu) == p);
    // A bad B term of the last constraint: named as r1cs::load names it, found by the entries pass
    // (the layout reads only the counts).
    REQUIRE(rc.cs.constraints.back().c.empty());
    REQUIRE(rc.cs.constraints.back().b.size() >= 1);
    // B's first term: before B's terms and C's count (0).
    const std::size_t wire_at = file.size() - 4 - 36 * rc.cs.constraints.back().b.size();
    file[wire_at] = 0xff, file[wire_at + 1] = 0xff;
    write_all(rpath, file);
    auto bad = io::r1cs_layout::open(rpath);
    const std::string why = "constraint " + std::to_string(rc.cs.n_constraints - 1) + " B term 0: wire";
    CHECK_THROWS_WITH(bellperson_proving_key(params, bad), Catch::StartsWith(rpath + ": section 2 (constraints) " + why));
    CHECK_THROWS_WITH(io::r1cs::load(rpath), Catch::StartsWith(rpath + ": section 2 (constraints) " + why));
    std::filesystem::remove(rpath);
  }
  SECTION("a key for another circuit is refused with the file named") {
    auto other = test::make_random_circuit(rng, 3, 6, 40);
    CHECK_THROWS_WITH(bellperson_proving_key(params, other.cs), Catch::StartsWith(path + ": section h has 31"));
  }
  SECTION("truncated params") {
    auto t = bytes;
    t.resize(t.size() - 1);
    write_all(path2, t);
    CHECK_THROWS_WITH(io::bellperson_params::open(path2),
                      Catch::StartsWith(path2 + ": section b_g2: count") && Catch::Contains("left"));
    t.resize(vkb.size() + 2);
    write_all(path2, t);
    CHECK_THROWS_WITH(io::bellperson_params::open(path2), Catch::Contains("section h: truncated before its count"));
  }
  SECTION("a section count larger than the file") {
    auto t = bytes;
    t[vkb.size()] = 0x7f;  // h's count
    write_all(path2, t);
    CHECK_THROWS_WITH(io::bellperson_params::open(path2), Catch::StartsWith(path2 + ": section h: count"));
  }
  SECTION("a point off the curve at the end of a section: found when the section is used") {
    auto t = bytes;
    auto pr = io::bellperson_params::open(path);
    const std::uint64_t last_a = pr.a.offset + (pr.a.count - 1) * 96;
    t[last_a + 95] ^= 1;
    write_all(path2, t);
    auto opened = io::bellperson_params::open(path2);  // headers only: fine
    CHECK_THROWS_WITH(bellperson_proving_key(opened, rc.cs),
                      Catch::StartsWith(path2 + ": a[" + std::to_string(pr.a.count - 1) + "]") &&
                          Catch::Contains("not on the curve"));
    std::string host_error;
    try {
      bellperson_proving_key(opened, rc.cs);
    } catch (const input_error& e) {
      host_error = e.what();
    }
    // What a device that checks the points itself reports for that point: the same line.
    io::zkey on_device = bellperson_proving_key(opened, rc.cs, false);
    CHECK(on_device.file_points->describe(groth16::file_points::a, pr.a.count - 1) == host_error);
  }
  SECTION("the point at infinity in a section: found when the section is used") {
    auto t = bytes;
    auto pr = io::bellperson_params::open(path);
    std::fill(t.begin() + std::ptrdiff_t(pr.b_g2.offset), t.begin() + std::ptrdiff_t(pr.b_g2.offset + 192), 0);
    t[pr.b_g2.offset] = 0x40;  // the infinity flag, every coordinate zero: a valid encoding of the identity
    write_all(path2, t);
    auto opened = io::bellperson_params::open(path2);
    CHECK_THROWS_WITH(bellperson_proving_key(opened, rc.cs),
                      path2 + ": b_g2[0] (offset " + std::to_string(pr.b_g2.offset) + "): point at infinity");
    // A key for a device that checks the points itself opens, and names the same point the same way.
    io::zkey on_device = bellperson_proving_key(opened, rc.cs, false);
    REQUIRE(on_device.file_points);
    CHECK(on_device.file_points->describe(groth16::file_points::b2, 0) ==
          path2 + ": b_g2[0] (offset " + std::to_string(pr.b_g2.offset) + "): point at infinity");
  }
  SECTION("a key with its points in the file's form: same shape, the file's bytes, refused by the CPU backend") {
    io::zkey fk = bellperson_proving_key(params, rc.cs, false);
    REQUIRE(fk.file_points);
    CHECK(fk.a.size() == loaded.a.size());
    CHECK(fk.b1.size() == loaded.b1.size());
    CHECK(fk.b2.size() == loaded.b2.size());
    CHECK(fk.c.size() == loaded.c.size());
    CHECK(fk.h.size() == loaded.h.size());
    CHECK(fk.a_wires == loaded.a_wires);
    CHECK(fk.b_wires == loaded.b_wires);
    using fpt = groth16::file_points;
    const io::bellperson_params::section* secs[5] = {&params.a, &params.b_g1, &params.b_g2, &params.l, &params.h};
    for (int k = 0; k < 5; ++k) {
      const auto b = fk.file_points->bytes[k];
      const std::uint64_t size = k == fpt::b2 ? 192 : 96;
      CHECK(b.size() == secs[k]->count * size);
      CHECK(std::equal(b.begin(), b.end(), bytes.begin() + std::ptrdiff_t(secs[k]->offset)));
    }
    CHECK_THROWS_WITH(prove(fk, constraint_evaluator::build(fk), w, fixed_rnd(1), *cpu),
                      Catch::Contains("in the .params file's form"));
    CHECK_FALSE(cpu->takes_file_points());
  }
  SECTION("trailing bytes") {
    auto t = bytes;
    t.push_back(0);
    write_all(path2, t);
    CHECK_THROWS_WITH(io::bellperson_params::open(path2), Catch::Contains("1 bytes after the last section"));
  }
  SECTION("parameters.json digest: 32 hex digits of BLAKE2b-512") {
    std::string d = io::parameters_json_digest(path);
    CHECK(d.size() == 32);
    CHECK(d == io::parameters_json_digest(path2));
    write_all(path2, std::vector<std::uint8_t>{'a', 'b', 'c'});
    // BLAKE2b-512("abc") (RFC 7693 appendix A) starts ba80a53f981c4d0d6a2797b69f12f6e9.
    CHECK(io::parameters_json_digest(path2) == "ba80a53f981c4d0d6a2797b69f12f6e9");
  }
  std::filesystem::remove(path);
  std::filesystem::remove(path2);
}
