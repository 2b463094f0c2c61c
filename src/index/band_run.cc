// SPDX-License-Identifier: Apache-2.0
#include "index/band_run.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <thread>

#include "base/parallel.h"
#include "base/prefetch.h"
#include "base/status_macros.h"

namespace neardup::index {
namespace {

// One stable counting-sort pass on 16 bits of each entry.
template <typename Digit>
void RadixPass(std::vector<BandEntry>* in, std::vector<BandEntry>* out, Digit digit) {
  std::vector<size_t> count(size_t{1} << 16, 0);
  for (const BandEntry& e : *in) ++count[digit(e)];
  size_t at = 0;
  for (size_t& c : count) {
    const size_t n = c;
    c = at;
    at += n;
  }
  out->resize(in->size());
  for (const BandEntry& e : *in) (*out)[count[digit(e)]++] = e;
  in->swap(*out);
}

// Sorts by (key, slot): std::sort for small inputs, else an LSD radix sort
// (slot then key, 16 bits a pass; the slot passes are skipped when the
// entries come in slot order, as a bulk load's do). A restore sorts every
// band of every document once: O(n) a band instead of O(n log n). `scratch`
// is the passes' buffer, kept by the caller across bands so that it is
// allocated and zero-filled once a thread, not once a band.
void SortEntries(std::vector<BandEntry>* entries, std::vector<BandEntry>* scratch) {
  if (std::is_sorted(entries->begin(), entries->end())) return;
  if (entries->size() < (size_t{1} << 16)) {
    std::sort(entries->begin(), entries->end());
    return;
  }
  const bool by_slot =
      std::is_sorted(entries->begin(), entries->end(),
                     [](const BandEntry& a, const BandEntry& b) { return a.slot < b.slot; });
  if (!by_slot) {
    RadixPass(entries, scratch, [](const BandEntry& e) { return e.slot & 0xFFFF; });
    RadixPass(entries, scratch, [](const BandEntry& e) { return e.slot >> 16; });
  }
  RadixPass(entries, scratch, [](const BandEntry& e) { return e.key & 0xFFFF; });
  RadixPass(entries, scratch, [](const BandEntry& e) { return e.key >> 16; });
}

}  // namespace

std::unique_ptr<BandRun> BandRun::Build(int bands, uint32_t max_slot, uint32_t lo, uint32_t hi,
                                        const Source& source, int threads) {
  std::unique_ptr<BandRun> run(new BandRun());
  run->lo_ = lo;
  run->hi_ = hi;
  run->max_slot_ = max_slot;
  std::vector<BandEntry> entries;
  source(0, &entries);
  const size_t n = entries.size();
  run->n_ = n;
  const int log_n = n <= 1 ? 0 : static_cast<int>(std::bit_width(n - 1));
  run->d_ = std::clamp(log_n - 3, 8, 24);
  run->low_bits_ = 32 - run->d_;
  run->slot_bits_ = std::max(1, static_cast<int>(std::bit_width(max_slot)));
  run->width_ = run->low_bits_ + run->slot_bits_;
  run->dir_.resize(static_cast<size_t>(bands));
  run->data_.resize(static_cast<size_t>(bands));
  // Each thread's pair of buffers: the entries and the radix passes' other half.
  struct Buffers {
    std::vector<BandEntry> entries, radix;
  };
  Buffers mine;
  mine.entries.swap(entries);
  SortEntries(&mine.entries, &mine.radix);
  run->Pack(0, mine.entries);
  // Bands 1.. go to whichever thread is free; each packs its own band.
  std::atomic<int> next{1};
  auto work = [&run, &source, &next, bands, n](Buffers* buf) {
    for (int b = next++; b < bands; b = next++) {
      buf->entries.clear();
      source(b, &buf->entries);
      NEARDUP_CHECK(buf->entries.size() == n);
      SortEntries(&buf->entries, &buf->radix);
      run->Pack(b, buf->entries);
    }
  };
  std::vector<std::thread> helpers;
  std::vector<Buffers> theirs(static_cast<size_t>(std::max(0, threads - 1)));
  base::FirstException error;
  auto guarded = [&](Buffers* buf) {
    try {
      work(buf);
    } catch (...) {
      error.Capture();
    }
  };
  for (auto& b : theirs) {  // a helper that cannot start leaves its bands to the others
    if (!base::TryAddThread(&helpers, [&guarded, &b] { guarded(&b); })) break;
  }
  guarded(&mine);
  for (auto& t : helpers) t.join();
  error.RethrowIfAny();
  return run;
}

void BandRun::Directory::Assign(std::vector<uint32_t>* offsets) {
  const size_t cells = offsets->size();
  const size_t groups = ((cells - 1) >> kGroupBits) + 1;
  base.assign(groups, 0);
  for (size_t g = 0; g < groups; ++g) {
    base[g] = (*offsets)[g << kGroupBits];
    const size_t last = std::min(cells, (g + 1) << kGroupBits) - 1;
    if ((*offsets)[last] - base[g] > UINT16_MAX) {  // too wide a span: keep 32 bits
      std::vector<uint32_t>().swap(base);
      wide.swap(*offsets);
      return;
    }
  }
  rel.resize(cells);
  for (size_t c = 0; c < cells; ++c) {
    rel[c] = static_cast<uint16_t>((*offsets)[c] - base[c >> kGroupBits]);
  }
}

void BandRun::Pack(int band, const std::vector<BandEntry>& entries) {
  std::vector<uint8_t>& data = data_[static_cast<size_t>(band)];
  std::vector<uint32_t> dir((size_t{1} << d_) + 1, 0);
  data.assign((n_ * static_cast<size_t>(width_) + 7) / 8 + 8, 0);
  const uint64_t low_mask = (uint64_t{1} << low_bits_) - 1;
  for (size_t i = 0; i < entries.size(); ++i) {
    const BandEntry& e = entries[i];
    ++dir[(e.key >> low_bits_) + 1];
    NEARDUP_CHECK(e.slot <= max_slot_);
    const uint64_t v = ((e.key & low_mask) << slot_bits_) | e.slot;
    const size_t bit = i * static_cast<size_t>(width_);
    uint64_t word;
    std::memcpy(&word, &data[bit / 8], 8);
    word |= v << (bit % 8);
    std::memcpy(&data[bit / 8], &word, 8);
  }
  for (size_t i = 1; i < dir.size(); ++i) dir[i] += dir[i - 1];
  dir_[static_cast<size_t>(band)].Assign(&dir);
}

uint64_t BandRun::Value(const std::vector<uint8_t>& data, size_t i) const {
  const size_t bit = i * static_cast<size_t>(width_);
  uint64_t word;
  std::memcpy(&word, &data[bit / 8], 8);
  return (word >> (bit % 8)) & ((uint64_t{1} << width_) - 1);
}

void BandRun::Find(int band, uint32_t key, const TierIds& run_of,
                   std::vector<uint32_t>* out) const {
  const Directory& dir = dir_[static_cast<size_t>(band)];
  const std::vector<uint8_t>& data = data_[static_cast<size_t>(band)];
  const uint64_t low_mask = (uint64_t{1} << low_bits_) - 1;
  const uint64_t slot_mask = (uint64_t{1} << slot_bits_) - 1;
  const uint64_t want = key & low_mask;
  const size_t bucket = key >> low_bits_;
  // Entries of a bucket are sorted by low key bits: scan to the first larger.
  for (size_t i = dir.At(bucket), end = dir.At(bucket + 1); i < end; ++i) {
    const uint64_t v = Value(data, i);
    const uint64_t low = v >> slot_bits_;
    if (low > want) break;
    const auto slot = static_cast<uint32_t>(v & slot_mask);
    if (low == want && Live(slot, run_of)) out->push_back(slot);
  }
}

void BandRun::FindAll(std::span<const uint32_t> keys, const TierIds& run_of,
                      std::vector<uint32_t>* out, std::vector<size_t>* ends) const {
  const size_t bands = keys.size();
  for (size_t b = 0; b < bands; ++b) {
    dir_[b].Prefetch(keys[b] >> low_bits_);
  }
  for (size_t b = 0; b < bands; ++b) {
    const size_t i = dir_[b].At(keys[b] >> low_bits_);
    base::Prefetch(&data_[b][i * static_cast<size_t>(width_) / 8]);
  }
  for (size_t b = 0; b < bands; ++b) {
    Find(static_cast<int>(b), keys[b], run_of, out);
    if (ends != nullptr) ends->push_back(out->size());
  }
}

void BandRun::Gather(int band, const TierIds& run_of, std::vector<BandEntry>* out) const {
  const Directory& dir = dir_[static_cast<size_t>(band)];
  const std::vector<uint8_t>& data = data_[static_cast<size_t>(band)];
  const uint64_t slot_mask = (uint64_t{1} << slot_bits_) - 1;
  const size_t buckets = size_t{1} << d_;
  for (size_t bucket = 0; bucket < buckets; ++bucket) {
    const auto top = static_cast<uint32_t>(bucket << low_bits_);
    for (size_t i = dir.At(bucket), end = dir.At(bucket + 1); i < end; ++i) {
      const uint64_t v = Value(data, i);
      const auto slot = static_cast<uint32_t>(v & slot_mask);
      if (Live(slot, run_of)) out->push_back({top | static_cast<uint32_t>(v >> slot_bits_), slot});
    }
  }
}

void BandRun::ReleaseBand(int band) {
  dir_[static_cast<size_t>(band)] = Directory();
  std::vector<uint8_t>().swap(data_[static_cast<size_t>(band)]);
}

size_t BandRun::MemoryBytes() const {
  size_t bytes = sizeof(*this);
  for (const auto& d : dir_) bytes += d.MemoryBytes();
  for (const auto& d : data_) bytes += d.capacity();
  return bytes;
}

}  // namespace neardup::index
