// SPDX-License-Identifier: Apache-2.0
#include "engine/id_table.h"

#include <cstring>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "base/headroom.h"
#include "base/status_macros.h"
#include "neardup/status.h"

namespace neardup::engine {

uint64_t IdTable::Hash(std::string_view id) { return XXH3_64bits(id.data(), id.size()); }

std::string_view IdTable::Get(Slot slot) const {
  NEARDUP_CHECK(Bound(slot));
  const char* p = arena_.data() + (offsets_[slot] & kOffsetMask);
  uint64_t len = 0;
  for (int shift = 0;; shift += 7) {
    const auto b = static_cast<unsigned char>(*p++);
    len |= static_cast<uint64_t>(b & 0x7F) << shift;
    if (!(b & 0x80)) break;
  }
  return {p, len};
}

size_t IdTable::Probe(std::string_view id, uint64_t h) const {
  const size_t mask = table_.size() - 1;
  const uint64_t tag = h & kTagMask;
  size_t first_tomb = SIZE_MAX;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const Slot s = table_[i];
    if (s == kNone) return first_tomb != SIZE_MAX ? first_tomb : i;
    if (s == kTomb) {
      if (first_tomb == SIZE_MAX) first_tomb = i;
    } else if ((offsets_[s] & kTagMask) == tag && Get(s) == id) {
      return i;
    }
  }
}

IdTable::Slot IdTable::Find(std::string_view id) const { return Find(id, Hash(id)); }

IdTable::Slot IdTable::Find(std::string_view id, uint64_t h) const {
  if (size_ == 0) return kNone;
  const Slot s = table_[Probe(id, h)];
  return s == kTomb || s == kNone || Get(s) != id ? kNone : s;
}

void IdTable::Insert(Slot slot, std::string_view id) { NEARDUP_CHECK(TryInsert(slot, id)); }

bool IdTable::TryInsert(Slot slot, std::string_view id) { return TryInsert(slot, id, Hash(id)); }

bool IdTable::TryInsert(Slot slot, std::string_view id, uint64_t h) {
  NEARDUP_CHECK(!Bound(slot));
  if ((size_ + tombs_ + 1) * 10 >= table_.size() * 7) Rehash(std::max<size_t>(16, (size_ + 1) * 2));
  const size_t i = Probe(id, h);
  if (table_[i] != kNone && table_[i] != kTomb) return false;  // bound to another slot
  // 1 TiB of ids.
  NEARDUP_CHECK(arena_.size() < kOffsetMask);
  if (slot >= offsets_.size()) offsets_.resize(slot + 1, kUnbound);
  offsets_[slot] = (h & kTagMask) | arena_.size();
  for (uint64_t len = id.size();; len >>= 7) {
    arena_.push_back(static_cast<char>((len & 0x7F) | (len >= 0x80 ? 0x80 : 0)));
    if (len < 0x80) break;
  }
  arena_.insert(arena_.end(), id.begin(), id.end());
  if (table_[i] == kTomb) --tombs_;
  table_[i] = slot;
  ++size_;
  return true;
}

void IdTable::Erase(Slot slot) {
  const std::string_view id = Get(slot);
  const size_t i = Probe(id, Hash(id));
  NEARDUP_CHECK(table_[i] == slot);
  table_[i] = kTomb;
  ++tombs_;
  --size_;
  garbage_ += id.size() + 1 + id.size() / 128;
  offsets_[slot] = kUnbound;
  if (garbage_ > 4096 && garbage_ * 2 > arena_.size()) CompactArena();
}

void IdTable::Rehash(size_t want) {
  const size_t buckets = Buckets(want);
  table_.assign(buckets, kNone);
  tombs_ = 0;
  const size_t mask = buckets - 1;
  for (Slot s = 0; s < offsets_.size(); ++s) {
    if (offsets_[s] == kUnbound) continue;
    size_t i = Hash(Get(s)) & mask;
    while (table_[i] != kNone) i = (i + 1) & mask;
    table_[i] = s;
  }
}

void IdTable::CompactArena() {
  std::vector<char> fresh;
  fresh.reserve(arena_.size() - garbage_);
  for (Slot s = 0; s < offsets_.size(); ++s) {
    if (offsets_[s] == kUnbound) continue;
    const std::string_view id = Get(s);
    const char* start = arena_.data() + (offsets_[s] & kOffsetMask);
    const size_t header = static_cast<size_t>(id.data() - start);
    offsets_[s] = (offsets_[s] & kTagMask) | fresh.size();
    fresh.insert(fresh.end(), start, start + header + id.size());
  }
  arena_.swap(fresh);
  arena_.shrink_to_fit();
  garbage_ = 0;
}

size_t IdTable::Buckets(size_t want) {
  size_t buckets = 16;
  while (buckets < want) buckets <<= 1;
  return buckets;
}

void IdTable::ShrinkToFit() {
  if (garbage_ > 0) CompactArena();
  // Headroom, not a tight fit: the first insert would copy or rehash it all.
  base::TrimWithHeadroom(&arena_);
  size_t used = offsets_.size();
  while (used > 0 && offsets_[used - 1] == kUnbound) --used;
  offsets_.resize(used);
  base::TrimWithHeadroom(&offsets_);
  const size_t want = base::WithHeadroom(size_) * 10 / 7 + 16;
  // A table already of that size (a restore that reserved) keeps its cells.
  if (tombs_ > 0 || Buckets(want) != table_.size()) Rehash(want);
}

void IdTable::Reserve(size_t ids) {
  offsets_.reserve(base::WithHeadroom(ids));
  const size_t want = base::WithHeadroom(ids) * 10 / 7 + 16;
  if (Buckets(want) > table_.size()) Rehash(want);
}

size_t IdTable::MemoryBytes() const {
  return arena_.capacity() + offsets_.capacity() * sizeof(uint64_t) +
         table_.capacity() * sizeof(Slot);
}

}  // namespace neardup::engine
