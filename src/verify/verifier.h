// SPDX-License-Identifier: Apache-2.0
//
// The verification stage: a pluggable, exact check run on candidate pairs
// before they are clustered. Signals (SimHash, MinHash-LSH, ...) propose
// pairs cheaply and approximately; a Verifier computes a similarity in [0, 1]
// from the two normalized texts and passes the pair when it reaches the
// verifier's threshold.
//
// Built-in verifiers, by spec string "name[:threshold][,key=value...]":
//   jaccard[:0.8][,ngram=5][,word_ngram=1]  exact Jaccard of the shingle sets
//   cosine[:0.9][,ngram=3][,word_ngram=1]   cosine of TF vectors of features
//   levenshtein[:0.8]                       1 - edit distance / longer length
//   lcs[:0.8]                               2 LCS / (|a| + |b|)
//   qbank[:0.8][,other=1.0]                 question-bank rule (question_bank.h);
//                                           the threshold is the Han minimum
// Shingles come from features::CharNgramExtractor. Lengths are in code points.
//
// Thread safety: Verify() is const and safe to call concurrently.
#ifndef NEARDUP_VERIFY_VERIFIER_H_
#define NEARDUP_VERIFY_VERIFIER_H_

#include <memory>
#include <string>
#include <string_view>

#include "neardup/status.h"

namespace neardup::verify {

struct Verdict {
  double similarity = 0.0;
  bool passed = false;
};

class Verifier {
 public:
  virtual ~Verifier() = default;
  // The spec this verifier was built from, canonical ("jaccard:0.8,ngram=5").
  virtual std::string name() const = 0;
  virtual double threshold() const = 0;
  // `a` and `b` are normalized UTF-8 texts. Errors: those of feature
  // extraction (none for the built-in extractor).
  virtual Result<Verdict> Verify(std::string_view a, std::string_view b) const = 0;
};

// Builds a verifier from a spec string (see above).
// Errors: InvalidArgument for an unknown name, a bad threshold (outside
// [0, 1]) or an unknown or bad key.
Result<std::unique_ptr<Verifier>> CreateVerifier(std::string_view spec);

}  // namespace neardup::verify

#endif  // NEARDUP_VERIFY_VERIFIER_H_
