// SPDX-License-Identifier: Apache-2.0
//
// What every phase of a batch run uses (PhaseEnv): the signature, the
// temporary directory, the progress monitor, the memory budget and the
// worker threads. Each phase takes a PhaseEnv plus its own inputs and
// outputs (sketch_phase.h, pair_phase.h, verify_phase.h, cluster_phase.h,
// keep_phase.h); pipeline.h sets them up and runs them in order.
//
// Budget: the bytes a run may use (--memory). Sort buffers, pair ranges and
// merge reads are sized from Available(): the total less the per-line
// tables (the LineTable at its estimated final size, and the result arrays
// a phase holds until the end: Hold()), the resident memory the process had
// before the run, and a 1/64 margin.
//
// Thread safety: Available() from any thread; Hold() and TrackLines() from
// the driving thread between phases.
#ifndef NEARDUP_BATCH_RUN_ENV_H_
#define NEARDUP_BATCH_RUN_ENV_H_

#include <algorithm>
#include <cstdint>

#include "batch/input.h"
#include "batch/monitor.h"
#include "batch/signature.h"
#include "batch/temp_dir.h"

namespace neardup::batch {

class Budget {
 public:
  Budget() = default;
  Budget(uint64_t total, uint64_t baseline_rss) : total_(total), baseline_(baseline_rss) {}

  uint64_t total() const { return total_; }
  // Counts `lines` at max(its size, `estimate` lines).
  void TrackLines(const LineTable* lines, uint64_t estimate) {
    lines_ = lines;
    estimate_ = estimate;
  }
  // Result arrays kept until the end of the run (bytes).
  void Hold(uint64_t bytes) { held_ += bytes; }
  uint64_t Available() const {
    uint64_t fixed =
        lines_ ? std::max<uint64_t>(lines_->MemoryBytes(), estimate_ * lines_->BytesPerLine()) : 0;
    fixed += held_ + baseline_ + total_ / 64;
    return total_ > fixed ? total_ - fixed : 0;
  }
  // Available() / 8 between 1 MB and 256 MB: a merge's read buffers.
  uint64_t ReadBytes() const { return std::clamp<uint64_t>(Available() / 8, 1 << 20, 256 << 20); }

 private:
  uint64_t total_ = 0, baseline_ = 0;
  const LineTable* lines_ = nullptr;
  uint64_t estimate_ = 0;
  uint64_t held_ = 0;
};

struct PhaseEnv {
  const BatchSignature* sig = nullptr;
  TempDir* tmp = nullptr;
  Monitor* monitor = nullptr;
  Budget* budget = nullptr;
  int threads = 1;
};

}  // namespace neardup::batch

#endif  // NEARDUP_BATCH_RUN_ENV_H_
