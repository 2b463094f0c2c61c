// SPDX-License-Identifier: Apache-2.0
//
// Verifier::Explain: the arithmetic behind Verify(), step by step, so that
// `neardup explain` shows how the measures it prints make the decided
// similarity (for kSimilarity: max(Jaccard, 1 - edit_weight x (1 - edit
// similarity)) for short texts). It recomputes what Verify computes, in the
// same order and with the same functions; verifier_test.cc checks that the
// last step agrees with Verify.
#include <unicode/uchar.h>

#include <cmath>
#include <cstdio>

#include "base/sorted_set.h"
#include "base/utf8.h"
#include "verify/edit_distance.h"
#include "verify/numbers.h"
#include "verify/question_bank.h"
#include "verify/verifier.h"

namespace neardup::verify {
namespace {

using Kind = VerifierSpec::Kind;

std::string Fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

std::string N(size_t n) { return std::to_string(n); }

// Up to 40 code points of `s` as UTF-8, quoted.
std::string Quote(std::u32string_view s) {
  std::string out = "'";
  for (size_t i = 0; i < s.size() && i < 40; ++i)
    base::AppendUtf8(static_cast<int32_t>(s[i]), &out);
  return out + (s.size() > 40 ? "...'" : "'");
}

std::string Comparison(double similarity, double threshold) {
  return "similarity " + Fmt(similarity) + (similarity >= threshold ? " >= " : " < ") +
         "threshold " + Fmt(threshold) + (similarity >= threshold ? ": passes" : ": fails");
}

// "edit similarity = 1 - D edits / L characters = E" of two code point strings.
std::string EditStep(const std::string& what, std::u32string_view a, std::u32string_view b) {
  const size_t longer = std::max(a.size(), b.size());
  if (longer == 0) return what + " = 1 (both empty)";
  const size_t d = LevenshteinDistance(a, b);
  return what + " = 1 - " + N(d) + (d == 1 ? " edit / " : " edits / ") + N(longer) +
         " characters = " + Fmt(LevenshteinSimilarity(a, b));
}

// Which kinds of characters differ between two other parts: digits, letters
// and the rest (operators, symbols, units), each compared in order.
std::string OtherDifference(std::u32string_view a, std::u32string_view b) {
  auto only = [](std::u32string_view s, int kind) {
    std::u32string out;
    for (char32_t c : s) {
      const int k = u_isdigit(static_cast<UChar32>(c))   ? 0
                    : u_isalpha(static_cast<UChar32>(c)) ? 1
                                                         : 2;
      if (k == kind) out.push_back(c);
    }
    return out;
  };
  static constexpr const char* kNames[] = {"digits", "letters", "operators and symbols"};
  std::vector<std::string> differ;
  for (int k = 0; k < 3; ++k) {
    if (only(a, k) != only(b, k)) differ.push_back(kNames[k]);
  }
  std::string what;
  for (size_t i = 0; i < differ.size(); ++i) {
    what += (i == 0 ? "" : i + 1 == differ.size() ? " and " : ", ") + differ[i];
  }
  if (what.empty()) return "the digits, letters and operators are in another order";
  return "the " + what + " differ";
}

VerdictSteps ExplainQbank(std::string_view a, std::string_view b, const VerifierSpec& spec) {
  const QuestionBankOptions o{.han_min = spec.threshold, .other_min = spec.qbank_other_min};
  const QuestionBankComparison c = CompareQuestions(a, b, o);
  const HanSplit x = SplitHan(c.a), y = SplitHan(c.b);
  const QuestionBankResult& r = c.result;
  VerdictSteps v;
  if (c.options_sorted) {
    v.steps.push_back("the options are in another order: compared with their bodies sorted");
  }
  v.steps.push_back("other part (digits, letters, operators): " + Quote(x.other) + " vs " +
                    Quote(y.other));
  v.steps.push_back(EditStep("other similarity", x.other, y.other) +
                    ", needs >= " + Fmt(spec.qbank_other_min));
  v.steps.push_back("Han part: " + Quote(x.han) + " vs " + Quote(y.han));
  v.steps.push_back(EditStep("Han edit similarity", x.han, y.han) +
                    ", needs >= " + Fmt(spec.threshold));
  v.steps.push_back("similarity = min(other " + Fmt(r.other_similarity) + ", Han " +
                    Fmt(r.han_similarity) +
                    ") = " + Fmt(std::min(r.han_similarity, r.other_similarity)));
  const bool other_ok = r.other_similarity >= spec.qbank_other_min;
  const bool han_ok = r.han_similarity >= spec.threshold;
  if (!other_ok) {
    v.reason = OtherDifference(x.other, y.other) + " (" + Quote(x.other) + " vs " + Quote(y.other) +
               "), so they are different questions";
  } else if (!han_ok) {
    v.reason = "the Han text differs: edit similarity " + Fmt(r.han_similarity) + " < " +
               Fmt(spec.threshold);
  } else {
    v.reason = "digits, letters and operators " +
               std::string(r.other_similarity >= 1.0 ? "equal" : "close enough") +
               ", Han edit similarity " + Fmt(r.han_similarity) + " >= " + Fmt(spec.threshold);
  }
  v.rule = VerdictSteps::Rule::kParts;
  v.steps.push_back(r.passed ? "passes: " + v.reason : "fails: " + v.reason);
  return v;
}

// The containment rule's step (verifier.h) on the own sets of a long pair
// under the threshold; true (and the reason set) when it passes them.
bool ExplainContainment(const OwnSizes& own, double containment, VerdictSteps* v) {
  const size_t smaller = std::min(own.a, own.b);
  const double c = smaller == 0 ? 0.0 : static_cast<double>(own.common) / smaller;
  std::string step = "containment of the smaller text = shared / its shingles = " + N(own.common) +
                     " / " + N(smaller) + " = " + Fmt(c);
  const ContainmentMeasure m = MeasureContainment(own, containment);
  if (m.value < 0) {
    v->steps.push_back(step + "; the smaller text has fewer than " + N(kMinContainedShingles) +
                       " shingles of its own: no containment");
    return false;
  }
  if (!m.passed) {
    v->steps.push_back(step + " < containment " + Fmt(containment) + ": not contained");
    return false;
  }
  v->reason = Fmt(c) + " of the smaller text's " + N(smaller) +
              " shingles lie in the larger (>= " + Fmt(containment) + ")";
  v->rule = VerdictSteps::Rule::kContainment;
  v->steps.push_back(step + " >= containment " + Fmt(containment) + ": contained");
  return true;
}

}  // namespace

VerdictSteps Verifier::Explain(const Side& a, const Side& b) const {
  if (spec_.kind == Kind::kQbank) return ExplainQbank(a.normalized, b.normalized, spec_);
  VerdictSteps v;
  const double t = spec_.threshold;
  const std::u32string ca = DecodeCodePoints(a.normalized), cb = DecodeCodePoints(b.normalized);
  if (spec_.kind == Kind::kLevenshtein) {
    v.steps.push_back(EditStep("edit similarity", ca, cb));
    v.steps.push_back(Comparison(LevenshteinSimilarity(ca, cb), t));
    return v;
  }
  if (spec_.kind == Kind::kLcs) {
    const double r = LcsRatio(ca, cb);
    v.steps.push_back("LCS ratio = 2 x " + N(LcsLength(ca, cb)) + " common / (" + N(ca.size()) +
                      " + " + N(cb.size()) + " characters) = " + Fmt(r));
    v.steps.push_back(Comparison(r, t));
    return v;
  }
  std::vector<uint64_t> sa, sb;
  if (!a.shingles) shingler_->Shingle(a.normalized, &sa);
  if (!b.shingles) shingler_->Shingle(b.normalized, &sb);
  const std::span<const uint64_t> x = a.shingles ? *a.shingles : std::span<const uint64_t>(sa);
  const std::span<const uint64_t> y = b.shingles ? *b.shingles : std::span<const uint64_t>(sb);
  const size_t shared = SortedIntersectionSize(x, y);
  const std::string sets = " (shingle sets of " + N(x.size()) + " and " + N(y.size()) + ")";
  double s = 0;
  bool contained = false;
  switch (spec_.kind) {
    case Kind::kContainment:
      s = SortedSetContainment(x, y);
      v.steps.push_back("containment = shared / smaller set = " + N(shared) + " / " +
                        N(std::min(x.size(), y.size())) + " = " + Fmt(s) + sets);
      break;
    case Kind::kCosine:
      s = Similarity(Side{a.normalized, x}, Side{b.normalized, y});
      v.steps.push_back("cosine = shared / sqrt(" + N(x.size()) + " x " + N(y.size()) +
                        ") = " + N(shared) + " / " + Fmt(std::sqrt(double(x.size()) * y.size())) +
                        " = " + Fmt(s));
      break;
    default: {
      s = SortedSetJaccard(x, y);
      v.steps.push_back("jaccard = shared / union = " + N(shared) + " / " +
                        N(x.size() + y.size() - shared) + " = " + Fmt(s) + sets);
      if (spec_.kind != Kind::kSimilarity) break;
      const size_t limit = static_cast<size_t>(spec_.short_chars);
      const FactSide fa{a.normalized, a.expressions}, fb{b.normalized, b.expressions};
      const Fact fact = ca.size() <= limit && cb.size() <= limit
                            ? ChangedFact(fa, fb, spec_.short_numbers, spec_.short_words)
                            : Fact::kNone;
      if (fact != Fact::kNone) {
        v.reason = std::string(FactName(fact)) + " differs (" + FactList(fa, fact) + " vs " +
                   FactList(fb, fact) + ") in texts of " + N(ca.size()) + " and " + N(cb.size()) +
                   " characters, up to short_chars " + N(limit) + ", so they state different facts";
        v.rule = VerdictSteps::Rule::kParts;
        v.steps.push_back(v.reason + ": the similarity is 0");
        s = 0;
      } else if (ca.size() > limit || cb.size() > limit) {
        std::vector<uint64_t> scratch;
        const std::span<const uint64_t> u = BoilerplateOf(a, b, &scratch);
        const OwnSizes own = OwnSetSizes(x, y, u, x.size(), y.size(), shared);
        if (!u.empty() && std::max(own.a, own.b) >= kMinOwnShingles) {
          s = JaccardOfSizes(own.common, own.a, own.b);
          v.reason = "boilerplate left out: " + N(x.size() - own.a) + " and " +
                     N(y.size() - own.b) + " shingles lie in text that " +
                     "many unrelated documents repeat";
          v.rule = VerdictSteps::Rule::kBoilerplate;
          v.steps.push_back(v.reason);
          v.steps.push_back("jaccard of the rest = shared / union = " + N(own.common) + " / " +
                            N(own.a + own.b - own.common) + " = " + Fmt(s) + " (sets of " +
                            N(own.a) + " and " + N(own.b) + "): the similarity");
        } else if (!u.empty()) {
          v.steps.push_back("both texts are nearly all boilerplate (fewer than " +
                            N(kMinOwnShingles) + " other shingles): the similarity is the jaccard");
        } else if (s >= t) {
          v.steps.push_back("jaccard >= threshold: the similarity is the jaccard");
        } else {
          v.steps.push_back("texts of " + N(ca.size()) + " and " + N(cb.size()) +
                            " characters, over short_chars " + N(limit) +
                            ": no edit similarity, the similarity is the jaccard");
        }
        if (s < t && spec_.containment > 0) {
          contained = ExplainContainment(own, spec_.containment, &v);
        }
      } else if (s >= t) {
        v.steps.push_back("jaccard >= threshold: the similarity is the jaccard");
      } else {
        const double e = LevenshteinSimilarity(ca, cb);
        const double w = std::max(0.0, 1.0 - spec_.edit_weight * (1.0 - e));
        v.steps.push_back(EditStep("edit similarity", ca, cb) + " (texts up to short_chars " +
                          N(limit) + ")");
        v.steps.push_back("weighted edit similarity = max(0, 1 - edit_weight " +
                          Fmt(spec_.edit_weight) + " x (1 - " + Fmt(e) + ")) = " + Fmt(w));
        s = std::max(s, w);
        v.steps.push_back("similarity = max(jaccard, weighted edit similarity) = " + Fmt(s));
      }
    }
  }
  if (contained) {
    v.steps.push_back("similarity " + Fmt(s) + " < threshold " + Fmt(t) +
                      ", but containment: " + v.reason + ": passes");
  } else {
    v.steps.push_back(Comparison(s, t));
  }
  return v;
}

}  // namespace neardup::verify
