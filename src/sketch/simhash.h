// SPDX-License-Identifier: Apache-2.0
//
// SimHash-64 (Charikar, "Similarity estimation techniques from rounding
// algorithms", STOC 2002; used for near-duplicate detection by Manku, Jain and
// Das Sarma, WWW 2007).
//
// For each feature with hash h and weight w, every bit position i receives +w
// when bit i of h is set and -w otherwise. Bit i of the fingerprint is 1 when
// the sum at position i is > 0 (ties give 0). Documents with similar feature
// multisets get fingerprints at small Hamming distance.
//
// On-disk contract: bit i of the uint64_t is position i; feature hashes are
// features::HashFeature (XXH3-64, seed 0). An empty feature set gives 0.
//
// Unit-weight features take a SWAR path: each hash byte is spread into eight
// byte lanes by table lookup, so one feature costs eight 64-bit additions.
//
// Thread safety: SimHashBuilder is a value; use one per thread.
#ifndef NEARDUP_SKETCH_SIMHASH_H_
#define NEARDUP_SKETCH_SIMHASH_H_

#include <array>
#include <cstdint>
#include <span>

#include "features/feature.h"

namespace neardup::sketch {

class SimHashBuilder {
 public:
  SimHashBuilder() { Reset(); }
  void Reset();

  // Adds a feature of weight 1.
  void Add(uint64_t hash) {
    for (int i = 0; i < 8; ++i) lanes_[i] += Spread((hash >> (8 * i)) & 0xFF);
    if (++pending_ == 255) FlushLanes();
  }
  // Adds a feature of weight `weight` (any sign).
  void Add(uint64_t hash, float weight);
  void Add(const features::Feature& f) {
    if (f.weight == 1.0f)
      Add(f.hash);
    else
      Add(f.hash, f.weight);
  }

  // The fingerprint of everything added since Reset().
  uint64_t Finish();

 private:
  static uint64_t Spread(uint64_t byte);
  void FlushLanes();

  std::array<uint64_t, 8> lanes_;    // byte lane j of lanes_[i] counts ones at bit 8i+j
  std::array<int64_t, 64> ones_;     // flushed unit-weight counts of ones per bit
  std::array<double, 64> weighted_;  // signed sums from weighted features
  uint32_t pending_;                 // unit adds since the last flush (< 255)
  uint64_t units_;                   // total unit-weight features
};

uint64_t SimHash(std::span<const features::Feature> features);

}  // namespace neardup::sketch

#endif  // NEARDUP_SKETCH_SIMHASH_H_
