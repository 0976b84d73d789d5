// The daemon's PoRep request path reads Curio's C1 once (fil::io::c1_reads): check_fil_request
// parses it, and the engine's submit, given that parse (filecoin_request::c1, as core::launch_fil
// passes it), checks it against the request without reading it again. The checks on a parse given
// fail as those of a fresh read do: the same one line naming the field.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "engine/engine.hpp"
#include "fil/io/c1_json.hpp"
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
