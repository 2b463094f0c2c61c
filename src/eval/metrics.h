// SPDX-License-Identifier: Apache-2.0
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
#ifndef NEARDUP_EVAL_METRICS_H_
#define NEARDUP_EVAL_METRICS_H_

#include <cstdint>
#include <utility>
#include <vector>

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

}  // namespace neardup::eval

#endif  // NEARDUP_EVAL_METRICS_H_
