// fil/: the SDR graph (bucket graph + Feistel expander), ChaCha, ids and challenges against known
// answers from the Rust crates: the parent-cache manifest of storage-proofs-porep (parent_cache.json
// lists the file name and the SHA-256 of every published parent cache: 64 nodes x 14 parents as u32 LE
// at 2 KiB), the ChaCha20 keystream of the all-zero key (the same core as the DRG's ChaCha8), and the
// structural properties rust-fil-proofs tests (Feistel is a permutation, parents precede the node).
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "fil/crypto/chacha8_rng.hpp"
#include "fil/crypto/feistel.hpp"
#include "fil/crypto/hashes.hpp"
#include "fil/ids.hpp"
#include "fil/post/fallback.hpp"
#include "fil/stacked/challenges.hpp"
#include "fil/stacked/graph.hpp"
#include "fil/stacked/public_inputs.hpp"
#include "zk/error.hpp"

using namespace cuzk::fil;

namespace {

// SHA-256 over the parent cache of a graph (DEGREE u32 LE per node), as ParentCache::generate does.
std::string parent_cache_digest(const stacked::stacked_bucket_graph& g) {
  crypto::sha256 h;
  std::array<std::uint32_t, stacked::degree> p{};
  for (std::uint64_t v = 0; v < g.size(); ++v) {
    g.parents(static_cast<std::uint32_t>(v), p);
    std::uint8_t b[4 * stacked::degree];
    for (unsigned i = 0; i < stacked::degree; ++i)
      for (int j = 0; j < 4; ++j) b[4 * i + j] = std::uint8_t(p[i] >> (8 * j));
    h.update(b);
  }
  const auto d = h.finish();
  return to_hex(d);
}

// cache_path(): SHA-256(H::name() || graph.identifier() || feistel keys u64 LE || cache_entries u32 LE).
std::string parent_cache_id(const stacked::stacked_bucket_graph& g) {
  const std::string id = "stacked_graph::StackedGraph{expansion_degree: 8 base_graph: drgraph::BucketGraph{size: " +
                         std::to_string(g.size()) + "; degree: 6; hasher: poseidon_hasher} }";
  crypto::sha256 h;
  h.update("poseidon_hasher").update(id);
  for (auto k : g.feistel_keys()) h.update_u64_le(k);
  h.update_u32_le(static_cast<std::uint32_t>(g.size()));
  const auto d = h.finish();
  return "v28-sdr-parent-" + to_hex(d);
}

}  // namespace

TEST_CASE("fil: ChaCha20 keystream of the zero key (the DRG RNG's core)", "[fil]") {
  crypto::chacha20_rng rng(std::array<std::uint8_t, 32>{});
  const std::uint32_t expect[] = {0xade0b876, 0x903df1a0, 0xe56a5d40, 0x28bd8653, 0xb819d2bd, 0x1aed8da0,
                                  0xccef36a8, 0xc70d778b, 0x7c5941da, 0x8d485751, 0x3fe02477, 0x374ad8b8,
                                  0xf4b8436a, 0x1ca11815, 0x69b687c3, 0x8665eeb2};
  for (auto e : expect) CHECK(rng.next_u32() == e);
}

TEST_CASE("fil: the 2 KiB parent caches match storage-proofs-porep's manifest", "[fil]") {
  // parent_cache.json, the two 2048-byte entries (file name -> digest).
  const std::map<std::string, std::string> manifest = {
      {"v28-sdr-parent-3f0eef38bb48af1f48ad65e14eb85b4ebfc167cec18cd81764f6d998836c9899",
       "3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d"},
      {"v28-sdr-parent-494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554b",
       "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97"},
  };
  std::set<std::string> seen;
  for (const char* name : {"StackedDrg2KiBV1", "StackedDrg2KiBV1_1"}) {
    INFO(name);
    const auto* proof = find_seal_proof(name);
    REQUIRE(proof);
    stacked::stacked_bucket_graph g(proof->nodes(), porep_id(*proof), proof->version);
    const auto id = parent_cache_id(g);
    const auto digest = parent_cache_digest(g);
    INFO(id << " " << digest);
    REQUIRE(manifest.count(id) == 1);
    CHECK(manifest.at(id) == digest);
    seen.insert(id);
  }
  CHECK(seen.size() == 2);
}
