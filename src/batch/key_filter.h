// SPDX-License-Identifier: Apache-2.0
//
// KeyFilter: drops candidate pairs that cannot share min_shared_keys bucket
// keys, when the pairs are generated, before they are sorted and spilled.
//
// With min_shared_keys = m >= 2 (qbank verifies only pairs that share two
// LSH bands), a bucket pairs records that share its key, yet most of those
// pairs share no other key and would be counted and dropped only after the
// pair runs were sorted, spilled and merged: at 10M questions, 146M distinct
// pairs of which 26.6M share two bands. The filter keeps one byte of each key
// slot per record (KeySpace::slots: band b is slot b of its space), 32 bytes
// a record for qbank, and a bucket emits a pair only when at least m slots
// hold equal bytes. Equal keys give equal bytes in the same slot (a key of
// one slot never equals a key of another, KeySpace::slots), so no pair the
// verify phase would count m times is dropped; a pair that passes by chance
// (a byte in 256) is still counted exactly by the verify phase. The output
// is therefore the same with or without the filter.
//
// Thread safety: immutable after For(); Fill() writes only `out`.
#ifndef NEARDUP_BATCH_KEY_FILTER_H_
#define NEARDUP_BATCH_KEY_FILTER_H_

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "base/status_macros.h"
#include "batch/records.h"
#include "batch/signature.h"

namespace neardup::batch {

class KeyFilter {
 public:
  KeyFilter() = default;

  // The filter for these spaces, or an inactive one (width() == 0) when
  // m < 2, a space has a variable number of keys, or the slots need more
  // than `max_width` bytes.
  static KeyFilter For(const std::vector<KeySpace>& spaces, uint64_t min_shared, size_t max_width) {
    KeyFilter f;
    if (min_shared < 2 || spaces.empty()) return f;
    size_t total = 0;
    for (const KeySpace& sp : spaces) {
      if (sp.slots <= 0) return f;
      f.base_.push_back(static_cast<uint32_t>(total));
      f.slots_.push_back(static_cast<uint32_t>(sp.slots));
      total += static_cast<size_t>(sp.slots);
    }
    const size_t width = (total + 7) / 8 * 8;
    if (width > max_width || min_shared > total) return KeyFilter();
    f.width_ = width;
    f.pad_ = static_cast<int>(width - total);
    f.min_ = static_cast<int>(min_shared);
    return f;
  }

  // Bytes per record; 0 when inactive.
  size_t width() const { return width_; }

  // The key bytes of one record, from its keys in Keys() order, into
  // out[0, width()). Slots without a key hold 0.
  void Fill(std::span<const uint64_t> keys, uint8_t* out) const {
    std::memset(out, 0, width_);
    uint32_t used[kMaxSpaces] = {};
    for (uint64_t key : keys) {
      const uint32_t sp = SpaceOf(key);
      NEARDUP_CHECK_MSG(sp < base_.size() && used[sp] < slots_[sp], "more keys than slots");
      out[base_[sp] + used[sp]++] = static_cast<uint8_t>(key ^ (key >> 29));
    }
  }

  // How many slots hold equal bytes (padding excluded).
  int EqualSlots(const uint8_t* x, const uint8_t* y) const {
    constexpr uint64_t kLow7 = 0x7F7F7F7F7F7F7F7Full;
    int zero = 0;
    for (size_t i = 0; i < width_; i += 8) {
      uint64_t a, b;
      std::memcpy(&a, x + i, 8);
      std::memcpy(&b, y + i, 8);
      const uint64_t v = a ^ b;
      // High bit of each byte set iff that byte of v is zero.
      const uint64_t t = ~(((v & kLow7) + kLow7) | v | kLow7);
      zero += __builtin_popcountll(t);
    }
    return zero - pad_;
  }

  // False when the two records cannot share min_shared_keys keys.
  bool MayShare(const uint8_t* x, const uint8_t* y) const { return EqualSlots(x, y) >= min_; }

 private:
  std::vector<uint32_t> base_, slots_;
  size_t width_ = 0;
  int pad_ = 0;
  int min_ = 0;
};

}  // namespace neardup::batch

#endif  // NEARDUP_BATCH_KEY_FILTER_H_
