// Every message type round-trips through CAF's binary serializer as a registered message (the
// path a message takes to another node), and the budget actor's properties under random
// concurrent load: never above capacity, FIFO grants, reclaim when a holder dies, back to zero.
#include <catch2/catch.hpp>

#include <atomic>
#include <filesystem>
#include <random>
#include <thread>

#include <unistd.h>

#include "actors/actors.hpp"
#include "caf/all.hpp"
#include "caf/binary_deserializer.hpp"
#include "caf/binary_serializer.hpp"
#include "fixture.hpp"
#include "zk/cs/constraint_system.hpp"
#include "zk/groth16/pce.hpp"
#include "zk/groth16/pce_compact.hpp"

using namespace cuzk;
using namespace cuzk::msg;

namespace {

struct test_config : caf::actor_system_config {
  test_config() { register_messages(*this); }
};

template <class T>
T roundtrip(caf::actor_system& sys, const T& x) {
  std::vector<char> buf;
  auto msg = caf::make_message(x);
  {
    caf::binary_serializer sink{sys, buf};
    auto err = sink(msg);
    REQUIRE_FALSE(err);
  }
  REQUIRE_FALSE(buf.empty());
  caf::message back;
  caf::binary_deserializer source{sys, buf};
  auto err = source(back);
  REQUIRE_FALSE(err);
  REQUIRE(back.match_elements<T>());
  return back.get_as<T>(0);
}

zk::bls12_381::fr random_fr(std::mt19937_64& rng) {
  zk::bigint<4> v;
  for (auto& l : v.limb) l = rng();
  v.limb[3] &= (std::uint64_t{1} << 60) - 1;
  return zk::bls12_381::fr::from_canonical(v);
}

zk::bigint<4> random_scalar(std::mt19937_64& rng) { return random_fr(rng).to_canonical(); }

// Proof words need not be valid points for a round trip; random bytes catch misplaced words.
zk::groth16::proof random_proof(std::mt19937_64& rng) {
  zk::groth16::proof p;
  auto words = detail::to_words(&p, 1);
  for (auto& w : words) w = rng();
  detail::from_words(words, &p, 1);
  return p;
}

partition_output random_output(std::mt19937_64& rng) {
  partition_output o;
  o.proof = random_proof(rng);
  for (int i = 0; i < 3; ++i) o.publics.push_back(random_scalar(rng));
  return o;
}

}  // namespace

TEST_CASE("every message type round-trips through CAF's binary serializer", "[messages]") {
  test_config cfg;
  caf::actor_system sys{cfg};
  std::mt19937_64 rng(77);

  auto w = test::random_sample_witness(rng);
  witness_handle wh{w};
  auto syn = std::make_shared<zk::groth16::synthesis>();
  for (int i = 0; i < 8; ++i) {
    syn->a.push_back(random_fr(rng));
    syn->b.push_back(random_fr(rng));
    syn->c.push_back(random_fr(rng));
  }
  synthesis_handle sh{syn, {}};
  key_handle kh{"/keys/x.zkey", 1234, 5678, 96, nullptr};
  task_ref tr{rng(), 3, 2, rng()};

  REQUIRE(roundtrip(sys, wh) == wh);
  REQUIRE(roundtrip(sys, wh).ptr != wh.ptr);  // a real copy came back, not the same handle
  REQUIRE(roundtrip(sys, witness_handle{}) == witness_handle{});
  REQUIRE(roundtrip(sys, sh) == sh);
  REQUIRE(roundtrip(sys, synthesis_handle{}) == synthesis_handle{});
  REQUIRE(roundtrip(sys, kh) == kh);
  // The key pointer never travels: a remote node resolves the path itself.
  key_handle with_ptr = kh;
  with_ptr.ptr = std::make_shared<circuit_key>();
  REQUIRE(roundtrip(sys, with_ptr).ptr == nullptr);
  REQUIRE(roundtrip(sys, tr) == tr);
  witness_source ws{"/w/1.wtns", wh, {}};
  REQUIRE(roundtrip(sys, ws) == ws);

  job_spec spec;
  spec.request_id = "req-1";
  spec.circuit = "/keys/x.zkey";
  spec.prio = priority::critical;
  spec.partitions = {ws, witness_source{"/w/2.wtns", {}, {}}};
  spec.fixed_randomness = true;
  spec.randomness = {random_fr(rng), random_fr(rng)};
  REQUIRE(roundtrip(sys, spec) == spec);
  job_ticket jt{rng(), spec};
  REQUIRE(roundtrip(sys, jt) == jt);

  job_timings tm{rng(), rng(), rng(), rng(), rng()};
  REQUIRE(roundtrip(sys, tm) == tm);
  auto out = random_output(rng);
  REQUIRE(roundtrip(sys, out) == out);
  job_outcome oc{rng(), job_state::failed, {out, random_output(rng)}, {1, 2, 3}, {"a", "b"}, tm, 9, false,
                 {partition_timing{1, "synth:0", "cuda:1", rng(), rng(), rng(), rng(), {"C1 + witness", "MSM H"},
                                   {double(rng() % 1000) / 4, 0.5}, rng(), rng()},
                  partition_timing{}}};
  REQUIRE(roundtrip(sys, oc) == oc);
  reservation rs{rng(), rng()};
  REQUIRE(roundtrip(sys, rs) == rs);
  budget_status bs{"host", rng(), rng(), rng(), rng(), 3, 4, rng(), rng()};
  REQUIRE(roundtrip(sys, bs) == bs);
  synth_request sreq{tr, kh, ws};
  REQUIRE(roundtrip(sys, sreq) == sreq);
  synth_result sres{tr, sh, wh, rng(), {"C1 + witness", "a/b/c"}, {double(rng() % 1000) / 8, 2.0}};
  REQUIRE(roundtrip(sys, sres) == sres);
  prove_request preq{tr, kh, resident_handle{"/k", 2, nullptr}, {}, wh, true, {random_fr(rng), random_fr(rng)}};
  REQUIRE(roundtrip(sys, preq) == preq);
  // A resident key is device memory of this process: its handle serializes as its name only.
  resident_handle rh{"/k", 1, std::make_shared<const device_resident>()};
  auto rh2 = roundtrip(sys, rh);
  REQUIRE((rh2.path == "/k" && rh2.device == 1 && rh2.ptr == nullptr));
  stage_request stq{tr, kh, sh, wh, {}, {}};
  REQUIRE(roundtrip(sys, stq) == stq);
  stage_result str{tr, {}, rng()};
  REQUIRE(roundtrip(sys, str) == str);
  // Staged inputs are device memory of this process: a handle serializes as nothing.
  staged_handle stg{std::make_shared<zk::groth16::host_staged>(zk::groth16::synthesis{}, std::span<const zk::bigint<4>>{}), {}};
  REQUIRE(roundtrip(sys, stg).ptr == nullptr);
  b2_plan_status b2p{1, "split", rng(), rng(), 1.5, 2.5, 3.5, 4e7, 1.2e7, 5.5, 6.5, 7.5, rng(), "auto chose split: ..."};
  REQUIRE(roundtrip(sys, b2p) == b2p);
  device_result dres{tr, out, rng(), rng(), {"H/NTT", "MSM H", "B2 (G2)"}, {0.25, double(rng() % 1000), 3.5}, b2p};
  REQUIRE(roundtrip(sys, dres) == dres);
  device_status dst{"device0", "cpu", rng(), rng(), rng()};
  REQUIRE(roundtrip(sys, dst) == dst);
  assemble_request areq{tr, 10, {}, out};
  REQUIRE(roundtrip(sys, areq) == areq);
  assembly_ack ack{tr, true, {out}, std::vector<std::uint8_t>(192, 7)};
  REQUIRE(roundtrip(sys, ack) == ack);
  key_status ks{"/k", key_tier::hot, 3, rng(), {0, 2}, {"resident", "partly resident"}, rng(), rng(), rng(), rng(), rng(), rng(), {b2p, b2p}};
  REQUIRE(roundtrip(sys, ks) == ks);
  residency_status rsd{1, rng(), 2, rng(), rng()};
  REQUIRE(roundtrip(sys, rsd) == rsd);
  key_store_status kss{{ks, key_status{"/j", key_tier::warm, 0, 0, {}}}, 1, 2, 3, 4, 5, {rsd}};
  REQUIRE(roundtrip(sys, kss) == kss);
  device_usage du{"cpu:0", rng(), rng(), rng(), rng(), rng(), rng(), rng()};
  REQUIRE(roundtrip(sys, du) == du);
  node_load nl{rng(), 2, rng(), rng(), rng(), rng()};
  REQUIRE(roundtrip(sys, nl) == nl);
  scheduler_status ss{{du}, 1, 2, 3, {nl}, 6, 7, 8};
  REQUIRE(roundtrip(sys, ss) == ss);
  job_report jr{rng(), "r", job_state::succeeded, priority::high, 10, 12, tm, {"x"}};
  REQUIRE(roundtrip(sys, jr) == jr);
  intake_status is{{jr}, 1, 2, 3, 4, 5, 6};
  REQUIRE(roundtrip(sys, is) == is);
  fault_record fr{role::device, 1, "killed", rng()};
  REQUIRE(roundtrip(sys, fr) == fr);
  supervisor_status sup{{fr}, 17};
  REQUIRE(roundtrip(sys, sup) == sup);
  REQUIRE(roundtrip(sys, keepalive{}).ptr == nullptr);
  key_summary ksum{"/k.zkey", "ab12", {}};
  REQUIRE(roundtrip(sys, ksum) == ksum);

  // Cluster messages.
  key_offer ko{"sample", "00ff"};
  REQUIRE(roundtrip(sys, ko) == ko);
  join_hello jh{"node-1", "cuzk-wire/1"};
  REQUIRE(roundtrip(sys, jh) == jh);
  join_challenge jc{"0123456789abcdef"};
  REQUIRE(roundtrip(sys, jc) == jc);
  join_reply jrep{rng(), "cuzk-wire/1"};
  REQUIRE(roundtrip(sys, jrep) == jrep);
  node_task nt{tr, "fp", wh, true, {random_fr(rng), random_fr(rng)}};
  REQUIRE(roundtrip(sys, nt) == nt);
  // A Filecoin partition with its job's inputs: a SnapDeals update's PartitionProofs and its three
  // commitments (each its own bytes, so that a swapped or dropped one does not compare equal).
  fil::job_input snap;
  snap.kind = fil::proof_kind::snap_deals_update;
  snap.registered_proof = "StackedDrg32GiBV1";
  snap.vanilla_proofs = {std::vector<std::uint8_t>(300, 7), std::vector<std::uint8_t>(200, 9)};
  for (std::size_t i = 0; i < snap.comm_r_old.size(); ++i) {
    snap.comm_r_old[i] = std::uint8_t(i);
    snap.comm_r_new[i] = std::uint8_t(64 + i);
    snap.comm_d_new[i] = std::uint8_t(128 + i);
  }
  node_task ft{tr, "params-digest", {}, false, {}, fil_input_handle{std::make_shared<const fil::job_input>(snap), 1}};
  auto ft_back = roundtrip(sys, ft);
  REQUIRE(ft_back == ft);
  REQUIRE(ft_back.fil.ptr);
  REQUIRE(ft_back.fil.ptr != ft.fil.ptr);  // a copy, as on another node
  REQUIRE(ft_back.fil.partition == 1);
  ft.fil.ptr.reset();  // the job's next partition on that node: its index only
  REQUIRE(roundtrip(sys, ft) == ft);
  node_result nres{tr, out.proof, rng(), rng()};
  REQUIRE(roundtrip(sys, nres) == nres);
  node_info ni{rng(), "n", "b", true, "", 2, {"cpu"}, {ko}, rng(), rng()};
  REQUIRE(roundtrip(sys, ni) == ni);
  registrar_status rst{{ni}, 1, 2, 3, {"node x refused: wrong secret"}};
  REQUIRE(roundtrip(sys, rst) == rst);
  agent_status ast{"127.0.0.1:1", "joined", "", rng(), 1, 2, 3};
  REQUIRE(roundtrip(sys, ast) == ast);

  // Messages with actor handles.
  auto budget = actors::spawn_budget(sys, "test", 100);
  auto budget_actor_handle = caf::actor_cast<caf::actor>(budget);
  reserve_request rr{42, budget_actor_handle.address(), "purpose", true};
  REQUIRE(roundtrip(sys, rr) == rr);
  worker_replaced wr{role::assembler, 0, budget_actor_handle.address(), budget_actor_handle, "killed"};
  REQUIRE(roundtrip(sys, wr) == wr);
  roster ro;
  ro.intake = budget_actor_handle;
  ro.devices = {budget_actor_handle, caf::actor{}};
  REQUIRE(roundtrip(sys, ro) == ro);
  join_request jq{"node-1", "cuzk-wire/1", "nonce", "mac", budget_actor_handle, 4, {"cpu", "cuda"}, {ko}};
  REQUIRE(roundtrip(sys, jq) == jq);
  node_joined nj{rng(), "node-1", budget_actor_handle, 4, {"fp1", "fp2"}};
  REQUIRE(roundtrip(sys, nj) == nj);
  caf::anon_send_exit(budget, caf::exit_reason::user_shutdown);
}

TEST_CASE("budget: never above capacity under random concurrent load and reclaim on holder death", "[budget]") {
  test_config cfg;
  cfg.set("scheduler.max-threads", std::size_t{4});
  caf::actor_system sys{cfg};
  const std::uint64_t capacity = 1000;
  auto budget = actors::spawn_budget(sys, "prop", capacity);
  std::atomic<bool> done{false};
  std::atomic<std::uint64_t> violations{0}, samples{0};
  std::thread watcher([&] {
    caf::scoped_actor self{sys};
    while (!done) {
      self->request(budget, caf::infinite, status_atom::value)
          .receive(
              [&](budget_status& s) {
                ++samples;
                if (s.in_use > s.capacity || s.peak > s.capacity) ++violations;
              },
              [&](caf::error&) { ++violations; });
    }
  });
  std::atomic<std::uint64_t> granted{0}, refused{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < 6; ++c) {
    clients.emplace_back([&, c] {
      std::mt19937_64 rng(1000 + c);
      caf::scoped_actor self{sys};
      for (int i = 0; i < 150; ++i) {
        std::uint64_t bytes = 1 + rng() % (i % 50 == 0 ? 1500 : 400);  // some larger than the whole budget
        self->request(budget, caf::infinite, reserve_request{bytes, self->address(), "test"})
            .receive(
                [&](reservation& r) {
                  ++granted;
                  std::this_thread::sleep_for(std::chrono::microseconds(rng() % 300));
                  if (rng() % 10 == 0) {  // dropped without an explicit release: the token releases it
                    auto token = actors::make_reservation_token(budget, r);
                  } else {
                    self->send(budget, release_atom::value, r.id);
                  }
                },
                [&](caf::error&) {
                  if (bytes <= capacity) ++violations;  // (no REQUIRE off the main thread)
                  ++refused;
                });
      }
      // Holds a grant and disappears without releasing: the budget's monitor reclaims it.
      self->request(budget, caf::infinite, reserve_request{100, self->address(), "leak"})
          .receive([](reservation&) {}, [](caf::error&) {});
    });
  }
  for (auto& t : clients) t.join();
  done = true;
  watcher.join();
  REQUIRE(violations == 0);
  REQUIRE(samples > 0);
  REQUIRE(granted >= 6 * 140);
  REQUIRE(refused > 0);
  caf::scoped_actor self{sys};
  budget_status s;
  for (int i = 0; i < 200; ++i) {
    self->request(budget, caf::infinite, status_atom::value).receive([&](budget_status& x) { s = x; },
                                                                      [](caf::error&) {});
    if (s.in_use == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  REQUIRE(s.in_use == 0);
  REQUIRE(s.reservations == 0);
  REQUIRE(s.reclaimed_total >= 6 * 100);
  REQUIRE(s.peak <= capacity);
  REQUIRE(s.peak > capacity / 2);  // it was really under load
  caf::anon_send_exit(budget, caf::exit_reason::user_shutdown);
}

TEST_CASE("budget: queued requests are granted in FIFO order as memory returns", "[budget]") {
  test_config cfg;
  caf::actor_system sys{cfg};
  auto budget = actors::spawn_budget(sys, "fifo", 100);
  caf::scoped_actor self{sys};
  reservation first;
  self->request(budget, caf::infinite, reserve_request{90, self->address(), "a"})
      .receive([&](reservation& r) { first = r; }, [](caf::error&) {});
  REQUIRE(first.bytes == 90);
  std::atomic<int> granted_50{0}, granted_5{0};
  // 50 does not fit until the 90 returns; 5 would fit but must not jump the queue.
  auto waiter = sys.spawn([&granted_50, &granted_5, budget](caf::event_based_actor* a) {
    a->request(budget, caf::infinite, reserve_request{50, a->address(), "w50"})
        .then([&granted_50](reservation&) { ++granted_50; });
    a->request(budget, caf::infinite, reserve_request{5, a->address(), "w5"})
        .then([&granted_5, &granted_50](reservation&) { granted_5 = granted_50 ? 2 : 1; });
    return caf::behavior{[](int) {}};  // stays alive holding its grants until killed
  });
  auto status = [&] {
    budget_status s;
    self->request(budget, caf::infinite, status_atom::value).receive([&](budget_status& x) { s = x; },
                                                                      [](caf::error&) {});
    return s;
  };
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto s = status();
  REQUIRE(s.in_use == 90);
  REQUIRE(s.queued == 2);
  REQUIRE(granted_5 == 0);
  // A no_wait request (the key store's resident tier) is refused now, neither queued nor granted
  // ahead of the queue, even one that would fit.
  for (std::uint64_t bytes : {std::uint64_t{50}, std::uint64_t{5}}) {
    bool refused = false;
    self->request(budget, caf::infinite, reserve_request{bytes, self->address(), "nw", true})
        .receive([](reservation&) {}, [&](caf::error&) { refused = true; });
    REQUIRE(refused);
  }
  REQUIRE(status().queued == 2);
  self->send(budget, release_atom::value, first.id);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  s = status();
  REQUIRE(s.in_use == 55);
  REQUIRE(s.queued == 0);
  REQUIRE(granted_50 == 1);
  REQUIRE(granted_5 == 2);  // after the 50
  // The waiter dies holding both grants: the budget reclaims them.
  caf::anon_send_exit(waiter, caf::exit_reason::kill);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  s = status();
  REQUIRE(s.in_use == 0);
  REQUIRE(s.reclaimed_total == 55);
  caf::anon_send_exit(budget, caf::exit_reason::user_shutdown);
}

TEST_CASE("budget: a queued request withdrawn by its holder leaves the queue and lets the next one in", "[budget]") {
  test_config cfg;
  caf::actor_system sys{cfg};
  auto budget = actors::spawn_budget(sys, "cancel", 100);
  caf::scoped_actor self{sys};
  reservation first;
  self->request(budget, caf::infinite, reserve_request{90, self->address(), "a"})
      .receive([&](reservation& r) { first = r; }, [](caf::error&) {});
  REQUIRE(first.bytes == 90);
  // 50 (tag 7) waits for the 90; 5 (tag 8) would fit but waits behind it (FIFO).
  std::atomic<int> granted_50{0}, granted_5{0}, withdrawn_50{0};
  auto waiter = sys.spawn([&, budget](caf::event_based_actor* a) {
    a->request(budget, caf::infinite, reserve_request{50, a->address(), "w50", false, 7})
        .then([&](reservation&) { ++granted_50; },
              [&](caf::error& e) {
                if (e.category() == caf::atom("cuzk") && static_cast<errc>(e.code()) == errc::withdrawn) ++withdrawn_50;
              });
    a->request(budget, caf::infinite, reserve_request{5, a->address(), "w5", false, 8})
        .then([&](reservation&) { ++granted_5; });
    return caf::behavior{[](int) {}};
  });
  auto status = [&] {
    budget_status s;
    self->request(budget, caf::infinite, status_atom::value).receive([&](budget_status& x) { s = x; },
                                                                      [](caf::error&) {});
    return s;
  };
  for (int i = 0; i < 200 && status().queued < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  REQUIRE(status().queued == 2);
  const auto holder = caf::actor_cast<caf::actor>(waiter).address();
  // Another holder's tag, and tag 0, withdraw nothing.
  self->send(budget, cancel_atom::value, self->address(), std::uint64_t{7});
  self->send(budget, cancel_atom::value, holder, std::uint64_t{0});
  REQUIRE(status().queued == 2);
  // The 50 is withdrawn: its requester hears so, and the 5 behind it is granted at once.
  self->send(budget, cancel_atom::value, holder, std::uint64_t{7});
  for (int i = 0; i < 200 && granted_5 == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  auto s = status();
  REQUIRE(withdrawn_50 == 1);
  REQUIRE(granted_50 == 0);
  REQUIRE(granted_5 == 1);
  REQUIRE(s.queued == 0);
  REQUIRE(s.in_use == 95);
  // Withdrawing a request already granted changes nothing (its grant is the requester's to return).
  self->send(budget, cancel_atom::value, holder, std::uint64_t{8});
  REQUIRE(status().in_use == 95);
  self->send(budget, release_atom::value, first.id);
  caf::anon_send_exit(waiter, caf::exit_reason::kill);
  for (int i = 0; i < 200 && status().in_use != 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  REQUIRE(status().in_use == 0);
  caf::anon_send_exit(budget, caf::exit_reason::user_shutdown);
}

TEST_CASE("budget: a replacement given the slot's ledger inherits the outstanding grants, old tokens release into it",
          "[budget]") {
  test_config cfg;
  caf::actor_system sys{cfg};
  auto ledger = actors::make_budget_ledger();
  auto first = actors::spawn_budget(sys, "slot", 100, ledger);
  caf::scoped_actor self{sys};
  auto grant = [&](const budget_actor& b, std::uint64_t bytes) {
    reservation r;
    self->request(b, caf::infinite, reserve_request{bytes, self->address(), "t"})
        .receive([&](reservation& x) { r = x; }, [](caf::error&) {});
    return r;
  };
  auto status = [&](const budget_actor& b) {
    budget_status s;
    self->request(b, caf::infinite, status_atom::value).receive([&](budget_status& x) { s = x; }, [](caf::error&) {});
    return s;
  };
  auto r60 = grant(first, 60);
  auto r30 = grant(first, 30);
  REQUIRE(r60.bytes == 60);
  REQUIRE(r30.bytes == 30);
  auto t60 = actors::make_reservation_token(first, r60);
  auto t30 = actors::make_reservation_token(first, r30);
  REQUIRE(status(first).held_bytes == 90);

  // The budget dies with 90 bytes out; its replacement (as the supervisor spawns it) starts there,
  // not at zero.
  caf::anon_send_exit(first, caf::exit_reason::kill);
  self->wait_for(first);
  auto second = actors::spawn_budget(sys, "slot", 100, ledger);
  auto s = status(second);
  REQUIRE(s.in_use == 90);
  REQUIRE(s.reservations == 2);
  REQUIRE(s.held_bytes == 90);
  REQUIRE(s.peak == 90);

  // 20 does not fit next to the inherited 90: it waits until a token of the dead budget goes.
  std::atomic<int> granted{0};
  auto waiter = sys.spawn([&granted, second](caf::event_based_actor* a) {
    a->request(second, caf::infinite, reserve_request{20, a->address(), "w20"}).then([&granted](reservation&) {
      ++granted;
    });
    return caf::behavior{[](int) {}};
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  REQUIRE(granted == 0);
  REQUIRE(status(second).queued == 1);
  t60.ptr.reset();  // released into the ledger; the replacement is woken and grants the 20
  for (int i = 0; i < 100 && granted == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  REQUIRE(granted == 1);
  s = status(second);
  REQUIRE(s.in_use == 50);
  REQUIRE(s.held_bytes == 30);  // the 20 has no token: its holder gets only the grant
  REQUIRE(s.peak <= 100);
  t30.ptr.reset();
  caf::anon_send_exit(waiter, caf::exit_reason::kill);  // its unguarded grant is reclaimed
  for (int i = 0; i < 100 && status(second).in_use != 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  s = status(second);
  REQUIRE(s.in_use == 0);
  REQUIRE(s.reservations == 0);
  REQUIRE(s.held_bytes == 0);
  caf::anon_send_exit(second, caf::exit_reason::user_shutdown);
}

// Which way a partition goes onto a device, and its VRAM grant (actors/stager.hpp: one formula for
// the scheduler and the stager): the witness alone only when the synthesis has no a, b, c, the key
// has a compact evaluator (device_witness_bytes) and the key resident on that very device holds its
// device form; a, b, c and the witness in every other case.
namespace {
class fake_resident final : public zk::groth16::resident_key {
 public:
  explicit fake_resident(const zk::groth16::pce_compact* holds) : holds_(holds) {}
  std::uint64_t bytes() const override { return 1; }
  bool synthesizes(const zk::groth16::constraint_evaluator& e) const override { return holds_ && e.compact() == holds_; }

 private:
  const zk::groth16::pce_compact* holds_;
};
}  // namespace

TEST_CASE("staging: witness alone where the resident key evaluates a, b, c, its grant the witness's bytes", "[staging]") {
  const auto file = std::filesystem::temp_directory_path() / ("cuzk-staging-" + std::to_string(::getpid()) + ".pce");
  {
    zk::groth16::pce_recorder rec(file.string(), "staging test");
    zk::cs::constraint_system cs(rec);
    auto x = cs.alloc_input(zk::bls12_381::fr::from_u64(3));
    auto y = cs.alloc(zk::bls12_381::fr::from_u64(9));
    cs.enforce(zk::cs::linear_combination(x), zk::cs::linear_combination(x), zk::cs::linear_combination(y));
    rec.finish(cs.num_inputs(), cs.num_aux());
  }
  auto compact = std::make_shared<const zk::groth16::pce_compact>(zk::groth16::pce_compact::open(file.string(), "staging test"));
  std::filesystem::remove(file);
  auto ck = std::make_shared<circuit_key>();
  ck->evaluator = std::make_shared<const zk::groth16::constraint_evaluator>(zk::groth16::constraint_evaluator::from_compact(compact));
  key_handle key{"k.params", 10, 1000, 96, ck};

  auto holder = std::make_shared<device_resident>();
  holder->key = std::make_shared<fake_resident>(compact.get());
  const resident_handle on0{"k.params", 0, holder};
  zk::groth16::synthesis witness_only, with_abc;
  with_abc.a.resize(4);
  with_abc.b.resize(4);
  with_abc.c.resize(4);

  CHECK(actors::stages_witness_only(key, witness_only, on0, 0));
  CHECK(actors::staging_grant_bytes(key, true) == 96);
  CHECK(actors::staging_grant_bytes(key, false) == 1000);
  CHECK_FALSE(actors::stages_witness_only(key, with_abc, on0, 0));      // a, b, c made on the host
  CHECK_FALSE(actors::stages_witness_only(key, witness_only, on0, 1));  // resident on another device
  CHECK_FALSE(actors::stages_witness_only(key, witness_only, resident_handle{"k.params", 0, nullptr}, 0));
  auto other = std::make_shared<device_resident>();
  other->key = std::make_shared<fake_resident>(nullptr);  // resident without the evaluator
  CHECK_FALSE(actors::stages_witness_only(key, witness_only, resident_handle{"k.params", 0, other}, 0));
  auto cpu = std::make_shared<device_resident>();  // a CPU device keeps nothing
  CHECK_FALSE(actors::stages_witness_only(key, witness_only, resident_handle{"k.params", 0, cpu}, 0));
  key_handle zkey = key;
  zkey.device_witness_bytes = 0;  // no compact evaluator: never
  CHECK_FALSE(actors::stages_witness_only(zkey, witness_only, on0, 0));

  // The reserve step at the key's load: staged_partitions slots of the grant of the path its
  // partitions take there; none where the key is not resident (a CPU device keeps nothing, another
  // device, no handle) or no depth was given.
  using reserve = actors::staging_reserve;
  CHECK(actors::staging_reserve_for(key, on0, 0, 3) == reserve{96, 3});
  CHECK(actors::staging_reserve_for(key, resident_handle{"k.params", 0, other}, 0, 3) == reserve{1000, 3});
  CHECK(actors::staging_reserve_for(zkey, on0, 0, 3) == reserve{1000, 3});
  CHECK(actors::staging_reserve_for(key, on0, 0, 2) == reserve{96, 2});
  CHECK(actors::staging_reserve_for(key, on0, 1, 3) == reserve{});
  CHECK(actors::staging_reserve_for(key, resident_handle{"k.params", 0, cpu}, 0, 3) == reserve{});
  CHECK(actors::staging_reserve_for(key, resident_handle{"k.params", 0, nullptr}, 0, 3) == reserve{});
  CHECK(actors::staging_reserve_for(key, on0, 0, 0) == reserve{});
}

// One formula for a staged partition's device bytes: the slot's layout [a | b | c | witness] of
// 32-byte values, or the witness alone.
TEST_CASE("staging: a staged partition's bytes are its a, b, c over the domain and its witness", "[staging]") {
  STATIC_REQUIRE(zk::groth16::staged_bytes(1 << 4, 10, false) == (3 * 16 + 10) * 32);
  STATIC_REQUIRE(zk::groth16::staged_bytes(1 << 4, 10, true) == 10 * 32);
}
