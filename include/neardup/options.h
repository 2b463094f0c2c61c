// SPDX-License-Identifier: Apache-2.0
//
// EngineOptions: every knob of the pipeline. Start from a profile
// (EngineOptions::FromProfile) and override fields; Engine::Create validates.
#ifndef NEARDUP_OPTIONS_H_
#define NEARDUP_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "neardup/status.h"

namespace neardup {

struct EngineOptions {
  // The profile these options came from (informational; see docs/profiles.md).
  std::string profile = "default";

  // --- normalization ---
  bool drop_punctuation = true;       // punctuation and symbols separate tokens
  bool replace_invalid_utf8 = false;  // else ill-formed UTF-8 is InvalidArgument

  // --- features ---
  int ngram = 3;       // characters per feature in Han and other no-space runs
  int word_ngram = 1;  // words per feature in scripts written with spaces

  // --- Chinese text and weights (docs/chinese.md) ---
  bool fold_t2s = false;                // Traditional -> Simplified (OpenCC) after NFKC
  bool t2s_taiwan = false;              // with fold_t2s: Taiwan usage to mainland first (tw2sp)
  std::string features = "char-ngram";  // char-ngram | words | longest-sentence[:N]
  std::string weights = "tf";           // tf | tfidf (jieba's idf.utf8, median for unknowns)
  std::string idf = "jieba";            // tfidf: jieba (idf.utf8) | learned (document
                                        // frequencies of the corpus itself; see Engine::LearnIdf)
  bool learn_idf = false;               // idf=learned: count each added document first (streaming)
  bool drop_stop_words = false;         // words: drop jieba's stop_words.utf8 (with tfidf)
  int min_word_chars = 1;               // words: drop words of fewer characters
  int top_n = 0;                        // tfidf: keep only the N heaviest words; 0 = all
  std::vector<std::string> user_dicts;  // extra jieba user dictionaries for words
  size_t auto_long_chars = 300;         // auto: Han text of this many characters or more
                                        // is zh-news, shorter is zh-short

  // --- index and clustering ---
  int max_distance = 3;         // k: fingerprints within k bits are near-duplicates
  int index_max_distance = -1;  // largest k a query may ask; -1 means max_distance
  size_t max_matches = 100;     // matches returned per Add/Query, nearest first

  // --- signals and verification (docs/algorithms.md) ---
  // Candidate generators, comma-separated, in precedence order (the first that
  // finds a match gives its evidence): exact, simhash, minhash, supershingle,
  // imatch, spotsig. SimHash uses the index above (k = max_distance).
  std::string algorithms = "simhash";
  // A verifier run on every candidate before clustering (src/verify/verifier.h):
  // "levenshtein:0.8", "lcs:0.8", "jaccard:0.8,ngram=5", "cosine:0.9",
  // "qbank:0.8". Empty or "none": candidates are not verified.
  std::string verify;
  int minhash_num_perm = 128;      // minhash: permutations P
  double minhash_threshold = 0.8;  // minhash: Jaccard threshold (LSH bands and estimate)
  int minhash_ngram = 5;           // minhash, supershingle: char n-grams; 0 = the features
  int supershingle_min_equal = 2;  // supershingle: equal super-shingles of 6
  double spotsig_threshold = 0.5;  // spotsig: Jaccard of signature sets
  // spotsig stop words: "en" (built-in English), "zh" (jieba's stop_words.utf8
  // plus English) or a file of one word per line.
  std::string spotsig_stop_words = "en";
  // imatch: the IDF table ("term idf" lines; empty = jieba's idf.utf8, whose
  // terms are words: use features "words") and the band of it kept as the
  // lexicon. The table covers a whole dictionary, so only its most common
  // 0.05% (其中, 认为, ...) are dropped; rare terms are kept.
  std::string imatch_idf;
  double imatch_drop_low = 0.0005;
  double imatch_drop_high = 0.0;
  int imatch_extra_lexicons = 0;  // randomized extra lexicons (Kołcz et al.)

  // True for SimHash alone without verification: the default, and the only
  // configuration DurableEngine persists for now.
  bool SimHashOnly() const;

  // --- limits and resources ---
  size_t max_document_bytes = 64u << 20;  // larger texts are OutOfRange
  int threads = 0;                        // AddBatch fingerprinting threads; 0 = all cores
  std::string data_dir;                   // dictionaries; empty = the built-in default

  // The options of a named profile. Errors: NotFound for an unknown name.
  static Result<EngineOptions> FromProfile(std::string_view name);
  // Names of the built-in profiles.
  static std::vector<std::string> ProfileNames();
};

}  // namespace neardup

#endif  // NEARDUP_OPTIONS_H_
