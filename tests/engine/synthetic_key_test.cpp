// A synthetic key (zk/groth16/synthetic_srs.hpp, NOT A SETUP) in the engine, on the CPU device: it is
// refused unless the caller asked for a synthetic bench; in a bench its proofs come back marked
// unverified and indeed do not verify against its vk (they are never passed off as real proofs);
// a real key in a bench is still verified; the budgets return to zero. A synthetic PoRep key (the
// `cuzk bench fil --shape` path) loads with its compact evaluator, so its partitions are synthesized
// into the buffers kept with the key: the second partition allocates none.
#include <catch2/catch.hpp>

#include <filesystem>
#include <thread>

#include <unistd.h>

#include "actors/actors.hpp"
#include "actors/key_store.hpp"
#include "caf/all.hpp"
#include "engine/engine.hpp"
#include "fil/evaluator.hpp"
#include "fil/io/c1_json.hpp"
#include "fil/registered_proof.hpp"
#include "fil/synthetic.hpp"
#include "cube_circuit.hpp"
#include "fixture.hpp"
#include "zk/cs/constraint_system.hpp"
#include "zk/groth16/pce_compact.hpp"
#include "zk/groth16/synthetic_srs.hpp"
#include "zk/groth16/verifier.hpp"

using namespace cuzk;
using namespace std::chrono_literals;
using zk::bls12_381::fr;
using test::cube_witness;
using test::recorded;

TEST_CASE("a synthetic key is refused outside a synthetic bench and never released as a verified proof",
          "[engine][synthetic]") {
  recorded pce;
  const auto key_path = zk::groth16::synthetic_key_path({9, true, pce.path});
  auto e = engine::engine::start(test::small_config());

  engine::request req;
  req.circuit = key_path;
  req.partitions.push_back({"", cube_witness(3)});
  req.partitions.push_back({"", cube_witness(4)});
  CHECK_THROWS_WITH(e.submit(req), Catch::Contains("synthetic key (NOT A SETUP"));

  req.synthetic_bench = true;
  auto r = e.await(e.submit(req), 60s);
  REQUIRE(r);
  REQUIRE(r->state == engine::job_state::succeeded);
  CHECK(r->unverified);
  REQUIRE(r->partitions.size() == 2);
  const auto key = actors::load_proving_key(key_path, nullptr);
  REQUIRE(key->synthetic);
  for (auto& p : r->partitions) {
    CHECK(p.proof.a.is_on_curve());
    CHECK_FALSE(p.proof.a.is_identity());
    CHECK(p.proof.b.is_on_curve());
    CHECK_FALSE(zk::groth16::verify(key->vk, p.publics, p.proof));  // NOT A SETUP: never verifies
  }
  CHECK(r->partitions[0].publics[0] == (fr::from_u64(27 + 3 + 5)).to_canonical());
  // Stage times of both halves are reported.
  REQUIRE_FALSE(r->partition_timings.empty());
  const auto& names = r->partition_timings[0].stage_names;
  REQUIRE(names.size() == 10);
  REQUIRE(r->partition_timings[0].stage_ms.size() == 10);
  CHECK(names[0] == "witness");
  CHECK(names[1] == "a/b/c");
  CHECK(names[2] == "staging");
  CHECK(names[3] == "H/NTT");
  CHECK(names[8] == "B2 (G2)");

  // A real key in a bench is verified as always.
  std::mt19937_64 rng(3);
  auto real = test::sample_request(rng, 2);
  real.synthetic_bench = true;
  auto rr = e.await(e.submit(real), 60s);
  REQUIRE(rr);
  CHECK_FALSE(rr->unverified);
  test::direct_prover direct;
  test::require_verifies(direct.key, *rr, 2);

  // A bad synthetic path is refused with the part named.
  engine::request bad = req;
  bad.circuit = "synthetic:x:host:" + pce.path;
  auto rb = e.await(e.submit(bad), 60s);
  REQUIRE(rb);
  CHECK(rb->state == engine::job_state::failed);
  REQUIRE_FALSE(rb->reasons.empty());
  CHECK_THAT(rb->reasons[0], Catch::Contains("seed 'x'"));
  CHECK(test::budgets_drain(e));
}

TEST_CASE("a synthetic PoRep key's partitions take their buffers from the ones kept with the key",
          "[engine][synthetic][fil]") {
  const auto* proof = fil::find_seal_proof("StackedDrg2KiBV1_1");
  REQUIRE(proof);
  const auto dir = std::filesystem::temp_directory_path() / ("cuzk-synthetic-buffers-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string pce = (dir / "porep-2k.cuzk-pce").string();
  fil::record_porep_evaluator(*proof, pce, 2);
  // Points on the "device": none generated here, the synthesizer needs only the shape and evaluator.
  const auto key_path = zk::groth16::synthetic_key_path({5, false, pce});
  auto input = std::make_shared<fil::job_input>();
  input->kind = fil::proof_kind::porep_seal_commit;
  input->registered_proof = std::string(proof->name);
  input->miner_id = 1000;
  input->sector_number = 1;
  const auto c1 = fil::io::wrap_c1(fil::io::to_json(fil::synthetic_c1(*proof, 1, 1000, 7)), 1, proof->sector_size);
  input->c1.assign(c1.begin(), c1.end());

  caf::actor_system_config cfg;
  msg::register_messages(cfg);
  {
    caf::actor_system sys{cfg};
    auto budget = actors::spawn_budget(sys, "host", std::uint64_t{16} << 30);
    auto store = actors::spawn_key_store(sys, budget, 0);
    auto synth = actors::spawn_synthesizer(sys, 0, 2, actors::fault_settings{}, 0);
    caf::scoped_actor self{sys};
    msg::key_handle key;
    self->request(store, caf::infinite, msg::acquire_atom::value, key_path)
        .receive([&](msg::key_handle& h) { key = h; }, [&](caf::error& e) { FAIL(sys.render(e)); });
    REQUIRE(key.ptr);
    REQUIRE(key.ptr->buffers);
    const std::uint64_t domain = key.ptr->zkey->domain_size;
    for (std::uint32_t round = 0; round < 2; ++round) {
      msg::synth_request req;
      req.task.job = 1;
      req.task.ticket = round + 1;
      req.key = key;
      req.witness.fil = {input, 0};
      self->request(synth, caf::infinite, req)
          .receive(
              [&](msg::synth_result& r) {
                REQUIRE(r.synthesis.ptr);
                CHECK(r.synthesis.ptr->a.size() == domain);
                REQUIRE(r.witness.ptr);
                CHECK(r.witness.ptr->values.size() == key.ptr->zkey->n_vars);
                REQUIRE_FALSE(r.stage_names.empty());
                CHECK(r.stage_names[0] == "C1 + witness + a/b/c");  // the kept-buffers path
              },
              [&](caf::error& e) { FAIL(sys.render(e)); });
      // The result is gone: its witness and a, b, c went back to the key's buffers.
    }
    // First partition: the circuit's two value vectors, a, b, c and the witness, fresh; the second
    // takes all six back.
    CHECK(key.ptr->buffers->fresh() == 6);
    CHECK(key.ptr->buffers->reused() == 6);
    self->request(store, caf::infinite, msg::status_atom::value)
        .receive(
            [&](msg::key_store_status& s) {
              REQUIRE(s.keys.size() == 1);
              CHECK(s.keys[0].buffers_fresh == 6);
              CHECK(s.keys[0].buffers_reused == 6);
            },
            [&](caf::error& e) { FAIL(sys.render(e)); });
    // The key's grant covers the mapped evaluator and the one kept set; with kept_partitions = 2, two.
    const std::uint64_t file = std::filesystem::file_size(pce);
    CHECK(key.ptr->evaluator_bytes == file + key.synthesis_bytes);
    actors::key_load_options two;
    two.kept_partitions = 2;
    auto store2 = actors::spawn_key_store(sys, budget, 0, two);
    self->request(store2, caf::infinite, msg::acquire_atom::value, key_path)
        .receive(
            [&](msg::key_handle& h) {
              REQUIRE(h.ptr);
              CHECK(h.ptr->evaluator_bytes == file + 2 * h.synthesis_bytes);
            },
            [&](caf::error& e) { FAIL(sys.render(e)); });
    self->send_exit(store2, caf::exit_reason::user_shutdown);
    key = {};
    self->send_exit(synth, caf::exit_reason::user_shutdown);
    self->send_exit(store, caf::exit_reason::user_shutdown);
    self->send_exit(budget, caf::exit_reason::user_shutdown);
  }
  std::filesystem::remove_all(dir);
}
