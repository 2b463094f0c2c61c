// SPDX-License-Identifier: Apache-2.0
//
// Pieces shared by the signal implementations (not a public header).
#ifndef NEARDUP_SIGNAL_SIGNAL_INTERNAL_H_
#define NEARDUP_SIGNAL_SIGNAL_INTERNAL_H_

#include <unordered_map>

#include "signal/signal.h"

namespace neardup::signal {

// The sketch of every inserted slot, so Remove() can find its index entries.
class SlotSketches {
 public:
  // Errors: AlreadyExists.
  Status Add(uint32_t slot, const SignalSketch& s);
  // Errors: NotFound.
  Result<SignalSketch> Take(uint32_t slot);

 private:
  std::unordered_map<uint32_t, SignalSketch> sketches_;
};

// Sorts (*out)[first, end) by similarity, best first, ties by slot.
void SortBestFirst(std::vector<Candidate>* out, size_t first);

Result<std::unique_ptr<Signal>> CreateMinHashSignal(const SignalOptions& o);
Result<std::unique_ptr<Signal>> CreateSuperShingleSignal(const SignalOptions& o);
Result<std::unique_ptr<Signal>> CreateSpotSigSignal(const SignalOptions& o);

}  // namespace neardup::signal

#endif  // NEARDUP_SIGNAL_SIGNAL_INTERNAL_H_
