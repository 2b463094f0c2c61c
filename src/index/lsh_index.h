// SPDX-License-Identifier: Apache-2.0
//
// LshIndex: the buckets of locality-sensitive hashing by banding (Indyk and
// Motwani, STOC 1998; Leskovec, Rajaraman, Ullman, "Mining of Massive
// Datasets", ch. 3.4). A document is filed under one key per band
// (sketch::LshBandKey of its MinHash signature); a query returns every
// document sharing at least one band key, with the number of bands shared.
//
// Layout, per band: an open-addressing table (linear probing, backward-shift
// deletion) from the key's 32-bit fold to the first document of its bucket;
// buckets are doubly linked lists threaded through per-document arrays, so
// no bucket allocates. Keeping 32 bits of each 64-bit key merges unrelated
// buckets with probability about n / 2^32 per band; the verifier removes
// such candidates.
//
// The engine's minhash signal uses CompactLshIndex (compact_lsh_index.h),
// which answers the same in ~5 bytes per band per document and keeps an
// LshIndex as its small mutable tier.
//
// Memory: about 12 bytes per document per band plus the tables (8 bytes per
// key at load <= 0.7), ~24 bytes per band per document.
// Complexity: Insert and Remove O(bands); Query O(bands + candidates).
// Thread safety: const calls may run concurrently; writers need exclusive
// access.
#ifndef NEARDUP_INDEX_LSH_INDEX_H_
#define NEARDUP_INDEX_LSH_INDEX_H_

#include <cstdint>
#include <span>
#include <vector>

#include "neardup/status.h"

namespace neardup::index {

class LshIndex {
 public:
  // Requires 1 <= bands <= 4096.
  explicit LshIndex(int bands);

  // Files `slot` under its band keys (keys.size() == bands).
  // Errors: InvalidArgument (wrong size), AlreadyExists.
  Status Insert(uint32_t slot, std::span<const uint64_t> keys);
  // Errors: NotFound.
  Status Remove(uint32_t slot);

  struct Hit {
    uint32_t slot;
    uint32_t bands;  // bands whose keys are equal (as 32-bit folds)
  };
  // Appends every stored slot sharing a band key with `keys`, most shared
  // bands first, then by slot. Errors: InvalidArgument (wrong size).
  Status Query(std::span<const uint64_t> keys, std::vector<Hit>* out) const;

  int bands() const { return bands_; }
  size_t size() const { return size_; }
  size_t MemoryBytes() const;

 private:
  static constexpr uint32_t kNil = 0xFFFFFFFFu;
  struct Entry {
    uint32_t key;
    uint32_t head;  // kNil: empty
  };
  struct Table {
    std::vector<Entry> entries;  // power-of-two size
    size_t used = 0;
  };
  static uint32_t Fold(uint64_t key) { return static_cast<uint32_t>(key ^ (key >> 32)); }
  static size_t Home(const Table& t, uint32_t key);
  uint32_t* Find(Table& t, uint32_t key);
  const uint32_t* Find(const Table& t, uint32_t key) const;
  void Put(Table& t, uint32_t key, uint32_t head);
  void Erase(Table& t, uint32_t key);
  bool Present(uint32_t slot) const { return slot < present_.size() && present_[slot]; }

  int bands_;
  size_t size_ = 0;
  std::vector<Table> tables_;   // one per band
  std::vector<uint32_t> keys_;  // slot * bands + band -> folded key
  std::vector<uint32_t> next_;  // bucket links, same layout
  std::vector<uint32_t> prev_;
  std::vector<uint8_t> present_;  // slot -> stored
};

// Helpers shared by LshIndex and CompactLshIndex.
// InvalidArgument unless keys == bands.
Status CheckBandKeys(int bands, size_t keys);
// Appends one hit per distinct slot of the sorted `found`, counting repeats
// as shared bands, then sorts (*out)[first..] most bands first, then by slot.
void AppendHits(const std::vector<uint32_t>& found, size_t first, std::vector<LshIndex::Hit>* out);
// Sorts (*out)[first..] most bands first, then by slot.
void SortHits(size_t first, std::vector<LshIndex::Hit>* out);

}  // namespace neardup::index

#endif  // NEARDUP_INDEX_LSH_INDEX_H_
