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
#include "fil/parameter_cache.hpp"
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

TEST_CASE("fil: parameter file names match rust-fil-proofs' parameters.json", "[fil]") {
  // The .vk names parameters.json lists (rust-fil-proofs 87348a74), PoRep and PoSt.
  const std::set<std::string> published = {
      "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f",
      "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472",
      "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb",
      "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820",
      "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2",
      "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0",
      "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0cfb4f178bbb71cf2ecfcd42accce558b27199ab4fb59cb78f2483fe21ef36d9",
      "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e",
      "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-50c7368dea9593ed0989e70974d28024efa9d156d585b7eea1be22b2e753f331",
      "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-5294475db5237a2e83c3e52fd6c2b03859a1831d45ed08c4f35dbf9a803165a9",
      "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-7d739b8cf60f1b0709eeebee7730e297683552e4b69cab6984ec0285663c5781",
      "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc",
      "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e",
      "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-2627e4006b67f99cef990c0a47d5426cb7ab0a0ad58fc1061547bf2d28b09def",
      "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-b62098629d07946e9028127e70295ed996fe3ed25b0f9f88eb610a0ab4385a3c",
  };
  std::set<std::string> ours;
  for (const auto& p : seal_proofs()) ours.insert(parameter_cache_id(p));
  for (const auto& p : post_proofs()) ours.insert(parameter_cache_id(p));
  CHECK(ours == published);
  CHECK(parameter_cache_id(*find_post_proof("StackedDrgWindow2KiBV1")) ==
        parameter_cache_id(*find_post_proof("StackedDrgWindow2KiBV1_2")));
}
