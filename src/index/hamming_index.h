// SPDX-License-Identifier: Apache-2.0
//
// HammingIndex: every stored 64-bit fingerprint within Hamming distance k of a
// query, exactly (candidates are always verified with popcount).
//
// Documents are identified by dense 32-bit slots chosen by the caller (the
// engine). A slot may be reused after Remove(); the index then treats it as a
// new document. Slot 0xFFFFFFFF is reserved.
//
// Design (docs/index.md): a small append-only write buffer in front of a few
// immutable sorted runs, merged in the background like a log-structured tree.
// Each run carries the multi-index tables its size calls for, chosen by a cost
// model for (run size, max_distance, memory budget) or by the user
// (HammingIndexOptions::layout): pigeonhole blocks, Manku-style permuted tables
// keyed on t blocks, multi-index hashing with probe radii, or a SIMD linear
// scan. Deletes clear a per-slot run id (a tombstone); merges drop dead
// entries (compaction).
//
// Thread safety (the contract):
//  - Search(), SearchBatch(), Get(), size(), MemoryBytes() and Stats() may run
//    from any number of threads at any time, including during Insert(),
//    Remove(), InsertBatch() and background merges. They never wait for a
//    merge or a writer's work: they copy a shared_ptr to an immutable snapshot
//    (under a mutex held only for that copy) and then read it plus atomics.
//  - Insert(), Remove(), InsertBatch() and Compact() are serialised
//    internally (a writer mutex), so concurrent writers are safe; one writer
//    is the intended use. A writer waits only when the background merger is
//    so far behind that `max_runs` runs exist.
//  - Consistency: a Search() that starts after an Insert()/Remove() returned
//    (happens-after) sees it. A Search() concurrent with a write sees the
//    document either before or after that write, never a stale fingerprint.
//
// Complexity: Insert O(1) amortised (+ background merges, O(log) rewrites per
// entry); Remove O(1) (O(buffer) if the doc is still in the write buffer);
// Search is what the cost model estimates (docs/index.md).
#ifndef NEARDUP_INDEX_HAMMING_INDEX_H_
#define NEARDUP_INDEX_HAMMING_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
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

// A fixed table layout (see design.h): split the 64 bits into `blocks`
// blocks, the blocks into `groups` groups, and key one table on every
// `key_blocks`-subset of a group. linear = true forces the SIMD scan.
struct HammingLayout {
  int blocks = 0;  // 0: the cost model chooses per run
  int groups = 1;
  int key_blocks = 1;
  bool linear = false;
};

struct HammingIndexOptions {
  // The largest k that Search() accepts. The cost model lays tables out for it.
  int max_distance = 3;
  // Memory budget in bytes per document for the cost model (fingerprint and
  // slot bookkeeping included); 0 = 64, or 40 when `compact`.
  double bytes_per_doc = 0;
  bool compact = false;
  // User override of the cost model's layout.
  HammingLayout layout{};
  // Threads for InsertBatch() builds, merges and SearchBatch(); 0 = all cores.
  int threads = 0;
  // Entries in the write buffer; a full buffer becomes a run.
  size_t buffer_capacity = 1024;
  // Merge in a background thread (true) or inline in the writer (false).
  bool background_merge = true;
  // The merger keeps at most max_runs / 2 runs by merging neighbours; the
  // writer waits (readers never do) while max_runs runs exist.
  size_t max_runs = 48;
  // A run is compacted when this fraction of its entries is dead.
  double compact_dead_fraction = 0.25;
};

struct HammingIndexStats {
  size_t documents = 0;
  size_t runs = 0;      // sorted or linear runs, excluding the write buffer
  size_t buffered = 0;  // entries in the write buffer
  size_t merges = 0;    // merges and compactions completed
  size_t memory_bytes = 0;
  std::string layout;  // the largest run's layout, e.g. "m=6 g=2 t=2 tables=6"
};

class HammingIndex {
 public:
  // Errors: InvalidArgument when max_distance is outside [0, 32] or the
  // layout override is inconsistent.
  static Result<std::unique_ptr<HammingIndex>> Create(const HammingIndexOptions& options);

  virtual ~HammingIndex() = default;

  // Adds `doc` with fingerprint `fp`. Errors: AlreadyExists if `doc` is
  // present, InvalidArgument for the reserved slot.
  virtual Status Insert(uint32_t doc, uint64_t fp) = 0;

  // Adds many documents at once, building one run on `threads` threads (the
  // fast path for an initial load). Errors as Insert(); on error nothing is
  // added. docs and fps must have equal sizes.
  virtual Status InsertBatch(std::span<const uint32_t> docs, std::span<const uint64_t> fps) = 0;

  // Removes `doc`. Errors: NotFound if it is absent.
  virtual Status Remove(uint32_t doc) = 0;

  // Appends to `out` every stored doc whose fingerprint is within distance k
  // of `fp`, each once, in no particular order. Errors: OutOfRange if
  // k > max_distance or k < 0.
  virtual Status Search(uint64_t fp, int k, std::vector<HammingHit>* out) const = 0;

  // Searches many queries, on up to options.threads threads. Hits of query i
  // are (*hits)[(*offsets)[i] .. (*offsets)[i+1]); both outputs are replaced.
  virtual Status SearchBatch(std::span<const uint64_t> queries, int k,
                             std::vector<HammingHit>* hits,
                             std::vector<uint32_t>* offsets) const = 0;

  // The fingerprint stored for `doc`. Errors: NotFound.
  virtual Result<uint64_t> Get(uint32_t doc) const = 0;

  // Merges everything into one run and drops dead entries; returns when done.
  virtual Status Compact() = 0;

  virtual size_t size() const = 0;         // documents present
  virtual size_t MemoryBytes() const = 0;  // approximate heap bytes used
  virtual int max_distance() const = 0;
  virtual HammingIndexStats Stats() const = 0;
};

// Hamming distance of two fingerprints.
inline int Distance(uint64_t a, uint64_t b) { return __builtin_popcountll(a ^ b); }

}  // namespace neardup::index

#endif  // NEARDUP_INDEX_HAMMING_INDEX_H_
