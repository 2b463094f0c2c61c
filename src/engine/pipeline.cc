// SPDX-License-Identifier: Apache-2.0
#include "engine/pipeline.h"

#include "features/char_ngram.h"
#include "sketch/simhash.h"

namespace neardup::engine {

Result<std::unique_ptr<Pipeline>> Pipeline::Create(const EngineOptions& options) {
  std::unique_ptr<Pipeline> p(new Pipeline());
  p->max_bytes_ = options.max_document_bytes;
  normalize::NormalizerOptions n;
  n.drop_punctuation = options.drop_punctuation;
  n.replace_invalid_utf8 = options.replace_invalid_utf8;
  NEARDUP_ASSIGN_OR_RETURN(p->normalizer_, normalize::Normalizer::Create(n));
  features::CharNgramOptions f;
  f.ngram = options.ngram;
  f.word_ngram = options.word_ngram;
  NEARDUP_ASSIGN_OR_RETURN(p->extractor_, features::CharNgramExtractor::Create(f));
  return p;
}

Status Pipeline::Features(std::string_view text, std::string* normalized,
                          std::vector<features::Feature>* out) const {
  if (text.size() > max_bytes_) {
    return Status::OutOfRange("document of " + std::to_string(text.size()) +
                              " bytes exceeds the limit of " + std::to_string(max_bytes_));
  }
  NEARDUP_RETURN_IF_ERROR(normalizer_->Normalize(text, normalized));
  out->clear();
  NEARDUP_RETURN_IF_ERROR(extractor_->Extract(*normalized, out));
  if (weighter_) weighter_->Apply(out);
  return Status::OK();
}

Result<uint64_t> Pipeline::Fingerprint(std::string_view text) const {
  thread_local std::string normalized;
  thread_local std::vector<features::Feature> feats;
  NEARDUP_RETURN_IF_ERROR(Features(text, &normalized, &feats));
  return sketch::SimHash(feats);
}

}  // namespace neardup::engine
