// SPDX-License-Identifier: Apache-2.0
//
// Exact set and vector similarities on features, for verifying candidates.
//  - Jaccard |A n B| / |A u B| on the sets of distinct feature hashes
//    (shingles); 1 when both are empty.
//  - Cosine sum_t a_t b_t / (|a| |b|) on term-frequency vectors: the weight of
//    each feature hash summed over its occurrences; 1 when both are empty, 0
//    when only one is.
//
// Thread safety: pure functions. Complexity: O(n log n) (sorting).
#ifndef NEARDUP_VERIFY_SET_SIMILARITY_H_
#define NEARDUP_VERIFY_SET_SIMILARITY_H_

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "features/feature.h"

namespace neardup::verify {

// Sorted distinct feature hashes.
std::vector<uint64_t> DistinctHashes(std::span<const features::Feature> features);
// (hash, summed weight) sorted by hash.
std::vector<std::pair<uint64_t, double>> TermFrequencies(
    std::span<const features::Feature> features);

double ShingleJaccard(std::span<const features::Feature> a, std::span<const features::Feature> b);
double TfCosine(std::span<const features::Feature> a, std::span<const features::Feature> b);

}  // namespace neardup::verify

#endif  // NEARDUP_VERIFY_SET_SIMILARITY_H_
