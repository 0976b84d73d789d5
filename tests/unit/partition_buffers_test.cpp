// zk/groth16/partition_buffers.hpp's pinning of kept witness vectors (issue 19 item 6: the witness
// a GPU uploads lives in pinned memory kept across partitions): each kept vector is pinned once,
// when it is first kept, and stays pinned while it goes out and comes back; a vector freed (beyond
// `keep`, too small for the next partition, or with the buffers) is unpinned first; every pin is
// undone at the end. A recording pinner stands in for the CUDA backend's (cudaHostRegister).
#include <catch2/catch.hpp>

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
TEST_CASE("a fresh witness from the buffers is pinned for its first upload; no other vector is", "[buffers][pinned]") {
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
