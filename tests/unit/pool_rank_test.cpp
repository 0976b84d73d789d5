// zk/util/pool_rank.hpp: a pool's threads take the lowest-ranked job's tasks first (FIFO among equal
// ranks), and a task runs with its job's rank. Made deterministic with gates: the pool's one worker
// is held until two jobs are queued, whose callers are held in their own first task, so every
// other task of both jobs is the worker's, taken in rank order.
#include <catch2/catch.hpp>

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "zk/util/parallel.hpp"
#include "zk/util/pool_rank.hpp"

using namespace cuzk;

namespace {

struct gate {
  std::mutex m;
  std::condition_variable cv;
  int count = 0;
  bool open = false;
  void arrive() {
    std::lock_guard lk(m);
    ++count;
    cv.notify_all();
  }
  void wait_open() {
    std::unique_lock lk(m);
    cv.wait(lk, [&] { return open; });
  }
  void wait_count(int n) {
    std::unique_lock lk(m);
    cv.wait(lk, [&] { return count >= n; });
  }
  void release() {
    std::lock_guard lk(m);
    open = true;
    cv.notify_all();
  }
};

}  // namespace

TEST_CASE("pool ranks: the worker takes the lower-ranked job's tasks first, tasks keep their job's rank", "[pool]") {
  for (const bool low_first : {true, false}) {  // whichever was queued first
    INFO(low_first);
    zk::thread_pool pool(2);  // one worker
    constexpr std::size_t n = 20;
    gate worker_held, callers_held;
    std::mutex m;
    std::vector<std::string> by_worker;  // the jobs of the tasks the worker ran, in order
    std::vector<std::uint64_t> ranks_seen;
    int done_by_worker = 0;
    std::condition_variable worker_done;
    std::thread::id caller_ids[2];
    // The worker is held in one task of a first job (its caller in the other).
    std::thread hold([&] {
      pool.run(2, [&](std::size_t) {
        worker_held.arrive();
        worker_held.wait_open();
      });
    });
    worker_held.wait_count(2);
    auto job = [&](int which, std::uint64_t rank, const char* name) {
      return std::thread([&, which, rank, name] {
        caller_ids[which] = std::this_thread::get_id();
        zk::pool_rank r(rank);
        pool.run(n, [&](std::size_t i) {
          if (i == 0) {  // the caller takes its first task: held there
            callers_held.arrive();
            callers_held.wait_open();
            return;
          }
          std::lock_guard lk(m);
          by_worker.push_back(name);
          ranks_seen.push_back(zk::pool_rank::current());
          if (++done_by_worker == int(2 * (n - 1))) worker_done.notify_all();
        });
      });
    };
    std::thread first = low_first ? job(0, 3, "low") : job(0, 7, "high");
    callers_held.wait_count(1);
    std::thread second = low_first ? job(1, 7, "high") : job(1, 3, "low");
    callers_held.wait_count(2);
    worker_held.release();
    {
      std::unique_lock lk(m);
      worker_done.wait(lk, [&] { return done_by_worker == int(2 * (n - 1)); });
    }
    callers_held.release();
    hold.join(), first.join(), second.join();
    REQUIRE(by_worker.size() == 2 * (n - 1));
    for (std::size_t i = 0; i < by_worker.size(); ++i) {
      CHECK(by_worker[i] == (i < n - 1 ? "low" : "high"));
      CHECK(ranks_seen[i] == (i < n - 1 ? 3u : 7u));
    }
  }
  CHECK(zk::pool_rank::current() == 0);
}

TEST_CASE("pool ranks: a scope sets the thread's rank and restores the previous one", "[pool]") {
  CHECK(zk::pool_rank::current() == 0);
  {
    zk::pool_rank a(5);
    CHECK(zk::pool_rank::current() == 5);
    {
      zk::pool_rank b(2);
      CHECK(zk::pool_rank::current() == 2);
    }
    CHECK(zk::pool_rank::current() == 5);
  }
  CHECK(zk::pool_rank::current() == 0);
}
