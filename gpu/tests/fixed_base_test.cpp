// The streamed setup's device point multiplier ("cuda", gpu/src/fixed_base.cu) against the host's
// fixed-base code: the same points for edge and random scalars in G1 and G2, and the same .params
// and .vk bytes for the 2 KiB WindowPoSt and PoRep circuits.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <vector>

#include "cuzk/gpu/cuda_backend.hpp"
#include "fil/partition.hpp"
#include "fil/test_setup.hpp"
#include "zk/groth16/setup_detail.hpp"
#include "zk/groth16/streaming_setup.hpp"

using namespace cuzk;
using namespace cuzk::zk::bls12_381;

namespace {

std::vector<fr> scalars(std::size_t n) {
  std::mt19937_64 rng(9);
  std::vector<fr> k = {fr::zero(), fr::one(), -fr::one(), fr::from_u64(2), fr::from_u64(1) - fr::from_u64(3)};
  while (k.size() < n) k.push_back(fr::from_u64(rng()) * fr::from_u64(rng()) * fr::from_u64(rng()) * fr::from_u64(rng()));
  return k;
}

std::vector<std::uint8_t> read_all(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("fixed-base setup points: the device's equal the host's", "[device][setup]") {
  if (!gpu::device_present()) {
    WARN("SKIP: no CUDA device present");
    return;
  }
  namespace d = zk::groth16::detail;
  auto dev = zk::groth16::make_point_multiplier("cuda");
  const auto k = scalars(3000);
  for (unsigned w : {4u, 16u}) {
    d::fixed_base<g1_curve> g1(g1_curve::generator(), w);
    std::vector<g1_affine> got(k.size());
    dev->g1({g1.table(), g1.window(), g1.windows()}, k, got);
    const auto want = g1.mul_all(k);
    for (std::size_t i = 0; i < k.size(); ++i) {
      INFO("G1 window " << w << " scalar " << i);
      REQUIRE(std::memcmp(&got[i], &want[i], sizeof(g1_affine)) == 0);
    }
  }
  d::fixed_base<g2_curve> g2(g2_curve::generator(), 14);
  std::vector<g2_affine> got(k.size());
  dev->g2({g2.table(), g2.window(), g2.windows()}, k, got);
  const auto want = g2.mul_all(k);
  for (std::size_t i = 0; i < k.size(); ++i) {
    INFO("G2 scalar " << i);
    REQUIRE(std::memcmp(&got[i], &want[i], sizeof(g2_affine)) == 0);
  }
  CHECK(got[0].is_identity());
}

TEST_CASE("streamed setup on the device: the 2 KiB parameters equal the host's bytes", "[device][setup]") {
  if (!gpu::device_present()) {
    WARN("SKIP: no CUDA device present");
    return;
  }
  const auto dir = std::filesystem::temp_directory_path() / ("cuzk-gpu-setup-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto dev = zk::groth16::make_point_multiplier("cuda");
  for (const auto& c : {fil::resolve_circuit(fil::proof_kind::window_post_partition, "StackedDrgWindow2KiBV1_2"),
                        fil::resolve_circuit(fil::proof_kind::porep_seal_commit, "StackedDrg2KiBV1_1")}) {
    INFO(c.describe());
    const auto host = fil::stream_test_setup(c, 5, (dir / "host.params").string(), (dir / "host.vk").string());
    const auto on_dev =
        fil::stream_test_setup(c, 5, (dir / "dev.params").string(), (dir / "dev.vk").string(), {}, 0, dev.get());
    CHECK(on_dev.files.params_digest == host.files.params_digest);
    CHECK(read_all(dir / "dev.params") == read_all(dir / "host.params"));
    CHECK(read_all(dir / "dev.vk") == read_all(dir / "host.vk"));
  }
  std::filesystem::remove_all(dir);
}
