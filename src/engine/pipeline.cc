// SPDX-License-Identifier: Apache-2.0
#include "engine/pipeline.h"

#include "base/utf8.h"
#include "features/char_ngram.h"
#include "features/longest_sentence.h"
#include "features/tfidf.h"
#include "features/word_extractor.h"
#include "normalize/t2s.h"
#include "resources/data_dir.h"
#include "sketch/simhash.h"
#include "tokenize/segmenter.h"

namespace neardup::engine {

namespace {

std::string JiebaDir(const EngineOptions& o) {
  return o.data_dir.empty() ? resources::JiebaDir()
                            : o.data_dir + "/nodejieba/submodules/cppjieba/dict";
}

Result<std::unique_ptr<features::FeatureExtractor>> MakeExtractor(const EngineOptions& o,
                                                                  std::string_view kind) {
  if (kind == "char-ngram") {
    features::CharNgramOptions f;
    f.ngram = o.ngram;
    f.word_ngram = o.word_ngram;
    NEARDUP_ASSIGN_OR_RETURN(auto e, features::CharNgramExtractor::Create(f));
    return std::unique_ptr<features::FeatureExtractor>(std::move(e));
  }
  if (kind == "words") {
    features::WordExtractorOptions w;
    w.segmenter.dict_dir = JiebaDir(o);
    w.segmenter.user_dict_paths = o.user_dicts;
    w.min_chars = o.min_word_chars;
    NEARDUP_ASSIGN_OR_RETURN(auto e, features::WordExtractor::Create(w));
    return std::unique_ptr<features::FeatureExtractor>(std::move(e));
  }
  if (kind.starts_with("longest-sentence")) {
    NEARDUP_ASSIGN_OR_RETURN(int n, features::ParseLongestSentenceSpec(kind));
    NEARDUP_ASSIGN_OR_RETURN(auto inner, MakeExtractor(o, "char-ngram"));
    NEARDUP_ASSIGN_OR_RETURN(auto e,
                             features::LongestSentenceExtractor::Create(n, std::move(inner)));
    return std::unique_ptr<features::FeatureExtractor>(std::move(e));
  }
  return Status::InvalidArgument(
      "features must be char-ngram, words or longest-sentence[:N], got '" + std::string(kind) +
      "'");
}

Result<std::unique_ptr<features::Weighter>> MakeWeighter(
    const EngineOptions& o, std::shared_ptr<features::DocumentFrequencyTable>* df) {
  if (o.top_n < 0) return Status::InvalidArgument("top_n must be >= 0");
  if (o.weights == "tf") return std::unique_ptr<features::Weighter>();
  if (o.weights != "tfidf") {
    return Status::InvalidArgument("weights must be tf or tfidf, got '" + o.weights + "'");
  }
  std::shared_ptr<const features::IdfSource> idf;
  if (o.idf == "learned") {
    *df = std::make_shared<features::DocumentFrequencyTable>();
    idf = *df;
  } else if (o.idf == "jieba") {
    NEARDUP_ASSIGN_OR_RETURN(idf, features::IdfTable::Load(JiebaDir(o) + "/idf.utf8"));
  } else {
    return Status::InvalidArgument("idf must be jieba or learned, got '" + o.idf + "'");
  }
  std::shared_ptr<const features::StopWords> stop;
  if (o.drop_stop_words) {
    NEARDUP_ASSIGN_OR_RETURN(stop, features::StopWords::Load(JiebaDir(o) + "/stop_words.utf8"));
  }
  return std::unique_ptr<features::Weighter>(
      new features::TfIdfWeighter(std::move(idf), std::move(stop), {.top_n = o.top_n}));
}

// Shares of Han characters and of all letters in the first 4 KB.
void ScriptCounts(std::string_view text, size_t* han, size_t* letters) {
  *han = *letters = 0;
  size_t pos = 0;
  const size_t end = std::min<size_t>(text.size(), 4096);
  while (pos < end) {
    const int32_t cp = base::DecodeUtf8(text, &pos);
    if (cp < 0) continue;
    if ((cp >= 0x3400 && cp <= 0x9FFF) || (cp >= 0xF900 && cp <= 0xFAFF) || cp >= 0x20000) {
      ++*han;
      ++*letters;
    } else if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || cp > 0x7F) {
      ++*letters;
    }
  }
}

}  // namespace

Result<std::unique_ptr<Pipeline>> Pipeline::Create(const EngineOptions& options) {
  std::unique_ptr<Pipeline> p(new Pipeline());
  p->max_bytes_ = options.max_document_bytes;
  p->profile_ = options.profile;
  if (options.profile == "auto") {
    p->auto_long_chars_ = options.auto_long_chars;
    for (auto [name, slot] :
         {std::pair{"zh-news", &p->zh_news_}, std::pair{"zh-short", &p->zh_short_},
          std::pair{"en-news", &p->en_news_}}) {
      NEARDUP_ASSIGN_OR_RETURN(EngineOptions sub, EngineOptions::FromProfile(name));
      sub.replace_invalid_utf8 = options.replace_invalid_utf8;
      sub.max_document_bytes = options.max_document_bytes;
      sub.data_dir = options.data_dir;
      sub.user_dicts = options.user_dicts;
      sub.idf = options.idf;
      // Folding is harmless for other scripts, and a mostly-Latin page with
      // some Chinese may be either script.
      sub.fold_t2s = options.fold_t2s;
      sub.t2s_taiwan = options.t2s_taiwan;
      NEARDUP_ASSIGN_OR_RETURN(*slot, Create(sub));
    }
    return p;
  }
  normalize::NormalizerOptions n;
  n.drop_punctuation = options.drop_punctuation;
  n.replace_invalid_utf8 = options.replace_invalid_utf8;
  n.keep_sentence_breaks = options.features.starts_with("longest-sentence");
  if (options.fold_t2s) {
    NEARDUP_ASSIGN_OR_RETURN(
        n.folder, normalize::T2SFolder::Shared(
                      options.data_dir.empty() ? "" : options.data_dir + "/opencc/data/dictionary",
                      options.t2s_taiwan));
  }
  NEARDUP_ASSIGN_OR_RETURN(p->normalizer_, normalize::Normalizer::Create(n));
  NEARDUP_ASSIGN_OR_RETURN(p->extractor_, MakeExtractor(options, options.features));
  NEARDUP_ASSIGN_OR_RETURN(p->weighter_, MakeWeighter(options, &p->df_));
  return p;
}

const Pipeline* Pipeline::Pick(std::string_view text) const {
  if (!zh_news_) return this;
  size_t han, letters;
  ScriptCounts(text, &han, &letters);
  if (han * 2 < letters || han == 0) return en_news_.get();
  // Short sample: count further (up to 8 KB) before calling the text short.
  size_t total_han = han;
  if (total_han < auto_long_chars_ && text.size() > 4096) {
    size_t h2, l2;
    ScriptCounts(text.substr(4096), &h2, &l2);
    total_han += h2;
  }
  return total_han >= auto_long_chars_ ? zh_news_.get() : zh_short_.get();
}

std::string_view Pipeline::ProfileFor(std::string_view text) const { return Pick(text)->profile_; }

Status Pipeline::Features(std::string_view text, std::string* normalized,
                          std::vector<features::Feature>* out) const {
  if (zh_news_) return Pick(text)->Features(text, normalized, out);
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

Status Pipeline::Learn(std::string_view text) const {
  const Pipeline* p = Pick(text);
  if (!p->df_) {
    return Status::FailedPrecondition(
        "learning document frequencies needs weights=tfidf, idf=learned");
  }
  thread_local std::string normalized;
  thread_local std::vector<features::Feature> feats;
  if (text.size() > max_bytes_) {
    return Status::OutOfRange("document of " + std::to_string(text.size()) +
                              " bytes exceeds the limit of " + std::to_string(max_bytes_));
  }
  NEARDUP_RETURN_IF_ERROR(p->normalizer_->Normalize(text, &normalized));
  feats.clear();
  NEARDUP_RETURN_IF_ERROR(p->extractor_->Extract(normalized, &feats));
  p->df_->AddDocument(feats);
  return Status::OK();
}

std::shared_ptr<features::DocumentFrequencyTable> Pipeline::learned_idf() const {
  if (df_) return df_;
  return zh_news_ ? zh_news_->df_ : nullptr;
}

Result<uint64_t> Pipeline::Fingerprint(std::string_view text) const {
  thread_local std::string normalized;
  thread_local std::vector<features::Feature> feats;
  NEARDUP_RETURN_IF_ERROR(Features(text, &normalized, &feats));
  return sketch::SimHash(feats);
}

}  // namespace neardup::engine
