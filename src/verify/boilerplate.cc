// SPDX-License-Identifier: Apache-2.0
// Boilerplate by frequency: a count-min sketch of anchors (boilerplate.h).
#include "verify/boilerplate.h"

#include <algorithm>
#include <atomic>
#include <bit>

#include "base/hash_sort.h"
#include "base/status_macros.h"

namespace neardup::verify {
namespace {

constexpr size_t kMinWidth = 2048;  // counters a row

}  // namespace

BoilerplateCounts::BoilerplateCounts(size_t max_bytes)
    : width_(kMinWidth),
      max_width_(std::clamp(std::bit_floor(max_bytes / 2), kMinWidth, size_t{1} << 27)) {
  rows_.assign(2 * width_, 0);
}

BoilerplateCounts BoilerplateCounts::Fixed(size_t bytes) {
  BoilerplateCounts c(bytes);
  c.width_ = c.max_width_;
  c.rows_.assign(2 * c.width_, 0);
  c.fixed_ = true;
  return c;
}

void BoilerplateCounts::AddConcurrently(std::span<const features::Anchor> anchors,
                                        std::vector<uint64_t>* distinct) {
  NEARDUP_CHECK(fixed_);
  distinct->clear();
  for (const features::Anchor& a : anchors) distinct->push_back(a.hash);
  base::SortUniqueHashes(distinct);
  for (uint64_t h : *distinct) Prefetch(h);
  for (uint64_t h : *distinct) {
    for (int row = 0; row < 2; ++row) {
      std::atomic_ref<uint8_t> c(rows_[Index(h, row)]);
      uint8_t v = c.load(std::memory_order_relaxed);
      while (v < 255 && !c.compare_exchange_weak(v, v + 1, std::memory_order_relaxed)) {
      }
    }
  }
}

void AddCounters(std::span<uint8_t> into, std::span<const uint8_t> from) {
  NEARDUP_CHECK(into.size() == from.size());
  for (size_t i = 0; i < into.size(); ++i) {
    into[i] = static_cast<uint8_t>(std::min(255, into[i] + from[i]));
  }
}

void BoilerplateCounts::Merge(const BoilerplateCounts& other) {
  NEARDUP_CHECK(fixed_ && other.fixed_);
  AddCounters(rows_, other.rows_);
  documents_ += other.documents_;
  ++epoch_;
}

namespace {

constexpr std::string_view kMagic = "NDBOILERPLATE1\n";

void PutU64(uint64_t v, std::string* out) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

uint64_t GetU64(std::string_view s, size_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t{static_cast<uint8_t>(s[at + i])} << (8 * i);
  return v;
}

}  // namespace

std::string BoilerplateCounts::Serialize() const {
  std::string out(kMagic);
  for (uint64_t v :
       {uint64_t{fixed_}, uint64_t{max_width_}, uint64_t{width_}, uint64_t{added_}, documents_}) {
    PutU64(v, &out);
  }
  out.append(reinterpret_cast<const char*>(rows_.data()), rows_.size());
  return out;
}

bool BoilerplateCounts::Deserialize(std::string_view bytes) {
  const size_t head = kMagic.size() + 5 * 8;
  if (bytes.size() < head || bytes.substr(0, kMagic.size()) != kMagic) return false;
  const uint64_t fixed = GetU64(bytes, kMagic.size()), max_width = GetU64(bytes, kMagic.size() + 8),
                 width = GetU64(bytes, kMagic.size() + 16);
  if ((fixed != 0) != fixed_ || max_width != max_width_ || width < kMinWidth ||
      width > max_width_ || !std::has_single_bit(width) || bytes.size() != head + 2 * width) {
    return false;
  }
  width_ = width;
  added_ = GetU64(bytes, kMagic.size() + 24);
  documents_ = GetU64(bytes, kMagic.size() + 32);
  rows_.assign(bytes.begin() + static_cast<ptrdiff_t>(head), bytes.end());
  ++epoch_;
  return true;
}

bool BoilerplateCounts::Assign(std::span<const uint8_t> counters) {
  if (counters.size() != rows_.size()) return false;
  std::copy(counters.begin(), counters.end(), rows_.begin());
  ++epoch_;
  return true;
}

int BoilerplateCounts::Count(uint64_t anchor) const {
  return std::min(rows_[Index(anchor, 0)], rows_[Index(anchor, 1)]);
}

void BoilerplateCounts::Add(std::span<const features::Anchor> anchors) {
  ++documents_;
  if (fixed_) return AddConcurrently(anchors, &distinct_);
  distinct_.clear();
  for (const features::Anchor& a : anchors) distinct_.push_back(a.hash);
  base::SortUniqueHashes(&distinct_);
  for (uint64_t h : distinct_) Prefetch(h);
  for (uint64_t h : distinct_) {
    const int next = std::min(Count(h) + 1, 255);
    for (int row = 0; row < 2; ++row) {
      uint8_t& c = rows_[Index(h, row)];
      if (c < watch_ && next >= watch_) ++epoch_;
      c = static_cast<uint8_t>(std::max<int>(c, next));  // conservative update
    }
  }
  added_ += distinct_.size();
  // Growing at an eighth of a row keeps the collisions each width leaves
  // (copied into the wider rows) at about 2 counts a counter over all of
  // them; halving at half a row keeps them there.
  if (added_ >= (width_ < max_width_ ? width_ / 8 : width_ / 2)) MakeRoom();
}

void BoilerplateCounts::MakeRoom() {
  added_ = 0;
  ++epoch_;
  if (width_ < max_width_) {
    // The blocks double; block i of the old serves i and i + blocks.
    std::vector<uint8_t> wider(2 * rows_.size());
    std::copy(rows_.begin(), rows_.end(), wider.begin());
    std::copy(rows_.begin(), rows_.end(), wider.begin() + static_cast<ptrdiff_t>(rows_.size()));
    rows_.swap(wider);
    width_ *= 2;
    return;
  }
  for (uint8_t& c : rows_) c >>= 1;
}

namespace {

template <typename Ranks>
void Mark(const BoilerplateCounts& counts, int min_documents,
          std::span<const features::Anchor> anchors, const Ranks& ranks, size_t length,
          std::span<const uint64_t> set, std::vector<uint64_t>* out) {
  out->clear();
  if (min_documents <= 0) return;
  counts.PrefetchAll(anchors);
  thread_local std::vector<uint64_t> marked;  // a bit a rank
  bool any = false;
  size_t covered_to = 0;  // ranks[.. covered_to) are taken already
  for (const features::Anchor& a : anchors) {
    if (counts.Count(a.hash) < min_documents) continue;
    if (!any) marked.assign((set.size() + 63) / 64, 0), any = true;
    const size_t end = std::min<size_t>(a.pos + features::kAnchorShingles, length);
    for (size_t i = std::max<size_t>(a.pos, covered_to); i < end; ++i) {
      const uint32_t r = ranks[i];
      marked[r >> 6] |= uint64_t{1} << (r & 63);
    }
    covered_to = std::max(covered_to, end);
  }
  if (!any) return;
  for (size_t w = 0; w < marked.size(); ++w) {
    for (uint64_t bits = marked[w]; bits != 0; bits &= bits - 1) {
      out->push_back(set[w * 64 + static_cast<size_t>(std::countr_zero(bits))]);
    }
  }
}

}  // namespace

void BoilerplateShingles(const BoilerplateCounts& counts, int min_documents,
                         std::span<const features::Anchor> anchors, std::span<const uint32_t> ranks,
                         std::span<const uint64_t> set, std::vector<uint64_t>* out) {
  Mark(counts, min_documents, anchors, ranks, ranks.size(), set, out);
}

void BoilerplateShingles(const BoilerplateCounts& counts, int min_documents,
                         std::span<const features::Anchor> anchors, const FormSequence& ranks,
                         std::span<const uint64_t> set, std::vector<uint64_t>* out) {
  Mark(counts, min_documents, anchors, ranks, ranks.size(), set, out);
}

}  // namespace neardup::verify
