// The daemon's PoRep request path reads Curio's C1 once (fil::io::c1_reads): check_fil_request
// parses it, and the engine's submit, given that parse (filecoin_request::c1, as core::launch_fil
// passes it), checks it against the request without reading it again. The checks on a parse given
// fail as those of a fresh read do: the same one line naming the field.
#include <catch2/catch.hpp>

#include <grpcpp/support/status_code_enum.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "engine/engine.hpp"
#include "fil/io/c1_json.hpp"
#include "fil/io/post_bincode.hpp"
#include "fil/registered_proof.hpp"
#include "fil/synthetic.hpp"
#include "fil_request.hpp"
#include "request_error.hpp"
#include "zk/error.hpp"

using namespace cuzk;

TEST_CASE("a PoRep request's C1 is parsed once, by the request check, the engine takes that parse", "[daemon][fil]") {
  const auto* proof = fil::find_seal_proof("StackedDrg2KiBV1_1");
  REQUIRE(proof);
  const auto dir = std::filesystem::temp_directory_path() / ("cuzk-daemon-c1-once-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto circuit = fil::resolve_circuit(fil::proof_kind::porep_seal_commit, proof->name);
  std::ofstream(dir / circuit.params_file()) << "";  // the check wants the file there, not read here

  v1::SubmitProofRequest req;
  req.set_request_id("c1-once");
  req.set_proof_kind(v1::POREP_SEAL_COMMIT);
  req.set_registered_proof(5);  // StackedDrg2KiBV1_1
  req.set_sector_size(2048);
  req.set_miner_id(1000);
  req.set_sector_number(1);
  const auto c1 = fil::synthetic_c1(*proof, 1, 1000, 7);
  req.set_vanilla_proof(fil::io::wrap_c1(fil::io::to_json(c1), 1, proof->sector_size));

  const auto before = fil::io::c1_reads();
  auto checked = daemon::check_fil_request(req, dir.string());
  CHECK(fil::io::c1_reads() == before + 1);
  REQUIRE(checked.c1);
  CHECK(checked.c1->sector_num == 1);

  // The engine's check of that parse reads nothing and hands the same parse on.
  CHECK(fil::check_job_input(checked.circuit, checked.input, checked.c1) == checked.c1);
  CHECK(fil::io::c1_reads() == before + 1);
  {
    engine::config c;
    c.host_budget = "256MiB";
    c.device_budget = "64MiB";
    c.synthesizers = 1;
    c.scheduler_threads = 2;
    c.devices = {"cpu"};
    c.filecoin.param_cache = dir.string();
    auto e = engine::engine::start(c);
    engine::filecoin_request fr;
    fr.request_id = "c1-once";
    fr.input = checked.input;
    fr.c1 = checked.c1;
    e.submit(std::move(fr));  // its key (an empty file) fails to load later: the job fails, no read
    CHECK(fil::io::c1_reads() == before + 1);
  }

  // Claims that do not match the request: the same line with or without the parse given.
  auto other = checked.input;
  other.miner_id = 1001;
  std::string fresh, given;
  try {
    fil::check_job_input(checked.circuit, other);
  } catch (const zk::input_error& err) {
    fresh = err.what();
  }
  try {
    fil::check_job_input(checked.circuit, other, checked.c1);
  } catch (const zk::input_error& err) {
    given = err.what();
  }
  CHECK_THAT(fresh, Catch::StartsWith("vanilla_proof: Phase1Out.replica_id is not that of miner 1001"));
  CHECK(given == fresh);
  std::filesystem::remove_all(dir);
}

namespace {
// The request error's code and message, or code -1 when the request was accepted.
std::pair<int, std::string> refusal(const v1::SubmitProofRequest& req, const std::string& dir) {
  try {
    daemon::check_fil_request(req, dir);
  } catch (const daemon::request_error& e) {
    return {e.code, e.what()};
  }
  return {-1, {}};
}
}  // namespace

TEST_CASE("a request whose kind, size or registered proof disagrees with its payload is refused", "[daemon][fil]") {
  const auto* v11 = fil::find_seal_proof("StackedDrg2KiBV1_1");
  REQUIRE(v11);
  const auto dir = std::filesystem::temp_directory_path() / ("cuzk-daemon-mismatch-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / fil::resolve_circuit(fil::proof_kind::porep_seal_commit, v11->name).params_file()) << "";
  v1::SubmitProofRequest req;
  req.set_request_id("mismatch");
  req.set_proof_kind(v1::POREP_SEAL_COMMIT);
  req.set_registered_proof(5);  // StackedDrg2KiBV1_1
  req.set_sector_size(2048);
  req.set_miner_id(1000);
  req.set_sector_number(1);
  req.set_vanilla_proof(fil::io::wrap_c1(fil::io::to_json(fil::synthetic_c1(*v11, 1, 1000, 7)), 1, v11->sector_size));
  CHECK(refusal(req, dir.string()).first == -1);

  // registered_proof 0 (StackedDrg2KiBV1: the same parameters) with a V1_1 C1 output.
  auto v1_req = req;
  v1_req.set_registered_proof(0);
  auto [code, why] = refusal(v1_req, dir.string());
  CHECK(code == grpc::StatusCode::INVALID_ARGUMENT);
  CHECK_THAT(why, Catch::Contains("Phase1Out.registered_proof is StackedDrg2KiBV1_1") &&
                      Catch::Contains("registered_proof 0 is StackedDrg2KiBV1"));

  // sector_size 0: not "any size".
  auto no_size = req;
  no_size.set_sector_size(0);
  std::tie(code, why) = refusal(no_size, dir.string());
  CHECK(code == grpc::StatusCode::INVALID_ARGUMENT);
  CHECK_THAT(why, Catch::StartsWith("sector_size: 0"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("a WindowPoSt partition_index is validated, never allocated for", "[daemon][fil]") {
  const auto* info = fil::find_post_proof("StackedDrgWindow2KiBV1_2");
  REQUIRE(info);
  const auto c = fil::resolve_circuit(fil::proof_kind::window_post_partition, info->name);
  fil::job_input in;
  in.kind = fil::proof_kind::window_post_partition;
  in.registered_proof = info->name;
  in.randomness[0] = 7;
  in.vanilla_proofs.push_back(fil::io::to_bincode(fil::synthetic_post_proof(*info, 5, in.randomness, 0, 1)));
  in.partition_index = 1;
  CHECK_NOTHROW(fil::check_job_input(c, in));
  // 2^24 cost 2.5 GB (the earlier partitions' sectors were materialized); past the actors' bound now.
  in.partition_index = 1u << 24;
  try {
    fil::check_job_input(c, in);
    FAIL("partition_index 2^24 accepted");
  } catch (const zk::input_error& e) {
    CHECK_THAT(std::string(e.what()), Catch::StartsWith("partition_index: 16777216"));
  }
  in.partition_index = fil::max_partitions_per_deadline - 1;
  CHECK_NOTHROW(fil::check_job_input(c, in));
}
