// SPDX-License-Identifier: Apache-2.0
//
// IdTable: document ids stored once, mapped both ways to dense 32-bit slots.
//
// Ids live in an append-only byte arena (length-prefixed); each slot keeps an
// 8-byte word: the id's 40-bit offset and the top 24 bits of its hash. Lookup
// by id is an open-addressing hash table of slots with linear probing; a
// probed slot's id is read from the arena only when its hash bits agree, so
// passing a cell costs one cache miss, not two. An id costs its bytes plus
// about 14 bytes, against ~100 for a std::string map key plus a std::string
// per slot. Erased ids leave garbage in the arena; it is
// compacted when more than half of it is garbage.
//
// Thread safety: none (the engine guards it). Complexity: O(1) expected per
// operation; growth and compaction are amortized O(1).
#ifndef NEARDUP_ENGINE_ID_TABLE_H_
#define NEARDUP_ENGINE_ID_TABLE_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/prefetch.h"

namespace neardup::engine {

class IdTable {
 public:
  using Slot = uint32_t;
  static constexpr Slot kNone = 0xFFFFFFFFu;

  // The slot holding `id`, or kNone.
  Slot Find(std::string_view id) const;
  // Binds `id` to `slot`. Requires: neither is bound.
  void Insert(Slot slot, std::string_view id);
  // Binds `id` to `slot` unless `id` is bound already (then false, nothing
  // changes): Find and Insert in one probe. Requires: `slot` unbound.
  [[nodiscard]] bool TryInsert(Slot slot, std::string_view id);
  // Unbinds `slot` and its id. Requires: bound.
  void Erase(Slot slot);
  // For a run of look-ups (a restore binds a batch of rows): the hash the
  // calls above compute, and the same calls taking it. Prefetch asks the CPU
  // for what a probe for `h` reads, one dependent step a stage, each once
  // the stage before has arrived: 0 the table cell it starts at; 1 the
  // words of the slots in the cells it passes; 2 the arena bytes of those
  // whose hash bits agree (the ids it compares). A hint: it changes nothing.
  static uint64_t HashOf(std::string_view id) { return Hash(id); }
  Slot Find(std::string_view id, uint64_t h) const;
  [[nodiscard]] bool TryInsert(Slot slot, std::string_view id, uint64_t h);
  void Prefetch(uint64_t h, int stage) const {
    if (table_.empty()) return;
    const size_t mask = table_.size() - 1;
    if (stage == 0) {
      base::Prefetch(&table_[h & mask]);
      return;
    }
    // The cells a probe passes before an empty one (a few at the loads
    // Rehash keeps), up to a bound.
    for (size_t i = h & mask, k = 0; k < 8 && table_[i] != kNone; i = (i + 1) & mask, ++k) {
      const Slot s = table_[i];
      if (s == kTomb || s >= offsets_.size()) continue;
      if (stage == 1) {
        base::Prefetch(&offsets_[s]);
      } else if ((offsets_[s] & kTagMask) == (h & kTagMask)) {
        base::Prefetch(arena_.data() + (offsets_[s] & kOffsetMask));
      }
    }
  }
  // The id of a bound slot.
  std::string_view Get(Slot slot) const;
  bool Bound(Slot slot) const { return slot < offsets_.size() && offsets_[slot] != kUnbound; }

  size_t size() const { return size_; }
  size_t MemoryBytes() const;
  // Compacts the arena and sizes the table to the current contents plus an
  // eighth of headroom (base/headroom.h).
  void ShrinkToFit();
  // Sizes the table and the slot offsets for `ids` ids (ShrinkToFit's size
  // for them), so that binding that many rehashes and copies nothing.
  void Reserve(size_t ids);

 private:
  static constexpr uint64_t kUnbound = ~0ULL;  // no offset reaches kOffsetMask
  static constexpr uint64_t kOffsetMask = (1ULL << 40) - 1;
  static constexpr uint64_t kTagMask = ~kOffsetMask;
  static constexpr Slot kTomb = 0xFFFFFFFEu;

  static uint64_t Hash(std::string_view id);
  size_t Probe(std::string_view id, uint64_t h) const;  // index of id's entry or of an empty one
  // The power of two (at least 16) a table for `want` cells takes.
  static size_t Buckets(size_t want);
  void Rehash(size_t buckets);
  void CompactArena();

  std::vector<char> arena_;        // varint length + bytes, per id
  std::vector<uint64_t> offsets_;  // per slot: hash tag | offset into arena_, or kUnbound
  std::vector<Slot> table_;        // open addressing: slot, kNone (empty) or kTomb
  size_t size_ = 0;
  size_t tombs_ = 0;
  size_t garbage_ = 0;  // arena bytes of erased ids
};

}  // namespace neardup::engine

#endif  // NEARDUP_ENGINE_ID_TABLE_H_
