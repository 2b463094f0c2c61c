// SPDX-License-Identifier: Apache-2.0
#include "pipeline/pipeline.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "base/status_macros.h"
#include "base/utf8.h"
#include "features/char_ngram.h"
#include "features/longest_sentence.h"
#include "normalize/t2s.h"
#include "resources/data_dir.h"
#include "sketch/simhash.h"
#include "verify/numbers.h"
#include "verify/question_bank.h"

namespace neardup::pipeline {
namespace {

std::string Jieba(const EngineOptions& o, std::string_view file) {
  return resources::JiebaFile(file, o.data_dir);
}

features::WordExtractorOptions WordOptions(const EngineOptions& o) {
  features::WordExtractorOptions w;
  w.segmenter.dict_dir = resources::JiebaDir(o.data_dir);
  w.segmenter.user_dict_paths = o.features.user_dicts;
  w.min_chars = o.features.min_word_chars;
  return w;
}

Result<std::unique_ptr<features::FeatureExtractor>> MakeExtractor(const EngineOptions& o,
                                                                  FeatureKind kind) {
  switch (kind) {
    case FeatureKind::kCharNgram: {
      NEARDUP_ASSIGN_OR_RETURN(
          auto e, features::CharNgramExtractor::Create(
                      {.ngram = o.features.ngram, .word_ngram = o.features.word_ngram}));
      return std::unique_ptr<features::FeatureExtractor>(std::move(e));
    }
    case FeatureKind::kWords: {
      NEARDUP_ASSIGN_OR_RETURN(auto e, features::WordExtractor::Create(WordOptions(o)));
      return std::unique_ptr<features::FeatureExtractor>(std::move(e));
    }
    case FeatureKind::kLongestSentence: {
      NEARDUP_ASSIGN_OR_RETURN(auto inner, MakeExtractor(o, FeatureKind::kCharNgram));
      NEARDUP_ASSIGN_OR_RETURN(auto e, features::LongestSentenceExtractor::Create(
                                           o.features.longest_sentences, std::move(inner)));
      return std::unique_ptr<features::FeatureExtractor>(std::move(e));
    }
  }
  return Status::InvalidArgument("unknown feature kind");
}

Result<std::unique_ptr<features::Weighter>> MakeWeighter(
    const EngineOptions& o, std::shared_ptr<features::DocumentFrequencyTable>* df) {
  if (o.features.top_n < 0) return Status::InvalidArgument("top_n must be >= 0");
  if (o.features.weights == Weights::kTf) return std::unique_ptr<features::Weighter>();
  std::shared_ptr<const features::IdfSource> idf;
  if (o.features.idf == IdfSource::kLearned) {
    *df = std::make_shared<features::DocumentFrequencyTable>();
    idf = *df;
  } else {
    NEARDUP_ASSIGN_OR_RETURN(idf, features::IdfTable::Load(Jieba(o, resources::kJiebaIdf)));
  }
  std::shared_ptr<const features::StopWords> stop;
  if (o.features.drop_stop_words) {
    NEARDUP_ASSIGN_OR_RETURN(stop, features::StopWords::Load(Jieba(o, resources::kJiebaStopWords)));
  }
  return std::unique_ptr<features::Weighter>(
      new features::TfIdfWeighter(std::move(idf), std::move(stop), {.top_n = o.features.top_n}));
}

Result<std::shared_ptr<const normalize::TextFolder>> MakeFolder(const EngineOptions& o) {
  const std::string dir = resources::OpenccDir(o.data_dir);
  switch (o.normalize.t2s) {
    case T2S::kOff:
      return std::shared_ptr<const normalize::TextFolder>();
    case T2S::kCharacters: {
      NEARDUP_ASSIGN_OR_RETURN(auto f,
                               normalize::T2SFolder::LoadFiles({dir + "/TSCharacters.txt"}));
      return std::shared_ptr<const normalize::TextFolder>(std::move(f));
    }
    case T2S::kPhrases:
    case T2S::kTaiwan: {
      NEARDUP_ASSIGN_OR_RETURN(auto f,
                               normalize::T2SFolder::Shared(dir, o.normalize.t2s == T2S::kTaiwan));
      return std::shared_ptr<const normalize::TextFolder>(std::move(f));
    }
  }
  return Status::InvalidArgument("unknown t2s mode");
}

}  // namespace

features::ShingleSpec ToShingleSpec(const ShingleOptions& s) {
  using K = features::ShingleSpec::Kind;
  const K kind = s.kind == ShingleKind::kChar   ? K::kChar
                 : s.kind == ShingleKind::kWord ? K::kWord
                                                : K::kScript;
  return {kind, s.char_ngram, s.word_ngram};
}

bool SaltsKeys(const EngineOptions& options) {
  return options.verify.kind == VerifyKind::kQbank && options.verify.qbank_other_min >= 1.0;
}

Result<std::unique_ptr<Pipeline>> Pipeline::Create(const EngineOptions& options,
                                                   bool needs_features, bool needs_shingles) {
  std::unique_ptr<Pipeline> p(new Pipeline());
  p->options_ = options;
  p->max_bytes_ = options.max_document_bytes;
  p->needs_features_ = needs_features;
  p->needs_shingles_ = needs_shingles;
  p->salt_keys_ = SaltsKeys(options);
  if (options.verify.kind == VerifyKind::kSimilarity && options.verify.short_numbers) {
    p->expressions_below_ = options.verify.short_chars;
  }
  if (options.features.learn_idf && (options.features.idf != IdfSource::kLearned ||
                                     options.features.weights != Weights::kTfIdf)) {
    return Status::InvalidArgument("learn_idf needs weights tfidf and idf learned");
  }
  normalize::NormalizerOptions n;
  n.drop_punctuation = options.normalize.drop_punctuation;
  n.replace_invalid_utf8 = options.normalize.replace_invalid_utf8;
  n.keep_sentence_breaks = options.features.kind == FeatureKind::kLongestSentence;
  NEARDUP_ASSIGN_OR_RETURN(n.folder, MakeFolder(options));
  NEARDUP_ASSIGN_OR_RETURN(p->normalizer_, normalize::Normalizer::Create(n));
  NEARDUP_ASSIGN_OR_RETURN(p->shingler_,
                           features::Shingler::Create(ToShingleSpec(options.shingles)));
  if (needs_features || options.features.idf == IdfSource::kLearned) {
    NEARDUP_ASSIGN_OR_RETURN(p->extractor_, MakeExtractor(options, options.features.kind));
    NEARDUP_ASSIGN_OR_RETURN(p->weighter_, MakeWeighter(options, &p->df_));
  }
  return p;
}

Status Pipeline::CheckSize(std::string_view text) const {
  if (text.size() <= max_bytes_) return Status::OK();
  return Status::OutOfRange("document of " + std::to_string(text.size()) +
                            " bytes exceeds the limit of " + std::to_string(max_bytes_));
}

Status Pipeline::Normalize(std::string_view text, std::string* out) const {
  NEARDUP_RETURN_IF_ERROR(CheckSize(text));
  return normalizer_->Normalize(text, out);
}

Status Pipeline::FoldCharacters(std::string_view text, std::string* out) const {
  NEARDUP_RETURN_IF_ERROR(CheckSize(text));
  NEARDUP_RETURN_IF_ERROR(base::ValidateUtf8(text));
  out->clear();
  out->reserve(text.size());
  std::string folded;
  for (size_t pos = 0; pos < text.size();) {
    const size_t start = pos;
    base::DecodeUtf8(text, &pos);
    const std::string_view ch = text.substr(start, pos - start);
    NEARDUP_RETURN_IF_ERROR(normalizer_->Normalize(ch, &folded));
    size_t at = 0, code_points = 0;
    while (at < folded.size() && code_points < 2) base::DecodeUtf8(folded, &at), ++code_points;
    out->append(code_points == 1 ? std::string_view(folded) : ch);
  }
  return Status::OK();
}

Status Pipeline::Features(std::string_view normalized, std::vector<features::Feature>* out) const {
  out->clear();
  if (!extractor_) return Status::FailedPrecondition("this pipeline computes no features");
  NEARDUP_RETURN_IF_ERROR(extractor_->Extract(normalized, out));
  if (weighter_) weighter_->Apply(out);
  return Status::OK();
}

void Pipeline::ShinglesOf(Processed* out) const {
  if (out->normalized.size() > anchors_above_) {
    features::ShingleInOrder(*shingler_, out->normalized, &out->shingles, &out->sequence,
                             &out->anchors);
  } else {
    out->sequence.clear();
    out->anchors.clear();
    shingler_->Shingle(out->normalized, &out->shingles);
  }
}

Status Pipeline::Process(std::string_view text, Processed* out) const {
  NEARDUP_RETURN_IF_ERROR(Normalize(text, &out->normalized));
  out->features.clear();
  out->shingles.clear();
  if (needs_features_) NEARDUP_RETURN_IF_ERROR(Features(out->normalized, &out->features));
  out->sequence.clear();
  out->anchors.clear();
  if (needs_shingles_) ShinglesOf(out);
  out->fingerprint = FingerprintOf(*out);
  out->key_salt = salt_keys_ ? verify::OtherPartKey(out->normalized) : 0;
  out->has_expressions = Expressions(text, out->normalized, &out->expressions);
  return Status::OK();
}

bool Pipeline::Expressions(std::string_view text, std::string_view normalized,
                           std::string* out) const {
  out->clear();
  if (expressions_below_ < 0) return false;
  if (base::CodePointCount(normalized) > static_cast<size_t>(expressions_below_)) return false;
  *out = verify::Expressions(text);
  return true;
}

uint64_t Pipeline::FingerprintOf(const Processed& p) const {
  if (needs_features_) return sketch::SimHash(p.features);
  return XXH3_64bits(p.normalized.data(), p.normalized.size());
}

Result<uint64_t> Pipeline::Fingerprint(std::string_view text) const {
  thread_local Processed p;
  NEARDUP_RETURN_IF_ERROR(Normalize(text, &p.normalized));
  if (needs_features_) NEARDUP_RETURN_IF_ERROR(Features(p.normalized, &p.features));
  return FingerprintOf(p);
}

Status Pipeline::Words(std::string_view text, std::vector<std::string>* out) const {
  out->clear();
  thread_local std::string normalized;
  NEARDUP_RETURN_IF_ERROR(Normalize(text, &normalized));
  std::call_once(words_once_, [this] {
    auto extractor = features::WordExtractor::Create(WordOptions(options_));
    if (!extractor.ok()) {
      words_status_ = extractor.status();
      return;
    }
    words_ = std::move(*extractor);
    if (options_.features.drop_stop_words) {
      auto stop = features::StopWords::Load(Jieba(options_, resources::kJiebaStopWords));
      if (!stop.ok()) {
        words_status_ = stop.status();
        return;
      }
      stop_words_ = *stop;
    }
  });
  NEARDUP_RETURN_IF_ERROR(words_status_);
  thread_local std::vector<std::string_view> words;
  words.clear();
  words_->Words(normalized, &words);
  for (std::string_view w : words) {
    if (!stop_words_ || !stop_words_->ContainsWord(w)) out->emplace_back(w);
  }
  return Status::OK();
}

Status Pipeline::Learn(std::string_view text) const {
  if (!df_) {
    return Status::FailedPrecondition(
        "learning document frequencies needs weights tfidf, idf learned");
  }
  thread_local std::string normalized;
  thread_local std::vector<features::Feature> feats;
  NEARDUP_RETURN_IF_ERROR(Normalize(text, &normalized));
  feats.clear();
  NEARDUP_RETURN_IF_ERROR(extractor_->Extract(normalized, &feats));
  df_->AddDocument(feats);
  return Status::OK();
}

}  // namespace neardup::pipeline
