// SPDX-License-Identifier: Apache-2.0
//
// Boilerplate by frequency: the shingles of a document that lie in text
// repeated across many unrelated documents (a site's header and footer, a
// copyright notice, an ad paragraph, "来源：新华网"), which the verifier
// leaves out of the pair's similarity (verifier.h, Side::boilerplate).
//
// BoilerplateCounts keeps, for each anchor (features/anchors.h), how many
// documents that started a cluster of their own held it. Counting only
// those counts clusters rather than copies: a story reprinted a thousand
// times is one cluster and counts about once, a footer counts once for each
// story of its site. It is a count-min sketch (Cormode and Muthukrishnan,
// "An improved data stream summary", J. Algorithms 2005) with two rows of
// saturating 8-bit counters and conservative update (Estan and Varghese,
// SIGCOMM 2002): a count is never below the true one and is above it only
// through collisions in both rows. The rows start small and double, each
// new half a copy of the old (counts stay upper bounds), up to `max_bytes`;
// past that, every counter is halved once as many counts were added as half a
// row has counters, so old frequencies fade and collisions stay rare.
//
// Thread safety: none; the engine calls Add under its writer lock and Count
// under its reader lock. Memory: at most max_bytes.
#ifndef NEARDUP_VERIFY_BOILERPLATE_H_
#define NEARDUP_VERIFY_BOILERPLATE_H_

#include <cstdint>
#include <span>
#include <vector>

#include "features/anchors.h"

namespace neardup::verify {

class BoilerplateCounts {
 public:
  static constexpr size_t kDefaultMaxBytes = size_t{32} << 20;

  // `max_bytes`: the most the two rows take (rounded down to a power of two,
  // at least 4 KiB).
  explicit BoilerplateCounts(size_t max_bytes = kDefaultMaxBytes);

  // How many counted documents held `anchor` (at most 255). O(1).
  int Count(uint64_t anchor) const;
  // Counts one document holding `anchors` (each distinct hash once).
  // O(anchors) amortized; a growth or a halving is O(bytes).
  void Add(std::span<const features::Anchor> anchors);

  size_t MemoryBytes() const { return rows_.capacity(); }
  uint64_t documents() const { return documents_; }

 private:
  void MakeRoom();
  size_t Index(uint64_t h, int row) const {
    return row * width_ + ((row == 0 ? h : h >> 32) & (width_ - 1));
  }
  std::vector<uint8_t> rows_;  // row 0, then row 1, width_ each
  size_t width_;
  size_t max_width_;
  size_t added_ = 0;  // counts added since the last growth or halving
  uint64_t documents_ = 0;
  std::vector<uint64_t> distinct_;  // scratch
};

// The shingles of `sequence` (in text order) that lie under an anchor held
// by at least `min_documents` counted documents, ascending and distinct,
// into *out. Empty when min_documents <= 0.
void BoilerplateShingles(const BoilerplateCounts& counts, int min_documents,
                         std::span<const features::Anchor> anchors,
                         std::span<const uint64_t> sequence, std::vector<uint64_t>* out);

}  // namespace neardup::verify

#endif  // NEARDUP_VERIFY_BOILERPLATE_H_
