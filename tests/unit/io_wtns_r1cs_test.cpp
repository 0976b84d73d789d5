// wtns and r1cs readers: the circom fixtures load with the values circom computed; bad inputs are
// refused with one-line messages naming the file and the field.
#include <catch2/catch.hpp>
#include <gmpxx.h>

#include "io_test_util.hpp"
#include "zk/error.hpp"
#include "zk/io/r1cs.hpp"
#include "zk/io/wtns.hpp"

using namespace cuzk::zk;
using namespace cuzk::zk::bls12_381;
using namespace cuzk::zk::io;
using namespace io_test;
using Catch::Matchers::Contains;

namespace {

template <class T>
std::string load_error(const std::vector<std::uint8_t>& bytes, const char* suffix) {
  temp_file f(bytes, suffix);
  try {
    T::load(f.path());
  } catch (const input_error& e) {
    std::string m = e.what();
    CHECK(m.rfind(f.path() + ": ", 0) == 0);
    CHECK(m.find('\n') == std::string::npos);
    return m;
  }
  return "";
}
std::string wtns_error(const std::vector<std::uint8_t>& b) { return load_error<witness>(b, ".wtns"); }
std::string r1cs_error(const std::vector<std::uint8_t>& b) { return load_error<r1cs>(b, ".r1cs"); }

}  // namespace

TEST_CASE("wtns: the circom fixture loads with the expected values", "[parsers][wtns]") {
  auto w = witness::load(fixture("sample.wtns"));
  std::vector<std::uint64_t> want = {1, 33, 234, 3, 11, 7, 121, 992};  // tests/fixtures/sample/README.md
  REQUIRE(w.values.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) CHECK(w.values[i] == bigint<4>{{want[i], 0, 0, 0}});
  CHECK(w.path == fixture("sample.wtns"));
  // From memory: the same.
  auto m = witness::parse(slurp(fixture("sample.wtns")), "mem.wtns");
  CHECK(m.values == w.values);
}

TEST_CASE("wtns: bad inputs", "[parsers][wtns]") {
  const auto good = slurp(fixture("sample.wtns"));
  const auto secs = sections_of(good);
  REQUIRE(wtns_error(good).empty());
  CHECK_THAT(wtns_error(slurp(fixture("sample_bn254.wtns"))),
             Contains("prime field is BN254's, cuzk proves on BLS12-381 only"));
  for (std::size_t cut : {std::size_t(0), std::size_t(8), std::size_t(30), good.size() - 32, good.size() - 1})
    CHECK_FALSE(wtns_error({good.begin(), good.begin() + std::ptrdiff_t(cut)}).empty());
  auto b = good;
  b[0] = 'W';
  CHECK_THAT(wtns_error(b), Contains("not a .wtns file: magic is 'Wtns', expected 'wtns'"));
  b = good;
  put32(b, 4, 1);
  CHECK_THAT(wtns_error(b), Contains("wtns version is 1, expected 2"));
  b = good;
  put32(b, secs.at(1).data, 48);
  CHECK_THAT(wtns_error(b), Contains("section 1 (header) n8 is 48, expected 32"));
  b = good;
  put32(b, secs.at(1).data + 36, 9);  // nWitness
  CHECK_THAT(wtns_error(b), Contains("section 2 (values) has 256 bytes, expected 288 (9 values of 32 bytes)"));
  CHECK_THAT(wtns_error(shrink_section(good, 2, 32)), Contains("section 2 (values) has 224 bytes, expected 256"));
  b = good;
  fr::P.to_le_bytes(b.data() + secs.at(2).data + 32 * 5);
  CHECK_THAT(wtns_error(b), Contains("section 2 (values) value 5 is not below r"));
  b = good;
  b[secs.at(2).data] = 2;
  CHECK_THAT(wtns_error(b), Contains("value 0 is 2, expected the constant 1"));
  CHECK_THAT(wtns_error(without_section(good, 2)), Contains("section 2 (values) is missing"));
}

TEST_CASE("r1cs: the circom fixture loads, coefficients are Montgomery, checked with GMP", "[parsers][r1cs]") {
  auto cs = r1cs::load(fixture("sample.r1cs"));
  CHECK(cs.n_wires == 8);
  CHECK(cs.n_pub_out == 2);
  CHECK(cs.n_pub_in == 1);
  CHECK(cs.n_prv_in == 2);
  CHECK(cs.n_public() == 3);
  CHECK(cs.n_constraints == 4);
  REQUIRE(cs.constraints.size() == 4);

  // The witness satisfies every constraint: <A,w> * <B,w> == <C,w> mod r, evaluated with GMP from
  // the canonical coefficients.
  auto w = witness::load(fixture("sample.wtns"));
  const mpz_class r("0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001");
  auto mpz_of = [](const bigint<4>& v) { return mpz_class(v.to_hex()); };
  auto eval = [&](const r1cs::linear_combination& lc) {
    mpz_class acc = 0;
    for (auto& t : lc) acc += mpz_of(t.coeff.to_canonical()) * mpz_of(w.values.at(t.wire));
    return mpz_class(acc % r);
  };
  for (auto& c : cs.constraints) CHECK(eval(c.a) * eval(c.b) % r == eval(c.c));
  // Montgomery form: m == coeff * 2^256 mod r.
  auto& t = cs.constraints[0].a.at(0);
  CHECK(mpz_of(t.coeff.m) == mpz_class(mpz_of(t.coeff.to_canonical()) * (mpz_class(1) << 256) % r));
}

TEST_CASE("r1cs: bad inputs", "[parsers][r1cs]") {
  const auto good = slurp(fixture("sample.r1cs"));
  const auto secs = sections_of(good);
  REQUIRE(r1cs_error(good).empty());
  CHECK_THAT(r1cs_error(slurp(fixture("sample_bn254.r1cs"))),
             Contains("prime field is BN254's, cuzk proves on BLS12-381 only"));
  for (std::size_t cut : {std::size_t(0), std::size_t(11), std::size_t(40), good.size() / 2, good.size() - 1})
    CHECK_FALSE(r1cs_error({good.begin(), good.begin() + std::ptrdiff_t(cut)}).empty());
  auto b = good;
  put32(b, 4, 2);
  CHECK_THAT(r1cs_error(b), Contains("r1cs version is 2, expected 1"));
  b = good;
  b[1] = 'X';
  CHECK_THAT(r1cs_error(b), Contains("magic is 'rXcs', expected 'r1cs'"));

  const std::size_t h = secs.at(1).data;  // n8, prime, nWires @36, nPubOut @40, nPubIn @44, nPrvIn @48, nLabels @52, nConstraints @60
  b = good;
  put32(b, h + 36, 5);
  CHECK_THAT(r1cs_error(b), Contains("declares 6 input/output wires and the constant, more than nWires 5"));
  b = good;
  put32(b, h + 36, 7);  // a wire 7 exists in the constraints
  CHECK_THAT(r1cs_error(b), Contains("wire 7 is not below nWires 7"));
  b = good;
  put32(b, h + 60, 5);
  CHECK_THAT(r1cs_error(b), Contains("section 2 (constraints) ends inside"));
  b = good;
  put32(b, h + 60, 3);
  CHECK_THAT(r1cs_error(b), Contains("section 2 (constraints) has") && Contains("unexpected bytes"));
  b = good;
  put32(b, h + 60, 0x40000000);  // would reserve gigabytes without the bound
  CHECK_THAT(r1cs_error(b), Contains("too few for 1073741824 constraints"));
  b = good;
  fr::P.to_le_bytes(b.data() + secs.at(2).data + 8);  // constraint 0, A, term 0 coefficient
  CHECK_THAT(r1cs_error(b), Contains("constraint 0 A term 0: coefficient is not below r"));
  b = good;
  put32(b, secs.at(2).data, 0xffffffffu);  // term count of constraint 0 A
  CHECK_THAT(r1cs_error(b), Contains("ends inside constraint 0 A (4294967295 terms of 36 bytes)"));
  CHECK_THAT(r1cs_error(without_section(good, 1)), Contains("section 1 (header) is missing"));
}
