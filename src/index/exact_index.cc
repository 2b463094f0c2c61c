// SPDX-License-Identifier: Apache-2.0
#include "index/exact_index.h"

#include <algorithm>

#include "base/prefetch.h"

namespace neardup::index {
namespace {

constexpr uint32_t kAbsent = 0xFFFFFFFEu;  // Chunk::older of a slot not filed
constexpr int kMinTableBits = 10;

}  // namespace

// `older` and `newer` link the slots that share a key, newest at the table.
struct ExactIndex::Chunk {
  Chunk() { std::fill(std::begin(older), std::end(older), kAbsent); }
  Key128 key[kChunk];
  uint32_t older[kChunk];
  uint32_t newer[kChunk];
};

ExactIndex::ExactIndex() : table_(size_t{1} << kMinTableBits, kNone), shift_(64 - kMinTableBits) {}
ExactIndex::~ExactIndex() = default;

const Key128& ExactIndex::KeyOf(uint32_t slot) const {
  return chunks_[slot >> kChunkBits]->key[slot & (kChunk - 1)];
}

bool ExactIndex::Contains(uint32_t slot) const {
  const size_t c = slot >> kChunkBits;
  return c < chunks_.size() && chunks_[c] != nullptr &&
         chunks_[c]->older[slot & (kChunk - 1)] != kAbsent;
}

size_t ExactIndex::Probe(const Key128& key) const {
  const size_t mask = table_.size() - 1;
  for (size_t cell = Home(key);; cell = (cell + 1) & mask) {
    const uint32_t head = table_[cell];
    if (head == kNone || KeyOf(head) == key) return cell;
  }
}

void ExactIndex::Prefetch(const Key128& key, int stage) const {
  if (table_.empty()) return;
  const size_t mask = table_.size() - 1;
  const size_t home = Home(key);
  if (stage == 0) {
    base::Prefetch(&table_[home]);
    return;
  }
  for (size_t cell = home, k = 0; k < 8 && table_[cell] != kNone; cell = (cell + 1) & mask, ++k) {
    const uint32_t head = table_[cell];
    if ((head >> kChunkBits) < chunks_.size() && chunks_[head >> kChunkBits] != nullptr) {
      base::Prefetch(&chunks_[head >> kChunkBits]->key[head & (kChunk - 1)]);
    }
  }
}

void ExactIndex::Grow() {
  std::vector<uint32_t> old(table_.size() * 2, kNone);
  old.swap(table_);
  --shift_;
  const size_t mask = table_.size() - 1;
  for (uint32_t head : old) {
    if (head == kNone) continue;
    size_t cell = Home(KeyOf(head));
    while (table_[cell] != kNone) cell = (cell + 1) & mask;
    table_[cell] = head;
  }
}

void ExactIndex::Reserve(size_t keys) {
  if (keys_ == 0) {  // nothing to rehash: size the empty table at once
    size_t cells = table_.size();
    int shift = shift_;
    while (Crowded(keys, cells)) {
      cells *= 2;
      --shift;
    }
    table_.assign(cells, kNone);
    shift_ = shift;
    return;
  }
  while (Crowded(keys, table_.size())) Grow();
}

bool ExactIndex::Insert(uint32_t slot, const Key128& key) {
  if (slot >= kAbsent || Contains(slot)) return false;
  const size_t c = slot >> kChunkBits;
  if (c >= chunks_.size()) chunks_.resize(c + 1);
  if (chunks_[c] == nullptr) chunks_[c] = std::make_unique<Chunk>();
  if (Crowded(keys_ + 1, table_.size())) Grow();
  const size_t cell = Probe(key);
  const uint32_t head = table_[cell];
  Chunk& ch = *chunks_[c];
  const uint32_t i = slot & (kChunk - 1);
  ch.key[i] = key;
  ch.older[i] = head;
  ch.newer[i] = kNone;
  if (head == kNone) {
    ++keys_;
  } else {
    chunks_[head >> kChunkBits]->newer[head & (kChunk - 1)] = slot;
  }
  table_[cell] = slot;
  ++size_;
  return true;
}

// Removes the entry at `cell` and moves later entries of its probe run back
// into the hole, so that every key stays reachable from its home cell.
void ExactIndex::EraseCell(size_t cell) {
  const size_t mask = table_.size() - 1;
  size_t hole = cell;
  for (size_t next = (hole + 1) & mask; table_[next] != kNone; next = (next + 1) & mask) {
    const size_t home = Home(KeyOf(table_[next]));
    // The entry may move to the hole unless its home lies cyclically in (hole, next].
    const bool stays = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next);
    if (stays) continue;
    table_[hole] = table_[next];
    hole = next;
  }
  table_[hole] = kNone;
}

bool ExactIndex::Remove(uint32_t slot) {
  if (!Contains(slot)) return false;
  Chunk& ch = *chunks_[slot >> kChunkBits];
  const uint32_t i = slot & (kChunk - 1);
  const uint32_t older = ch.older[i];
  const uint32_t newer = ch.newer[i];
  if (older != kNone) chunks_[older >> kChunkBits]->newer[older & (kChunk - 1)] = newer;
  if (newer != kNone) {
    chunks_[newer >> kChunkBits]->older[newer & (kChunk - 1)] = older;
  } else {  // the slot is the key's newest: the table points at it
    const size_t cell = Probe(ch.key[i]);
    if (older != kNone) {
      table_[cell] = older;
    } else {
      EraseCell(cell);
      --keys_;
    }
  }
  ch.older[i] = kAbsent;
  --size_;
  return true;
}

void ExactIndex::Find(const Key128& key, std::vector<uint32_t>* out) const {
  const uint32_t head = table_[Probe(key)];
  const size_t first = out->size();
  for (uint32_t s = head; s != kNone; s = chunks_[s >> kChunkBits]->older[s & (kChunk - 1)]) {
    out->push_back(s);
  }
  std::reverse(out->begin() + static_cast<std::ptrdiff_t>(first), out->end());
}

size_t ExactIndex::MemoryBytes() const {
  size_t chunks = 0;
  for (const auto& c : chunks_) chunks += c != nullptr;
  return chunks * sizeof(Chunk) + chunks_.capacity() * sizeof(void*) +
         table_.capacity() * sizeof(uint32_t);
}

}  // namespace neardup::index
