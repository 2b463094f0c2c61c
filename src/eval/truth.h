// SPDX-License-Identifier: Apache-2.0
//
// Exact all-pairs set-similarity join: every pair of sets whose Jaccard
// similarity is at least a threshold t, without comparing every pair.
//
// Method: prefix filtering with an inverted index (Chaudhuri, Ganti, Kaushik,
// "A primitive operator for similarity joins", ICDE 2006; Bayardo, Ma,
// Srikant, "Scaling up all pairs similarity search", WWW 2007). Tokens are
// ranked by increasing document frequency, so each set's prefix holds its
// rarest tokens. If J(x,y) >= t then |x & y| >= ceil(t * |x|), so the first
// |x| - ceil(t*|x|) + 1 tokens of x and of y share a token. Only prefix tokens
// are indexed; sets are probed in increasing size order against smaller ones,
// with the size filter |y| >= t * |x|. Every candidate is verified by an exact
// merge, so the result is exact (no false positives or negatives).
//
// Thread safety: a pure function; it runs `threads` workers internally.
// Complexity: O(N log N) to rank tokens (N = total set sizes), then work
// proportional to prefix posting-list overlap, which is small when rare
// tokens dominate prefixes. Memory O(N).
#ifndef NEARDUP_EVAL_TRUTH_H_
#define NEARDUP_EVAL_TRUTH_H_

#include <cstdint>
#include <vector>

#include "neardup/status.h"

namespace neardup::eval {

struct SimilarPair {
  uint32_t a = 0;  // index into the input, a < b
  uint32_t b = 0;
  double jaccard = 0;
};

// Jaccard similarity of two sorted, duplicate-free sets; 0 when both are empty.
double Jaccard(const std::vector<uint64_t>& x, const std::vector<uint64_t>& y);

// Every pair (a < b) of non-empty sets with Jaccard >= threshold, sorted by
// (a, b). `sets` must each be sorted and duplicate-free. `threads` <= 0 means
// all cores. Errors: InvalidArgument if threshold is not in (0, 1] or a set is
// unsorted; OutOfRange for more than 2^32 - 1 sets.
Result<std::vector<SimilarPair>> AllPairsJaccard(const std::vector<std::vector<uint64_t>>& sets,
                                                 double threshold, int threads);

}  // namespace neardup::eval

#endif  // NEARDUP_EVAL_TRUTH_H_
