// SPDX-License-Identifier: Apache-2.0
// Built-in profiles: named bundles of EngineOptions (docs/profiles.md).
#include "neardup/options.h"

namespace neardup {

bool EngineOptions::SimHashOnly() const {
  return algorithms == "simhash" && (verify.empty() || verify == "none");
}

std::vector<std::string> EngineOptions::ProfileNames() {
  return {"default", "zh-news", "zh-short", "en-news", "auto"};
}

Result<EngineOptions> EngineOptions::FromProfile(std::string_view name) {
  EngineOptions o;
  o.profile = std::string(name);
  if (name == "default") return o;  // character 3-grams / words, TF, SimHash, k=3
  if (name == "zh-news") {
    // Chinese news: jieba words of 2+ characters, stop words dropped, TF-IDF
    // with jieba's idf.utf8, Traditional (and Taiwan usage) folded to Simplified, SimHash.
    // k=5, chosen from measurements (docs/quality.md): on the reprint set F1 is 0.86 at
    // k=3 and 0.962 at k=5 with precision 0.995; on the Tang editions precision is 0.988.
    o.fold_t2s = true;
    o.t2s_taiwan = true;
    o.features = "words";
    o.weights = "tfidf";
    o.drop_stop_words = true;
    o.min_word_chars = 2;
    o.max_distance = 5;
    return o;
  }
  if (name == "zh-short") {
    // Short Chinese texts (titles, questions, posts, poems): too few words
    // for TF-IDF, so character 3-grams with TF, T2S folded (the fingerprint,
    // k=3). SimHash at k=3 misses most short near-duplicates, so candidates
    // come from exact hashes and MinHash-LSH at Jaccard 0.5 (character
    // 5-grams), verified by edit distance >= 0.9: Tang, recall 0.51 -> 0.79
    // at precision 0.9999 (docs/quality.md, "zh-short"). The durable store
    // takes SimHash only (`neardup serve` drops the rest, with a note).
    o.fold_t2s = true;
    o.t2s_taiwan = true;
    o.features = "char-ngram";
    o.ngram = 3;
    o.max_distance = 3;
    o.algorithms = "exact,minhash";
    o.minhash_threshold = 0.5;
    o.verify = "levenshtein:0.9";
    return o;
  }
  if (name == "en-news") {
    // English (and other spaced scripts) news: ICU words in 2-word shingles,
    // which keep word order, TF, k=3.
    o.features = "char-ngram";
    o.word_ngram = 2;
    o.max_distance = 3;
    return o;
  }
  if (name == "auto") {
    // Per document: mostly Han and long -> zh-news; mostly Han and short ->
    // zh-short; otherwise en-news (engine/pipeline.cc). Folding applies to all.
    o.fold_t2s = true;
    o.t2s_taiwan = true;
    return o;
  }
  std::string known;
  for (const auto& n : ProfileNames()) known += (known.empty() ? "" : ", ") + n;
  return Status::NotFound("unknown profile '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace neardup
