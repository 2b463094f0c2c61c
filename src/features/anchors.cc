// SPDX-License-Identifier: Apache-2.0
// Anchors: sampled windows of consecutive shingles (method in anchors.h).
#include "features/anchors.h"

#include <bit>

namespace neardup::features {
namespace {

constexpr uint64_t kBase = 0x9E3779B97F4A7C15ULL;  // odd: a unit modulo 2^64
static_assert(std::has_single_bit(kAnchorSampling));
constexpr int kSampleShift = 64 - std::countr_zero(kAnchorSampling);

}  // namespace

void SampleAnchors(std::span<const uint64_t> sequence, std::vector<Anchor>* out) {
  out->clear();
  const size_t w = kAnchorShingles;
  if (sequence.size() < w) return;
  uint64_t top = 1;  // kBase^(w-1): the weight of the shingle leaving the window
  for (size_t i = 1; i < w; ++i) top *= kBase;
  uint64_t h = 0;
  for (size_t i = 0; i < sequence.size(); ++i) {
    if (i >= w) h -= sequence[i - w] * top;
    h = h * kBase + sequence[i];
    if (i + 1 < w) continue;
    // The shingle hashes are uniform, so is h: its top bits choose.
    if ((h >> kSampleShift) == 0) out->push_back({h, static_cast<uint32_t>(i + 1 - w)});
  }
}

}  // namespace neardup::features
