// SPDX-License-Identifier: Apache-2.0
//
// SlotTable: per-document state indexed by the dense 32-bit slot, readable
// while one writer grows and updates it.
//
// Storage is chunked (2^16 slots per chunk) so growing never moves existing
// entries; chunk pointers and entries are atomics. For each slot it keeps the
// fingerprint and the id of the run that holds its live entry (0 = absent).
//
// Thread safety: Ensure()/Set*() by one writer at a time (the index holds its
// writer mutex); Get*() from any thread at any time. Memory: 12 bytes per slot
// of every allocated chunk.
#ifndef NEARDUP_INDEX_SLOT_TABLE_H_
#define NEARDUP_INDEX_SLOT_TABLE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace neardup::index {

class SlotTable {
 public:
  static constexpr int kChunkBits = 16;
  static constexpr size_t kChunk = size_t{1} << kChunkBits;
  static constexpr size_t kMaxChunks = (size_t{1} << 32) / kChunk;

  SlotTable() : chunks_(new std::atomic<Chunk*>[kMaxChunks]()) {}  // C++20: null-initialised
  ~SlotTable() {
    for (size_t i = 0; i < kMaxChunks; ++i) delete chunks_[i].load(std::memory_order_relaxed);
  }
  SlotTable(const SlotTable&) = delete;
  SlotTable& operator=(const SlotTable&) = delete;

  // Makes `slot` addressable. Writer only.
  void Ensure(uint32_t slot) {
    const size_t c = slot >> kChunkBits;
    if (chunks_[c].load(std::memory_order_relaxed) != nullptr) return;
    chunks_[c].store(new Chunk(), std::memory_order_release);
    allocated_.fetch_add(1, std::memory_order_relaxed);
  }

  // Run id of the slot's live entry, 0 when absent (also for never-seen slots).
  uint32_t RunOf(uint32_t slot) const {
    const Chunk* c = chunks_[slot >> kChunkBits].load(std::memory_order_acquire);
    return c == nullptr ? 0 : c->run[slot & (kChunk - 1)].load(std::memory_order_acquire);
  }
  uint64_t Fingerprint(uint32_t slot) const {
    const Chunk* c = chunks_[slot >> kChunkBits].load(std::memory_order_acquire);
    return c == nullptr ? 0 : c->fp[slot & (kChunk - 1)].load(std::memory_order_relaxed);
  }
  // Writer only; Ensure(slot) first. The fingerprint is stored before the run
  // id is published (release), so a reader that sees the run sees the value.
  void Set(uint32_t slot, uint64_t fp, uint32_t run) {
    Chunk* c = chunks_[slot >> kChunkBits].load(std::memory_order_relaxed);
    c->fp[slot & (kChunk - 1)].store(fp, std::memory_order_relaxed);
    c->run[slot & (kChunk - 1)].store(run, std::memory_order_release);
  }
  void Clear(uint32_t slot) {
    Chunk* c = chunks_[slot >> kChunkBits].load(std::memory_order_relaxed);
    c->run[slot & (kChunk - 1)].store(0, std::memory_order_release);
  }

  size_t MemoryBytes() const {
    return allocated_.load(std::memory_order_relaxed) * sizeof(Chunk) + kMaxChunks * sizeof(void*);
  }

 private:
  struct Chunk {
    std::atomic<uint64_t> fp[kChunk];  // C++20 atomics value-initialise to 0
    std::atomic<uint32_t> run[kChunk];
  };
  std::unique_ptr<std::atomic<Chunk*>[]> chunks_;
  std::atomic<size_t> allocated_{0};
};

}  // namespace neardup::index

#endif  // NEARDUP_INDEX_SLOT_TABLE_H_
