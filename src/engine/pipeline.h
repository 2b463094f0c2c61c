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

 private:
  Pipeline() = default;
  size_t max_bytes_ = 0;
  std::unique_ptr<normalize::Normalizer> normalizer_;
  std::unique_ptr<features::FeatureExtractor> extractor_;
  std::unique_ptr<features::Weighter> weighter_;  // may be null: term frequency
};

}  // namespace neardup::engine

#endif  // NEARDUP_ENGINE_PIPELINE_H_
