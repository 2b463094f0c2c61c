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
