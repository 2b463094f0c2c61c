// SPDX-License-Identifier: Apache-2.0
// Anchors: sampled windows of consecutive shingles (method in anchors.h).
#include "features/anchors.h"

namespace neardup::features {
namespace {

constexpr uint64_t kBase = 0x9E3779B97F4A7C15ULL;  // odd: a unit modulo 2^64

// MurmurHash3's fmix64: a bijection with full avalanche.
uint64_t Mix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xFF51AFD7ED558CCDULL;
  k ^= k >> 33;
  k *= 0xC4CEB9FE1A85EC53ULL;
  k ^= k >> 33;
  return k;
}

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
    const uint64_t mixed = Mix(h);
    if (mixed % kAnchorSampling == 0) {
      out->push_back({mixed, static_cast<uint32_t>(i + 1 - w)});
    }
  }
}

}  // namespace neardup::features
