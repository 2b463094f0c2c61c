// SPDX-License-Identifier: Apache-2.0
//
// RecordErrors: the errors of a batch run's input, reported as one process
// reading in order would report them whatever the threads: the first bad
// record by line wins (a worker that finds one lowers stop_line(), so work
// after it stops while work before it finishes), a fatal error (not about a
// record: I/O, memory) wins over any record, and records skipped under
// --skip-invalid are delivered in input order.
//
// Thread safety: every method may be called from any thread.
#ifndef NEARDUP_BATCH_RECORD_ERRORS_H_
#define NEARDUP_BATCH_RECORD_ERRORS_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

#include "neardup/status.h"

namespace neardup::batch {

using Skips = std::vector<std::pair<uint64_t, Status>>;  // (line, reason)

class RecordErrors {
 public:
  // A bad record at `line`; kept when it is the first so far.
  void Record(uint64_t line, Status s);
  // An error that is not about a record; stops all work.
  void Fatal(Status s);
  // Records at lines past this need not be read.
  uint64_t stop_line() const { return stop_line_.load(std::memory_order_relaxed); }
  // The fatal error, else the first record's, else OK.
  Status First() const;
  // The line of First(): 0 for a fatal error, UINT64_MAX for none.
  uint64_t first_line() const;

  void AddSkip(uint64_t line, Status s);
  void AddSkips(Skips* skips);  // moves them in
  // Takes the skipped records so far, sorted by line.
  Skips TakeSkips();
  // TakeSkips() handed to `on_skip` (when set) in input order.
  void DeliverSkips(const std::function<void(const Status&)>& on_skip);

 private:
  mutable std::mutex mu_;
  uint64_t err_line_ = UINT64_MAX;
  Status err_, fatal_;
  std::atomic<uint64_t> stop_line_{UINT64_MAX};
  Skips skips_;
};

}  // namespace neardup::batch

#endif  // NEARDUP_BATCH_RECORD_ERRORS_H_
