// The rank of the pool work a thread submits (zk::thread_pool::run): a pool's threads take the
// tasks of the lowest-ranked job that has some left, and among equal ranks the oldest job's (FIFO,
// as without ranks: everything is rank 0 unless a pool_rank says otherwise). A task runs with its
// job's rank, so the work it submits in turn (a nested run) keeps it; a caller still runs its own
// job's tasks while they last, whatever the rank.
//
// Why: two syntheses sharing one pool otherwise take turns phase by phase and both finish late (two
// 32 GiB partitions side by side: 2.1 s each, against ~1.05 s alone); ranked by the order the
// device wants them, the first finishes as if alone (less its partner's own thread) and the second
// uses what the first leaves, then the whole pool (the engine's ordered synthesis setting).
#pragma once

#include <cstdint>

namespace cuzk::zk {

class pool_rank {
 public:
  // This thread's rank from now until the end of the scope (the previous one then).
  explicit pool_rank(std::uint64_t rank);
  ~pool_rank();
  pool_rank(const pool_rank&) = delete;
  pool_rank& operator=(const pool_rank&) = delete;
  // The calling thread's rank (0 unless a pool_rank or a task of a ranked job says otherwise).
  static std::uint64_t current();

 private:
  std::uint64_t previous_;
};

}  // namespace cuzk::zk
