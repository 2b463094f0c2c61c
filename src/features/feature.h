// SPDX-License-Identifier: Apache-2.0
//
// Features: the weighted, hashed tokens a sketch is computed from.
//
// A FeatureExtractor turns normalized text into a multiset of features, one
// entry per occurrence with weight 1. A Weighter may then rewrite the weights
// (TF-IDF, top-N keywords). Because SimHash sums weights linearly, emitting
// each occurrence with weight 1 is exactly term-frequency weighting.
//
// Feature hashes are XXH3-64 with seed kFeatureSeed over the token's UTF-8
// bytes. They are part of the on-disk format: changing either changes every
// stored fingerprint.
#ifndef NEARDUP_FEATURES_FEATURE_H_
#define NEARDUP_FEATURES_FEATURE_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "neardup/status.h"

namespace neardup::features {

inline constexpr uint64_t kFeatureSeed = 0;

// XXH3-64 of `token` with kFeatureSeed.
uint64_t HashFeature(std::string_view token);

struct Feature {
  uint64_t hash;
  float weight;
};

// Thread safety: Extract() is const and must be safe to call concurrently.
class FeatureExtractor {
 public:
  virtual ~FeatureExtractor() = default;
  // Appends the features of `normalized` (output of normalize::Normalizer) to *out.
  // Errors: implementation specific; the char n-gram extractor never fails.
  virtual Status Extract(std::string_view normalized, std::vector<Feature>* out) const = 0;
};

// Thread safety: Apply() is const and must be safe to call concurrently.
class Weighter {
 public:
  virtual ~Weighter() = default;
  // Rewrites weights in place; may merge, drop or reorder features.
  virtual void Apply(std::vector<Feature>* features) const = 0;
};

}  // namespace neardup::features

#endif  // NEARDUP_FEATURES_FEATURE_H_
