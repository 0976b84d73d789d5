// Real proofs from Filecoin's chain (tests/fixtures/filecoin/mainnet: 110 PoRep C2 proofs of 32 GiB
// sectors and 46 WindowPoSt proofs from filecoin-project/test-vectors): every partition decodes as
// bellperson reads proofs (compressed points with their flags, coordinates below p, on the curve,
// in the prime-order subgroup, not the identity). The public inputs are not in the messages, so
// this checks the proof encoding and our point decoding on real data, not validity.
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "zk/error.hpp"
#include "zk/groth16/compressed_proof.hpp"

using namespace cuzk::zk;

namespace {
std::vector<std::uint8_t> read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}
}  // namespace

TEST_CASE("every mainnet PoRep and WindowPoSt proof of the test-vectors corpus decodes and is in the subgroups",
          "[fil][mainnet]") {
  const std::string dir = std::string(CUZK_SOURCE_DIR) + "/tests/fixtures/filecoin/mainnet/";
  const auto bin = read_all(dir + "proofs.bin");
  std::ifstream f(dir + "index.json");
  REQUIRE(f);
  const auto index = nlohmann::json::parse(f);
  std::size_t porep = 0, post = 0, partitions = 0;
  std::uint64_t end = 0;
  for (const auto& e : index.at("proofs")) {
    const std::uint64_t off = e.at("offset"), len = e.at("bytes");
    const std::string kind = e.at("kind"), vector = e.at("vector");
    INFO(vector << " (" << kind << ", " << len << " bytes)");
    REQUIRE(off == end);
    REQUIRE(off + len <= bin.size());
    end = off + len;
    const std::span<const std::uint8_t> bytes(bin.data() + off, len);
    if (kind == "porep") {
      CHECK(len == 10 * 192);  // 32 GiB: 10 partitions
      ++porep;
    } else {
      CHECK(e.at("registered_post_proof") == 8);  // StackedDrgWindow32GiBV1
      ++post;
    }
    std::vector<groth16::proof> proofs;
    CHECK_NOTHROW(proofs = groth16::proofs_from_compressed(bytes, vector));
    partitions += proofs.size();
    // The decoding is exact: re-encoding gives the chain's bytes back.
    for (std::size_t k = 0; k < proofs.size(); ++k) {
      const auto again = groth16::to_compressed(proofs[k]);
      CHECK(std::equal(again.begin(), again.end(), bytes.begin() + std::ptrdiff_t(192 * k)));
    }
  }
  CHECK(end == bin.size());
  CHECK(porep == 110);
  CHECK(post == 46);
  CHECK(partitions == 110 * 10 + 46 + 6 + 2 * 5 + 3 * 3);
  // And the check can fail: a point's x moved off the curve, or out of the subgroup, is refused.
  std::vector<std::uint8_t> bad(bin.begin(), bin.begin() + 192);
  bad[47] ^= 1;  // A's x
  CHECK_THROWS_AS(groth16::proofs_from_compressed(bad, "flipped"), input_error);
}
