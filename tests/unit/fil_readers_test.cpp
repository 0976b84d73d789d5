// fil/io: the C1 JSON (wrapped and bare) and bincode PoSt readers. Synthetic proofs with the real
// shapes (fil/synthetic.hpp) are written in the serde / bincode layout and read back, through a
// source that hands out one byte at a time (every chunk and base64 boundary is crossed); then every
// kind of damage must give one input_error line naming the field, never a crash.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <optional>
#include <nlohmann/json.hpp>

#include "fil/crypto/poseidon.hpp"
#include "fil/ids.hpp"
#include "fil/io/c1_json.hpp"
#include "fil/io/post_bincode.hpp"
#include "fil/post/fallback.hpp"
#include "fil/stacked/challenges.hpp"
#include "fil/stacked/public_inputs.hpp"
#include "fil/stacked/vanilla_verify.hpp"
#include "fil/synthetic.hpp"
#include "zk/error.hpp"
#include "zk/util/parallel.hpp"

using namespace cuzk;
using namespace cuzk::fil;

namespace {

class trickle_source final : public io::byte_source {  // one byte per read
 public:
  explicit trickle_source(std::string_view s) : s_(s) {}
  std::size_t read(std::uint8_t* dst, std::size_t cap) override {
    if (at_ == s_.size() || cap == 0) return 0;
    dst[0] = std::uint8_t(s_[at_++]);
    return 1;
  }

 private:
  std::string_view s_;
  std::size_t at_ = 0;
};

c1_output parse_serial(const std::string& text) {
  io::memory_source src(text);
  return io::read_c1(src, "c1.json");
}

// The read from memory on a pool of 3 (Phase1Out decoded and the partitions parsed on it).
c1_output parse_parallel(const std::string& text) {
  static zk::thread_pool pool(3);
  return io::read_c1(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()), "c1.json", pool);
}

bool same(const c1_output& a, const c1_output& b) {
  const auto &p = a.phase1_out, &q = b.phase1_out;
  return a.sector_num == b.sector_num && a.sector_size == b.sector_size && a.wrapped == b.wrapped &&
         p.registered_proof == q.registered_proof && p.vanilla_proofs_variant == q.vanilla_proofs_variant &&
         p.vanilla_proofs == q.vanilla_proofs && p.comm_r == q.comm_r && p.comm_d == q.comm_d &&
         p.replica_id == q.replica_id && p.seed == q.seed && p.ticket == q.ticket;
}

// Both reads: the same output (or both throw).
c1_output parse(const std::string& text) {
  auto out = parse_serial(text);
  CHECK(same(parse_parallel(text), out));
  return out;
}

// The error message of parsing `text`, which must fail with exactly one line, the same on both reads.
std::string error_of(const std::string& text) {
  std::string parallel = "(no error)";
  try {
    parse_parallel(text);
  } catch (const zk::input_error& e) {
    parallel = e.what();
  }
  try {
    parse_serial(text);
  } catch (const zk::input_error& e) {
    const std::string m = e.what();
    CHECK(m.find('\n') == std::string::npos);
    CHECK(m.rfind("c1.json: ", 0) == 0);
    CHECK(parallel == m);
    return m;
  }
  FAIL("no error for the damaged input");
  return {};
}

std::string replace_once(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("fil: a 2 KiB C1 output reads back, wrapped and bare, byte by byte", "[fil]") {
  const auto* proof = find_seal_proof("StackedDrg2KiBV1_1");
  const auto c1 = synthetic_c1(*proof, 7, 1000, 42);
  const std::string bare = io::to_json(c1);
  const std::string wrapped = io::wrap_c1(bare, 7, proof->sector_size);
  for (const auto* text : {&bare, &wrapped}) {
    trickle_source src(*text);
    const auto out = io::read_c1(src, "c1.json");
    CHECK(out.wrapped == (text == &wrapped));
    CHECK(out.phase1_out.registered_proof == proof);
    CHECK(out.phase1_out.vanilla_proofs == c1.vanilla_proofs);
    CHECK(out.phase1_out.replica_id == c1.replica_id);
    CHECK(out.phase1_out.comm_d == c1.comm_d);
    CHECK(out.phase1_out.comm_r == c1.comm_r);
    CHECK(out.phase1_out.seed == c1.seed);
    CHECK(out.phase1_out.ticket == c1.ticket);
  }
  CHECK(parse(wrapped).sector_num == 7);
  // Keys in another order and whitespace are accepted, as serde does.
  const std::string reordered = "{ \"SectorSize\" : 2048 ,\n \"SectorNum\": 7, \"Phase1Out\": \"" +
                                wrapped.substr(wrapped.find("Phase1Out\":\"") + 12);
  CHECK(parse(reordered.substr(0, reordered.rfind(",\"SectorSize")) + "}").phase1_out.vanilla_proofs == c1.vanilla_proofs);
}

TEST_CASE("fil: damaged C1 outputs fail with one line naming the field", "[fil]") {
  const auto* proof = find_seal_proof("StackedDrg2KiBV1_1");
  const auto c1 = synthetic_c1(*proof, 7, 1000, 43);
  const std::string bare = io::to_json(c1);
  const std::string wrapped = io::wrap_c1(bare, 7, proof->sector_size);

  CHECK_THAT(error_of(wrapped.substr(0, wrapped.size() / 2)), Catch::Contains("Phase1Out"));
  CHECK_THAT(error_of(bare.substr(0, bare.size() - 1)), Catch::Contains("expected"));
  CHECK_THAT(error_of(replace_once(wrapped, "\"SectorSize\":2048", "\"SectorSize\":34359738368")),
             Catch::Contains("SectorSize: 34359738368 but Phase1Out is StackedDrg2KiBV1_1"));
  // A C1 of another sector size: the proof type says 32 GiB, the vanilla proofs are 2 KiB ones.
  CHECK_THAT(error_of(replace_once(bare, "StackedDrg2KiBV1_1", "StackedDrg32GiBV1_1")),
             Catch::Contains("vanilla_proofs: variant StackedDrg2KiBV1 does not match registered_proof StackedDrg32GiBV1_1"));
  CHECK_THAT(error_of(replace_once(bare, "StackedDrg2KiBV1_1", "StackedDrg3KiBV1_1")),
             Catch::Contains("registered_proof: unknown registered proof \"StackedDrg3KiBV1_1\""));
  CHECK_THAT(error_of(replace_once(bare, "\"comm_d\":[", "\"comm_d\":[1,")), Catch::Contains("comm_d[32]: expected 32 bytes, found more"));
  CHECK_THAT(error_of(replace_once(bare, "\"ticket\":[", "\"ticket\":[256,")),
             Catch::Contains("ticket[0]: integer out of range (at most 255)"));
  CHECK_THAT(error_of(replace_once(bare, "\"seed\":", "\"seeds\":")), Catch::Contains("missing field \"seed\""));
  CHECK_THAT(error_of(replace_once(bare, "\"layer_index\":1", "\"layer_index\":-1")),
             Catch::Contains("vanilla_proofs.StackedDrg2KiBV1[0][0].labeling_proofs[0].layer_index: expected a non-negative integer"));
  CHECK_THAT(error_of(replace_once(bare, "{\"Single\":", "{\"Double\":")),
             Catch::Contains("comm_d_proofs.data.Double: unknown variant \"Double\""));
  CHECK_THAT(error_of(replace_once(bare, "\"index\":", "\"index\":9")), Catch::Contains("vanilla_proofs.StackedDrg2KiBV1[0][0]"));
  CHECK_THAT(error_of(replace_once(wrapped, "\"Phase1Out\":\"", "\"Phase1Out\":\"*")), Catch::Contains("Phase1Out: not base64"));
  CHECK_THAT(error_of("{}"), Catch::Contains("neither a C1 wrapper"));
  CHECK_THAT(error_of("[1,2]"), Catch::Contains("expected an object"));
  CHECK_THAT(error_of(std::string(100, '[')), Catch::Contains("expected an object"));
  CHECK_THAT(error_of(bare + "x"), Catch::Contains("after the document"));
  // One challenge missing in the partition.
  auto short_c1 = c1;
  short_c1.vanilla_proofs[0].pop_back();
  CHECK_THAT(error_of(io::to_json(short_c1)), Catch::Contains("vanilla_proofs.StackedDrg2KiBV1[0]: expected 2 challenges, found 1"));
  auto bad_parent = c1;
  bad_parent.vanilla_proofs[0][1].replica_column_proofs.exp_parents.pop_back();
  CHECK_THAT(error_of(io::to_json(bad_parent)), Catch::Contains("[0][1].replica_column_proofs.exp_parents: expected 8 columns"));
}

TEST_CASE("fil: counts are checked as a C1 output is read, not after (memory stays bounded)", "[fil]") {
  const auto* proof = find_seal_proof("StackedDrg2KiBV1_1");
  const auto c1 = synthetic_c1(*proof, 7, 1000, 44);
  const std::string bare = io::to_json(c1);
  // 100,000 empty partitions after the real one: each would be a vector of 24 bytes for 3 of text.
  std::string many;
  for (int i = 0; i < 100000; ++i) many += ",[]";
  const std::string variant = "\"StackedDrg2KiBV1\":[";
  const auto at = bare.find(variant);
  REQUIRE(at != std::string::npos);
  const auto end = bare.find("]]},\"comm_r\"", at);  // the last partition's ']'
  REQUIRE(end != std::string::npos);
  const std::string flooded = bare.substr(0, end + 1) + many + bare.substr(end + 1);
  CHECK_THAT(error_of(flooded), Catch::Contains("vanilla_proofs.StackedDrg2KiBV1[1]: more than 1 partitions"));
  // The same inside the Phase1Out of Curio's wrapper (both reads, the parallel one falls back).
  CHECK_THAT(error_of(io::wrap_c1(flooded, 7, proof->sector_size)),
             Catch::Contains("Phase1Out: vanilla_proofs.StackedDrg2KiBV1[1]: more than 1 partitions"));
  // Paths, siblings, rows, parents: each bounded where it is read.
  const std::string hashes = "\"hashes\":[";
  std::string zero = "[0";  // a 32-byte domain of zeros
  for (int i = 1; i < 32; ++i) zero += ",0";
  zero += "]";
  std::string siblings;
  for (int i = 0; i < 20; ++i) siblings += zero + ",";
  CHECK_THAT(error_of(replace_once(bare, hashes, hashes + siblings)), Catch::Contains("more than 15 sibling hashes"));
}

TEST_CASE("fil: every truncation of a C1 output is a one-line error", "[fil]") {
  const auto* proof = find_seal_proof("StackedDrg2KiBV1_1");
  const std::string wrapped = io::wrap_c1(io::to_json(synthetic_c1(*proof, 1, 1, 44)), 1, 2048);
  for (std::size_t n = 0; n < wrapped.size(); n += 97) {
    INFO(n);
    CHECK_THROWS_AS(parse_serial(wrapped.substr(0, n)), zk::input_error);
    CHECK_THROWS_AS(parse_parallel(wrapped.substr(0, n)), zk::input_error);
  }
}

TEST_CASE("fil: the parallel C1 read gives the serial read's output, and its error for every damaged byte", "[fil]") {
  // 13 partitions of 2 challenges: NI-PoRep's 2 KiB shape, each partition that of another synthetic
  // sector (the reader checks shapes, not roots), so that a partition in the wrong place shows.
  const auto* proof = find_seal_proof("StackedDrg2KiBV1_2_Feat_NonInteractivePoRep");
  auto c1 = synthetic_c1(*find_seal_proof("StackedDrg2KiBV1_1"), 9, 1000, 45);
  c1.registered_proof = proof;
  for (unsigned k = 1; k < proof->partitions; ++k)
    c1.vanilla_proofs.push_back(
        synthetic_c1(*find_seal_proof("StackedDrg2KiBV1_1"), 9, 1000, 45 + k).vanilla_proofs[0]);
  const std::string bare = io::to_json(c1);
  const std::string wrapped = io::wrap_c1(bare, 9, proof->sector_size);
  REQUIRE(c1.vanilla_proofs.size() > 1);  // partitions to share out
  for (const auto* text : {&bare, &wrapped}) {
    const auto out = parse_parallel(*text);
    CHECK(same(out, parse_serial(*text)));
    CHECK(out.phase1_out.vanilla_proofs == c1.vanilla_proofs);
  }
  // Whitespace between the partitions and around them, escapes in strings, padding of every length.
  std::string spaced = bare;
  for (std::size_t at = 0; (at = spaced.find("],[{", at)) != std::string::npos; at += 6)
    spaced.replace(at, 4, "] ,\n [{");
  CHECK(same(parse_parallel(spaced), parse_serial(spaced)));
  CHECK(same(parse_parallel(io::wrap_c1(spaced, 9, 2048)), parse_serial(io::wrap_c1(spaced, 9, 2048))));
  CHECK(same(parse_parallel(io::wrap_c1(spaced + " ", 9, 2048)), parse_serial(io::wrap_c1(spaced + " ", 9, 2048))));
  CHECK(same(parse_parallel(io::wrap_c1(spaced + "  ", 9, 2048)), parse_serial(io::wrap_c1(spaced + "  ", 9, 2048))));
  const std::string escaped = replace_once(bare, "\"comm_d\"", "\"comm\\u005fd\"");
  CHECK(same(parse_parallel(escaped), parse_serial(escaped)));
  // Bytes changed at ~40 places over each text: both reads agree, output or error.
  for (const auto* text : {&bare, &wrapped})
    for (std::size_t at = 0; at < text->size(); at += text->size() / 39 + 1) {
      for (const char c : {']', '"', '\\', '=', 'A'}) {
        std::string damaged = *text;
        damaged[at] = c;
        std::string serial_error, parallel_error;
        std::optional<c1_output> serial, parallel;
        try {
          serial = parse_serial(damaged);
        } catch (const zk::input_error& e) {
          serial_error = e.what();
        }
        try {
          parallel = parse_parallel(damaged);
        } catch (const zk::input_error& e) {
          parallel_error = e.what();
        }
        INFO(at << " " << c);
        CHECK(serial_error == parallel_error);
        CHECK(serial.has_value() == parallel.has_value());
        if (serial && parallel) CHECK(same(*serial, *parallel));
      }
    }
}

TEST_CASE("fil: bincode PoSt vanilla proofs read back, damage is a one-line error", "[fil]") {
  for (const char* name : {"StackedDrgWindow2KiBV1_2", "StackedDrgWinning2KiBV1", "StackedDrgWindow32GiBV1_2",
                           "StackedDrgWindow64GiBV1_2"}) {
    INFO(name);
    const auto* info = find_post_proof(name);
    REQUIRE(info);
    domain randomness{};
    randomness[0] = 9;
    const auto p = synthetic_post_proof(*info, 1234, randomness, 0, 7);
    const auto bytes = io::to_bincode(p);
    const auto back = io::read_post_vanilla_proof(bytes, "post.vproof");
    CHECK(back == p);
    const auto challenges = post::leaf_challenges(*info, randomness, 1234, 0);
    CHECK_NOTHROW(io::check_post_shape(back, *info, challenges, "post.vproof"));
    // Another sector's challenges do not match its paths.
    CHECK_THROWS_WITH(io::check_post_shape(back, *info, post::leaf_challenges(*info, randomness, 1235, 0), "post.vproof"),
                      Catch::Contains("post.vproof: vanilla_proof.sectors[0].inclusion_proofs["));
    for (std::size_t n = 0; n < bytes.size(); n += 1 + bytes.size() / 200)
      CHECK_THROWS_AS(io::read_post_vanilla_proof(std::span(bytes).first(n), "post.vproof"), zk::input_error);
    auto longer = bytes;
    longer.push_back(0);
    CHECK_THROWS_WITH(io::read_post_vanilla_proof(longer, "post.vproof"), Catch::Contains("1 bytes after the end"));
    auto bad_variant = bytes;
    bad_variant[8 + 32 + 8 + 8] = 7;  // the first MerkleProof's variant tag
    CHECK_THROWS_WITH(io::read_post_vanilla_proof(bad_variant, "post.vproof"),
                      Catch::Contains("vanilla_proof.sectors[0].inclusion_proofs[0].data: unknown variant 7"));
    auto huge = bytes;
    huge[8 + 32 + 7] = 0x7f;  // sectors length
    CHECK_THROWS_WITH(io::read_post_vanilla_proof(huge, "post.vproof"),
                      Catch::Contains("vanilla_proof.sectors: length") && Catch::Contains("exceeds the bytes left"));
  }
}

TEST_CASE("fil: a real 2 KiB C1 output (fil-oracle) reads, checks and gives the oracle's public inputs", "[fil]") {
  const std::string dir = CUZK_SOURCE_DIR "/tests/fixtures/filecoin/oracle-2k/";
  const auto c1 = io::read_c1_file(dir + "c1.json");
  std::ifstream sj(dir + "sector.json"), pj(dir + "public-inputs.json");
  REQUIRE(sj);
  REQUIRE(pj);
  const auto sector = nlohmann::json::parse(sj), pub = nlohmann::json::parse(pj);
  const auto& p1 = c1.phase1_out;
  CHECK(c1.wrapped);
  CHECK(c1.sector_num == sector["sector_id"].get<std::uint64_t>());
  CHECK(p1.registered_proof->name == sector["registered_proof"].get<std::string>());
  CHECK(to_hex(p1.comm_r) == sector["comm_r"].get<std::string>());
  CHECK(to_hex(p1.comm_d) == sector["comm_d"].get<std::string>());
  CHECK(to_hex(p1.seed) == sector["interactive_seed"].get<std::string>());
  CHECK(to_hex(p1.ticket) == sector["ticket"].get<std::string>());
  CHECK(to_hex(prover_id(sector["miner_id"].get<std::uint64_t>())) == sector["prover_id"].get<std::string>());
  CHECK(to_hex(porep_id(*p1.registered_proof)) == sector["porep_id"].get<std::string>());
  const auto rid = replica_id(prover_id(1000), c1.sector_num, p1.ticket, p1.comm_d, porep_id(*p1.registered_proof));
  CHECK(rid == p1.replica_id);
  // comm_r = Poseidon(comm_c, comm_r_last) of the vanilla proofs: a real Poseidon answer.
  const auto& v = p1.vanilla_proofs[0][0];
  CHECK(crypto::poseidon2(v.comm_c(), v.comm_r_last()) == p1.comm_r);
  // The challenges the vanilla proofs were made for are the ones we derive.
  const auto challenges = stacked::porep_challenges_for(*p1.registered_proof, rid, p1.seed, p1.comm_r, 0);
  for (std::size_t j = 0; j < challenges.size(); ++j) CHECK(p1.vanilla_proofs[0][j].challenge() == challenges[j]);
  // Public inputs equal the oracle's.
  stacked::stacked_bucket_graph graph(p1.registered_proof->nodes(), porep_id(*p1.registered_proof),
                                      p1.registered_proof->version);
  stacked::public_inputs in{rid, p1.seed, p1.comm_d, p1.comm_r};
  const auto ours = stacked::generate_public_inputs(*p1.registered_proof, graph, in, 0);
  const auto& theirs = pub["public_inputs"][0]["inputs"];
  REQUIRE(ours.size() == theirs.size());
  for (std::size_t i = 0; i < ours.size(); ++i) {
    // hex big-endian -> our little-endian domain
    auto d = domain_from_hex(theirs[i].get<std::string>(), "public-inputs.json");
    std::reverse(d.begin(), d.end());
    CHECK(fr_to_domain(ours[i]) == d);
  }
}

TEST_CASE("fil: the real C1 output's vanilla proofs verify natively, a changed value is named", "[fil]") {
  const auto c1 = io::read_c1_file(CUZK_SOURCE_DIR "/tests/fixtures/filecoin/oracle-2k/c1.json").phase1_out;
  CHECK(stacked::verify_vanilla_proofs(c1).empty());
  auto bad = c1;
  std::get<merkle::single_proof>(bad.vanilla_proofs[0][1].comm_d_proofs.data).path.path[2].hashes[0][5] ^= 1;
  CHECK(stacked::verify_vanilla_proofs(bad) == "vanilla_proofs[0][1].comm_d_proofs: path does not reach its root");
  bad = c1;
  bad.vanilla_proofs[0][0].replica_column_proofs.exp_parents[3].column.rows[1][0] ^= 1;
  CHECK(stacked::verify_vanilla_proofs(bad) ==
        "vanilla_proofs[0][0].replica_column_proofs.exp_parents[3].column: leaf is not the column hash");
  bad = c1;
  bad.vanilla_proofs[0][1].labeling_proofs[1].parents[36][0] ^= 1;
  CHECK(stacked::verify_vanilla_proofs(bad) == "vanilla_proofs[0][1].labeling_proofs[1]: the label is not the column's row 2");
  bad = c1;
  bad.vanilla_proofs[0][0].encoding_proof.parents[0][0] ^= 1;
  CHECK(stacked::verify_vanilla_proofs(bad) == "vanilla_proofs[0][0].encoding_proof: key + data is not the replica leaf");
  bad = c1;
  std::get<merkle::single_proof>(bad.vanilla_proofs[0][0].comm_r_last_proof.data).leaf[0] ^= 1;
  CHECK_THAT(stacked::verify_vanilla_proofs(bad), Catch::StartsWith("vanilla_proofs[0][0]."));
  // Synthetic proofs are consistent (fil/synthetic): they verify.
  CHECK(stacked::verify_vanilla_proofs(synthetic_c1(*c1.registered_proof, 1, 1000, 5)).empty());
}
