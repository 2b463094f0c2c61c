// SPDX-License-Identifier: Apache-2.0
//
// LongestSentenceExtractor: fingerprints a document by its N longest
// sentences only, as Chinese news platforms do, so an edited paragraph
// elsewhere does not move the fingerprint (the "longest sentence" signature
// of web-page dedup; cf. Manku, Jain, Das Sarma 2007 on reprint detection).
//
// Input is normalized text with NormalizerOptions::keep_sentence_breaks, where
// 。！？；!?; and line breaks have become '\n'. Sentence length is counted in
// non-space code points; ties keep the earlier sentence. The chosen
// sentences, in text order, go to an inner extractor (character n-grams or
// words), whose features are the result. A document without breaks is one
// sentence, so the extractor then equals its inner one.
//
// Option syntax (CLI/engine): "longest-sentence" (N = 1) or
// "longest-sentence:N", 1 <= N <= 64.
//
// Thread safety: Extract() is const and thread-safe if the inner one is.
#ifndef NEARDUP_FEATURES_LONGEST_SENTENCE_H_
#define NEARDUP_FEATURES_LONGEST_SENTENCE_H_

#include <memory>
#include <string_view>
#include <vector>

#include "features/feature.h"

namespace neardup::features {

// Parses "longest-sentence[:N]". Errors: InvalidArgument.
Result<int> ParseLongestSentenceSpec(std::string_view spec);

class LongestSentenceExtractor final : public FeatureExtractor {
 public:
  // Errors: InvalidArgument for N out of range or a null inner extractor.
  static Result<std::unique_ptr<LongestSentenceExtractor>> Create(
      int sentences, std::unique_ptr<FeatureExtractor> inner);

  Status Extract(std::string_view normalized, std::vector<Feature>* out) const override;

  // Appends the chosen sentences (views into `normalized`), in text order.
  void Sentences(std::string_view normalized, std::vector<std::string_view>* out) const;

 private:
  LongestSentenceExtractor(int n, std::unique_ptr<FeatureExtractor> inner)
      : n_(n), inner_(std::move(inner)) {}
  int n_;
  std::unique_ptr<FeatureExtractor> inner_;
};

}  // namespace neardup::features

#endif  // NEARDUP_FEATURES_LONGEST_SENTENCE_H_
