// SPDX-License-Identifier: Apache-2.0
#include "sketch/simhash.h"

namespace neardup::sketch {
namespace {

constexpr std::array<uint64_t, 256> MakeSpreadTable() {
  std::array<uint64_t, 256> t{};
  for (uint64_t b = 0; b < 256; ++b) {
    uint64_t v = 0;
    for (int j = 0; j < 8; ++j) v |= ((b >> j) & 1ULL) << (8 * j);
    t[b] = v;
  }
  return t;
}
constexpr std::array<uint64_t, 256> kSpread = MakeSpreadTable();

}  // namespace

uint64_t SimHashBuilder::Spread(uint64_t byte) { return kSpread[byte]; }

void SimHashBuilder::Reset() {
  lanes_.fill(0);
  ones_.fill(0);
  weighted_.fill(0.0);
  pending_ = 0;
  units_ = 0;
}

void SimHashBuilder::FlushLanes() {
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) ones_[8 * i + j] += (lanes_[i] >> (8 * j)) & 0xFF;
    lanes_[i] = 0;
  }
  units_ += pending_;
  pending_ = 0;
}

void SimHashBuilder::Add(uint64_t hash, float weight) {
  const double w = weight;
  for (int i = 0; i < 64; ++i) weighted_[i] += ((hash >> i) & 1) ? w : -w;
}

uint64_t SimHashBuilder::Finish() {
  FlushLanes();
  const int64_t units = static_cast<int64_t>(units_);
  uint64_t fp = 0;
  for (int i = 0; i < 64; ++i) {
    const double sum = static_cast<double>(2 * ones_[i] - units) + weighted_[i];
    if (sum > 0) fp |= 1ULL << i;
  }
  return fp;
}

uint64_t SimHash(std::span<const features::Feature> features) {
  SimHashBuilder b;
  for (const auto& f : features) b.Add(f);
  return b.Finish();
}

}  // namespace neardup::sketch
