// SPDX-License-Identifier: Apache-2.0
//
// Pieces shared by the signal implementations (not a public header).
#ifndef NEARDUP_SIGNAL_SIGNAL_INTERNAL_H_
#define NEARDUP_SIGNAL_SIGNAL_INTERNAL_H_

#include <unordered_map>
#include <unordered_set>

#include "signal/signal.h"

namespace neardup::signal {

// The sketch of every inserted slot, so Remove() can find its index entries.
class SlotSketches {
 public:
  // Errors: AlreadyExists.
  Status Add(uint32_t slot, const SignalSketch& s);
  // Errors: NotFound.
  Result<SignalSketch> Take(uint32_t slot);
  size_t MemoryBytes() const;

 private:
  std::unordered_map<uint32_t, SignalSketch> sketches_;
};

// Slots whose sketch was not indexable, so Remove() knows to skip them.
class Skipped {
 public:
  Status Add(uint32_t slot, bool indexable) {
    if (!indexable && !slots_.insert(slot).second) return Status::AlreadyExists("slot");
    return Status::OK();
  }
  bool Take(uint32_t slot) { return slots_.erase(slot) > 0; }

 private:
  std::unordered_set<uint32_t> slots_;
};

// Sorts (*out)[first, end) by similarity, best first, ties by slot.
void SortBestFirst(std::vector<Candidate>* out, size_t first);

Result<std::unique_ptr<Signal>> CreateMinHashSignal(const SignalOptions& o);
Result<std::unique_ptr<Signal>> CreateSuperShingleSignal(const SignalOptions& o);
Result<std::unique_ptr<Signal>> CreateSpotSigSignal(const SignalOptions& o);

}  // namespace neardup::signal

#endif  // NEARDUP_SIGNAL_SIGNAL_INTERNAL_H_
