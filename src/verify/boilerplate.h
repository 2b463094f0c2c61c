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
// through collisions in both rows. An anchor's two counters share a cache
// line (the blocked layout of Putze, Sanders and Singler's cache-efficient
// Bloom filters, JEA 2009), and lookups of a document's anchors are
// prefetched together. The rows start small and double, each
// new half a copy of the old (counts stay upper bounds), up to `max_bytes`;
// past that, every counter is halved once as many counts were added as half a
// row has counters, so old frequencies fade and collisions stay rare.
//
// Batch runs count with Fixed(): rows of one width that never grow or halve,
// and plain additive updates, so tables counted apart (threads, MPI ranks)
// add up (Merge) to the table one counter would make, in any order.
//
// Thread safety: none; the engine calls Add under its writer lock and Count
// under its reader lock. Memory: at most max_bytes.
#ifndef NEARDUP_VERIFY_BOILERPLATE_H_
#define NEARDUP_VERIFY_BOILERPLATE_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/prefetch.h"
#include "features/anchors.h"
#include "verify/form.h"

namespace neardup::verify {

class BoilerplateCounts {
 public:
  static constexpr size_t kDefaultMaxBytes = size_t{32} << 20;

  // `max_bytes`: the most the two rows take (rounded down to a power of two,
  // at least 4 KiB, at most 256 MiB).
  explicit BoilerplateCounts(size_t max_bytes = kDefaultMaxBytes);
  // Two rows of `bytes` / 2 counters each (a power of two, at least 4 KiB in
  // all), fixed and additive (see above).
  static BoilerplateCounts Fixed(size_t bytes);

  // How many counted documents held `anchor` (at most 255). O(1).
  int Count(uint64_t anchor) const;
  // Prefetches the counters of `anchors` (before Count()s of them).
  void PrefetchAll(std::span<const features::Anchor> anchors) const {
    for (const features::Anchor& a : anchors) Prefetch(a.hash);
  }
  // Counts one document holding `anchors` (each distinct hash once).
  // O(anchors) amortized; a growth or a halving is O(bytes).
  void Add(std::span<const features::Anchor> anchors);

  // Add() on a Fixed() table from several threads at once (atomic
  // saturating increments; `distinct` is the caller's scratch). The
  // documents() count is the caller's (AddDocuments).
  void AddConcurrently(std::span<const features::Anchor> anchors, std::vector<uint64_t>* distinct);
  void AddDocuments(uint64_t n) { documents_ += n; }
  // Adds another Fixed() table of the same size, each counter saturating.
  void Merge(const BoilerplateCounts& other);
  // The counters, for sending between processes; Assign takes them back
  // (false, unchanged, if the sizes differ).
  std::span<const uint8_t> counters() const { return rows_; }
  bool Assign(std::span<const uint8_t> counters);

  // The whole state as bytes, and back (false, unchanged, for bytes that
  // are not a state of a table of the same kind and maximum size).
  std::string Serialize() const;
  bool Deserialize(std::string_view bytes);

  size_t MemoryBytes() const { return rows_.capacity(); }
  uint64_t documents() const { return documents_; }

  // Watches `threshold` (the guard's min_documents): epoch() changes
  // whenever some anchor's Count() may have crossed it since, that is when a
  // counter reaches it, when the counters are halved or replaced (Add,
  // MakeRoom, Deserialize, Assign, Merge). While epoch() is unchanged,
  // BoilerplateShingles at that threshold marks what it marked before, so
  // a caller that kept the marks need not count again. Not for Fixed()
  // tables counted concurrently (AddConcurrently does not watch).
  void Watch(int threshold) {
    watch_ = threshold;
    ++epoch_;
  }
  uint64_t epoch() const { return epoch_; }

 private:
  void MakeRoom();
  // Blocked: both of an anchor's counters lie in one 64-byte block (chosen by
  // the hash's low bits, at most 22 of them), row 0's in its first half, row
  // 1's in its second, so a count costs one cache miss; the halves' slots
  // come from bits 22-26 and 27-31. Only the low 32 bits count, which is what
  // forms keep of an anchor (verify/form.h).
  size_t Index(uint64_t h, int row) const {
    return ((h & (width_ / 32 - 1)) << 6) | (size_t(row) << 5) | ((h >> (22 + 5 * row)) & 31);
  }
  void Prefetch(uint64_t h) const { base::Prefetch(rows_.data() + Index(h, 0)); }
  std::vector<uint8_t> rows_;  // the blocks: 2 width_ counters
  size_t width_;
  size_t max_width_;
  bool fixed_ = false;  // Fixed(): additive, never grows nor halves
  size_t added_ = 0;    // counts added since the last growth or halving
  uint64_t documents_ = 0;
  int watch_ = 0;                   // Watch()
  uint64_t epoch_ = 0;              // epoch()
  std::vector<uint64_t> distinct_;  // scratch
};

// Adds `from` into `into` counter by counter, each saturating at 255: how
// two Fixed() tables add up (Merge; MPI ranks' slices, distributed/).
void AddCounters(std::span<uint8_t> into, std::span<const uint8_t> from);

// The shingles of a text that lie under an anchor held by at least
// `min_documents` counted documents, ascending and distinct, into *out.
// The text's shingles in text order are set[ranks[0]], set[ranks[1]], ...
// (features::SequenceRanks), `anchors` theirs. Empty when min_documents <= 0.
// O(anchors + set), no sort.
void BoilerplateShingles(const BoilerplateCounts& counts, int min_documents,
                         std::span<const features::Anchor> anchors, std::span<const uint32_t> ranks,
                         std::span<const uint64_t> set, std::vector<uint64_t>* out);
// The same with the ranks read in place from a form (verify/form.h).
void BoilerplateShingles(const BoilerplateCounts& counts, int min_documents,
                         std::span<const features::Anchor> anchors, const FormSequence& ranks,
                         std::span<const uint64_t> set, std::vector<uint64_t>* out);

}  // namespace neardup::verify

#endif  // NEARDUP_VERIFY_BOILERPLATE_H_
