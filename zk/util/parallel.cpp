#include "zk/util/parallel.hpp"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "zk/util/pool_rank.hpp"

namespace cuzk::zk {

namespace {
thread_local std::uint64_t this_thread_rank = 0;

struct job {
  const std::function<void(std::size_t)>* task;
  std::size_t tasks;
  std::uint64_t rank = 0;  // its submitter's (pool_rank)
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> done{0};
  std::mutex m;
  std::condition_variable finished;
  std::exception_ptr error;  // first failure, guarded by m

  // Runs one task if any is left; false when all have been claimed.
  bool run_one() {
    std::size_t i = next.fetch_add(1, std::memory_order_relaxed);
    if (i >= tasks) return false;
    try {
      (*task)(i);
    } catch (...) {
      std::lock_guard lk(m);
      if (!error) error = std::current_exception();
    }
    if (done.fetch_add(1, std::memory_order_acq_rel) + 1 == tasks) {
      std::lock_guard lk(m);
      finished.notify_all();
    }
    return true;
  }
};
}  // namespace

struct thread_pool::state {
  std::mutex m;
  std::condition_variable wake;
  std::deque<std::shared_ptr<job>> queue;  // jobs that may still have unclaimed tasks
  bool stop = false;
  std::vector<std::thread> workers;

  void worker_loop() {
    for (;;) {
      std::shared_ptr<job> j;
      {
        std::unique_lock lk(m);
        wake.wait(lk, [&] { return stop || !queue.empty(); });
        if (stop) return;
        j = queue.front();  // the lowest rank, the oldest among equals
        for (const auto& q : queue)
          if (q->rank < j->rank) j = q;
      }
      bool ran;
      {
        pool_rank as(j->rank);  // work the task submits keeps its job's rank
        ran = j->run_one();
      }
      if (!ran) {
        std::lock_guard lk(m);
        for (auto it = queue.begin(); it != queue.end(); ++it)
          if (*it == j) {
            queue.erase(it);
            break;
          }
      }
    }
  }
};

thread_pool::thread_pool(unsigned threads) : st_(std::make_unique<state>()) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  size_ = threads;
  for (unsigned i = 1; i < threads; ++i) st_->workers.emplace_back([s = st_.get()] { s->worker_loop(); });
}

thread_pool::~thread_pool() {
  {
    std::lock_guard lk(st_->m);
    st_->stop = true;
  }
  st_->wake.notify_all();
  for (auto& t : st_->workers) t.join();
}

void thread_pool::run(std::size_t tasks, const std::function<void(std::size_t)>& task) {
  if (tasks == 0) return;
  if (size_ == 1 || tasks == 1) {
    for (std::size_t i = 0; i < tasks; ++i) task(i);
    return;
  }
  auto j = std::make_shared<job>();
  j->task = &task;
  j->tasks = tasks;
  j->rank = this_thread_rank;
  {
    std::lock_guard lk(st_->m);
    st_->queue.push_back(j);
  }
  st_->wake.notify_all();
  while (j->run_one()) {
  }
  {
    std::lock_guard lk(st_->m);
    for (auto it = st_->queue.begin(); it != st_->queue.end(); ++it)
      if (*it == j) {
        st_->queue.erase(it);
        break;
      }
  }
  std::unique_lock lk(j->m);
  j->finished.wait(lk, [&] { return j->done.load(std::memory_order_acquire) == tasks; });
  if (j->error) std::rethrow_exception(j->error);
}

pool_rank::pool_rank(std::uint64_t rank) : previous_(this_thread_rank) { this_thread_rank = rank; }
pool_rank::~pool_rank() { this_thread_rank = previous_; }
std::uint64_t pool_rank::current() { return this_thread_rank; }

namespace {
std::mutex default_mutex;
std::vector<std::unique_ptr<thread_pool>>& pools() {
  static std::vector<std::unique_ptr<thread_pool>> p;  // the last one is current
  return p;
}
std::atomic<thread_pool*> current{nullptr};
}  // namespace

thread_pool& default_pool() {
  if (auto* p = current.load(std::memory_order_acquire)) return *p;
  std::lock_guard lk(default_mutex);
  if (pools().empty()) {
    pools().push_back(std::make_unique<thread_pool>(0));
    current.store(pools().back().get(), std::memory_order_release);
  }
  return *pools().back();
}

void set_default_threads(unsigned threads) {
  std::lock_guard lk(default_mutex);
  pools().push_back(std::make_unique<thread_pool>(threads));
  current.store(pools().back().get(), std::memory_order_release);
}

unsigned default_threads() { return default_pool().size(); }

}  // namespace cuzk::zk
