// SPDX-License-Identifier: Apache-2.0
//
// HammingIndex: every stored 64-bit fingerprint within Hamming distance k of a
// query, exactly.
//
// Documents are identified by dense 32-bit slots chosen by the caller (the
// engine). A slot may be reused after Remove(); the index then treats it as a
// new document.
//
// Thread safety: any number of Search() calls may run concurrently. Insert()
// and Remove() must be serialized by the caller and must not overlap Search()
// (the engine holds a reader-writer lock around the index).
#ifndef NEARDUP_INDEX_HAMMING_INDEX_H_
#define NEARDUP_INDEX_HAMMING_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "neardup/status.h"

namespace neardup::index {

struct HammingHit {
  uint32_t doc;
  uint32_t distance;
  friend bool operator==(const HammingHit& a, const HammingHit& b) {
    return a.doc == b.doc && a.distance == b.distance;
  }
};

struct HammingIndexOptions {
  // The largest k that Search() accepts. Tables are laid out for it.
  int max_distance = 3;
};

class HammingIndex {
 public:
  // Errors: InvalidArgument when max_distance is outside [0, 32].
  static Result<std::unique_ptr<HammingIndex>> Create(const HammingIndexOptions& options);

  virtual ~HammingIndex() = default;

  // Adds `doc` with fingerprint `fp`. Errors: AlreadyExists if `doc` is present.
  virtual Status Insert(uint32_t doc, uint64_t fp) = 0;

  // Removes `doc`. Errors: NotFound if it is absent.
  virtual Status Remove(uint32_t doc) = 0;

  // Appends to `out` every stored doc whose fingerprint is within distance k
  // of `fp`, each once, in no particular order. Errors: OutOfRange if
  // k > max_distance or k < 0.
  virtual Status Search(uint64_t fp, int k, std::vector<HammingHit>* out) const = 0;

  // The fingerprint stored for `doc`. Errors: NotFound.
  virtual Result<uint64_t> Get(uint32_t doc) const = 0;

  virtual size_t size() const = 0;          // documents present
  virtual size_t MemoryBytes() const = 0;   // approximate heap bytes used
  virtual int max_distance() const = 0;
};

// Hamming distance of two fingerprints.
inline int Distance(uint64_t a, uint64_t b) { return __builtin_popcountll(a ^ b); }

}  // namespace neardup::index

#endif  // NEARDUP_INDEX_HAMMING_INDEX_H_
