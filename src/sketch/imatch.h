// SPDX-License-Identifier: Apache-2.0
//
// I-Match (Chowdhury, Frieder, Grossman, McCabe, "Collection statistics for
// fast duplicate document detection", ACM TOIS 20(2), 2002). A lexicon keeps
// the terms of a band of IDF values: sorted by IDF, the lowest `drop_low`
// fraction (very common terms) and the highest `drop_high` fraction (rare
// terms, typos, ids) are dropped. A document's signature is a strong hash of
// its sorted set of distinct lexicon terms, so word order, repetition and
// out-of-lexicon terms do not matter; documents with equal signatures are
// near-duplicates. Documents with fewer than `min_terms` lexicon terms get no
// signature (the original's guard against tiny, unreliable term sets).
//
// Randomized lexicons (Kołcz, Chowdhury, Alspector, "Improved robustness of
// signature-based near-replica detection via lexicon randomization", KDD
// 2004): K extra lexicons each drop a random `extra_drop` fraction of the main
// lexicon; a document gets K+1 signatures and two documents match when any
// signature (at the same position) is equal. This recovers pairs that differ
// in one lexicon term.
//
// Terms are 64-bit term hashes (features::HashFeature of words or n-grams).
// Signature = XXH3-128(seed = lexicon number) of the sorted distinct kept
// term hashes (little-endian uint64 array). Extra lexicon k keeps term t when
// Mix64(t ^ seed_k) >= extra_drop * 2^64, so it needs no storage.
//
// Thread safety: DocumentFrequencies is a plain accumulator (one writer);
// IMatcher is immutable after Create() and thread-safe.
#ifndef NEARDUP_SKETCH_IMATCH_H_
#define NEARDUP_SKETCH_IMATCH_H_

#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "neardup/status.h"
#include "sketch/exact_hash.h"

namespace neardup::sketch {

// Document frequencies over a collection, for building a lexicon.
class DocumentFrequencies {
 public:
  // Counts each distinct term of one document once.
  void AddDocument(std::span<const uint64_t> terms);
  size_t num_documents() const { return num_documents_; }
  const std::unordered_map<uint64_t, uint32_t>& df() const { return df_; }

 private:
  size_t num_documents_ = 0;
  std::unordered_map<uint64_t, uint32_t> df_;
};

struct IMatchOptions {
  double drop_low = 0.1;   // fraction of lexicon terms with the lowest IDF dropped
  double drop_high = 0.1;  // fraction with the highest IDF dropped
  size_t min_terms = 3;    // fewer lexicon terms -> no signature
  int extra_lexicons = 0;  // K randomized lexicons (Kołcz et al.)
  double extra_drop = 0.33;
  uint64_t seed = 1;
};

class IMatcher {
 public:
  // Builds the lexicon from collection statistics: idf(t) = ln(N / df(t)).
  // Errors: InvalidArgument for fractions outside [0, 1) or summing to >= 1,
  // or an empty collection.
  static Result<IMatcher> FromDocumentFrequencies(const DocumentFrequencies& df,
                                                  const IMatchOptions& options);
  // Builds the lexicon from given (term hash, idf) pairs, e.g. a stored IDF
  // table. Same errors as above.
  static Result<IMatcher> FromIdf(std::vector<std::pair<uint64_t, double>> idf,
                                  const IMatchOptions& options);

  // K+1 signatures: [0] from the main lexicon, [k] from extra lexicon k.
  // nullopt where the document has fewer than min_terms lexicon terms.
  std::vector<std::optional<Hash128>> Signatures(std::span<const uint64_t> terms) const;

  bool InLexicon(uint64_t term) const { return lexicon_.contains(term); }
  size_t lexicon_size() const { return lexicon_.size(); }
  const IMatchOptions& options() const { return options_; }

 private:
  IMatcher(const IMatchOptions& options, std::unordered_set<uint64_t> lexicon);
  bool InExtra(uint64_t term, int k) const;

  IMatchOptions options_;
  std::unordered_set<uint64_t> lexicon_;
  std::vector<uint64_t> extra_seeds_;
  uint64_t extra_cut_;  // keep when Mix64(t ^ seed) >= extra_cut_
};

// True when any position holds equal, present signatures.
bool IMatchSignaturesMatch(std::span<const std::optional<Hash128>> a,
                           std::span<const std::optional<Hash128>> b);

}  // namespace neardup::sketch

#endif  // NEARDUP_SKETCH_IMATCH_H_
