// SPDX-License-Identifier: Apache-2.0
//
// Pipeline: the stateless front half of the engine, built once from
// EngineOptions: text -> normalized text -> weighted features (for SimHash
// and I-Match) and shingles (for MinHash, super-shingles and verification).
// Every tool that needs these (the engine, batch dedup, `neardup segment`,
// `truth`, `explain`) calls this one object, so they cannot drift apart.
//
// Thread safety: every method is const and safe from many threads.
#ifndef NEARDUP_PIPELINE_PIPELINE_H_
#define NEARDUP_PIPELINE_PIPELINE_H_

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "features/anchors.h"
#include "features/feature.h"
#include "features/shingles.h"
#include "features/tfidf.h"
#include "features/word_extractor.h"
#include "neardup/options.h"
#include "neardup/status.h"
#include "normalize/normalizer.h"

namespace neardup::pipeline {

// What the pipeline makes of one text. Reused across calls to avoid
// allocation.
struct Processed {
  std::string normalized;
  std::vector<features::Feature> features;  // only if the pipeline needs them
  std::vector<uint64_t> shingles;           // ascending, distinct; only if needed
  // With the boilerplate guard, for texts of more than short_chars bytes:
  // the shingles in text order as ranks in `shingles` and their anchors
  // (features/anchors.h).
  std::vector<uint32_t> sequence;
  std::vector<features::Anchor> anchors;
  uint64_t fingerprint = 0;  // SimHash-64, or XXH3-64 of normalized
  // Mixed into the MinHash band keys (sketch::SaltedBandKey); 0 = none. Set
  // when the verifier demands an exact part (the question-bank rule with
  // qbank_other_min = 1): the hash of that part (verify::OtherPartKey).
  uint64_t key_salt = 0;
  // verify::Expressions() of the original text, for the short-text fact
  // rule (VerifyOptions::short_numbers); filled only for texts that rule
  // reads (at most short_chars code points normalized), else empty.
  std::string expressions;
  bool has_expressions = false;
  std::optional<std::string_view> Expressions() const {
    return has_expressions ? std::optional<std::string_view>(expressions) : std::nullopt;
  }
};

class Pipeline {
 public:
  // `needs_features` / `needs_shingles`: which outputs Process() fills.
  // Errors: InvalidArgument for bad options; errors of loading data files.
  static Result<std::unique_ptr<Pipeline>> Create(const EngineOptions& options, bool needs_features,
                                                  bool needs_shingles);

  // Errors: InvalidArgument (ill-formed UTF-8), OutOfRange (too large).
  Status Process(std::string_view text, Processed* out) const;
  // Makes Process() fill Processed::sequence and anchors for texts whose
  // normalized form has more than `bytes` bytes (the engine's boilerplate
  // guard). Call before the pipeline is shared.
  void KeepAnchors(size_t bytes) { anchors_above_ = bytes; }
  Status Normalize(std::string_view text, std::string* out) const;
  // `text` with each character normalized on its own: one code point out
  // per code point in, the character itself where its fold is not exactly
  // one code point (dropped punctuation, expansions). Errors: as Normalize.
  Status FoldCharacters(std::string_view text, std::string* out) const;
  // out->shingles of out->normalized, with its sequence and anchors when
  // KeepAnchors() asks for them, as Process() makes them.
  void ShinglesOf(Processed* out) const;
  // Shingles of a normalized text.
  void Shingles(std::string_view normalized, std::vector<uint64_t>* out) const {
    shingler_->Shingle(normalized, out);
  }
  // Weighted features of a normalized text.
  Status Features(std::string_view normalized, std::vector<features::Feature>* out) const;
  // Words of a text as `neardup segment` prints them: jieba words of Han,
  // ICU words elsewhere, after this pipeline's normalization.
  Status Words(std::string_view text, std::vector<std::string>* out) const;

  // The document fingerprint: SimHash-64 of the features when the pipeline
  // has them, else XXH3-64 of the normalized text.
  uint64_t FingerprintOf(const Processed& p) const;
  Result<uint64_t> Fingerprint(std::string_view text) const;

  // Learned IDF (IdfSource::kLearned): counts each distinct feature of
  // `text` once. Errors: as Process(); FailedPrecondition otherwise.
  Status Learn(std::string_view text) const;
  std::shared_ptr<features::DocumentFrequencyTable> learned_idf() const { return df_; }

  // verify::Expressions() of `text` into *out when the fact rule reads them
  // (VerifyOptions::short_numbers with kSimilarity, and `normalized`, the
  // text normalized, of at most short_chars code points); false otherwise.
  bool Expressions(std::string_view text, std::string_view normalized, std::string* out) const;

  bool has_features() const { return needs_features_; }
  const features::Shingler& shingler() const { return *shingler_; }

 private:
  Pipeline() = default;
  Status CheckSize(std::string_view text) const;
  size_t max_bytes_ = 0;
  bool needs_features_ = false, needs_shingles_ = false, salt_keys_ = false;
  int expressions_below_ = -1;       // code points; -1: no expressions
  size_t anchors_above_ = SIZE_MAX;  // bytes of normalized text (KeepAnchors)
  std::unique_ptr<normalize::Normalizer> normalizer_;
  std::unique_ptr<features::FeatureExtractor> extractor_;
  std::unique_ptr<features::Weighter> weighter_;          // null: term frequency
  std::shared_ptr<features::DocumentFrequencyTable> df_;  // learned IDF only
  std::unique_ptr<features::Shingler> shingler_;
  // Words(): built on first use.
  mutable std::once_flag words_once_;
  mutable Status words_status_;
  mutable std::unique_ptr<features::WordExtractor> words_;
  mutable std::shared_ptr<const features::StopWords> stop_words_;
  EngineOptions options_;
};

// Whether the options salt MinHash band keys with the exact part of a text
// (Processed::key_salt): the question-bank verifier with qbank_other_min >= 1.
bool SaltsKeys(const EngineOptions& options);

// The shingle spec of the options, for the features module.
features::ShingleSpec ToShingleSpec(const ShingleOptions& s);

}  // namespace neardup::pipeline

#endif  // NEARDUP_PIPELINE_PIPELINE_H_
