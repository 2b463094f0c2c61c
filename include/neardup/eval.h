// SPDX-License-Identifier: Apache-2.0
//
// Evaluation: exact ground truth and clustering quality (docs/quality.md).
//
// Clustering quality against ground truth.
//
// Pair metrics: a predicted clustering claims every pair of documents that
// share a cluster. Against a set of true pairs T and claimed pairs P:
//   precision = |P & T| / |P|,  recall = |P & T| / |T|,  F1 = 2PR / (P + R).
// (An empty P has precision 1, an empty T recall 1.) Truth given as cluster
// labels means T = all pairs within a true cluster; truth given as pairs is
// used as is (it need not be transitive, e.g. Jaccard >= t pairs).
//
// Adjusted Rand index (Hubert and Arabie, "Comparing partitions", Journal of
// Classification 1985): the Rand index corrected for chance, computed from
// the contingency table of the two partitions; 1 for identical partitions,
// about 0 for independent ones. Pair truth is turned into a partition by its
// connected components.
//
// Thread safety: pure functions. Complexity: O(n + |T|) expected.
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
#ifndef NEARDUP_EVAL_H_
#define NEARDUP_EVAL_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "neardup/status.h"

namespace neardup::eval {

using Labels = std::vector<uint32_t>;  // cluster label per document
using Pair = std::pair<uint32_t, uint32_t>;

struct Quality {
  uint64_t truth_pairs = 0;
  uint64_t predicted_pairs = 0;
  uint64_t true_positives = 0;
  double precision = 1, recall = 1, f1 = 1;
  double ari = 1;
};

// The ground truth over documents 0..n-1.
struct GroundTruth {
  // Exactly one of the two forms is the source; the other is derived.
  bool from_pairs = false;
  std::vector<Pair> pairs;  // unique, a < b (when from_pairs)
  Labels labels;            // partition: given labels, or components of pairs

  static GroundTruth FromLabels(Labels labels);
  // Pairs are deduplicated and oriented a < b; self-pairs are dropped.
  static GroundTruth FromPairs(uint32_t n, std::vector<Pair> pairs);
};

// Connected components of the graph on 0..n-1; labels are the smallest member.
Labels Components(uint32_t n, const std::vector<Pair>& pairs);

// Adjusted Rand index of two partitions of the same documents (same size).
// Returns 1 when both partitions are all singletons or one cluster.
double AdjustedRandIndex(const Labels& a, const Labels& b);

// Pair precision, recall, F1 and ARI of `predicted` (same size as truth).
Quality Evaluate(const Labels& predicted, const GroundTruth& truth);

// Peak resident set size of this process so far, in bytes (getrusage).
uint64_t PeakRssBytes();

struct SimilarPair {
  uint32_t a = 0;  // index into the input, a < b
  uint32_t b = 0;
  double jaccard = 0;
};

// Every pair (a < b) of non-empty sets with Jaccard >= threshold, sorted by
// (a, b). `sets` must each be sorted and duplicate-free. `threads` <= 0 means
// all cores. Errors: InvalidArgument if threshold is not in (0, 1] or a set is
// unsorted; OutOfRange for more than 2^32 - 1 sets.
Result<std::vector<SimilarPair>> AllPairsJaccard(const std::vector<std::vector<uint64_t>>& sets,
                                                 double threshold, int threads);

}  // namespace neardup::eval

#endif  // NEARDUP_EVAL_H_
