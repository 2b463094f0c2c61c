// SPDX-License-Identifier: Apache-2.0
//
// BandRun: an immutable, sorted, bit-packed batch of LSH band entries, the
// sorted tier of CompactLshIndex (compact_lsh_index.h).
//
// Per band the run holds one (32-bit folded key, slot) entry per document,
// sorted by (key, slot). A directory of 2^d + 1 offsets covers the top d key
// bits (d ~ log2(n) - 3, so 4-8 entries a bucket); each entry keeps only the
// remaining 32 - d key bits and the slot in ceil(log2(max slot + 1)) bits,
// packed at a fixed bit width. The directory is two-level: a uint32 base per
// group of 64 cells and a uint16 offset from it per cell, 2.06 bytes a cell
// instead of 4 (a band whose group spans 2^16 entries or more, which takes
// tens of thousands of copies of one key, keeps plain uint32 offsets). At 10M
// documents this is ~4.6 bytes per band per document (24 slot bits + 11 key
// bits + 0.43 directory), against ~24 for the linked-list LshIndex.
//
// Validity (tombstones), as in run.h: an entry for slot s is live iff
// run_of[s] lies in this run's id range [lo, hi]. Removing a document only
// changes run_of; merges drop dead entries.
//
// Thread safety: immutable after Build() except the `dead` hint, so Find()
// and Gather() may run from any number of threads.
#ifndef NEARDUP_INDEX_BAND_RUN_H_
#define NEARDUP_INDEX_BAND_RUN_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "base/prefetch.h"

namespace neardup::index {

struct BandEntry {
  uint32_t key;  // the folded band key
  uint32_t slot;
  friend bool operator<(const BandEntry& a, const BandEntry& b) {
    return a.key != b.key ? a.key < b.key : a.slot < b.slot;
  }
};

// TierIds: slot -> id of the tier holding its live entries (0 = absent), in
// chunks of 2^16 slots allocated on first use, so sparse or huge slot
// numbers cost only their chunks and growing never copies. 4 bytes per slot
// of an allocated chunk. Not thread-safe for writes.
class TierIds {
 public:
  static constexpr int kChunkBits = 16;
  static constexpr size_t kChunk = size_t{1} << kChunkBits;

  uint32_t Get(uint32_t slot) const {
    const size_t c = slot >> kChunkBits;
    return c < chunks_.size() && chunks_[c] ? chunks_[c][slot & (kChunk - 1)] : 0;
  }
  void Set(uint32_t slot, uint32_t id) {
    const size_t c = slot >> kChunkBits;
    if (c >= chunks_.size()) chunks_.resize(c + 1);
    if (!chunks_[c]) {
      chunks_[c] = std::make_unique<uint32_t[]>(kChunk);  // zero-filled
      ++allocated_;
    }
    chunks_[c][slot & (kChunk - 1)] = id;
  }
  size_t MemoryBytes() const {
    return allocated_ * kChunk * sizeof(uint32_t) + chunks_.capacity() * sizeof(void*);
  }

 private:
  std::vector<std::unique_ptr<uint32_t[]>> chunks_;
  size_t allocated_ = 0;
};

class BandRun {
 public:
  // Fills band b's entries into *out (any order; sorted ones skip the sort);
  // every band must have as many entries as band 0.
  using Source = std::function<void(int band, std::vector<BandEntry>* out)>;

  // Builds a run of `bands` bands from `source`, slots <= max_slot, covering
  // run ids [lo, hi]. O(bands * n log n), O(bands * n) for sorted input;
  // peak extra memory one band's entries (8n bytes) per thread. With
  // threads > 1, bands are built that many at a time (band 0 first, on the
  // caller's thread), so `source` must then be safe to call concurrently for
  // different bands.
  static std::unique_ptr<BandRun> Build(int bands, uint32_t max_slot, uint32_t lo, uint32_t hi,
                                        const Source& source, int threads = 1);

  uint32_t lo() const { return lo_; }
  uint32_t hi() const { return hi_; }
  size_t size() const { return n_; }  // entries per band, live or dead
  uint32_t max_slot() const { return max_slot_; }
  bool Live(uint32_t slot, const TierIds& run_of) const {
    const uint32_t id = run_of.Get(slot);
    return id >= lo_ && id <= hi_;
  }

  // Appends the live slots filed under `key` in `band`, in ascending order
  // (a band's entries sort by key, then slot).
  void Find(int band, uint32_t key, const TierIds& run_of, std::vector<uint32_t>* out) const;
  // Find() of every band at once (keys[b] for band b, bands = keys.size()),
  // the same slots in the same order: the directory cells of all bands,
  // then their first entries, are fetched from memory ahead of the scans,
  // so the cache misses of a query overlap instead of following each other.
  // With `ends`, appends out->size() after each band's slots: the ends of
  // the ascending runs out is made of.
  void FindAll(std::span<const uint32_t> keys, const TierIds& run_of, std::vector<uint32_t>* out,
               std::vector<size_t>* ends = nullptr) const;
  // Appends band b's live entries, sorted.
  void Gather(int band, const TierIds& run_of, std::vector<BandEntry>* out) const;
  size_t MemoryBytes() const;
  // True when band b's directory is plain uint32 offsets (a group of 64
  // cells spans 2^16 entries or more); for tests and statistics.
  bool WideDirectory(int band) const { return !dir_[static_cast<size_t>(band)].wide.empty(); }
  // Frees band b's entries (a merge that consumed them calls this, so a merge
  // needs one band's worth of extra memory, not a whole run's). Find() and
  // Gather() must not be called on band b afterwards.
  void ReleaseBand(int band);

  size_t dead = 0;  // removals since build (a compaction hint; writer only)

 private:
  // A band's directory: offset of cell c = base[c >> kGroupBits] + rel[c],
  // or wide[c] when some group's span does not fit 16 bits.
  struct Directory {
    static constexpr int kGroupBits = 6;
    std::vector<uint32_t> base;
    std::vector<uint16_t> rel;
    std::vector<uint32_t> wide;
    size_t At(size_t cell) const {
      return wide.empty() ? size_t{base[cell >> kGroupBits]} + rel[cell] : size_t{wide[cell]};
    }
    // Takes the offsets of every cell (prefix sums) and keeps them narrow
    // when they fit.
    void Assign(std::vector<uint32_t>* offsets);
    void Prefetch(size_t cell) const {
      if (wide.empty()) {
        base::Prefetch(&base[cell >> kGroupBits]);
        base::Prefetch(&rel[cell]);
      } else {
        base::Prefetch(&wide[cell]);
      }
    }
    size_t MemoryBytes() const {
      return base.capacity() * sizeof(uint32_t) + rel.capacity() * sizeof(uint16_t) +
             wide.capacity() * sizeof(uint32_t);
    }
  };

  BandRun() = default;
  uint64_t Value(const std::vector<uint8_t>& data, size_t i) const;
  void Pack(int band, const std::vector<BandEntry>& entries);

  uint32_t lo_ = 0, hi_ = 0, max_slot_ = 0;
  size_t n_ = 0;
  int d_ = 0;                               // directory bits
  int low_bits_ = 0;                        // key bits kept per entry (32 - d)
  int slot_bits_ = 0;                       // slot bits per entry
  int width_ = 0;                           // low_bits + slot_bits <= 56
  std::vector<Directory> dir_;              // per band: 2^d + 1 offsets
  std::vector<std::vector<uint8_t>> data_;  // per band: n * width bits + 8 bytes padding
};

}  // namespace neardup::index

#endif  // NEARDUP_INDEX_BAND_RUN_H_
