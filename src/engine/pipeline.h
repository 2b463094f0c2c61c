// SPDX-License-Identifier: Apache-2.0
//
// Pipeline: the stateless front half of the engine, text -> normalized text
// -> features -> weights -> SimHash-64, built from EngineOptions.
//
// Thread safety: Fingerprint() is const and safe from many threads (scratch
// buffers are thread-local).
#ifndef NEARDUP_ENGINE_PIPELINE_H_
#define NEARDUP_ENGINE_PIPELINE_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "features/feature.h"
#include "features/tfidf.h"
#include "neardup/options.h"
#include "neardup/status.h"
#include "normalize/normalizer.h"

namespace neardup::engine {

class Pipeline {
 public:
  // Errors: InvalidArgument for bad options; errors of loading profile data.
  static Result<std::unique_ptr<Pipeline>> Create(const EngineOptions& options);

  // Errors: InvalidArgument (ill-formed UTF-8), OutOfRange (too large).
  Result<uint64_t> Fingerprint(std::string_view text) const;

  // The normalized text and features, for tools and tests.
  Status Features(std::string_view text, std::string* normalized,
                  std::vector<features::Feature>* out) const;

  // With idf "learned": counts each distinct feature of `text` once in the
  // document frequencies that TF-IDF weights come from. Thread-safe.
  // Errors: as Features(); FailedPrecondition when idf is not "learned".
  Status Learn(std::string_view text) const;

  // The learned document frequencies (idf "learned"), or null.
  std::shared_ptr<features::DocumentFrequencyTable> learned_idf() const;

  // The profile the `auto` profile picks for `text` (by script and length):
  // "zh-news", "zh-short" or "en-news". Other profiles return their own name.
  std::string_view ProfileFor(std::string_view text) const;

 private:
  Pipeline() = default;
  size_t max_bytes_ = 0;
  std::unique_ptr<normalize::Normalizer> normalizer_;
  std::unique_ptr<features::FeatureExtractor> extractor_;
  std::unique_ptr<features::Weighter> weighter_;  // may be null: term frequency
  std::shared_ptr<features::DocumentFrequencyTable> df_;  // idf "learned" only
  std::string profile_;
  // The `auto` profile: sub-pipelines for zh-news, zh-short, en-news.
  size_t auto_long_chars_ = 0;
  std::unique_ptr<Pipeline> zh_news_, zh_short_, en_news_;
  const Pipeline* Pick(std::string_view text) const;
};

}  // namespace neardup::engine

#endif  // NEARDUP_ENGINE_PIPELINE_H_
