// SPDX-License-Identifier: Apache-2.0
//
// Run: an immutable, sorted batch of (fingerprint, slot) entries with the
// tables of one Design, and WriteBuffer: the small append-only batch in front.
//
// Layout per table: entries sorted by the permuted fingerprint (key blocks on
// top), a directory of 2^d+1 uint32 offsets on the top d bits, and the entries
// packed in 6 bytes (low 48 bits, d >= 16; the directory supplies the top) or
// 8 bytes. Only table 0 keeps the 32-bit slots beside its entries; a hit in
// another table finds its slots by looking its fingerprint up in table 0. A
// linear run keeps the fingerprints and slots unsorted and is scanned.
//
// Validity (tombstones): an entry for slot s is live iff the index's SlotTable
// says s lives in a run id inside [lo, hi] of this run. Remove() just clears
// that id, so deletes need no change to a run; merges drop dead entries.
//
// Thread safety: a Run is immutable after Build() except the `dead` counter,
// an atomic hint. Search() and Gather() are safe from any number of threads.
#ifndef NEARDUP_INDEX_RUN_H_
#define NEARDUP_INDEX_RUN_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "index/design.h"
#include "index/hamming_index.h"
#include "index/huge_alloc.h"
#include "index/slot_table.h"

namespace neardup::index {

inline constexpr uint32_t kDeadSlot = 0xFFFFFFFFu;

// Entries verified by searches on the calling thread so far (for benchmarks).
uint64_t& CandidateCounter();

struct Entry {
  uint64_t fp;
  uint32_t slot;
};

class Run {
 public:
  // Builds a run holding `entries` (any order) with ids [lo, hi], building
  // tables on up to `threads` threads. O(n * tables) time.
  static std::shared_ptr<const Run> Build(std::vector<Entry> entries, Design design, uint32_t lo,
                                          uint32_t hi, int threads);

  uint32_t lo() const { return lo_; }
  uint32_t hi() const { return hi_; }
  size_t size() const { return n_; }
  const Design& design() const { return design_; }
  bool Live(uint32_t slot, const SlotTable& slots) const {
    if (slot == kDeadSlot) return false;
    const uint32_t id = slots.RunOf(slot);
    return id >= lo_ && id <= hi_;
  }

  // Appends every live entry within distance k of q (k <= 64).
  void Search(uint64_t q, int k, const SlotTable& slots, std::vector<HammingHit>* out) const;
  // The same for nq queries at once (outs[i] receives query i's hits); the
  // random accesses of all queries overlap, which pays for batches.
  void SearchGroup(const uint64_t* qs, size_t nq, int k, const SlotTable& slots,
                   std::vector<HammingHit>* const* outs) const;
  // Appends every live entry.
  void Gather(const SlotTable& slots, std::vector<Entry>* out) const;
  size_t MemoryBytes() const;

  mutable std::atomic<size_t> dead{0};  // removals seen since build (a compaction hint)

 private:
  struct Table {
    const TableSpec* spec = nullptr;
    int d = 0;             // directory bits
    int width = 8;         // bytes per packed entry
    uint64_t low = ~0ULL;  // bits stored per entry below the directory bits
    std::vector<uint32_t, HugePageAllocator<uint32_t>> dir;
    std::vector<uint8_t, HugePageAllocator<uint8_t>> data;  // n * width + 8 bytes of padding
    std::vector<uint64_t> cross;  // every table's key mask in this table's permuted space
    uint64_t Value(size_t i, uint64_t bucket) const;
  };
  struct Probe {
    uint32_t query, table;
    int radius;
    uint64_t bucket, qp;
    uint32_t lo, hi;
  };

  Run() = default;
  struct BuildScratch {
    std::vector<uint64_t, HugePageAllocator<uint64_t>> a, b;
    std::vector<uint32_t, HugePageAllocator<uint32_t>> as;
  };
  void BuildTable(size_t t, const std::vector<Entry>& entries, BuildScratch* scratch);
  void SearchLinear(uint64_t q, int k, const SlotTable& slots, std::vector<HammingHit>* out) const;
  void ScanProbe(const Probe& p, int k, const std::vector<int>& radii, const SlotTable& slots,
                 std::vector<HammingHit>* out) const;
  void EmitFromTable0(uint64_t fp, int dist, const SlotTable& slots,
                      std::vector<HammingHit>* out) const;

  uint32_t lo_ = 0, hi_ = 0;
  size_t n_ = 0;
  Design design_;
  std::vector<std::vector<int>> radii_;  // design_.Radii(k) for k = 0..64
  std::vector<Table> tables_;
  std::vector<uint64_t, HugePageAllocator<uint64_t>> fps_;    // linear runs only
  std::vector<uint32_t, HugePageAllocator<uint32_t>> slots_;  // beside table 0 or fps_
};

// The append-only front of the index. One writer appends; readers scan the
// published prefix [0, count). Removing an entry overwrites its slot with
// kDeadSlot. Thread safety: Append/Kill by the writer only, Search anywhere.
class WriteBuffer {
 public:
  WriteBuffer(uint32_t id, size_t capacity)
      : id_(id),
        capacity_(capacity),
        fps_(new uint64_t[capacity]),
        slots_(new std::atomic<uint32_t>[capacity]) {}

  uint32_t id() const { return id_; }
  size_t capacity() const { return capacity_; }
  size_t count() const { return count_.load(std::memory_order_acquire); }
  bool full() const { return count() == capacity_; }

  void Append(uint64_t fp, uint32_t slot) {
    const size_t c = count_.load(std::memory_order_relaxed);
    fps_[c] = fp;
    slots_[c].store(slot, std::memory_order_relaxed);
    count_.store(c + 1, std::memory_order_release);
  }
  // Marks the entry of `slot` dead (writer only).
  void Kill(uint32_t slot);
  void Search(uint64_t q, int k, const SlotTable& slots, std::vector<HammingHit>* out) const;
  void Gather(const SlotTable& slots, std::vector<Entry>* out) const;
  size_t MemoryBytes() const { return capacity_ * 12; }

 private:
  const uint32_t id_;
  const size_t capacity_;
  std::unique_ptr<uint64_t[]> fps_;
  std::unique_ptr<std::atomic<uint32_t>[]> slots_;
  std::atomic<size_t> count_{0};
};

}  // namespace neardup::index

#endif  // NEARDUP_INDEX_RUN_H_
