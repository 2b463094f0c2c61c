// SPDX-License-Identifier: Apache-2.0
//
// ParallelFor: the one fan-out helper. Work items [0, n) are handed out in
// chunks of `chunk` items from a shared counter (dynamic scheduling, so
// uneven items balance) to up to `threads` workers; the calling thread is
// worker 0. fn(worker, begin, end) gets the worker's index in
// [0, NumWorkers(n, threads, chunk)) for per-worker scratch or results.
// Returns when every item is done. A worker thread that cannot start
// (std::system_error: the process is at its thread limit) is done without:
// the workers that did start take its share.
//
// Thread safety: `fn` runs concurrently with itself on disjoint ranges.
// Complexity: one thread start per extra worker.
#ifndef NEARDUP_BASE_PARALLEL_H_
#define NEARDUP_BASE_PARALLEL_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <system_error>
#include <thread>
#include <vector>

namespace neardup::base {

// Threads for `requested` (0 or less: every hardware thread).
inline int ResolveThreads(int requested) {
  if (requested > 0) return requested;
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

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
  auto run = [&](int worker) {
    for (size_t begin; (begin = next.fetch_add(chunk)) < n;) {
      fn(worker, begin, std::min(n, begin + chunk));
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (int w = 1; w < workers; ++w) {
    try {
      pool.emplace_back(run, w);
    } catch (const std::system_error&) {
      break;
    }
  }
  run(0);
  for (auto& th : pool) th.join();
}

}  // namespace neardup::base

#endif  // NEARDUP_BASE_PARALLEL_H_
