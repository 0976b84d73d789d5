// A synthesizer on a second actor system, reached over CAF's middleman on loopback, serves the
// engine: the witness travels to it serialized, the synthesis comes back, the proof verifies and
// equals the direct prover's.
#include <catch2/catch.hpp>

#include "engine/engine.hpp"
#include "fixture.hpp"
#include "zk/groth16/verifier.hpp"

using namespace cuzk;
using namespace std::chrono_literals;

TEST_CASE("a remote synthesizer (second actor system over the middleman) serves the engine", "[engine][remote]") {
  auto node = engine::synthesizer_node::serve(0);
  REQUIRE(node->port() != 0);
  std::mt19937_64 rng(11);
  test::direct_prover direct;

  engine::config c;
  c.host_budget = "256MiB";
  c.device_budget = "64MiB";
  c.synthesizers = 0;  // only the remote one
  c.remote_synthesizers = {{"127.0.0.1", node->port()}};
  c.step_timeout = 20s;
  auto e = engine::engine::start(c);
  REQUIRE(e.synthesizer_count() == 1);

  engine::request r;
  r.circuit = test::sample_zkey();
  r.randomness = test::fixed_randomness(9);
  for (int i = 0; i < 3; ++i) r.partitions.push_back({"", test::random_sample_witness(rng)});
  r.partitions.push_back({test::sample_wtns(), nullptr});
  auto res = e.await(e.submit(r), 60s);
  REQUIRE(res);
  REQUIRE(res->state == engine::job_state::succeeded);
  auto file_witness = zk::io::witness::load(test::sample_wtns());
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& w = i < 3 ? *r.partitions[i].data : file_witness;
    REQUIRE(res->partitions[i].proof == direct.prove(w, *r.randomness));
    REQUIRE(zk::groth16::verify(direct.key.vk, res->partitions[i].publics, res->partitions[i].proof));
  }
  e.shutdown();
}
