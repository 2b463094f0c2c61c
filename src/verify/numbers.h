// SPDX-License-Identifier: Apache-2.0
//
// The facts of a short text, for the fact rules of the similarity verifier:
// two short texts that differ only in a number state different facts (a
// question with another operand, a price report with another price), so
// they are not near-duplicates whatever their similarity. In a short text
// written mostly in Han characters, the Latin words are
// facts too: a variable (求 x / 求 y), a unit (27 km/h / 27 m/s), a command
// name or an option letter (tsort -v / tsort -n). Writers of Chinese change
// them on purpose, not by an input-method typo.
//
// A number is a maximal run of ASCII digits in the normalized text (NFKC
// has already folded full-width and other compatibility digits to ASCII),
// a Latin word a maximal run of ASCII letters (compared in lower case).
// Expressions are facts too ("a+b=49" is not "a-b=49"): the default
// normalizer turns punctuation and symbols into separators, so they are
// read from the original text when it is prepared (Expressions) and travel
// beside the normalized one (Side::expressions, the verification form). An
// expression is a run of operands (a run of ASCII digits or of ASCII letters,
// after folding full-width forms: "77m/s" is "77 m/s") joined by operators (+ - * / = < > ^ and × ÷
// ≠ ≤ ≥ and the minus sign), white space dropped ("3 + 5" is "3+5"); a '-' or '/' counts only next
// to a number or a one-letter operand, so "Wi-Fi" and "TCP/IP" are words, not expressions. Two
// texts have a changed fact of a kind when they hold as many facts of that kind but not the same
// ones, as multisets:
// - the order does not matter, so a multiple-choice question with its
//   options reordered keeps its facts, and white space or punctuation
//   between them, dropped or kept the same way by the normalizer on both
//   sides, changes nothing ("3 + 5" and "3+5", "27km/h" and "27 km/h");
// - a fact added or removed with the text around it (a footnote mark 〖2〗
//   in one edition of a poem, a sentence with a date) is an edit like any
//   other, left to the similarity: only a replaced fact makes another text.
// Words count only when both texts are mostly Han (more Han
// characters than ASCII letters): in English or other Latin-script text a
// replaced word is as often a typo as a new fact.
//
// Thread safety: pure functions. Complexity: O(n log n) in the text.
#ifndef NEARDUP_VERIFY_NUMBERS_H_
#define NEARDUP_VERIFY_NUMBERS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace neardup::verify {

// The digit runs of `text`, in order.
std::vector<std::string_view> Numbers(std::string_view text);

// Whether `a` and `b` hold as many digit runs but not the same multiset.
bool ChangedNumbers(std::string_view a, std::string_view b);

// The Latin words of `text` in lower case, in order.
std::vector<std::string> LatinWords(std::string_view text);

// Whether `text` holds more Han characters than ASCII letters.
bool MostlyHan(std::string_view text);

// The expressions of an original (not normalized) text, each followed by
// '\n', in order: "a+b=49\na-b=56\n". O(n).
std::string Expressions(std::string_view raw);

enum class Fact { kNone, kNumber, kExpression, kWord };

// The facts of one text: its normalized text and, when known, its
// Expressions() (stores written before expressions were kept have none:
// the expression rule then does not apply to the pair).
struct FactSide {
  FactSide(std::string_view n, std::optional<std::string_view> e = std::nullopt)  // NOLINT
      : normalized(n), expressions(e) {}
  FactSide(const char* n) : normalized(n) {}  // NOLINT: a text alone, as in tests
  std::string_view normalized;
  std::optional<std::string_view> expressions;
};

// The first kind of fact replaced between `a` and `b`: numbers, then
// expressions (when both are known), when `numbers`; then, when `words`
// and both texts are mostly Han, Latin words. kNone when none is.
Fact ChangedFact(const FactSide& a, const FactSide& b, bool numbers, bool words);

// "a number", "an expression", "a Latin word" (kNone: "nothing").
const char* FactName(Fact f);

// "[3, 5]": the facts of kind `f` in `side`, at most 8.
std::string FactList(const FactSide& side, Fact f);

}  // namespace neardup::verify

#endif  // NEARDUP_VERIFY_NUMBERS_H_
