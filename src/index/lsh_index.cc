// SPDX-License-Identifier: Apache-2.0
#include "index/lsh_index.h"

#include <algorithm>
#include <string>

#include "base/status_macros.h"

namespace neardup::index {

LshIndex::LshIndex(int bands) : bands_(bands), tables_(static_cast<size_t>(bands)) {
  NEARDUP_CHECK(bands >= 1 && bands <= 4096);
}

size_t LshIndex::Home(const Table& t, uint32_t key) {
  // Fibonacci hashing spreads keys that differ in high bits only.
  return static_cast<size_t>((key * 0x9E3779B1u) & (t.entries.size() - 1));
}

const uint32_t* LshIndex::Find(const Table& t, uint32_t key) const {
  if (t.entries.empty()) return nullptr;
  const size_t mask = t.entries.size() - 1;
  for (size_t i = Home(t, key);; i = (i + 1) & mask) {
    const Entry& e = t.entries[i];
    if (e.head == kNil) return nullptr;
    if (e.key == key) return &e.head;
  }
}

uint32_t* LshIndex::Find(Table& t, uint32_t key) {
  return const_cast<uint32_t*>(static_cast<const LshIndex*>(this)->Find(t, key));
}

void LshIndex::Put(Table& t, uint32_t key, uint32_t head) {
  if ((t.used + 1) * 10 > t.entries.size() * 7) {
    std::vector<Entry> old(std::max<size_t>(16, t.entries.size() * 2), Entry{0, kNil});
    old.swap(t.entries);
    t.used = 0;
    for (const Entry& e : old) {
      if (e.head != kNil) Put(t, e.key, e.head);
    }
  }
  const size_t mask = t.entries.size() - 1;
  size_t i = Home(t, key);
  while (t.entries[i].head != kNil) i = (i + 1) & mask;
  t.entries[i] = {key, head};
  ++t.used;
}

void LshIndex::Erase(Table& t, uint32_t key) {
  const size_t mask = t.entries.size() - 1;
  size_t i = Home(t, key);
  while (t.entries[i].key != key || t.entries[i].head == kNil) i = (i + 1) & mask;
  // Backward-shift deletion: move later members of the probe run into the hole.
  for (size_t j = (i + 1) & mask; t.entries[j].head != kNil; j = (j + 1) & mask) {
    const size_t home = Home(t, t.entries[j].key);
    // Move j to i when its home is not in the cyclic range (i, j].
    if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
      t.entries[i] = t.entries[j];
      i = j;
    }
  }
  t.entries[i].head = kNil;
  --t.used;
}

Status CheckBandKeys(int bands, size_t keys) {
  if (keys == static_cast<size_t>(bands)) return Status::OK();
  return Status::InvalidArgument("expected " + std::to_string(bands) + " band keys, got " +
                                 std::to_string(keys));
}

void AppendHits(const std::vector<uint32_t>& found, size_t first, std::vector<LshIndex::Hit>* out) {
  for (size_t i = 0; i < found.size();) {
    size_t j = i;
    while (j < found.size() && found[j] == found[i]) ++j;
    out->push_back({found[i], static_cast<uint32_t>(j - i)});
    i = j;
  }
  SortHits(first, out);
}

void SortHits(size_t first, std::vector<LshIndex::Hit>* out) {
  std::sort(out->begin() + static_cast<ptrdiff_t>(first), out->end(),
            [](const LshIndex::Hit& x, const LshIndex::Hit& y) {
              return x.bands != y.bands ? x.bands > y.bands : x.slot < y.slot;
            });
}

Status LshIndex::Insert(uint32_t slot, std::span<const uint64_t> keys) {
  NEARDUP_RETURN_IF_ERROR(CheckBandKeys(bands_, keys.size()));
  if (slot == kNil) return Status::InvalidArgument("slot out of range");
  if (Present(slot)) return Status::AlreadyExists("slot " + std::to_string(slot));
  const size_t b = static_cast<size_t>(bands_);
  if (present_.size() <= slot) {
    const size_t n = std::max<size_t>(slot + 1, present_.size() + present_.size() / 2);
    present_.resize(n, 0);
    keys_.resize(n * b);
    next_.resize(n * b, kNil);
    prev_.resize(n * b, kNil);
  }
  for (size_t i = 0; i < b; ++i) {
    const uint32_t key = Fold(keys[i]);
    const size_t at = slot * b + i;
    keys_[at] = key;
    prev_[at] = kNil;
    uint32_t* head = Find(tables_[i], key);
    if (head == nullptr) {
      next_[at] = kNil;
      Put(tables_[i], key, slot);
    } else {
      next_[at] = *head;
      prev_[*head * b + i] = slot;
      *head = slot;
    }
  }
  present_[slot] = 1;
  ++size_;
  return Status::OK();
}

Status LshIndex::Remove(uint32_t slot) {
  if (!Present(slot)) return Status::NotFound("slot " + std::to_string(slot));
  const size_t b = static_cast<size_t>(bands_);
  for (size_t i = 0; i < b; ++i) {
    const size_t at = slot * b + i;
    const uint32_t next = next_[at], prev = prev_[at];
    if (next != kNil) prev_[next * b + i] = prev;
    if (prev != kNil) {
      next_[prev * b + i] = next;
    } else if (next != kNil) {
      *Find(tables_[i], keys_[at]) = next;
    } else {
      Erase(tables_[i], keys_[at]);
    }
  }
  present_[slot] = 0;
  --size_;
  return Status::OK();
}

Status LshIndex::Query(std::span<const uint64_t> keys, std::vector<Hit>* out) const {
  NEARDUP_RETURN_IF_ERROR(CheckBandKeys(bands_, keys.size()));
  const size_t b = static_cast<size_t>(bands_);
  thread_local std::vector<uint32_t> found;
  found.clear();
  for (size_t i = 0; i < b; ++i) {
    const uint32_t* head = Find(tables_[i], Fold(keys[i]));
    for (uint32_t s = head ? *head : kNil; s != kNil; s = next_[s * b + i]) found.push_back(s);
  }
  std::sort(found.begin(), found.end());
  AppendHits(found, out->size(), out);
  return Status::OK();
}

size_t LshIndex::MemoryBytes() const {
  size_t bytes = present_.capacity() + 4 * (keys_.capacity() + next_.capacity() + prev_.capacity());
  for (const Table& t : tables_) bytes += t.entries.capacity() * sizeof(Entry);
  return bytes;
}

}  // namespace neardup::index
