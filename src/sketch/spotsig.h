// SPDX-License-Identifier: Apache-2.0
//
// SpotSig (Theobald, Siddharth, Paepcke, "SpotSigs: robust and efficient near
// duplicate detection in large web collections", SIGIR 2008). Boilerplate
// (menus, ads, footers) is poor in function words while running prose is rich
// in them, so signatures anchored on stop words describe the article and
// ignore the layout around it.
//
//  - Tokens: words of space-separated scripts; for Han and other no-space
//    runs, the longest stop word starting at each position (greedy forward
//    maximum matching, so 一方面 is one token) or else one character.
//  - A spot signature is an antecedent (a chosen stop word) followed by a
//    chain of `chain_length` non-stop tokens, taking every `spot_distance`-th
//    non-stop token after it; stop words are skipped inside chains. A chain
//    that runs off the end of the text is dropped. "a:rally:kick" reads:
//    antecedent "a", then "rally", then "kick".
//  - The document's signature set is the set of XXH3-64 hashes of these
//    strings (joined by ':'); similarity is the Jaccard of the sets.
//
// SpotSigIndex finds every stored set with Jaccard >= tau exactly, using the
// paper's partitioning and pruning: since J(A,B) <= min/max of the sizes,
// documents are partitioned by set size into ranges [p_k, p_{k+1}) with
// p_{k+1} = floor(p_k / tau) + 1, and a query of size n visits only
// partitions meeting [tau*n, n/tau]. Inside a partition an inverted index maps
// signatures to ids; a match must share >= ceil(tau*n) of the query's n
// signatures, so probing the n - ceil(tau*n) + 1 shortest posting lists finds
// every candidate (the longest lists are never read). Candidates are checked
// by an exact merge of the sorted sets.
//
// Stop words: English uses a small built-in list; Chinese loads
// stop_words.utf8 of cppjieba (data/nodejieba/submodules/cppjieba/dict/) at
// run time and anchors on a built-in handful of frequent function words.
//
// Thread safety: SpotSigExtractor is immutable and thread-safe; SpotSigIndex
// needs external synchronization for writers.
#ifndef NEARDUP_SKETCH_SPOTSIG_H_
#define NEARDUP_SKETCH_SPOTSIG_H_

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "neardup/status.h"

namespace neardup::sketch {

struct SpotSigOptions {
  std::vector<std::string> antecedents;  // normalized (case-folded) tokens
  std::vector<std::string> stop_words;   // skipped inside chains; antecedents are added
  int chain_length = 2;                  // c >= 1
  int spot_distance = 1;                 // d >= 1
};

// The built-in English antecedents (a, an, the, is, was, ...) and stop words.
SpotSigOptions EnglishSpotSigOptions();
// Chinese stop words from `stop_words_path` (one per line, UTF-8) plus the
// English ones; antecedents are the built-in Chinese function words (的 是 在
// ...) that the file lists, plus the English antecedents.
// Errors: IOError if the file cannot be read; InvalidArgument if it has no
// Chinese antecedent.
Result<SpotSigOptions> ChineseSpotSigOptions(const std::string& stop_words_path);
// Reads a stop-word file: one word per line, trimmed, ASCII lower-cased,
// empty lines skipped. Errors: IOError.
Result<std::vector<std::string>> LoadStopWords(const std::string& path);

class SpotSigExtractor {
 public:
  // Errors: InvalidArgument for no antecedents or c, d < 1.
  static Result<SpotSigExtractor> Create(const SpotSigOptions& options);

  // Splits normalized text into tokens (views into `normalized`).
  void Tokenize(std::string_view normalized, std::vector<std::string_view>* tokens) const;
  // The spot signatures as readable strings, in text order (with repeats).
  std::vector<std::string> ExtractStrings(std::string_view normalized) const;
  // The sorted, distinct signature hashes.
  std::vector<uint64_t> Extract(std::string_view normalized) const;

 private:
  SpotSigExtractor(const SpotSigOptions& options);
  bool IsStop(std::string_view token) const;
  bool IsAntecedent(std::string_view token) const;

  SpotSigOptions options_;
  std::unordered_set<uint64_t> stop_;         // token hashes
  std::unordered_set<uint64_t> antecedents_;  // token hashes
  size_t max_stop_chars_ = 1;                 // longest no-space stop word, code points
};

}  // namespace neardup::sketch

#endif  // NEARDUP_SKETCH_SPOTSIG_H_
