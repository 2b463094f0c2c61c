// SPDX-License-Identifier: Apache-2.0
//
// The question-bank rule. Exam questions typed twice differ in wording of the
// Chinese stem but a changed number, letter or operator is a different
// question. The text is split into its Han characters and the rest: letters,
// digits and symbols (operators such as + = < >, currency, units) of other
// scripts, in order. White space and punctuation (general category P*: 。，
// brackets, quotes) are ignored, except the arithmetic ones: - (minus), /, %,
// * and a '.' between two digits (decimal point). A pair passes when
//   - the other parts have Levenshtein similarity >= other_min (1.0 means
//     identical, the default), and
//   - the Han parts have Levenshtein similarity >= han_min (default 0.8).
// Multiple-choice questions are the same question whatever the order of
// their options: when both texts carry options (markers A. B. ... in order,
// at least two; also A、 A: A) and full-width forms after NFKC), the pair
// also passes when the texts pass with each one's option bodies sorted
// (CanonicalOptions); the letters stay in place.
// The text should be normalized with punctuation kept (operators are symbols),
// i.e. NormalizerOptions::drop_punctuation = false.
//
// Thread safety: pure functions.
#ifndef NEARDUP_VERIFY_QUESTION_BANK_H_
#define NEARDUP_VERIFY_QUESTION_BANK_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace neardup::verify {

// Whether `c` is a Han character (ICU's script property; the main CJK
// blocks without a lookup).
bool IsHan(char32_t c);

struct HanSplit {
  std::u32string han;
  std::u32string other;
};

// Han = code points of script Han (ICU); other = the rest minus white space
// and non-arithmetic punctuation.
HanSplit SplitHan(std::u32string_view text);

struct QuestionBankOptions {
  double han_min = 0.8;
  double other_min = 1.0;
};

struct QuestionBankResult {
  double han_similarity;
  double other_similarity;
  bool passed;
};

// `text` with the bodies of its options sorted, markers in place; the text
// itself when it has fewer than two options.
std::u32string CanonicalOptions(std::u32string_view text);

// A 64-bit hash of the other part of `text` (normalized, valid UTF-8) as a
// multiset of code points (so that reordered options get the same key),
// never 0. With other_min = 1 (the default) no pair with different keys can
// pass, so the key may salt the candidate keys of a question bank
// (sketch::SaltedBandKey).
uint64_t OtherPartKey(std::string_view text);

QuestionBankResult QuestionBankCompare(std::string_view a, std::string_view b,
                                       const QuestionBankOptions& options);

// What QuestionBankCompare compared: the texts as code points, with their
// option bodies sorted when that passes or scores higher (for explain).
struct QuestionBankComparison {
  std::u32string a, b;
  bool options_sorted = false;
  QuestionBankResult result;
};
QuestionBankComparison CompareQuestions(std::string_view a, std::string_view b,
                                        const QuestionBankOptions& options);

}  // namespace neardup::verify

#endif  // NEARDUP_VERIFY_QUESTION_BANK_H_
