// SPDX-License-Identifier: Apache-2.0
//
// The default extractor: character n-grams over runs of scripts written
// without spaces (Han, kana, Thai, ...) and words for scripts written with
// spaces.
//
// - A no-space run continues across white space (some sites put spaces
//   between Chinese characters) and ends at any word character. Each window
//   of `ngram` characters is a feature; a run shorter than `ngram` is one
//   feature.
// - Words come from ICU's word break iterator (UAX #29); pure-ASCII chunks
//   take a fast path with the same result. With `word_ngram` > 1, consecutive
//   words are joined into shingles.
//
// Thread safety: Extract() is const and thread-safe (ICU iterators are cloned
// per call). Complexity: O(n).
#ifndef NEARDUP_FEATURES_CHAR_NGRAM_H_
#define NEARDUP_FEATURES_CHAR_NGRAM_H_

#include <memory>

#include "features/feature.h"

namespace neardup::features {

struct CharNgramOptions {
  int ngram = 3;       // characters per no-space feature, 1..16
  int word_ngram = 1;  // words per word feature, 1..8
};

class CharNgramExtractor final : public FeatureExtractor {
 public:
  // Errors: InvalidArgument for out-of-range options; Internal if ICU fails.
  static Result<std::unique_ptr<CharNgramExtractor>> Create(const CharNgramOptions& options);
  ~CharNgramExtractor() override;

  Status Extract(std::string_view normalized, std::vector<Feature>* out) const override;
  // Extract() that also appends each feature's text to *strings (if not null).
  Status ExtractWithText(std::string_view normalized, std::vector<Feature>* out,
                         std::vector<std::string>* strings) const;

  // Splits `chunk` (no white space, no no-space characters) into words.
  // Exposed for other extractors (the Chinese segmenter reuses it).
  void SplitWords(std::string_view chunk, std::vector<std::string_view>* words) const;

 private:
  struct Impl;
  CharNgramExtractor(CharNgramOptions options, std::unique_ptr<Impl> impl);
  CharNgramOptions options_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace neardup::features

#endif  // NEARDUP_FEATURES_CHAR_NGRAM_H_
