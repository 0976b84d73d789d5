// A small work-sharing thread pool and parallel_for, shared by MSM, NTT, the constraint evaluator
// and key validation.
//
// The pool has size() - 1 worker threads; the calling thread is the last participant, so a pool of
// size 1 runs everything inline. Several threads may submit work to one pool at the same time, and
// a task may itself call parallel_for: every waiting thread first helps with its own job's tasks and
// then waits only for tasks that are already running, so nesting cannot deadlock.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>

namespace cuzk::zk {

class thread_pool {
 public:
  // threads = total participants including the caller; 0 means std::thread::hardware_concurrency().
  explicit thread_pool(unsigned threads = 0);
  ~thread_pool();
  thread_pool(const thread_pool&) = delete;
  thread_pool& operator=(const thread_pool&) = delete;

  unsigned size() const { return size_; }

  // Calls task(i) for every i in [0, tasks), spread over the pool and the caller; returns when all
  // have finished. The first exception thrown by a task is rethrown here (the others still run).
  void run(std::size_t tasks, const std::function<void(std::size_t)>& task);

 private:
  struct state;
  std::unique_ptr<state> st_;
  unsigned size_;
};

// The process-wide pool, sized to hardware_concurrency unless set_default_threads was called.
thread_pool& default_pool();
// Replaces the process-wide pool (0 = hardware_concurrency). Call it at start-up, before work is
// submitted: a pool that is replaced stays alive (idle) so references to it remain valid.
void set_default_threads(unsigned threads);
unsigned default_threads();

// Calls fn(begin, end) on disjoint chunks covering [0, n), in parallel on `pool`. Chunks hold at
// least min_chunk items (the last may hold fewer); about 4 chunks per thread for load balance.
template <class Fn>
void parallel_for(thread_pool& pool, std::size_t n, Fn&& fn, std::size_t min_chunk = 1) {
  if (n == 0) return;
  min_chunk = std::max<std::size_t>(min_chunk, 1);
  std::size_t max_chunks = (n + min_chunk - 1) / min_chunk;
  std::size_t chunks = std::min<std::size_t>(max_chunks, std::size_t(pool.size()) * 4);
  if (chunks <= 1 || pool.size() == 1) {
    fn(std::size_t{0}, n);
    return;
  }
  std::size_t per = n / chunks, extra = n % chunks;  // first `extra` chunks get one more item
  pool.run(chunks, [&](std::size_t c) {
    std::size_t begin = c * per + std::min(c, extra);
    std::size_t end = begin + per + (c < extra ? 1 : 0);
    fn(begin, end);
  });
}

template <class Fn>
void parallel_for(std::size_t n, Fn&& fn, std::size_t min_chunk = 1) {
  parallel_for(default_pool(), n, std::forward<Fn>(fn), min_chunk);
}

}  // namespace cuzk::zk
