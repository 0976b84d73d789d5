// The synthetic SRS generator on the device against the host generator (zk/groth16/synthetic_srs):
// the same points byte for byte, every one on the curve, in the subgroup (sampled), not the
// identity, all distinct.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <set>
#include <string>

#include "cuzk/gpu/cuda_backend.hpp"
#include "zk/groth16/synthetic_srs.hpp"

using namespace cuzk;
using namespace cuzk::zk::bls12_381;

namespace {

template <class Aff>
void check_points(const std::vector<Aff>& dev, const std::vector<Aff>& host) {
  REQUIRE(dev.size() == host.size());
  std::set<std::string> seen;
  for (std::size_t i = 0; i < dev.size(); ++i) {
    INFO("point " << i);
    REQUIRE(std::memcmp(&dev[i], &host[i], sizeof(Aff)) == 0);
    REQUIRE_FALSE(dev[i].is_identity());
    REQUIRE(dev[i].is_on_curve());
    if (i % 97 == 0) REQUIRE(in_prime_subgroup(dev[i]));
    seen.insert(std::string(reinterpret_cast<const char*>(&dev[i]), sizeof(Aff)));
  }
  REQUIRE(seen.size() == dev.size());
}

}  // namespace

TEST_CASE("synthetic SRS: device points equal the host generator's", "[device][synthetic]") {
  if (!gpu::device_present()) {
    WARN("SKIP: no CUDA device present");
    return;
  }
  namespace syn = zk::groth16::synthetic;
  for (auto [n, lanes] : {std::pair<std::size_t, std::uint64_t>{1000, 64}, {1000, 0}, {333, 7}}) {
    INFO("G1 n " << n << " lanes " << lanes);
    check_points(gpu::synthetic_g1_on_device(0, 42, syn::sec_h, n, lanes),
                 zk::groth16::synthetic_g1(42, syn::sec_h, n, lanes));
  }
  INFO("G2");
  check_points(gpu::synthetic_g2_on_device(0, 7, syn::sec_b2, 200, 16), zk::groth16::synthetic_g2(7, syn::sec_b2, 200, 16));
  // Another seed or section gives other points.
  auto a = gpu::synthetic_g1_on_device(0, 42, syn::sec_a, 8), b = gpu::synthetic_g1_on_device(0, 43, syn::sec_a, 8),
       c = gpu::synthetic_g1_on_device(0, 42, syn::sec_b1, 8);
  for (std::size_t i = 0; i < 8; ++i) {
    REQUIRE_FALSE(a[i] == b[i]);
    REQUIRE_FALSE(a[i] == c[i]);
  }
}
