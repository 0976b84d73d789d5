// A synthetic key (zk/groth16/synthetic_srs.hpp, NOT A SETUP) in the engine, on the CPU device: it is
// refused unless the caller asked for a synthetic bench; in a bench its proofs come back marked
// unverified and indeed do not verify against its vk (they are never passed off as real proofs);
// a real key in a bench is still verified; the budgets return to zero. A synthetic PoRep key (the
// `cuzk bench fil --shape` path) loads with its compact evaluator, so its partitions are synthesized
// into the buffers kept with the key: the second partition allocates none. Through the engine, each
// partition's grant comes back to the key's buffers with its set (counted once): however many
// partitions follow, no more sets are made than the budget admits at once, the held grants are in
// the host budget, and they go back with the key when it is evicted, letting a waiting key in.
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

namespace {

// A 2 KiB PoRep sector's synthetic C1 as a job input, and the compact evaluator recorded into `dir`.
struct porep_2k {
  std::filesystem::path dir;
  std::string pce;
  std::shared_ptr<fil::job_input> input = std::make_shared<fil::job_input>();
  explicit porep_2k(const char* name) {
    const auto* proof = fil::find_seal_proof("StackedDrg2KiBV1_1");
    REQUIRE(proof);
    dir = std::filesystem::temp_directory_path() / (std::string(name) + "-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    pce = (dir / "porep-2k.cuzk-pce").string();
    fil::record_porep_evaluator(*proof, pce, 2);
    input->kind = fil::proof_kind::porep_seal_commit;
    input->registered_proof = std::string(proof->name);
    input->miner_id = 1000;
    input->sector_number = 1;
    const auto c1 = fil::io::wrap_c1(fil::io::to_json(fil::synthetic_c1(*proof, 1, 1000, 7)), 1, proof->sector_size);
    input->c1.assign(c1.begin(), c1.end());
  }
  ~porep_2k() { std::filesystem::remove_all(dir); }
};

const msg::key_status* key_of(const engine::status_report& s, const std::string& path) {
  for (auto& k : s.key_store.keys)
    if (k.path == path) return &k;
  return nullptr;
}

}  // namespace

TEST_CASE("a PoRep key's kept sets are counted once: its partitions' grants come back with their sets",
          "[engine][synthetic][fil][kept]") {
  porep_2k setup("cuzk-kept-sets");
  const auto key_path = zk::groth16::synthetic_key_path({5, true, setup.pce});
  // One partition's synthesis on the CPU device (a, b, c and the witness twice), and the key's
  // grant: its evaluator file and the one set kept with it (kept_partitions = 1, the default).
  const auto key = actors::load_proving_key(key_path, nullptr);
  const std::uint64_t set = 3 * std::uint64_t{key->domain_size} * sizeof(fr) + 2 * key->n_vars * sizeof(fr);
  const std::uint64_t key_grant = std::filesystem::file_size(setup.pce) + set;
  // Room for the key and two partitions in flight, no more: the sets ever made are at most two.
  auto cfg = test::small_config();
  cfg.host_budget = std::to_string(key_grant + 2 * set);
  cfg.device_budget = "1GiB";
  auto e = engine::engine::start(cfg);
  e.preload_key(key_path);

  constexpr int sectors = 8;
  std::vector<engine::job_id> ids;
  for (int s = 0; s < sectors; ++s) {
    engine::filecoin_request r;
    r.request_id = "kept-" + std::to_string(s);
    r.input = *setup.input;
    r.synthetic_key = key_path;
    ids.push_back(e.submit(std::move(r)));
  }
  std::size_t partitions = 0;
  for (auto id : ids) {
    auto r = e.await(id, 20s);
    if (!r) {
      auto s2 = e.status();
      const auto* k2 = key_of(s2, key_path);
      std::fprintf(stderr, "DEBUG host in_use %lu queued %u cap %lu; held %lu fresh %lu reused %lu\n", s2.host.in_use, s2.host.queued, s2.host.capacity,
                   k2 ? k2->buffers_held_grants : 0, k2 ? k2->buffers_fresh : 0, k2 ? k2->buffers_reused : 0);
      std::fprintf(stderr, "DEBUG tasks queued %lu running %lu\n", s2.scheduler.tasks_queued, s2.scheduler.tasks_running);
    }
    REQUIRE(r);
    REQUIRE(r->state == engine::job_state::succeeded);
    CHECK(r->unverified);
    partitions += r->partitions.size();
  }
  REQUIRE(partitions >= std::size_t(sectors));
  auto st = e.status();
  const auto* k = key_of(st, key_path);
  REQUIRE(k);
  INFO("fresh " << k->buffers_fresh << ", reused " << k->buffers_reused << ", grants held " << k->buffers_held_grants);
  // Each partition takes six vectors: two of values, a, b, c, the witness. The CPU backend frees a,
  // b, c once it has h (backend::prove_sums), so every partition takes those three fresh; the values
  // and the witness were made for the first partitions only: at most the two sets the budget admits
  // at once (before, every partition that overlapped another made its set anew, and freed it).
  CHECK(k->buffers_fresh + k->buffers_reused == 6 * partitions);
  CHECK(k->buffers_fresh <= 3 * partitions + 3 * 2);
  // Every set made is still kept, each beyond the reserved one under a grant the buffers hold.
  CHECK(k->buffers_fresh <= 3 * partitions + 3 * (1 + k->buffers_held_grants));
  CHECK(k->buffers_held_grants >= 1);  // two synthesizers: the first two partitions overlap
  CHECK(k->buffers_held_grants <= 2);
  CHECK(k->buffers_held_bytes == k->buffers_held_grants * set);
  // The held grants are in the host budget, with the key's own.
  CHECK(st.host.in_use == k->bytes + k->buffers_held_bytes);
  CHECK(k->bytes == key_grant);
  // The key goes: its grant and the held ones go back; the budget is back to zero.
  REQUIRE(e.evict_key(key_path));
  for (int i = 0; i < 200 && e.status().host.in_use != 0; ++i) std::this_thread::sleep_for(10ms);
  st = e.status();
  CHECK(st.host.in_use == 0);
  CHECK(st.host.reservations == 0);
}

TEST_CASE("a key's held partition grants go back when it is evicted: a key waiting on the budget gets in",
          "[engine][synthetic][fil][kept]") {
  porep_2k setup("cuzk-kept-evict");
  const auto key_path = zk::groth16::synthetic_key_path({5, true, setup.pce});
  caf::actor_system_config cfg;
  msg::register_messages(cfg);
  {
    caf::actor_system sys{cfg};
    const auto loaded = actors::load_proving_key(key_path, nullptr);
    const std::uint64_t set = 3 * std::uint64_t{loaded->domain_size} * sizeof(fr) + 2 * loaded->n_vars * sizeof(fr);
    const std::uint64_t key_grant = std::filesystem::file_size(setup.pce) + set;
    const std::uint64_t capacity = key_grant + 2 * set;
    auto budget = actors::spawn_budget(sys, "host", capacity);
    auto store = actors::spawn_key_store(sys, budget, 0);
    caf::scoped_actor self{sys};
    auto status = [&] {
      msg::budget_status b;
      self->request(budget, caf::infinite, msg::status_atom::value)
          .receive([&](msg::budget_status& s) { b = s; }, [&](caf::error& e) { FAIL(sys.render(e)); });
      return b;
    };
    msg::key_handle key;
    self->request(store, caf::infinite, msg::acquire_atom::value, key_path)
        .receive([&](msg::key_handle& h) { key = h; }, [&](caf::error& e) { FAIL(sys.render(e)); });
    REQUIRE(key.ptr);
    REQUIRE(key.ptr->buffers);
    REQUIRE(key.synthesis_bytes == set);
    // Two partitions' grants, as the scheduler takes them, adopted by the key's buffers and handed
    // back to them when the partitions end.
    for (int i = 0; i < 2; ++i) {
      msg::reserve_request req{set, caf::actor_cast<caf::actor_addr>(self), "partition"};
      self->request(budget, caf::infinite, req)
          .receive(
              [&](msg::reservation& g) {
                auto token = actors::make_reservation_token(budget, g);
                auto adopted = key.ptr->buffers->adopt(std::move(token.ptr), g.bytes);
              },  // the partition ends here: its grant goes to the buffers
              [&](caf::error& e) { FAIL(sys.render(e)); });
    }
    CHECK(key.ptr->buffers->grants_held() == 2);
    CHECK(status().in_use == capacity);  // the key's grant and the two held ones
    // Another key's grant waits for the room the held grants take.
    auto waiter = sys.spawn([budget, set](caf::event_based_actor* a) -> caf::behavior {
      a->request(budget, caf::infinite, msg::reserve_request{set, caf::actor_cast<caf::actor_addr>(a), "other key"})
          .then([a, budget](msg::reservation& g) { a->send(budget, msg::release_atom::value, g.id); });
      return {[](int) {}};
    });
    for (int i = 0; i < 100 && status().queued == 0; ++i) std::this_thread::sleep_for(5ms);
    CHECK(status().queued == 1);
    // The key is evicted once nobody holds it: its grant and the held ones go back, the waiter gets in.
    key = {};
    bool evicted = false;
    self->request(store, caf::infinite, msg::evict_atom::value, key_path)
        .receive([&](bool b) { evicted = b; }, [&](caf::error& e) { FAIL(sys.render(e)); });
    CHECK(evicted);
    for (int i = 0; i < 200 && (status().queued != 0 || status().in_use != 0); ++i) std::this_thread::sleep_for(5ms);
    const auto end = status();
    CHECK(end.queued == 0);
    CHECK(end.in_use == 0);
    self->send_exit(waiter, caf::exit_reason::user_shutdown);
    self->send_exit(store, caf::exit_reason::user_shutdown);
    self->send_exit(budget, caf::exit_reason::user_shutdown);
  }
}
