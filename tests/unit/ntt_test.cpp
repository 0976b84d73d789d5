#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "zk/ntt/domain.hpp"
#include "zk/util/cpu_features.hpp"

using namespace cuzk::zk;
using namespace cuzk::zk::bls12_381;
using cuzk::zk::ntt::domain;

namespace {

std::vector<fr> random_frs(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<fr> v(n);
  for (auto& x : v) {
    bigint<4> s;
    for (auto& l : s.limb) l = rng();
    s.limb[3] &= (std::uint64_t{1} << 62) - 1;  // < r
    x = fr::from_canonical(s);
  }
  return v;
}

// sum_j a_j x^j by Horner.
fr eval(const std::vector<fr>& coeffs, const fr& x) {
  fr acc = fr::zero();
  for (std::size_t j = coeffs.size(); j-- > 0;) acc = acc * x + coeffs[j];
  return acc;
}

}  // namespace

TEST_CASE("ntt roots are snarkjs's", "[ntt]") {
  // w[32] as snarkjs prints it (Fr.w[32]), and the defining identities of every w[k].
  fr w32 = ntt::root_of_unity(32);
  CHECK(w32.to_canonical().to_hex() == "0x212d79e5b416b6f0fd56dc8d168d6c0c4024ff270b3e0941b788f500b912f1f");
  for (unsigned k = 1; k <= 28; ++k) {
    fr w = ntt::root_of_unity(k);
    CHECK(ntt::root_of_unity(k + 1).sqr() == w);
    CHECK(w.pow(std::uint64_t{1} << (k - 1)) == -fr::one());  // primitive
  }
  CHECK(ntt::root_of_unity(0) == fr::one());
}

TEST_CASE("ntt matches a naive DFT", "[ntt]") {
  for (unsigned k = 0; k <= 14; ++k) {
    if (k > 9 && k != 13 && k != 14) continue;  // O(n^2) reference: a few larger sizes only
    domain d(k);
    const std::size_t n = d.size();
    auto coeffs = random_frs(n, 10 + k);
    auto got = coeffs;
    d.ntt(got);
    std::size_t stride = n > 256 ? n / 61 + 1 : 1;  // spot-check large sizes
    for (std::size_t i = 0; i < n; i += stride) REQUIRE(got[i] == eval(coeffs, d.omega().pow(std::uint64_t(i))));
    REQUIRE(got[n - 1] == eval(coeffs, d.omega().pow(std::uint64_t(n - 1))));

    auto back = got;
    d.intt(back);
    REQUIRE(back == coeffs);

    auto shifted = got;
    d.to_odd_coset(shifted);
    fr g = d.coset_generator();
    for (std::size_t i = 0; i < n; i += stride)
      REQUIRE(shifted[i] == eval(coeffs, g * d.omega().pow(std::uint64_t(i))));
  }
}

TEST_CASE("ntt round trip at 2^16 on 1, 2 and 3 threads", "[ntt]") {
  domain d(16);
  auto v = random_frs(d.size(), 99);
  std::vector<fr> first;
  for (unsigned t : {1u, 2u, 3u}) {
    thread_pool pool(t);
    auto x = v;
    d.ntt(x, pool);
    if (first.empty()) first = x;
    CHECK(x == first);  // same result whatever the thread count
    CHECK(x != v);
    d.intt(x, pool);
    CHECK(x == v);
  }
  // one spot value of the forward transform against Horner
  CHECK(first[12345] == eval(v, d.omega().pow(std::uint64_t(12345))));
}

TEST_CASE("ntt rejects a wrong length and an oversized domain", "[ntt]") {
  domain d(4);
  std::vector<fr> v(8);
  CHECK_THROWS(d.ntt(v));
  CHECK_THROWS(domain(29));
}

TEST_CASE("ntt on IFMA lanes equals the scalar butterflies", "[ntt][vector]") {
  if (!cuzk::zk::cpu_has_avx512_ifma()) {
    WARN("SKIPPED: this CPU has no AVX-512 IFMA; the vector NTT is untested here");
    return;
  }
  // 21: above the domain's kept twiddle table (the vector stages' twiddles made per transform).
  for (unsigned k : {6u, 7u, 8u, 9u, 10u, 11u, 12u, 13u, 14u, 15u, 16u, 21u}) {
    domain vec(k), scal(k, false);
    auto v = random_frs(vec.size(), 200 + k);
    v[0] = fr::zero(), v[1] = -fr::one(), v[2] = fr::one();  // the edges of the lazy reduction
    auto x = v, y = v;
    vec.to_odd_coset(x);
    scal.to_odd_coset(y);
    INFO("2^" << k);
    CHECK(x == y);
    vec.intt(x);
    scal.intt(y);
    CHECK(x == y);
  }
}
