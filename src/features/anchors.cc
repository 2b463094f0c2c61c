// SPDX-License-Identifier: Apache-2.0
// Anchors: sampled windows of consecutive shingles (method in anchors.h).
#include "features/anchors.h"

#include <algorithm>
#include <bit>

#include "base/hash_sort.h"
#include "base/status_macros.h"

namespace neardup::features {
namespace {

constexpr uint64_t kBase = 0x9E3779B97F4A7C15ULL;  // odd: a unit modulo 2^64
static_assert(std::has_single_bit(kAnchorSampling));
constexpr int kSampleShift = 64 - std::countr_zero(kAnchorSampling);

// The anchors of the sequence at(0), at(1), ..., at(n - 1).
template <typename At>
void Sample(size_t n, At at, std::vector<Anchor>* out) {
  out->clear();
  const size_t w = kAnchorShingles;
  if (n < w) return;
  uint64_t top = 1;  // kBase^(w-1): the weight of the shingle leaving the window
  for (size_t i = 1; i < w; ++i) top *= kBase;
  uint64_t h = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i >= w) h -= at(i - w) * top;
    h = h * kBase + at(i);
    if (i + 1 < w) continue;
    // The shingle hashes are uniform, so is h: its top bits choose.
    if ((h >> kSampleShift) == 0) out->push_back({h, static_cast<uint32_t>(i + 1 - w)});
  }
}

}  // namespace

void SampleAnchors(std::span<const uint64_t> sequence, std::vector<Anchor>* out) {
  Sample(
      sequence.size(), [&](size_t i) { return sequence[i]; }, out);
}

void SampleAnchors(std::span<const uint32_t> ranks, std::span<const uint64_t> set,
                   std::vector<Anchor>* out) {
  Sample(
      ranks.size(), [&](size_t i) { return set[ranks[i]]; }, out);
}

void ShingleInOrder(const Shingler& shingler, std::string_view normalized,
                    std::vector<uint64_t>* shingles, std::vector<uint32_t>* ranks,
                    std::vector<Anchor>* anchors) {
  thread_local std::vector<uint64_t> in_order;
  shingler.Sequence(normalized, &in_order);
  SampleAnchors(in_order, anchors);
  shingles->assign(in_order.begin(), in_order.end());
  base::SortUniqueHashes(shingles);
  SequenceRanks(*shingles, in_order, ranks);
}

void SequenceRanks(std::span<const uint64_t> set, std::span<const uint64_t> sequence,
                   std::vector<uint32_t>* ranks) {
  thread_local std::vector<uint32_t> start;
  const int k = std::max(1, static_cast<int>(std::bit_width(set.size())));
  const int shift = 64 - k;
  start.assign((size_t{1} << k) + 1, 0);
  for (uint64_t h : set) ++start[(h >> shift) + 1];
  for (size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
  ranks->resize(sequence.size());
  for (size_t i = 0; i < sequence.size(); ++i) {
    const uint64_t h = sequence[i];
    uint32_t r = start[h >> shift];
    while (r < set.size() && set[r] < h) ++r;
    NEARDUP_CHECK(r < set.size() && set[r] == h);  // every shingle is in the set
    (*ranks)[i] = r;
  }
}

}  // namespace neardup::features
