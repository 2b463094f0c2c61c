// SPDX-License-Identifier: Apache-2.0
//
// Pieces shared by the signal implementations, and their factories (the
// registry, registry.cc, lists them). Not for other modules.
#ifndef NEARDUP_SIGNAL_SIGNAL_INTERNAL_H_
#define NEARDUP_SIGNAL_SIGNAL_INTERNAL_H_

#include <algorithm>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "base/status_macros.h"
#include "signal/signal.h"

namespace neardup::signal {

// The sketch of every inserted slot, so Remove() can find its index entries.
// MemoryBytes() is O(1): the vectors' bytes are counted as sketches come and
// go (the durable writer reads the engine's stats on every group commit).
class SlotSketches {
 public:
  // Errors: AlreadyExists.
  Status Add(uint32_t slot, const SignalSketch& s);
  // Errors: NotFound.
  Result<SignalSketch> Take(uint32_t slot);
  size_t MemoryBytes() const;

 private:
  static size_t VectorBytes(const SignalSketch& s) {
    return 4 * s.u32.capacity() + 8 * s.u64.capacity();
  }
  std::unordered_map<uint32_t, SignalSketch> sketches_;
  size_t vector_bytes_ = 0;
};

// Slots whose sketch was not indexable, so Remove() knows to skip them: a
// bit a slot up to the highest skipped one (slots are dense), so that a
// signal most documents skip (containment: members and short texts) costs
// an eighth of a byte a document, not a hash node. Counted in MemoryBytes().
class Skipped {
 public:
  Status Add(uint32_t slot, bool indexable) {
    if (indexable) return Status::OK();
    const size_t word = slot / 64;
    if (word >= bits_.size()) bits_.resize(std::max(word + 1, bits_.size() + bits_.size() / 2));
    const uint64_t bit = uint64_t{1} << (slot % 64);
    if (bits_[word] & bit) return Status::AlreadyExists("slot");
    bits_[word] |= bit;
    return Status::OK();
  }
  bool Take(uint32_t slot) {
    const size_t word = slot / 64;
    const uint64_t bit = uint64_t{1} << (slot % 64);
    if (word >= bits_.size() || !(bits_[word] & bit)) return false;
    bits_[word] &= ~bit;
    return true;
  }
  bool Has(uint32_t slot) const {
    const size_t word = slot / 64;
    return word < bits_.size() && (bits_[word] >> (slot % 64) & 1) != 0;
  }
  size_t MemoryBytes() const { return 8 * bits_.capacity(); }

 private:
  std::vector<uint64_t> bits_;
};

// Sorts (*out)[first, end) by similarity, best first, ties by slot.
void SortBestFirst(std::vector<Candidate>* out, size_t first);

// XXH3-64 of (seed, v): batch keys seeded by their slot.
uint64_t Mix(uint64_t seed, uint64_t v);

// Every subset of `m` of the positions 0..n-1, as bit masks, in increasing order.
std::vector<uint32_t> Subsets(int n, int m);

// Inserts a sketch into `index` under `keys` (its u64 by default) unless it
// is not indexable (then noted in `skipped`). Errors: AlreadyExists; the
// index's.
template <typename Index>
Status InsertUnlessSkipped(uint32_t slot, const SignalSketch& s, Skipped* skipped, Index* index,
                           std::span<const uint64_t> keys) {
  NEARDUP_RETURN_IF_ERROR(skipped->Add(slot, s.indexable));
  return s.indexable ? index->Insert(slot, keys) : Status::OK();
}
template <typename Index>
Status InsertUnlessSkipped(uint32_t slot, const SignalSketch& s, Skipped* skipped, Index* index) {
  return InsertUnlessSkipped(slot, s, skipped, index, s.u64);
}

// Its twin: removes `slot` from `skipped` when it was noted there, else from
// `index`. Errors: the index's (NotFound for an unknown slot).
template <typename Index>
Status RemoveUnlessSkipped(uint32_t slot, Skipped* skipped, Index* index) {
  return skipped->Take(slot) ? Status::OK() : index->Remove(slot);
}

// The factories, one per file (exact_signal.cc, ...).
Result<std::unique_ptr<Signal>> CreateExactSignal(const SignalOptions& o);
Result<std::unique_ptr<Signal>> CreateSimHashSignal(const SignalOptions& o);
Result<std::unique_ptr<Signal>> CreateMinHashSignal(const SignalOptions& o);
Result<std::unique_ptr<Signal>> CreateSuperShingleSignal(const SignalOptions& o);
Result<std::unique_ptr<Signal>> CreateIMatchSignal(const SignalOptions& o);
Result<std::unique_ptr<Signal>> CreateSpotSigSignal(const SignalOptions& o);
Result<std::unique_ptr<Signal>> CreateContainmentSignal(const SignalOptions& o);

}  // namespace neardup::signal

#endif  // NEARDUP_SIGNAL_SIGNAL_INTERNAL_H_
