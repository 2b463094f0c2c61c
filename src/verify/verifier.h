// SPDX-License-Identifier: Apache-2.0
//
// The verification stage: an exact similarity in [0, 1] of a candidate pair,
// computed from the two normalized texts, and a threshold that decides it.
// Signals (SimHash, MinHash-LSH, ...) propose pairs cheaply and
// approximately; a Verifier decides them.
//
//   kSimilarity   max(Jaccard of the shingle sets, Levenshtein similarity
//                 when both texts have <= short_chars code points): set overlap
//                 for articles (robust to moved paragraphs), edit distance for
//                 short texts (one changed character in ten is 0.9, not the
//                 ~0.5 of its 3-gram sets).
//   kJaccard      |A n B| / |A u B| of the shingle sets (base/sorted_set.h)
//   kContainment  |A n B| / min(|A|, |B|): a truncated copy scores 1
//   kCosine       |A n B| / sqrt(|A| |B|) of the shingle sets
//   kLevenshtein  1 - edit distance / longer length (Myers' bit-parallel)
//   kLcs          2 LCS / (|a| + |b|)
//   kQbank        the question-bank rule (question_bank.h): the non-Han parts
//                 must reach qbank_other_min, the Han parts the threshold;
//                 the similarity is the smaller of the two
// Lengths are in code points. Shingles come from features::Shingler; a side
// may bring its shingles precomputed.
//
// Thread safety: Verify() is const and safe to call concurrently.
#ifndef NEARDUP_VERIFY_VERIFIER_H_
#define NEARDUP_VERIFY_VERIFIER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "features/shingles.h"
#include "neardup/status.h"

namespace neardup::verify {

struct VerifierSpec {
  enum class Kind {
    kSimilarity,
    kJaccard,
    kContainment,
    kCosine,
    kLevenshtein,
    kLcs,
    kQbank
  } kind = Kind::kSimilarity;
  double threshold = 0.6;
  features::ShingleSpec shingles{};  // set kinds
  int short_chars = 200;           // kSimilarity
  double qbank_other_min = 1.0;    // kQbank
};

// One text of a pair: its normalized form and, optionally, its shingles.
struct Side {
  std::string_view normalized;
  std::optional<std::span<const uint64_t>> shingles = std::nullopt;  // none: computed
};

struct Verdict {
  double similarity = 0.0;
  bool passed = false;
};

class Verifier {
 public:
  // Errors: InvalidArgument for a threshold outside [0, 1] or bad shingles.
  static Result<std::unique_ptr<Verifier>> Create(const VerifierSpec& spec);

  Verdict Verify(const Side& a, const Side& b) const;
  Verdict Verify(std::string_view a, std::string_view b) const { return Verify(Side{a}, Side{b}); }

  const VerifierSpec& spec() const { return spec_; }
  double threshold() const { return spec_.threshold; }
  // Whether Verify() reads shingles (the set kinds and kSimilarity).
  bool uses_shingles() const;
  const features::Shingler& shingler() const { return *shingler_; }

 private:
  Verifier(const VerifierSpec& spec, std::unique_ptr<features::Shingler> s)
      : spec_(spec), shingler_(std::move(s)) {}
  double Similarity(const Side& a, const Side& b) const;
  VerifierSpec spec_;
  std::unique_ptr<features::Shingler> shingler_;
};

}  // namespace neardup::verify

#endif  // NEARDUP_VERIFY_VERIFIER_H_
