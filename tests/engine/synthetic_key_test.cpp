// A synthetic key (zk/groth16/synthetic_srs.hpp, NOT A SETUP) in the engine, on the CPU device: it is
// refused unless the caller asked for a synthetic bench; in a bench its proofs come back marked
// unverified and indeed do not verify against its vk (they are never passed off as real proofs);
// a real key in a bench is still verified; the budgets return to zero. A synthetic PoRep key (the
// `cuzk bench fil --shape` path) loads with its compact evaluator, so its partitions are synthesized
// into the buffers kept with the key: the second partition allocates none. Through the engine, each
// partition's grant comes back to the key's buffers with its set (counted once): however many
// partitions follow, no more sets are made than the budget admits at once, the held grants are in
// the host budget, and they go back with the key when it is evicted, letting a waiting key in. A
// partition waiting in the budget's queue is served by its key's grant coming home (the request
// withdrawn), and keys waiting at one budget take turns in its order: none starves another.
#include <catch2/catch.hpp>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <unistd.h>

#include "actors/actors.hpp"
#include "actors/key_store.hpp"
#include "caf/all.hpp"
#include "engine/engine.hpp"
#include "fil/key.hpp"
#include "fil/evaluator.hpp"
#include "fil/io/c1_json.hpp"
#include "fil/registered_proof.hpp"
#include "fil/synthetic.hpp"
#include "cube_circuit.hpp"
#include "fixture.hpp"
#include "zk/cs/constraint_system.hpp"
#include "zk/groth16/backend_registry.hpp"
#include "zk/groth16/cpu_backend.hpp"
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
  const auto key = fil::load_circuit_key(key_path).zkey;
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

namespace {

// A 2 KiB PoRep sector's synthetic C1 as a job input, and the compact evaluator recorded into `dir`.
struct porep_2k {
  std::filesystem::path dir;
  std::string pce;
  std::shared_ptr<fil::job_input> input = std::make_shared<fil::job_input>();
  std::uint64_t set = 0;  // one partition's synthesis for a CPU device: a, b, c and the witness twice
  explicit porep_2k(const char* name) {
    const auto* proof = fil::find_seal_proof("StackedDrg2KiBV1_1");
    REQUIRE(proof);
    dir = std::filesystem::temp_directory_path() / (std::string(name) + "-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    pce = (dir / "porep-2k.cuzk-pce").string();
    fil::record_porep_evaluator(*proof, pce, 2);
    const auto e = zk::groth16::pce_compact::open(pce, zk::groth16::pce_compact::stored_key(pce));
    set = 3 * e.domain_size() * sizeof(fr) + 2 * (e.n_inputs() + e.n_aux()) * sizeof(fr);
    input->kind = fil::proof_kind::porep_seal_commit;
    input->registered_proof = std::string(proof->name);
    input->miner_id = 1000;
    input->sector_number = 1;
    const auto c1 = fil::io::wrap_c1(fil::io::to_json(fil::synthetic_c1(*proof, 1, 1000, 7)), 1, proof->sector_size);
    input->c1.assign(c1.begin(), c1.end());
  }
  ~porep_2k() { std::filesystem::remove_all(dir); }
};

// The key at `path`, made hot by `store` (a failure names the store's error).
msg::key_handle acquire_hot(caf::actor_system& sys, caf::scoped_actor& self, const actors::key_store_actor& store,
                            const std::string& path) {
  msg::key_handle key;
  self->request(store, caf::infinite, msg::acquire_atom::value, path)
      .receive([&](msg::key_handle& h) { key = h; }, [&](caf::error& e) { FAIL(sys.render(e)); });
  return key;
}

}  // namespace

TEST_CASE("a key whose evaluator file is found damaged is dropped at its next lease, never lent again",
          "[engine][synthetic][fil]") {
  porep_2k setup("cuzk-damaged-evaluator");
  const auto key_path = zk::groth16::synthetic_key_path({5, false, setup.pce});
  caf::actor_system_config cfg;
  msg::register_messages(cfg);
  {
    caf::actor_system sys{cfg};
    auto budget = actors::spawn_budget(sys, "host", std::uint64_t{16} << 30);
    auto store = actors::spawn_key_store(sys, budget, 0);
    caf::scoped_actor self{sys};
    const msg::key_handle key = acquire_hot(sys, self, store, key_path);
    REQUIRE(key.ptr);
    const auto* ev = key.ptr->evaluator->compact();
    REQUIRE(ev);
    CHECK(ev->intact());
    CHECK(acquire_hot(sys, self, store, key_path).ptr == key.ptr);  // intact: the same load lent again
    {
      // One byte of the mapped file changes (the density bitmaps end it: counts stay valid).
      std::fstream f(setup.pce, std::ios::in | std::ios::out | std::ios::binary);
      f.seekg(-1, std::ios::end);
      const char c = char(f.get() ^ 0x01);
      f.seekp(-1, std::ios::end);
      f.put(c);
    }
    CHECK(acquire_hot(sys, self, store, key_path).ptr == key.ptr);  // not known yet: no check per lease
    CHECK_FALSE(ev->intact());  // what the scheduler asks when a proof fails verification
    // The next lease drops the key and loads the file again, whose digest refuses it.
    std::string why;
    self->request(store, caf::infinite, msg::acquire_atom::value, key_path)
        .receive([&](msg::key_handle&) { FAIL("a key whose evaluator is damaged was lent"); },
                 [&](caf::error& e) { why = sys.render(e); });
    CHECK_THAT(why, Catch::Contains("damaged"));
    // Recorded again: lent anew, intact.
    fil::record_porep_evaluator(*fil::find_seal_proof("StackedDrg2KiBV1_1"), setup.pce, 2);
    const msg::key_handle again = acquire_hot(sys, self, store, key_path);
    REQUIRE(again.ptr);
    CHECK(again.ptr != key.ptr);
    CHECK(again.ptr->evaluator->compact()->intact());
  }
}

TEST_CASE("a synthetic PoRep key's partitions take their buffers from the ones kept with the key",
          "[engine][synthetic][fil]") {
  porep_2k setup("cuzk-synthetic-buffers");
  const std::string& pce = setup.pce;
  // Points on the "device": none generated here, the synthesizer needs only the shape and evaluator.
  const auto key_path = zk::groth16::synthetic_key_path({5, false, pce});
  const auto& input = setup.input;

  caf::actor_system_config cfg;
  msg::register_messages(cfg);
  {
    caf::actor_system sys{cfg};
    auto budget = actors::spawn_budget(sys, "host", std::uint64_t{16} << 30);
    auto store = actors::spawn_key_store(sys, budget, 0);
    auto synth = actors::spawn_synthesizer(sys, 0, 2, actors::fault_settings{}, 0);
    caf::scoped_actor self{sys};
    msg::key_handle key = acquire_hot(sys, self, store, key_path);
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
    // The circuit's two value vectors, a, b, c and the witness: the first partition takes the set
    // the key's load made (partition_buffers::prefill), the second takes all six back; none fresh.
    CHECK(key.ptr->buffers->fresh() == 0);
    CHECK(key.ptr->buffers->reused() == 12);
    self->request(store, caf::infinite, msg::status_atom::value)
        .receive(
            [&](msg::key_store_status& s) {
              REQUIRE(s.keys.size() == 1);
              CHECK(s.keys[0].buffers_fresh == 0);
              CHECK(s.keys[0].buffers_reused == 12);
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
}

namespace {

// Page-locking recorded: what a device's pin at the key's load and its stager's at staging did.
struct counting_pinner final : zk::groth16::host_pinner {
  explicit counting_pinner(std::atomic<int>& n) : pins(n) {}
  bool pin(void*, std::size_t) override { return ++pins, true; }
  void unpin(void*) override {}
  std::atomic<int>& pins;
};
std::atomic<int> device_pins{0}, stager_pins{0};

// A CPU device whose backend and stager pin like a GPU's (backend::pinner, stager::pinner), each
// recording into its own counter.
struct pinning_backend final : zk::groth16::cpu_backend {
  std::string name() const override { return "pinfake"; }
  std::shared_ptr<zk::groth16::host_pinner> pinner() override { return std::make_shared<counting_pinner>(device_pins); }
};
struct pinning_stager final : zk::groth16::stager {
  std::unique_ptr<zk::groth16::staged_inputs> stage(zk::groth16::synthesis&& syn,
                                                    std::span<const zk::groth16::scalar> w) override {
    return zk::groth16::host_stager().stage(std::move(syn), w);
  }
  std::shared_ptr<zk::groth16::host_pinner> pinner() override { return std::make_shared<counting_pinner>(stager_pins); }
};

}  // namespace

TEST_CASE("a key's kept witness is pinned when it goes resident, once, its first staging pins nothing",
          "[engine][synthetic][fil][pinned]") {
  zk::groth16::register_backend(
      "pinfake",
      [](int, const zk::groth16::backend_settings&) {
        return std::unique_ptr<zk::groth16::backend>(new pinning_backend);
      },
      {}, [](int) { return std::unique_ptr<zk::groth16::stager>(new pinning_stager); });
  device_pins = 0, stager_pins = 0;
  porep_2k setup("cuzk-synthetic-pinned");
  const auto key_path = zk::groth16::synthetic_key_path({5, false, setup.pce});
  caf::actor_system_config cfg;
  msg::register_messages(cfg);
  {
    caf::actor_system sys{cfg};
    auto budget = actors::spawn_budget(sys, "host", std::uint64_t{16} << 30);
    auto store = actors::spawn_key_store(sys, budget, 0);
    auto synth = actors::spawn_synthesizer(sys, 0, 2, actors::fault_settings{}, 0);
    auto device = actors::spawn_device(sys, 0, "pinfake", {}, actors::fault_settings{}, 0);
    auto stager = actors::spawn_stager(sys, 0, "pinfake");
    caf::scoped_actor self{sys};
    msg::key_handle key = acquire_hot(sys, self, store, key_path);
    REQUIRE(key.ptr);
    REQUIRE(key.ptr->buffers);
    CHECK(key.ptr->buffers->pinned() == 0);  // loaded on the host: nothing pinned yet
    // The key goes resident on the device: its prefilled witness is pinned there, once.
    msg::resident_handle resident;
    for (int load = 0; load < 2; ++load)
      self->request(device, caf::infinite, msg::load_atom::value, key, true)
          .receive([&](msg::resident_handle& h) { resident = h; }, [&](caf::error& e) { FAIL(sys.render(e)); });
    CHECK(device_pins == 1);
    CHECK(key.ptr->buffers->pinned() == 1);
    // Partition 0, synthesized into the prefilled set, then staged: its witness is pinned already.
    msg::synth_request req;
    req.task.job = 1;
    req.task.ticket = 1;
    req.key = key;
    req.witness.fil = {setup.input, 0};
    msg::synth_result syn;
    self->request(synth, caf::infinite, req)
        .receive([&](msg::synth_result& r) { syn = std::move(r); }, [&](caf::error& e) { FAIL(sys.render(e)); });
    REQUIRE(syn.witness.ptr);
    CHECK(key.ptr->buffers->fresh() == 0);  // the prefilled set
    msg::stage_request sreq;
    sreq.task = req.task;
    sreq.key = key;
    sreq.synthesis = std::move(syn.synthesis);
    sreq.witness = syn.witness;
    sreq.resident = resident;
    self->request(stager, caf::infinite, std::move(sreq))
        .receive([&](msg::stage_result& r) { CHECK(r.staged.ptr); }, [&](caf::error& e) { FAIL(sys.render(e)); });
    CHECK(stager_pins == 0);
    CHECK(device_pins == 1);
    CHECK(key.ptr->buffers->pinned() == 1);
    key = {};
    resident = {};
    syn = {};
    for (auto a : {caf::actor_cast<caf::actor>(stager), caf::actor_cast<caf::actor>(device),
                   caf::actor_cast<caf::actor>(synth), caf::actor_cast<caf::actor>(store),
                   caf::actor_cast<caf::actor>(budget)})
      self->send_exit(a, caf::exit_reason::user_shutdown);
  }
}

namespace {

const msg::key_status* key_of(const engine::status_report& s, const std::string& path) {
  for (auto& k : s.key_store.keys)
    if (k.path == path) return &k;
  return nullptr;
}

// A CPU device that computes no sums: the proof of a synthetic key is never verified, and what these
// tests follow is each partition's host grant and set through the engine, not the MSMs (a 2 KiB
// PoRep proof on the host takes seconds to tens of seconds on a loaded CI machine). Its "resident"
// key stands for the points a GPU would make, so a synthetic key's points are never made on the
// host. Proofs wait while `hold` is set (the cancellation case); `proving` counts those waiting.
struct sumless_resident final : zk::groth16::resident_key {
  std::uint64_t bytes() const override { return 0; }
};
struct sumless final : zk::groth16::cpu_backend {
  std::string name() const override { return "sumless"; }
  std::unique_ptr<zk::groth16::resident_key> load_key(const zk::groth16::key_points&,
                                                      const zk::groth16::constraint_evaluator*, bool) override {
    return std::make_unique<sumless_resident>();
  }
  zk::groth16::proof_sums prove_sums(const zk::groth16::key_points&, zk::groth16::staged_inputs&,
                                     zk::groth16::prove_timings*) override {
    ++proving;
    while (hold) std::this_thread::sleep_for(1ms);
    --proving;
    return {};
  }
  static inline std::atomic<bool> hold{false};
  static inline std::atomic<int> proving{0};
};

void register_sumless() {
  zk::groth16::register_backend("sumless", [](int, const zk::groth16::backend_settings&) {
    return std::unique_ptr<zk::groth16::backend>(new sumless);
  });
}

// An engine proving on `sumless` whose host budget is `host_budget` bytes.
engine::config sumless_config(std::uint64_t host_budget) {
  register_sumless();
  auto cfg = test::small_config();
  cfg.devices = {"sumless"};
  cfg.host_budget = std::to_string(host_budget);
  cfg.device_budget = "1GiB";
  return cfg;
}

// The engine's view of a key's kept sets and grants, for a failure message.
std::string grants_line(engine::engine& e, const std::string& key_path) {
  auto s = e.status();
  const auto* k = key_of(s, key_path);
  std::ostringstream o;
  o << "host budget in use " << s.host.in_use << " of " << s.host.capacity << " (" << s.host.reservations
    << " grants, " << s.host.queued << " queued); key: " << (k ? k->bytes : 0) << " bytes, partition grants out "
    << (k ? k->buffers_grants_out : 0) << ", held " << (k ? k->buffers_held_grants : 0) << "; vectors fresh "
    << (k ? k->buffers_fresh : 0) << ", reused " << (k ? k->buffers_reused : 0) << "; tasks queued "
    << s.scheduler.tasks_queued << ", running " << s.scheduler.tasks_running;
  return o.str();
}

// Every job's result within `limit`, or a failure that says where the partition grants are (a grant
// that never comes home shows as grants out with no task running).
std::vector<engine::job_outcome> await_all(engine::engine& e, const std::vector<engine::job_id>& ids,
                                           const std::string& key_path, std::chrono::seconds limit = 180s) {
  std::vector<engine::job_outcome> out;
  for (auto id : ids) {
    auto r = e.await(id, limit);
    if (!r) FAIL("job " << id << " not done after " << limit.count() << " s: " << grants_line(e, key_path));
    out.push_back(std::move(*r));
  }
  return out;
}

// Waits until `pred(status)` holds (5 s at most); whether it did.
template <class Pred>
bool eventually(engine::engine& e, Pred pred) {
  for (int i = 0; i < 1000; ++i) {
    if (pred(e.status())) return true;
    std::this_thread::sleep_for(5ms);
  }
  return pred(e.status());
}

std::vector<engine::job_id> submit_sectors(engine::engine& e, const porep_2k& setup, const std::string& key_path,
                                           int sectors, const std::string& name) {
  std::vector<engine::job_id> ids;
  for (int s = 0; s < sectors; ++s) {
    engine::filecoin_request r;
    r.request_id = name + "-" + std::to_string(s);
    r.input = *setup.input;
    r.synthetic_key = key_path;
    ids.push_back(e.submit(std::move(r)));
  }
  return ids;
}

}  // namespace

TEST_CASE("a PoRep key's kept sets are counted once: its partitions' grants come back with their sets",
          "[engine][synthetic][fil][kept]") {
  sumless::hold = false;
  porep_2k setup("cuzk-kept-sets");
  const auto key_path = zk::groth16::synthetic_key_path({5, false, setup.pce});
  // The key's grant: its evaluator file and the one set reserved with it (kept_partitions = 1).
  const std::uint64_t key_grant = std::filesystem::file_size(setup.pce) + setup.set;
  for (std::uint64_t admits : {1, 2, 3}) {
    CAPTURE(admits);
    // Room for the key and `admits` partitions in flight, no more.
    auto e = engine::engine::start(sumless_config(key_grant + admits * setup.set));
    REQUIRE(e.preload_key(key_path).bytes == key_grant);
    const int sectors = int(admits) + 3;
    const auto results = await_all(e, submit_sectors(e, setup, key_path, sectors, "kept"), key_path);
    std::size_t partitions = 0;
    for (auto& r : results) {
      REQUIRE(r.state == engine::job_state::succeeded);
      CHECK(r.unverified);
      partitions += r.partitions.size();
    }
    REQUIRE(partitions == std::size_t(sectors));
    // Every grant home (none out), each partition's set under one: the budget holds the key's grant
    // and the held ones, nothing else.
    REQUIRE(eventually(e, [&](const engine::status_report& s) {
      const auto* k = key_of(s, key_path);
      return k && k->buffers_grants_out == 0 && s.host.in_use == k->bytes + k->buffers_held_bytes;
    }));
    auto st = e.status();
    const auto* k = key_of(st, key_path);
    REQUIRE(k);
    INFO(grants_line(e, key_path));
    // Each partition takes six vectors: two of values, the witness, a, b, c. The key's load made one
    // set (prefill); more are made only for the first partitions in flight beside it (at most
    // `admits` - 1, one per grant; a later one may find the values of one whose synthesis has
    // ended): after those, no partition allocates (before: every partition that overlapped another
    // made its set anew and freed it). One partition at a time: none made at all.
    CHECK(k->buffers_fresh + k->buffers_reused == 6 * partitions);
    CHECK(k->buffers_fresh <= 6 * (admits - 1));
    CHECK(k->buffers_held_grants >= 1);
    CHECK(k->buffers_held_grants <= admits);
    CHECK(k->buffers_held_bytes == k->buffers_held_grants * setup.set);
    CHECK(k->bytes == key_grant);
    // The key goes: its grant and the held ones go back; the budgets are back to zero.
    REQUIRE(e.evict_key(key_path));
    CHECK(test::budgets_drain(e));
    st = e.status();
    CHECK(st.host.in_use == 0);
    CHECK(st.host.reservations == 0);
  }
}

TEST_CASE("a cancelled or failed PoRep partition's grant comes home to its key's buffers",
          "[engine][synthetic][fil][kept]") {
  porep_2k setup("cuzk-kept-cancel");
  const auto key_path = zk::groth16::synthetic_key_path({5, false, setup.pce});
  const std::uint64_t key_grant = std::filesystem::file_size(setup.pce) + setup.set;
  auto e = engine::engine::start(sumless_config(key_grant + 2 * setup.set));  // two partitions in flight
  e.preload_key(key_path);
  auto key_now = [&] {
    auto s = e.status();
    const auto* k = key_of(s, key_path);
    REQUIRE(k);
    return *k;
  };

  SECTION("cancelled while proving, staged and waiting for a grant") {
    sumless::hold = true;
    const auto ids = submit_sectors(e, setup, key_path, 4, "cancel");
    // One partition proving (held), one synthesized behind it (its six vectors taken while the
    // first's witness is out: else, cancelled before its synthesizer started, it could take the
    // first's whole set back once released, and the sector after would find one set too few), the
    // others waiting for a grant: the budget admits two.
    REQUIRE(eventually(e, [&](const engine::status_report& s) {
      const auto* k = key_of(s, key_path);
      return sumless::proving == 1 && k && k->buffers_grants_out == 2 && k->buffers_fresh + k->buffers_reused == 12 &&
             s.scheduler.host_waits == 2;
    }));
    INFO(grants_line(e, key_path));
    for (auto id : ids) CHECK(e.cancel(id));
    sumless::hold = false;
    for (auto id : ids) {
      auto r = e.await(id, 60s);
      REQUIRE(r);
      CHECK(r->state == engine::job_state::canceled);
    }
    // Both grants out came home with their sets (the proving one once its device let go).
    REQUIRE(eventually(e, [&](const engine::status_report& s) {
      const auto* k = key_of(s, key_path);
      return k && k->buffers_grants_out == 0 && k->buffers_held_grants == 2 && s.host.in_use == key_grant + 2 * setup.set;
    }));
  }
  SECTION("failed on its device (retried, then the job fails)") {
    REQUIRE(e.fail_next_allocations(0, 2));  // the first partition's attempts 1 and 2 (of 3)
    const auto results = await_all(e, submit_sectors(e, setup, key_path, 3, "fail"), key_path);
    for (auto& r : results) CHECK(r.state == engine::job_state::succeeded);
    CHECK(e.status().scheduler.retries >= 2);
    REQUIRE(eventually(e, [&](const engine::status_report& s) {
      const auto* k = key_of(s, key_path);
      return k && k->buffers_grants_out == 0 && s.host.in_use == k->bytes + k->buffers_held_bytes;
    }));
  }
  // The grants that came home are taken again: the next sector allocates nothing and asks nothing.
  const auto before = key_now();
  INFO(grants_line(e, key_path));
  const auto results = await_all(e, submit_sectors(e, setup, key_path, 2, "after"), key_path);
  for (auto& r : results) CHECK(r.state == engine::job_state::succeeded);
  REQUIRE(eventually(e, [&](const engine::status_report& s) {
    const auto* k = key_of(s, key_path);
    return k && k->buffers_grants_out == 0;
  }));
  const auto after = key_now();
  CHECK(after.buffers_fresh == before.buffers_fresh);
  CHECK(after.buffers_reused == before.buffers_reused + 12);
  REQUIRE(e.evict_key(key_path));
  CHECK(test::budgets_drain(e));
}

TEST_CASE("a key's held partition grants go back when it is evicted: a key waiting on the budget gets in",
          "[engine][synthetic][fil][kept]") {
  porep_2k setup("cuzk-kept-evict");
  const auto key_path = zk::groth16::synthetic_key_path({5, false, setup.pce});
  caf::actor_system_config cfg;
  msg::register_messages(cfg);
  {
    caf::actor_system sys{cfg};
    // Room for the key and two partitions (at most a, b, c and the witness twice each).
    const std::uint64_t capacity = std::filesystem::file_size(setup.pce) + 3 * setup.set;
    auto budget = actors::spawn_budget(sys, "host", capacity);
    auto store = actors::spawn_key_store(sys, budget, 0);
    caf::scoped_actor self{sys};
    auto status = [&] {
      msg::budget_status b;
      self->request(budget, caf::infinite, msg::status_atom::value)
          .receive([&](msg::budget_status& s) { b = s; }, [&](caf::error& e) { FAIL(sys.render(e)); });
      return b;
    };
    msg::key_handle key = acquire_hot(sys, self, store, key_path);
    REQUIRE(key.ptr);
    REQUIRE(key.ptr->buffers);
    const std::uint64_t set = key.synthesis_bytes;
    REQUIRE(set > 0);
    REQUIRE(set <= setup.set);
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
    CHECK(key.ptr->buffers->grants_out() == 0);
    const std::uint64_t in_use = status().in_use;
    CHECK(in_use == key.ptr->evaluator_bytes + 2 * set);  // the key's grant and the two held ones
    // Another key's grant waits for the room the held grants take.
    const std::uint64_t wants = capacity - in_use + set;
    auto waiter = sys.spawn([budget, wants](caf::event_based_actor* a) -> caf::behavior {
      a->request(budget, caf::infinite, msg::reserve_request{wants, caf::actor_cast<caf::actor_addr>(a), "other key"})
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

TEST_CASE("a key's held partition grants go back when another key is built: its load does not wait behind them",
          "[engine][synthetic][fil][kept]") {
  porep_2k setup("cuzk-kept-load");
  const auto key_path = zk::groth16::synthetic_key_path({5, false, setup.pce});
  const auto other_path = zk::groth16::synthetic_key_path({6, false, setup.pce});
  caf::actor_system_config cfg;
  msg::register_messages(cfg);
  {
    caf::actor_system sys{cfg};
    // Room for two keys and one set: once the first key holds two partition grants, the second
    // key fits only if they go back.
    const std::uint64_t capacity = 2 * std::filesystem::file_size(setup.pce) + 3 * setup.set;
    auto budget = actors::spawn_budget(sys, "host", capacity);
    auto store = actors::spawn_key_store(sys, budget, 0);
    caf::scoped_actor self{sys};
    auto acquire = [&](const std::string& path) {
      msg::key_handle key;
      self->request(store, std::chrono::seconds(60), msg::acquire_atom::value, path)
          .receive([&](msg::key_handle& h) { key = h; }, [&](caf::error& e) { FAIL(path << ": " << sys.render(e)); });
      return key;
    };
    auto key = acquire(key_path);
    REQUIRE(key.ptr);
    REQUIRE(key.ptr->buffers);
    const std::uint64_t set = key.synthesis_bytes;
    REQUIRE(set <= setup.set);
    for (int i = 0; i < 2; ++i) {
      self->request(budget, caf::infinite, msg::reserve_request{set, caf::actor_cast<caf::actor_addr>(self), "partition"})
          .receive(
              [&](msg::reservation& g) {
                auto token = actors::make_reservation_token(budget, g);
                auto adopted = key.ptr->buffers->adopt(std::move(token.ptr), g.bytes);
              },
              [&](caf::error& e) { FAIL(sys.render(e)); });
    }
    REQUIRE(key.ptr->buffers->grants_held() == 2);
    // The second key's grant would not fit beside the held ones; it is built, and they went back.
    auto other = acquire(other_path);
    CHECK(other.ptr);
    CHECK(key.ptr->buffers->grants_held() == 0);
    key = {};
    other = {};
    self->send_exit(store, caf::exit_reason::user_shutdown);
    self->send_exit(budget, caf::exit_reason::user_shutdown);
  }
}

TEST_CASE("a partition waiting for a grant is served by its key's grant coming home, its budget request withdrawn",
          "[engine][synthetic][fil][kept]") {
  porep_2k setup("cuzk-kept-home");
  const auto key_path = zk::groth16::synthetic_key_path({5, false, setup.pce});
  const std::uint64_t key_grant = std::filesystem::file_size(setup.pce) + setup.set;
  auto e = engine::engine::start(sumless_config(key_grant + setup.set));  // one partition in flight
  e.preload_key(key_path);
  sumless::hold = true;
  const auto ids = submit_sectors(e, setup, key_path, 2, "home");
  // The first partition proves (held) with the one grant; the second waits in the budget's queue.
  REQUIRE(eventually(e, [&](const engine::status_report& s) {
    return sumless::proving == 1 && s.scheduler.host_waits == 1 && s.host.queued == 1;
  }));
  INFO(grants_line(e, key_path));
  CHECK(e.status().scheduler.waits_served_home == 0);
  sumless::hold = false;
  // The first partition's grant comes home to the buffers (never to the budget): the second takes
  // it (the home-coming wakes the scheduler; there is no timer) and its queued request is withdrawn.
  const auto results = await_all(e, ids, key_path, 120s);
  for (auto& r : results) CHECK(r.state == engine::job_state::succeeded);
  REQUIRE(eventually(e, [&](const engine::status_report& s) {
    const auto* k = key_of(s, key_path);
    return k && k->buffers_grants_out == 0 && s.host.queued == 0 && s.scheduler.host_waits == 0;
  }));
  const auto s = e.status();
  const auto* k = key_of(s, key_path);
  REQUIRE(k);
  CHECK(s.scheduler.waits_served_home == 1);
  CHECK(k->buffers_held_grants == 1);
  CHECK(k->buffers_fresh == 0);  // the set the key's load made, taken again with its grant
  CHECK(s.host.in_use == k->bytes + k->buffers_held_bytes);
  REQUIRE(e.evict_key(key_path));
  CHECK(test::budgets_drain(e));
}

TEST_CASE("kept-buffer keys waiting at a budget admitting one partition take turns in the budget's order",
          "[engine][synthetic][fil][kept]") {
  porep_2k setup("cuzk-kept-fair");
  const auto k_path = zk::groth16::synthetic_key_path({5, false, setup.pce});
  const auto l_path = zk::groth16::synthetic_key_path({6, false, setup.pce});
  const std::uint64_t key_grant = std::filesystem::file_size(setup.pce) + setup.set;
  auto cfg = sumless_config(2 * key_grant + setup.set);  // both keys and one partition in flight
  cfg.synthesizers = 3;  // three partitions can wait for a grant at once
  auto e = engine::engine::start(cfg);
  REQUIRE(e.preload_key(k_path).bytes == key_grant);
  REQUIRE(e.preload_key(l_path).bytes == key_grant);
  // K's a proves (held); then K's b, L's c and K's d queue at the budget, in that order. Before,
  // b took a's grant home, d took b's, and c, queued at the budget, waited for a grant that only
  // ever went to K's buffers.
  sumless::hold = true;
  std::vector<engine::job_id> ids = submit_sectors(e, setup, k_path, 1, "fair-a");
  REQUIRE(eventually(e, [&](const engine::status_report&) { return sumless::proving == 1; }));
  const std::pair<const std::string*, const char*> next[] = {{&k_path, "fair-b"}, {&l_path, "fair-c"}, {&k_path, "fair-d"}};
  for (std::size_t i = 0; i < 3; ++i) {
    ids.push_back(submit_sectors(e, setup, *next[i].first, 1, next[i].second)[0]);
    REQUIRE(eventually(e, [&](const engine::status_report& s) { return s.scheduler.host_waits == i + 1; }));
  }
  INFO(grants_line(e, k_path));
  sumless::hold = false;
  const auto results = await_all(e, ids, k_path, 120s);
  // Every job done, each proved in the order it waited (one partition at a time): a, b, c, d.
  std::vector<std::uint64_t> proved;
  for (auto& r : results) {
    REQUIRE(r.state == engine::job_state::succeeded);
    REQUIRE(r.partition_timings.size() == 1);
    proved.push_back(r.partition_timings[0].device_start_unix_us);
  }
  CHECK(std::is_sorted(proved.begin(), proved.end()));
  // b was served by a's grant coming home; c and d by the budget, after the other key's grant went back.
  REQUIRE(eventually(e, [&](const engine::status_report& s) {
    const auto* k = key_of(s, k_path);
    const auto* l = key_of(s, l_path);
    return k && l && k->buffers_grants_out == 0 && l->buffers_grants_out == 0 && s.host.queued == 0 &&
           s.scheduler.host_waits == 0;
  }));
  const auto s = e.status();
  CHECK(s.scheduler.waits_served_home == 1);
  const auto* k = key_of(s, k_path);
  const auto* l = key_of(s, l_path);
  REQUIRE(k);
  REQUIRE(l);
  CHECK(s.host.in_use == k->bytes + k->buffers_held_bytes + l->bytes + l->buffers_held_bytes);
  CHECK(k->buffers_held_grants + l->buffers_held_grants == 1);
  REQUIRE(e.evict_key(k_path));
  REQUIRE(e.evict_key(l_path));
  CHECK(test::budgets_drain(e));
  CHECK(e.status().host.in_use == 0);
}

TEST_CASE("ordered synthesis: partitions started side by side on the shared pool, ranked, all proved",
          "[engine][synthetic][fil][kept]") {
  // engine::config::ordered_synthesis with alone_below 0: every free synthesizer starts at once on
  // the process pool, each partition's pool work ranked by its place (zk/util/pool_rank.hpp, whose
  // order [pool] checks); the sectors succeed and every grant and set comes home as unranked.
  sumless::hold = false;
  porep_2k setup("cuzk-ordered");
  const auto key_path = zk::groth16::synthetic_key_path({5, false, setup.pce});
  const std::uint64_t key_grant = std::filesystem::file_size(setup.pce) + setup.set;
  auto cfg = sumless_config(key_grant + 3 * setup.set);
  cfg.synthesizers = 3;
  cfg.synthesizer_threads = 0;
  cfg.alone_below = 0;
  cfg.ordered_synthesis = true;
  auto e = engine::engine::start(cfg);
  e.preload_key(key_path);
  const auto results = await_all(e, submit_sectors(e, setup, key_path, 5, "ordered"), key_path);
  for (auto& r : results) {
    REQUIRE(r.state == engine::job_state::succeeded);
    CHECK(r.unverified);
  }
  REQUIRE(eventually(e, [&](const engine::status_report& s) {
    const auto* k = key_of(s, key_path);
    return k && k->buffers_grants_out == 0 && s.host.in_use == k->bytes + k->buffers_held_bytes;
  }));
  const auto s = e.status();
  const auto* k = key_of(s, key_path);
  REQUIRE(k);
  CHECK(k->buffers_fresh + k->buffers_reused == 6 * 5);
  CHECK(k->buffers_fresh <= 6 * 2);  // the load's set, and at most one more per partition beside it
  REQUIRE(e.evict_key(key_path));
  CHECK(test::budgets_drain(e));
}

TEST_CASE("a request's charge to the host budget: held while its job is queued and running, back after, "
          "one larger than the budget refused, one that does not fit now waits",
          "[engine][synthetic][fil][budget]") {
  porep_2k setup("cuzk-request-charge");
  const auto key_path = zk::groth16::synthetic_key_path({5, false, setup.pce});
  const std::uint64_t key_grant = std::filesystem::file_size(setup.pce) + setup.set;
  // A charge above what the job's partitions take (a set each, at most two beside the key's), so
  // that it shows in the budget alone, and a second one fits only once the first has gone.
  const std::uint64_t charge = 4 * setup.set;
  const std::uint64_t capacity = key_grant + 2 * setup.set + charge;
  auto e = engine::engine::start(sumless_config(capacity));
  e.preload_key(key_path);
  const std::uint64_t idle = e.status().host.in_use;  // the key and its kept set
  REQUIRE(idle == key_grant);

  sumless::hold = true;  // the job's partitions stay on the device until released
  engine::filecoin_request r;
  r.request_id = "charged";
  r.input = *setup.input;
  r.synthetic_key = key_path;
  r.charge = e.charge_host(charge, "a test request", 1s);
  CHECK(e.status().host.in_use == idle + charge);
  const auto id = e.submit(std::move(r));
  REQUIRE(eventually(e, [&](const engine::status_report&) { return sumless::proving.load() > 0; }));
  CHECK(e.status().host.in_use >= idle + charge);  // the engine holds it with the job's input

  // Beyond the whole budget: refused at once, naming both sizes.
  CHECK_THROWS_WITH(e.charge_host(capacity + 1, "a huge request", 10s),
                    Catch::Contains("over_budget") && Catch::Contains(std::to_string(capacity + 1)) &&
                        Catch::Contains(std::to_string(capacity)));
  // Does not fit beside the job's charge now: waits, and is refused when its wait runs out.
  const auto t0 = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(e.charge_host(charge, "a second request", 300ms), Catch::Contains("stayed in use"));
  CHECK(std::chrono::steady_clock::now() - t0 >= 300ms);
  // One that waits long enough gets in once the job lets go of its input.
  std::shared_ptr<const void> second;
  std::thread waiter([&] { second = e.charge_host(charge, "a second request", 60s); });
  std::this_thread::sleep_for(200ms);
  CHECK_FALSE(second);
  sumless::hold = false;
  const auto done = e.await(id, 60s);
  waiter.join();
  REQUIRE(done);
  CHECK(done->state == engine::job_state::succeeded);
  REQUIRE(second);
  e.forget(id);
  second.reset();
  // Back to the key and the sets it keeps (its partition's grant came home to it): no charge left.
  REQUIRE(eventually(e, [&](const engine::status_report& s) {
    const auto* k = key_of(s, key_path);
    return k && k->buffers_grants_out == 0 && s.host.in_use == k->bytes + k->buffers_held_bytes;
  }));
  REQUIRE(e.evict_key(key_path));
  CHECK(test::budgets_drain(e));
}
