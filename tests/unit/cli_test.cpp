// Runs the `cuzk` binary (next to this test binary, in build/bin) on the snarkjs fixture: exit codes,
// messages, outputs, and that a failing command leaves no output file behind.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "zk/groth16/compressed_proof.hpp"
#include "zk/io/snarkjs_json.hpp"

namespace fs = std::filesystem;

namespace {

const std::string fixture = CUZK_SOURCE_DIR "/tests/fixtures/sample/";

fs::path cuzk_binary() { return fs::read_symlink("/proc/self/exe").parent_path() / "cuzk"; }

struct result {
  int code = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void spit(const fs::path& p, const std::string& s) {
  std::ofstream out(p, std::ios::binary);
  out << s;
}

struct temp_dir {
  fs::path path;
  temp_dir() {
    char tmpl[] = "/tmp/cuzk-cli-test-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~temp_dir() { fs::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

result run(const temp_dir& t, const std::string& args) {
  REQUIRE(fs::exists(cuzk_binary()));
  std::string cmd = cuzk_binary().string() + " " + args + " >" + (t / "stdout") + " 2>" + (t / "stderr");
  int status = std::system(cmd.c_str());
  result r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(t / "stdout");
  r.err = slurp(t / "stderr");
  return r;
}

bool one_line(const std::string& s) {
  return !s.empty() && s.back() == '\n' && s.find('\n') == s.size() - 1;
}

}  // namespace

TEST_CASE("cli: prove then verify on the fixture, snarkjs's proof verifies, export-vk matches snarkjs", "[cli]") {
  temp_dir t;
  auto r = run(t, "prove " + fixture + "sample.zkey " + fixture + "sample.wtns " + (t / "proof.json") + " " +
                      (t / "public.json") + " --r1cs " + fixture + "sample.r1cs --compressed " + (t / "proof.bin") +
                      " --backend cpu --threads 2");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.err.find("backend cpu") != std::string::npos);
  CHECK(slurp(t / "public.json") == slurp(fixture + "public.json"));
  auto bin = slurp(t / "proof.bin");
  REQUIRE(bin.size() == 192);
  auto expect = cuzk::zk::groth16::to_compressed(cuzk::zk::io::snarkjs::read_proof(t / "proof.json"));
  CHECK(std::equal(expect.begin(), expect.end(), reinterpret_cast<const std::uint8_t*>(bin.data())));

  r = run(t, "verify " + fixture + "verification_key.json " + (t / "public.json") + " " + (t / "proof.json"));
  CHECK(r.code == 0);
  CHECK(r.out == "OK: proof is valid\n");

  r = run(t, "verify " + fixture + "verification_key.json " + fixture + "public.json " + fixture + "proof.json");
  CHECK(r.code == 0);

  r = run(t, "zkey export-vk " + fixture + "sample.zkey " + (t / "vk.json"));
  CHECK(r.code == 0);
  CHECK(slurp(t / "vk.json") == slurp(fixture + "verification_key.json"));

  r = run(t, "--version");
  CHECK(r.code == 0);
  CHECK(r.out.rfind("cuzk ", 0) == 0);
}

TEST_CASE("cli: tampered proofs and public inputs are INVALID (exit 1)", "[cli]") {
  temp_dir t;
  // A proof whose C is another valid point (snarkjs's proof's A): on the curve, in the subgroup, wrong.
  auto proof = cuzk::zk::io::snarkjs::read_proof(fixture + "proof.json");
  proof.c = proof.a;
  cuzk::zk::io::snarkjs::write_file(t / "bad_proof.json", cuzk::zk::io::snarkjs::proof_to_json(proof));
  auto r = run(t, "verify " + fixture + "verification_key.json " + fixture + "public.json " + (t / "bad_proof.json"));
  CHECK(r.code == 1);
  CHECK(r.out.rfind("INVALID: ", 0) == 0);

  spit(t / "bad_public.json", "[\n \"33\",\n \"235\",\n \"3\"\n]");
  r = run(t, "verify " + fixture + "verification_key.json " + (t / "bad_public.json") + " " + fixture + "proof.json");
  CHECK(r.code == 1);
  CHECK(r.out.rfind("INVALID: ", 0) == 0);

  spit(t / "short_public.json", "[\"33\", \"234\"]");
  r = run(t, "verify " + fixture + "verification_key.json " + (t / "short_public.json") + " " + fixture + "proof.json");
  CHECK(r.code == 1);
}

TEST_CASE("cli: bad inputs exit 2 with one line naming the file, and write nothing", "[cli]") {
  temp_dir t;
  const std::string wtns = fixture + "sample.wtns", zkey = fixture + "sample.zkey";
  spit(t / "garbage.zkey", "zkey but not really");
  auto z = slurp(zkey);
  spit(t / "truncated.zkey", z.substr(0, z.size() / 2));
  spit(t / "garbage.json", "{ not json");

  struct bad_case {
    std::string args, file;
  };
  const std::string outs = " " + (t / "proof.json") + " " + (t / "public.json");
  std::vector<bad_case> cases = {
      {"prove " + (t / "missing.zkey") + " " + wtns + outs, "missing.zkey"},
      {"prove " + (t / "garbage.zkey") + " " + wtns + outs, "garbage.zkey"},
      {"prove " + (t / "truncated.zkey") + " " + wtns + outs, "truncated.zkey"},
      {"prove " + fixture + "sample_bn254.zkey " + wtns + outs, "sample_bn254.zkey"},
      {"prove " + zkey + " " + fixture + "sample_bn254.wtns" + outs, "sample_bn254.wtns"},
      {"prove " + zkey + " " + zkey + outs, "sample.zkey"},
      {"prove " + zkey + " " + wtns + outs + " --r1cs " + fixture + "sample_bn254.r1cs", "sample_bn254.r1cs"},
      {"verify " + (t / "garbage.json") + " " + fixture + "public.json " + fixture + "proof.json", "garbage.json"},
      {"verify " + fixture + "verification_key.json " + (t / "garbage.json") + " " + fixture + "proof.json",
       "garbage.json"},
      {"verify " + fixture + "verification_key.json " + fixture + "public.json " + (t / "garbage.json"),
       "garbage.json"},
      {"verify " + fixture + "verification_key.json " + fixture + "public.json " + (t / "missing.json"),
       "missing.json"},
      {"zkey export-vk " + (t / "truncated.zkey") + " " + (t / "vk.json"), "truncated.zkey"},
      {"setup " + fixture + "sample_bn254.r1cs " + (t / "new.zkey"), "sample_bn254.r1cs"},
      {"setup " + (t / "garbage.json") + " " + (t / "new.zkey"), "garbage.json"},
  };
  for (const auto& c : cases) {
    INFO(c.args);
    auto r = run(t, c.args);
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(one_line(r.err));
    CHECK(r.err.rfind("error: ", 0) == 0);
    CHECK(r.err.find(c.file) != std::string::npos);
    CHECK_FALSE(fs::exists(t / "proof.json"));
    CHECK_FALSE(fs::exists(t / "public.json"));
    CHECK_FALSE(fs::exists(t / "vk.json"));
    CHECK_FALSE(fs::exists(t / "new.zkey"));
  }
  auto r = run(t, "prove " + zkey + " " + wtns + outs + " --backend quantum");
  CHECK(r.code == 2);
  CHECK(r.err.find("quantum") != std::string::npos);
  r = run(t, "prove " + zkey);
  CHECK(r.code == 2);
  for (const auto& e : fs::directory_iterator(t.path)) CHECK(e.path().string().find(".tmp.") == std::string::npos);
}

TEST_CASE("cli: a witness that breaks a constraint: --r1cs names it (exit 2), else the proof is refused (exit 3)",
          "[cli]") {
  temp_dir t;
  // Witness layout: 12-byte file header, section 1 (12 + 40 bytes), section 2 header (12), values.
  auto w = slurp(fixture + "sample.wtns");
  REQUIRE(w.size() == 76 + 8 * 32);
  REQUIRE(static_cast<unsigned char>(w[76 + 4 * 32]) == 11);  // private input b = 11
  w[76 + 4 * 32] = 12;
  spit(t / "bad.wtns", w);
  const std::string outs = " " + (t / "proof.json") + " " + (t / "public.json");
  auto r = run(t, "prove " + fixture + "sample.zkey " + (t / "bad.wtns") + outs + " --r1cs " + fixture + "sample.r1cs");
  CHECK(r.code == 2);
  CHECK(one_line(r.err));
  CHECK(r.err.find("bad.wtns") != std::string::npos);
  CHECK(r.err.find("constraint 0") != std::string::npos);
  r = run(t, "prove " + fixture + "sample.zkey " + (t / "bad.wtns") + outs);
  CHECK(r.code == 3);
  CHECK(r.err.find("does not verify") != std::string::npos);
  CHECK_FALSE(fs::exists(t / "proof.json"));
  CHECK_FALSE(fs::exists(t / "public.json"));
}

TEST_CASE("cli: setup makes a key that proves and verifies, the seed fixes the key", "[cli]") {
  temp_dir t;
  auto r = run(t, "setup " + fixture + "sample.r1cs " + (t / "a.zkey") + " --seed 5");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.err.find("TEST-ONLY KEY: toxic waste derived from seed 5; never use in production") != std::string::npos);
  REQUIRE(run(t, "setup " + fixture + "sample.r1cs " + (t / "b.zkey") + " --seed 5").code == 0);
  REQUIRE(run(t, "setup " + fixture + "sample.r1cs " + (t / "c.zkey")).code == 0);
  CHECK(slurp(t / "a.zkey") == slurp(t / "b.zkey"));
  CHECK(slurp(t / "a.zkey") != slurp(t / "c.zkey"));
  REQUIRE(run(t, "prove " + (t / "a.zkey") + " " + fixture + "sample.wtns " + (t / "p.json") + " " + (t / "pub.json") +
                     " --r1cs " + fixture + "sample.r1cs")
              .code == 0);
  REQUIRE(run(t, "zkey export-vk " + (t / "a.zkey") + " " + (t / "vk.json")).code == 0);
  r = run(t, "verify " + (t / "vk.json") + " " + (t / "pub.json") + " " + (t / "p.json"));
  CHECK(r.code == 0);
  // The fixture's (snarkjs) proof is not valid under the new key.
  r = run(t, "verify " + (t / "vk.json") + " " + fixture + "public.json " + fixture + "proof.json");
  CHECK(r.code == 1);
}

TEST_CASE("cli: bench fil --shape refuses bad input with one line, and a machine without a GPU", "[cli][bench]") {
  temp_dir t;
  auto one_line = [](const result& r, const std::string& what) {
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(r.err.find(what) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  };
  one_line(run(t, "bench fil --shape porep-3GiB"), "--shape: 'porep-3GiB' is not porep-2KiB");
  one_line(run(t, "bench fil --shape porep-32GiB --partitions 5"), "--partitions 5: a StackedDrg32GiBV1_1 sector has 10 partitions");
  one_line(run(t, "bench fil --shape porep-32GiB --sectors 0"), "--sectors: at least 1");
  one_line(run(t, "bench fil --shape porep-32GiB --device tpu"), "--device: 'tpu' is not cuda or cpu");
  one_line(run(t, "bench fil --shape porep-32GiB --addr unix:///x.sock"), "--shape runs its own engine: no --addr");
  one_line(run(t, "bench fil --kind porep"), "--addr is required");
  {  // a damaged --c1 file: named, refused before the evaluator or the key is made
    std::ofstream(t / "bad-c1.json") << "{\"SectorNum\": 1, \"Phase1Out\": 7}";
    one_line(run(t, "bench fil --shape porep-2KiB --device cpu --c1 " + (t / "bad-c1.json") + " --evaluator-dir " +
                        (t / "ev")),
             t / "bad-c1.json");
    CHECK_FALSE(fs::exists(t / "ev"));
  }
  if (!fs::exists("/dev/nvidia0")) {  // CI: no GPU, or a build without the CUDA backend
    auto r = run(t, "bench fil --shape porep-32GiB --partitions 10 --out " + (t / "b.json"));
    one_line(r, "the synthetic SRS is generated on a GPU");
    CHECK(r.out.find("NOT A SETUP") == std::string::npos);  // refused before anything ran
    CHECK_FALSE(fs::exists(t / "b.json"));
  }
}

// The synthetic bench end to end on the host's device (the 2 KiB shape: no GPU, ~30 s on 2 cores):
// one sector of the engine's actors from a synthetic C1, its proofs released unverified, its C1
// read by the bench's check and once by the sector's submit (as the daemon reads a request's), not
// again by its synthesis, its results file and timeline written.
TEST_CASE("cli: bench fil --shape porep-2KiB --device cpu proves a sector from one read of its C1", "[cli][bench][actors][slow]") {
  temp_dir t;
  const auto r = run(t, "bench fil --shape porep-2KiB --device cpu --sectors 1 --evaluator-dir " + (t / "ev") +
                            " --out " + (t / "b.json"));
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("NOT A SETUP") != std::string::npos);
  const auto j = nlohmann::json::parse(std::ifstream(t / "b.json"));
  CHECK(j.at("completed").get<int>() == 1);
  CHECK(j.at("partitions_per_sector").get<int>() >= 1);
  CHECK(j.at("c1_reads").get<int>() == 2);  // the check, the submit
  CHECK(j.at("setup_s").contains("evaluator_record_s"));  // a fresh cache: recorded, not loaded
  REQUIRE(j.at("jobs").size() == 1);
  CHECK(fs::file_size(t / "b.svg") > 0);
}
