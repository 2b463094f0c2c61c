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
//                 ~0.5 of its 3-gram sets). With short_numbers, two texts of
//                 <= short_chars code points with a number replaced
//                 (numbers.h) have similarity 0: "3+5" is not "3+6"; with
//                 short_words, likewise a replaced Latin word in mostly-Han
//                 texts ("求 x" is not "求 y").
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
  int short_chars = 200;             // kSimilarity
  // kSimilarity: one edit costs this many times its share of the text, so
  // the edit similarity E counts as 1 - edit_weight * (1 - E). A changed
  // character removes and adds about n shingles of n characters, so 1 keeps
  // E as is and about 3 puts it on the scale of 3-gram Jaccard.
  double edit_weight = 1.0;
  // kSimilarity: texts of <= short_chars code points (both) with a number
  // replaced are not near-duplicates (numbers.h).
  bool short_numbers = false;
  // kSimilarity: texts of <= short_chars code points (both), mostly Han,
  // with a Latin word replaced are not near-duplicates (numbers.h).
  bool short_words = false;
  double qbank_other_min = 1.0;  // kQbank
  // kSimilarity: > 0 turns on the containment rule (below); 0 = off.
  double containment = 0.0;
};

// One text of a pair: its normalized form and, optionally, its shingles and
// its length in code points. A side read from a verification form (form.h)
// may lack the text where the verifier does not read it.
struct Side {
  std::string_view normalized;
  std::optional<std::span<const uint64_t>> shingles = std::nullopt;  // none: computed
  std::optional<size_t> code_points = std::nullopt;                  // none: counted
  // Expressions(original text) (numbers.h), read by the short-text fact
  // rule; none: unknown (the rule skips expressions for the pair).
  std::optional<std::string_view> expressions = std::nullopt;
  // The size of the whole shingle set when `shingles` holds it cut short
  // (verify/form.h Narrow): the set measures take the sides' sizes from it.
  std::optional<size_t> shingle_count = std::nullopt;
  // Shingles of this side found to be boilerplate (verify/boilerplate.h),
  // ascending, cut as `shingles` are; empty: none known.
  std::span<const uint64_t> boilerplate = {};
};

// The boilerplate guard of kSimilarity (boilerplate.h): for texts that are
// not both short, the shingles either side marks as boilerplate are left
// out of both sets, and when either set keeps at least kMinOwnShingles the
// similarity is the Jaccard of what they keep. A page of a site's header and
// footer is then not a near-duplicate of every story that site runs, and
// two copies of a story under different footers are.
inline constexpr size_t kMinOwnShingles = 16;

// The sizes of the two sets and their intersection with the boilerplate of
// either side left out (`union_bp`: both sides' boilerplate, ascending).
struct OwnSizes {
  size_t common, a, b;
};
OwnSizes OwnSetSizes(std::span<const uint64_t> x, std::span<const uint64_t> y,
                     std::span<const uint64_t> union_bp, size_t na, size_t nb, size_t common);
// The ascending union of the two sides' boilerplate (one of them when the
// other has none), in *scratch when both have some.
std::span<const uint64_t> BoilerplateOf(const Side& a, const Side& b,
                                        std::vector<uint64_t>* scratch);

// The containment rule of kSimilarity: for texts that are not both short,
// a pair whose similarity is under the threshold still passes when the
// smaller text keeps at least kMinContainedShingles shingles of its own
// (boilerplate left out, as above) and at least `containment` of them lie
// in the larger: an excerpt of a story, or a story with a paragraph added.
// The size floor keeps a shared ad line or source line from making a
// "contained" document; the batch clusters take such a pair as a
// containment edge (batch/clusters.h), which never joins two clusters of
// unrelated larger texts.
inline constexpr size_t kMinContainedShingles = 100;

// The containment rule on the own sets of a long pair (OwnSetSizes): shared
// / the smaller set (-1 when it keeps fewer than kMinContainedShingles), and
// whether that reaches `containment`. Verify() and Explain() both decide by it.
struct ContainmentMeasure {
  double value = -1.0;
  bool passed = false;
};
ContainmentMeasure MeasureContainment(const OwnSizes& own, double containment);

struct Verdict {
  double similarity = 0.0;
  bool passed = false;
  // Passed by the containment rule (the similarity is under the threshold);
  // which side is the smaller (contained) one: 'a' or 'b', else 0.
  bool contained = false;
  char smaller = 0;
  // The containment the rule measured (shared / the smaller's own
  // shingles), when it measured one: a long pair under the threshold whose
  // smaller text is large enough; else -1.
  double containment = -1.0;
};

// How a verdict was reached, for explain (verdict_steps.cc).
struct VerdictSteps {
  // The arithmetic, one step a line: "jaccard = shared / union = 2 / 6 =
  // 0.333", "edit similarity = 1 - 2 edits / 12 = 0.833", ..., and the
  // comparison with the threshold.
  std::vector<std::string> steps;
  // The decisive reason in words when it is not the similarity against the
  // threshold: for qbank, which part differs ("the digits differ: 3+5 vs
  // 3+6"); empty otherwise.
  std::string reason;
  // Which rule `reason` is of: none (the similarity against the threshold
  // decided), the containment rule ("0.911 of the smaller text's 158
  // shingles lie in the larger (>= 0.800)"), the boilerplate guard (its
  // text was left out of the sets) or the parts of short texts (qbank and
  // the fact rule: a number or a word differs).
  enum class Rule : uint8_t { kThreshold, kContainment, kBoilerplate, kParts };
  Rule rule = Rule::kThreshold;
};

class Verifier {
 public:
  // Errors: InvalidArgument for a threshold outside [0, 1] or bad shingles.
  static Result<std::unique_ptr<Verifier>> Create(const VerifierSpec& spec);

  Verdict Verify(const Side& a, const Side& b) const;
  Verdict Verify(std::string_view a, std::string_view b) const { return Verify(Side{a}, Side{b}); }
  // Verify's arithmetic on the same pair; its last step is Verify's verdict.
  VerdictSteps Explain(const Side& a, const Side& b) const;

  const VerifierSpec& spec() const { return spec_; }
  double threshold() const { return spec_.threshold; }
  // Whether Verify() reads shingles (the set kinds and kSimilarity).
  bool uses_shingles() const;
  // Whether Verify() reads the normalized text of a side of `code_points`
  // code points (besides its shingles and length).
  bool reads_text(size_t code_points) const;
  const features::Shingler& shingler() const { return *shingler_; }

 private:
  Verifier(const VerifierSpec& spec, std::unique_ptr<features::Shingler> s)
      : spec_(spec), shingler_(std::move(s)) {}
  double Similarity(const Side& a, const Side& b, Verdict* contained = nullptr) const;
  VerifierSpec spec_;
  std::unique_ptr<features::Shingler> shingler_;
};

}  // namespace neardup::verify

#endif  // NEARDUP_VERIFY_VERIFIER_H_
