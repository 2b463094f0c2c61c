// SPDX-License-Identifier: Apache-2.0
//
// Monitor: phase timing, progress callbacks and resource sampling for a
// batch run. A sampler thread reads the resident set (/proc/self/statm) and
// the temporary directory's size every half second, so `--stats` can show
// memory staying bounded over time, not just its peak. The progress callback
// runs on the thread that calls Tick() (the caller's), at most every 200 ms.
//
// Also: a blocking queue for the pipeline's stages.
//
// Thread safety: Done()/AddRecords() from any thread; the rest from the
// driving thread.
#ifndef NEARDUP_BATCH_MONITOR_H_
#define NEARDUP_BATCH_MONITOR_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "base/queue.h"
#include "batch/temp_dir.h"
#include "neardup/batch.h"

namespace neardup::batch {

// Resident bytes now, and the high-water mark (VmHWM).
uint64_t CurrentRssBytes();
uint64_t PeakRssBytes();

// Gives the allocator's free memory back to the system (glibc's
// malloc_trim; nothing elsewhere). glibc keeps freed blocks of up to its
// dynamic mmap threshold (which grows to 32 MiB as large blocks are freed)
// in the heap, so a phase's freed buffers stayed resident into the next
// phase: 23 MB of a 113 MB peak at --memory 64M. Between phases, where
// large buffers were just freed; costs a walk of the heap. Nothing under
// a sanitizer, whose allocator is not glibc's.
void ReleaseFreedMemory();

class Monitor {
 public:
  Monitor(std::function<void(const BatchProgress&)> callback, const TempDir* tmp);
  ~Monitor();

  void Phase(BatchPhase p, uint64_t total);
  // Work done in the phase's units. Count a unit's records (AddRecords)
  // before marking it done: a report never shows work done without them.
  void Done(uint64_t done) { done_.store(done, std::memory_order_release); }
  void AddDone(uint64_t n) { done_.fetch_add(n, std::memory_order_release); }
  void AddRecords(uint64_t n) { records_.fetch_add(n, std::memory_order_relaxed); }
  uint64_t records() const { return records_.load(std::memory_order_relaxed); }
  // Calls the progress callback when 200 ms have passed since the last call
  // (and once more where each phase ends).
  void Tick();
  // Ends the last phase; fills timing and resource fields of *stats.
  void Finish(BatchStats* stats);

 private:
  using Clock = std::chrono::steady_clock;
  double Seconds() const;
  void Report();
  void Sample();
  std::function<void(const BatchProgress&)> callback_;
  const TempDir* tmp_;
  Clock::time_point start_, phase_start_, last_tick_;
  std::optional<BatchPhase> phase_;
  std::vector<std::pair<BatchPhase, double>> phase_seconds_;
  std::atomic<uint64_t> done_{0}, records_{0};
  uint64_t total_ = 0;
  // sampler
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::mutex samples_mu_;
  std::vector<std::pair<double, uint64_t>> samples_;
  uint64_t peak_disk_ = 0;
  std::thread sampler_;
};

// The blocking FIFO of the batch phases (base/queue.h).
template <typename T>
using Queue = base::Queue<T>;

}  // namespace neardup::batch

#endif  // NEARDUP_BATCH_MONITOR_H_
