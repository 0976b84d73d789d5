// zk/groth16/partition_buffers.hpp's pinning of kept witness vectors (the witness
// a GPU uploads lives in pinned memory kept across partitions): each kept vector is pinned once,
// when it is first kept, and stays pinned while it goes out and comes back; a vector freed (beyond
// `keep`, too small for the next partition, or with the buffers) is unpinned first; every pin is
// undone at the end. A recording pinner stands in for the CUDA backend's (cudaHostRegister).
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <memory>

#include "zk/groth16/partition_buffers.hpp"

using namespace cuzk;
using zk::groth16::partition_buffers;

namespace {

struct recording_pinner final : zk::groth16::host_pinner {
  std::map<void*, std::size_t> live;
  int pins = 0, unpins = 0, refused = 0;
  bool refuse = false;
  bool pin(void* p, std::size_t bytes) override {
    if (refuse) return ++refused, false;
    REQUIRE(live.count(p) == 0);  // never pinned twice
    live[p] = bytes;
    ++pins;
    return true;
  }
  void unpin(void* p) override {
    REQUIRE(live.erase(p) == 1);  // only what was pinned
    ++unpins;
  }
};

}  // namespace

TEST_CASE("kept witness vectors are pinned once, reused pinned, unpinned before they are freed", "[buffers][pinned]") {
  auto pinner = std::make_shared<recording_pinner>();
  constexpr std::size_t n = 1000;
  {
    partition_buffers bufs(2);
    // A vector kept before a pinner is known is pinned when it comes.
    auto early = bufs.take_witness(n);
    CHECK(early.capacity() >= n);
    const void* early_at = early.data();
    bufs.give_witness(std::move(early));
    CHECK(bufs.pinned() == 0);
    bufs.pin_witnesses(pinner);
    CHECK(pinner->pins == 1);
    CHECK(pinner->live.count(const_cast<void*>(early_at)) == 1);
    CHECK(pinner->live.begin()->second >= n * 32);
    bufs.pin_witnesses(std::make_shared<recording_pinner>());  // the first pinner stays
    CHECK(pinner->pins == 1);

    // Consecutive partitions, two in flight at a time: two vectors, pinned once each, every later
    // partition takes a pinned one back (no allocation, no pin).
    for (int partition = 0; partition < 6; ++partition) {
      auto a = bufs.take_witness(n), b = bufs.take_witness(n);
      a.resize(n), b.resize(n);  // within capacity: the memory stays where it was pinned
      bufs.give_witness(std::move(a));
      bufs.give_witness(std::move(b));
    }
    CHECK(bufs.fresh() == 2);    // the early one and the second of the first round
    CHECK(bufs.reused() == 11);  // every other take
    CHECK(pinner->pins == 2);
    CHECK(pinner->unpins == 0);
    CHECK(bufs.pinned() == 2);

    // Three out at once (keep = 2): the third, fresh, is pinned when it is kept; the one given back
    // beyond keep is unpinned, then freed.
    auto a = bufs.take_witness(n), b = bufs.take_witness(n), c = bufs.take_witness(n);
    bufs.give_witness(std::move(c));
    bufs.give_witness(std::move(a));
    bufs.give_witness(std::move(b));  // one too many: a pinned one is freed, and unpinned first
    CHECK(pinner->pins == 3);
    CHECK(pinner->unpins == 1);
    CHECK(bufs.pinned() == 2);

    // A larger partition: a kept vector too small for it is unpinned and dropped, a fresh one made.
    const auto fresh_before = bufs.fresh(), reused_before = bufs.reused();
    auto big = bufs.take_witness(4 * n);
    CHECK(big.capacity() >= 4 * n);
    CHECK(pinner->unpins == 2);
    CHECK(bufs.fresh() == fresh_before + 1);  // counted as made, not as reused
    CHECK(bufs.reused() == reused_before);
    bufs.give_witness(std::move(big));
    CHECK(pinner->pins == 4);
    CHECK(bufs.pinned() == 2);

    // A pinner that cannot pin: the vector is kept all the same, unpinned (its uploads bounce).
    pinner->refuse = true;
    auto d = bufs.take_witness(n), e = bufs.take_witness(n), f = bufs.take_witness(n);
    bufs.give_witness(std::move(f));
    CHECK(pinner->refused == 1);
    bufs.give_witness(std::move(e));
    bufs.give_witness(std::move(d));  // beyond keep: unpinned and freed
    CHECK(pinner->unpins == 3);
    CHECK(bufs.pinned() == 1);
    pinner->refuse = false;
    CHECK(pinner->live.size() == bufs.pinned());
  }
  // The buffers are gone: every pin undone.
  CHECK(pinner->live.empty());
  CHECK(pinner->pins == pinner->unpins);
}

// A fresh witness is pinned before its first upload (the stager's pin_witness), only if the buffers
// handed it out and it is still out; it stays pinned when kept, and is unpinned before it is freed.
TEST_CASE("a fresh witness from the buffers is pinned for its first upload, no other vector is", "[buffers][pinned]") {
  auto pinner = std::make_shared<recording_pinner>();
  constexpr std::size_t n = 1000;
  {
    partition_buffers bufs(1);
    auto a = bufs.take_witness(n), b = bufs.take_witness(n);
    bufs.pin_witness(a);  // no pinner yet: nothing
    CHECK(pinner->pins == 0);
    bufs.pin_witnesses(pinner);
    std::vector<zk::bigint<4>> stranger(n);
    bufs.pin_witness(stranger);
    CHECK(pinner->pins == 0);
    bufs.pin_witness(a);
    bufs.pin_witness(a);  // once
    CHECK(pinner->pins == 1);
    CHECK(pinner->live.count(a.data()) == 1);
    bufs.give_witness(std::move(a));  // kept, still pinned
    CHECK(pinner->pins == 1);
    CHECK(bufs.pinned() == 1);
    bufs.pin_witness(b);
    CHECK(pinner->pins == 2);
    bufs.give_witness(std::move(b));  // beyond keep: unpinned, then freed
    CHECK(pinner->unpins == 1);
    CHECK(bufs.pinned() == 1);
    auto c = bufs.take_witness(n);  // the kept, pinned one: pinning it again does nothing
    bufs.pin_witness(c);
    CHECK(pinner->pins == 2);
    bufs.give_witness(std::move(c));
  }
  CHECK(pinner->live.empty());
  CHECK(pinner->pins == pinner->unpins);
}

// Counting a kept set once: a partition's grant, adopted by the buffers, comes back to them when its
// last holder lets go, and the set it covered is kept under it; the next partition takes the grant
// (and the set) instead of asking the budget; held grants go back with release_held or with the
// buffers, their sets freed first. A counter stands in for the host budget.
TEST_CASE("partition grants held by the kept buffers: each kept set counted once", "[buffers][kept]") {
  constexpr std::size_t n = 1000;
  int granted = 0;  // grants outstanding in the stand-in budget
  auto from_budget = [&] {
    ++granted;
    return partition_buffers::grant(new int(0), [&granted](const void* p) {
      --granted;
      delete static_cast<const int*>(p);
    });
  };
  auto pinner = std::make_shared<recording_pinner>();
  {
    auto bufs = std::make_shared<partition_buffers>(1);
    bufs->pin_witnesses(pinner);
    CHECK_FALSE(bufs->take_grant(100));  // none held yet: the partition asks the budget
    // Two partitions in flight, both with grants from the budget and fresh witnesses.
    auto g1 = bufs->adopt(from_budget(), 100), g2 = bufs->adopt(from_budget(), 100);
    auto w1 = bufs->take_witness(n), w2 = bufs->take_witness(n);
    CHECK(bufs->fresh() == 2);
    CHECK(bufs->grants_out() == 2);
    // A witness handed out is pinned before its upload (a stager); a vector not from the buffers is not.
    bufs->pin_witness(w1);
    std::vector<zk::bigint<4>> stranger(n);
    bufs->pin_witness(stranger);
    CHECK(pinner->pins == 1);
    CHECK(pinner->live.count(w1.data()) == 1);
    // Both end: witness, then grant. Keep is 1, but each grant covers one more set: both kept.
    bufs->give_witness(std::move(w1));
    g1.reset();
    bufs->give_witness(std::move(w2));
    g2.reset();
    CHECK(granted == 2);  // held, not released
    CHECK(bufs->grants_held() == 2);
    CHECK(bufs->held_bytes() == 200);
    CHECK(bufs->grants_out() == 0);
    CHECK(pinner->pins == 2);  // the second pinned as it was kept
    // Steady state: each partition takes a held grant and a kept set; nothing made, nothing asked.
    for (int round = 0; round < 3; ++round) {
      auto h1 = bufs->take_grant(100), h2 = bufs->take_grant(100);
      REQUIRE(h1);
      REQUIRE(h2);
      CHECK_FALSE(bufs->take_grant(100));
      auto a = bufs->take_witness(n), b = bufs->take_witness(n);
      bufs->give_witness(std::move(b));
      h2.reset();
      bufs->give_witness(std::move(a));
      h1.reset();
    }
    CHECK(bufs->fresh() == 2);
    CHECK(bufs->reused() == 6);
    CHECK(granted == 2);
    CHECK(bufs->grants_held() == 2);
    CHECK_FALSE(bufs->take_grant(101));  // none large enough
    // A partition that failed before its witness: its grant comes back alone (covered, harmless).
    {
      auto h = bufs->take_grant(100);
      REQUIRE(h);
    }
    CHECK(bufs->grants_held() == 2);
    // Another key needs the memory: the grants go back, and the sets beyond keep are freed first.
    CHECK(bufs->release_held() == 2);
    CHECK(granted == 0);
    CHECK(bufs->grants_held() == 0);
    CHECK(pinner->unpins == 1);  // one of the two pinned kept witnesses freed, the reserved one kept
    CHECK(bufs->pinned() == 1);
    // A grant adopted and held when the buffers go: it goes back with them.
    auto g3 = bufs->adopt(from_budget(), 100);
    g3.reset();
    CHECK(granted == 1);
    // An adopted grant that outlives the buffers goes straight back to the budget.
    auto g4 = bufs->adopt(from_budget(), 100);
    CHECK(granted == 2);
    bufs.reset();
    CHECK(granted == 1);
    g4.reset();
    CHECK(granted == 0);
  }
  CHECK(pinner->live.empty());
}

// A grant coming home calls on_grant_home (the scheduler wakes that key's waiting partitions), once
// per grant, when it is already held (the callback's take_grant finds it); a grant taken or given
// back, or one that outlives the buffers, calls nothing.
TEST_CASE("partition grants coming home call the buffers' on_grant_home", "[buffers][kept]") {
  int granted = 0;
  auto from_budget = [&] {
    ++granted;
    return partition_buffers::grant(new int(0), [&granted](const void* p) {
      --granted;
      delete static_cast<const int*>(p);
    });
  };
  auto bufs = std::make_shared<partition_buffers>(1);
  int calls = 0;
  std::size_t held_then = 0;
  partition_buffers::grant taken;
  bufs->on_grant_home([&] {
    ++calls;
    held_then = bufs->grants_held();
    taken = bufs->take_grant(100);  // a waiting partition takes it at once
  });
  auto g = bufs->adopt(from_budget(), 100);
  CHECK(calls == 0);
  g.reset();
  CHECK(calls == 1);
  CHECK(held_then == 1);
  REQUIRE(taken);
  CHECK(bufs->grants_held() == 0);
  CHECK(bufs->grants_out() == 1);
  CHECK(granted == 1);
  // The one taken comes home in turn: the callback runs again and takes it again; then nobody waits.
  bufs->on_grant_home([&] { ++calls; });
  taken.reset();
  CHECK(calls == 2);
  CHECK(bufs->grants_held() == 1);
  CHECK(bufs->release_held() == 1);
  CHECK(calls == 2);
  CHECK(granted == 0);
  auto late = bufs->adopt(from_budget(), 100);
  bufs.reset();
  late.reset();  // the buffers are gone: straight back to the budget, no call
  CHECK(calls == 2);
  CHECK(granted == 0);
}

TEST_CASE("prefilled buffers: the kept sets made at the key's load are what the first partitions take",
          "[buffers][kept]") {
  auto pinner = std::make_shared<recording_pinner>();
  zk::thread_pool pool(2);
  constexpr std::size_t inputs = 5, aux = 300000, domain = 1 << 17;
  for (const std::size_t keep : {1, 2}) {
    for (const std::size_t dom : {std::size_t{0}, domain}) {
      INFO(keep << " " << dom);
      auto bufs = std::make_shared<partition_buffers>(keep);
      bufs->pin_witnesses(pinner);
      bufs->prefill(inputs, aux, dom, pool);
      bufs->prefill(inputs, aux, dom, pool);  // a second call adds nothing: the sets are there
      CHECK(bufs->pinned() == keep);
      std::vector<zk::cs::values> values;
      std::vector<std::vector<zk::bigint<4>>> witnesses;
      std::vector<std::vector<zk::bls12_381::fr>> vectors;
      for (std::size_t s = 0; s < keep; ++s) {
        auto a = bufs->take_values(), b = bufs->take_values();
        CHECK(std::min(a.capacity(), b.capacity()) >= inputs);
        CHECK(std::max(a.capacity(), b.capacity()) >= aux);
        values.push_back(std::move(a)), values.push_back(std::move(b));
        auto w = bufs->take_witness(inputs + aux);
        CHECK(w.size() == inputs + aux);  // to_witness_values' resize writes nothing
        CHECK(std::all_of(w.begin(), w.end(), [](const zk::bigint<4>& x) { return x == zk::bigint<4>{}; }));
        witnesses.push_back(std::move(w));
        if (dom) {
          for (int k = 0; k < 3; ++k) {
            auto v = bufs->take_vector();
            CHECK(v.size() == dom);
            vectors.push_back(std::move(v));
          }
        }
      }
      CHECK(bufs->fresh() == 0);
      CHECK(bufs->reused() == keep * (dom ? 6 : 3));
      // Beyond the prefilled sets: fresh ones.
      CHECK(bufs->take_values().capacity() == 0);
      CHECK(bufs->take_witness().capacity() == 0);
      CHECK(bufs->take_vector().capacity() == 0);
      CHECK(bufs->fresh() == 3);
      // A fresh witness made with a pool: at its size already (zeros), counted fresh.
      auto w = bufs->take_witness(inputs + aux, &pool);
      CHECK(w.size() == inputs + aux);
      CHECK(std::all_of(w.begin(), w.end(), [](const zk::bigint<4>& x) { return x == zk::bigint<4>{}; }));
      CHECK(bufs->fresh() == 4);
    }
  }
  CHECK(pinner->live.empty());  // the buffers unpinned what they pinned
}
