// SPDX-License-Identifier: Apache-2.0
//
// ExactIndex: documents grouped by an exact 128-bit key (an XXH3-128 of the
// normalized text), for the `exact` signal of the online engine.
//
// Layout (about 24 bytes a document plus 5.3-10.7 bytes a distinct key,
// against ~220 for a node-based map of vectors plus a map of per-slot
// sketches):
// - per slot, in chunks of 2^12 that never move: the key and the slot's
//   neighbours in a doubly linked list of the slots that share its key;
// - an open-addressing table from a key to the newest slot filed under it:
//   linear probing at a load of at most 3/4 (a miss probes 8.5 cells on
//   average at the most crowded, against 2.5 at 1/2). Deletion shifts the
//   following entries back, so there are no tombstones (Knuth, TAOCP vol. 3,
//   6.4, Algorithm R).
// Insert and Remove are O(1) expected, whatever the group's size: a sliding
// window that evicts the oldest copy of a text repeated 100k times pays no
// scan. Find is O(group).
//
// Thread safety: const calls may run concurrently; writers need exclusive
// access (the signal set's lock). Errors: Insert of a slot already present
// and Remove of an absent one return false; the caller turns that into a
// Status.
#ifndef NEARDUP_INDEX_EXACT_INDEX_H_
#define NEARDUP_INDEX_EXACT_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "index/hash_buckets.h"

namespace neardup::index {

class ExactIndex {
 public:
  ExactIndex();
  ~ExactIndex();
  ExactIndex(const ExactIndex&) = delete;
  ExactIndex& operator=(const ExactIndex&) = delete;

  // Files `slot` under `key`. False if the slot is already filed.
  [[nodiscard]] bool Insert(uint32_t slot, const Key128& key);
  // Takes `slot` out. False if it is not filed.
  [[nodiscard]] bool Remove(uint32_t slot);
  // Appends the slots filed under `key` to *out, oldest first.
  void Find(const Key128& key, std::vector<uint32_t>* out) const;
  bool Contains(uint32_t slot) const;
  // For a run of inserts (a restore): asks for the table cells a probe for
  // `key` starts at (stage 0) or, once they are cached, for the keys of the
  // slots those cells hold (stage 1, up to the first empty cell; a probe
  // compares each). A hint: it changes nothing.
  void Prefetch(const Key128& key, int stage) const;
  // Sizes the table for `keys` distinct keys now, so that inserting them
  // does not rehash on the way (a restore). O(table) when empty.
  void Reserve(size_t keys);

  size_t size() const { return size_; }  // slots filed
  size_t keys() const { return keys_; }  // distinct keys
  size_t MemoryBytes() const;

 private:
  static constexpr int kChunkBits = 12;
  static constexpr uint32_t kChunk = uint32_t{1} << kChunkBits;
  static constexpr uint32_t kNone = 0xFFFFFFFFu;  // no slot; an empty cell
  struct Chunk;

  // The table cell that holds `key`'s head, or the empty cell where it goes.
  size_t Probe(const Key128& key) const;
  // More than 3/4 of `cells` would hold a key.
  static bool Crowded(size_t keys, size_t cells) { return 4 * keys > 3 * cells; }
  size_t Home(const Key128& key) const { return (key.lo * 0x9E3779B97F4A7C15ull) >> shift_; }
  void EraseCell(size_t cell);
  void Grow();
  const Key128& KeyOf(uint32_t slot) const;

  std::vector<std::unique_ptr<Chunk>> chunks_;
  std::vector<uint32_t> table_;  // newest slot of a key, or kNone
  int shift_ = 0;                // 64 - log2(table_.size())
  size_t size_ = 0;
  size_t keys_ = 0;
};

}  // namespace neardup::index

#endif  // NEARDUP_INDEX_EXACT_INDEX_H_
