// SPDX-License-Identifier: Apache-2.0
//
// ParallelFor: the one fan-out helper. Work items [0, n) are handed out in
// chunks of `chunk` items from a shared counter (dynamic scheduling, so
// uneven items balance) to up to `threads` workers; the calling thread is
// worker 0. fn(worker, begin, end) gets the worker's index in
// [0, NumWorkers(n, threads, chunk)) for per-worker scratch or results.
// Returns when every item is done. A worker thread that cannot start
// (std::system_error: the process is at its thread limit) is done without:
// the workers that did start take its share. An exception fn throws (say
// std::bad_alloc) stops the hand-out; once every worker has returned, the
// first one is rethrown on the calling thread, where the API boundary turns
// it into a Status (machine.h). Left in a worker thread it would end the
// process.
//
// Thread safety: `fn` runs concurrently with itself on disjoint ranges.
// Complexity: one thread start per extra worker.
#ifndef NEARDUP_BASE_PARALLEL_H_
#define NEARDUP_BASE_PARALLEL_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "neardup/status.h"

namespace neardup::base {

// Starts *thread on fn. std::thread throws std::system_error when the
// process is at its thread limit; this returns ResourceExhausted naming
// `what` instead, so no exception leaves the library.
template <typename Fn>
[[nodiscard]] Status StartThread(std::thread* thread, const char* what, Fn&& fn) {
  try {
    *thread = std::thread(std::forward<Fn>(fn));
  } catch (const std::system_error& e) {
    return Status::ResourceExhausted(std::string("cannot start the ") + what +
                                     " thread: " + e.what());
  }
  return Status::OK();
}

// Appends a thread running fn to *pool; false (and nothing appended) when
// it cannot start. For pools whose work the threads that did start share.
template <typename Fn>
[[nodiscard]] bool TryAddThread(std::vector<std::thread>* pool, Fn&& fn) {
  try {
    pool->emplace_back(std::forward<Fn>(fn));
  } catch (const std::system_error&) {
    return false;
  }
  return true;
}

// Threads for `requested` (0 or less: every hardware thread).
inline int ResolveThreads(int requested) {
  if (requested > 0) return requested;
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

// The first exception thrown by the workers of a pool, kept to be rethrown
// on the calling thread after every worker is joined. Thread-safe.
class FirstException {
 public:
  // In a catch block: keeps the exception being handled unless one is kept.
  void Capture() noexcept {
    std::lock_guard<std::mutex> lock(mu_);
    if (!first_) first_ = std::current_exception();
    caught_.store(true, std::memory_order_relaxed);
  }
  // Whether a worker has thrown: the others may stop early.
  bool caught() const { return caught_.load(std::memory_order_relaxed); }
  // Call after joining every worker.
  void RethrowIfAny() {
    if (first_) std::rethrow_exception(first_);
  }

 private:
  std::mutex mu_;
  std::exception_ptr first_;
  std::atomic<bool> caught_{false};
};

// Workers ParallelFor starts: no more than there are chunks.
inline int NumWorkers(size_t n, int threads, size_t chunk) {
  const size_t chunks = (n + std::max<size_t>(1, chunk) - 1) / std::max<size_t>(1, chunk);
  return static_cast<int>(std::max<size_t>(1, std::min<size_t>(ResolveThreads(threads), chunks)));
}

template <typename Fn>
void ParallelFor(size_t n, int threads, size_t chunk, Fn&& fn) {
  if (n == 0) return;
  chunk = std::max<size_t>(1, chunk);
  const int workers = NumWorkers(n, threads, chunk);
  std::atomic<size_t> next{0};
  FirstException error;
  auto run = [&](int worker) {
    try {
      for (size_t begin; !error.caught() && (begin = next.fetch_add(chunk)) < n;) {
        fn(worker, begin, std::min(n, begin + chunk));
      }
    } catch (...) {
      error.Capture();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (int w = 1; w < workers; ++w) {
    if (!TryAddThread(&pool, [&run, w] { run(w); })) break;
  }
  run(0);
  for (auto& th : pool) th.join();
  error.RethrowIfAny();
}

}  // namespace neardup::base

#endif  // NEARDUP_BASE_PARALLEL_H_
