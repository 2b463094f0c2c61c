// SPDX-License-Identifier: Apache-2.0
//
// WordExtractor: features are the words of the normalized text, as the
// Chinese news recipe uses (segment, drop stop words, weight by TF-IDF).
//
// Runs of Han characters (U+4E00..U+9FD5, jieba's range) are cut by the
// jieba-compatible tokenize::Segmenter (dictionary route plus HMM). Every
// other maximal run of non-space characters (Latin, digits, other scripts) is
// split into words by ICU word breaks (CharNgramExtractor::SplitWords), which
// is what jieba does for ASCII words and better than its one-token-per-
// character for other scripts. Words with fewer than `min_chars` code points
// are dropped (jieba.analyse drops words under 2). Each remaining word is one
// feature of weight 1, so SimHash sees term frequencies; a Weighter (TF-IDF)
// may rewrite them.
//
// Thread safety: Extract() and Words() are const and thread-safe.
// Complexity: O(n * L) like the segmenter.
#ifndef NEARDUP_FEATURES_WORD_EXTRACTOR_H_
#define NEARDUP_FEATURES_WORD_EXTRACTOR_H_

#include <memory>
#include <string_view>
#include <vector>

#include "features/char_ngram.h"
#include "features/feature.h"
#include "tokenize/segmenter.h"

namespace neardup::features {

struct WordExtractorOptions {
  tokenize::SegmenterOptions segmenter;  // the shared segmenter is used
  int min_chars = 1;                     // 1..16
};

class WordExtractor final : public FeatureExtractor {
 public:
  // Errors: InvalidArgument for bad options; those of Segmenter::Shared.
  static Result<std::unique_ptr<WordExtractor>> Create(const WordExtractorOptions& options);

  Status Extract(std::string_view normalized, std::vector<Feature>* out) const override;

  // Appends the words (views into `normalized`) that Extract() hashes.
  void Words(std::string_view normalized, std::vector<std::string_view>* words) const;

 private:
  WordExtractor(WordExtractorOptions options, std::shared_ptr<const tokenize::Segmenter> seg,
                std::unique_ptr<CharNgramExtractor> splitter);
  WordExtractorOptions options_;
  std::shared_ptr<const tokenize::Segmenter> segmenter_;
  std::unique_ptr<CharNgramExtractor> splitter_;
};

}  // namespace neardup::features

#endif  // NEARDUP_FEATURES_WORD_EXTRACTOR_H_
