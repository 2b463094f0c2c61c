// SPDX-License-Identifier: Apache-2.0
//
// The numbers of a short text, for the digit rule of the similarity
// verifier: two short texts that differ only in a number state different
// facts (a question with another operand, a price report with another
// price), so they are not near-duplicates whatever their similarity.
//
// A number is a maximal run of ASCII digits in the normalized text (NFKC
// has already folded full-width and other compatibility digits to ASCII).
// Two texts have a changed number when they hold as many numbers but not
// the same ones, as multisets:
// - the order does not matter, so a multiple-choice question with its
//   options reordered keeps its numbers, and white space or punctuation
//   between digits, dropped or kept the same way by the normalizer on both
//   sides, changes nothing ("3 + 5" and "3+5");
// - a number added or removed with the text around it (a footnote mark 〖2〗
//   in one edition of a poem, a sentence with a date) is an edit like any
//   other, left to the similarity: only a replaced number makes another fact.
//
// Thread safety: pure functions. Complexity: O(n log n) in the runs.
#ifndef NEARDUP_VERIFY_NUMBERS_H_
#define NEARDUP_VERIFY_NUMBERS_H_

#include <string_view>
#include <vector>

namespace neardup::verify {

// The digit runs of `text`, in order.
std::vector<std::string_view> Numbers(std::string_view text);

// Whether `a` and `b` hold as many digit runs but not the same multiset.
bool ChangedNumbers(std::string_view a, std::string_view b);

}  // namespace neardup::verify

#endif  // NEARDUP_VERIFY_NUMBERS_H_
