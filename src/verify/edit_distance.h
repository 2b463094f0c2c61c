// SPDX-License-Identifier: Apache-2.0
//
// Edit distance and longest common subsequence on code-point sequences,
// bit-parallel.
//
//  - Levenshtein distance: Myers, "A fast bit-vector algorithm for
//    approximate string matching based on dynamic programming", JACM 46(3),
//    1999, in the global-distance form of Hyyrö ("Explaining and extending
//    the bit-parallel approximate string matching algorithm of Myers", 2001):
//    each text column updates the vertical delta vectors of the DP column of
//    the pattern; a +1 is shifted in at row 0 because D[0][j] = j. Patterns
//    longer than 64 code points use Myers' blocked variant: 64-row blocks
//    pass the horizontal delta of their last row to the next block.
//    O(ceil(m/64) * n) word operations.
//  - LCS length: Allison and Dix (1986) / Crochemore et al. (2001) as given by
//    Hyyrö (2004): V' = (V + (V & M[c])) | (V & ~M[c]); the LCS is the number
//    of zero bits. Blocked with a carry across words.
// The shorter sequence is the pattern. Peq tables map code points through a
// hash map, so any alphabet works (Han, Latin, emoji).
//
// Thread safety: pure functions.
#ifndef NEARDUP_VERIFY_EDIT_DISTANCE_H_
#define NEARDUP_VERIFY_EDIT_DISTANCE_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace neardup::verify {

// Decodes UTF-8 into code points; an ill-formed byte becomes U+FFFD.
std::u32string DecodeCodePoints(std::string_view utf8);

// Unit-cost insert/delete/substitute distance.
size_t LevenshteinDistance(std::u32string_view a, std::u32string_view b);
// Length of a longest common subsequence.
size_t LcsLength(std::u32string_view a, std::u32string_view b);

// 1 - distance / max(|a|, |b|); 1 when both are empty.
double LevenshteinSimilarity(std::u32string_view a, std::u32string_view b);
// 2 * LCS / (|a| + |b|); 1 when both are empty.
double LcsRatio(std::u32string_view a, std::u32string_view b);

}  // namespace neardup::verify

#endif  // NEARDUP_VERIFY_EDIT_DISTANCE_H_
