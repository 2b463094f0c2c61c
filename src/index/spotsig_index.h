// SPDX-License-Identifier: Apache-2.0
//
// SpotSigIndex: exact Jaccard search over SpotSig signature sets (Theobald,
// Siddharth, Paepcke, SIGIR 2008; the sets come from sketch::SpotSigExtractor).
// Documents are partitioned by set size into ranges [p_k, p_{k+1}) with
// p_{k+1} = floor(p_k / tau) + 1, and a query of size n visits only the
// partitions meeting [tau*n, n/tau]. Inside a partition an inverted index maps
// signatures to ids; a match must share >= ceil(tau*n) of the query's n
// signatures, so probing the n - ceil(tau*n) + 1 shortest posting lists finds
// every candidate. Candidates are checked by an exact merge of sorted sets.
//
// Thread safety: const calls may run concurrently; writers need exclusive
// access.
#ifndef NEARDUP_INDEX_SPOTSIG_INDEX_H_
#define NEARDUP_INDEX_SPOTSIG_INDEX_H_

#include <cstdint>
#include <map>
#include <span>
#include <unordered_map>
#include <vector>

#include "neardup/status.h"

namespace neardup::index {

struct SpotSigMatch {
  uint64_t id;
  double jaccard;
};

class SpotSigIndex {
 public:
  // Errors: InvalidArgument unless 0 < threshold <= 1.
  static Result<SpotSigIndex> Create(double threshold);

  // `signatures` must be sorted and distinct (SpotSigExtractor::Extract).
  // An empty set is stored but never matches. Errors: AlreadyExists,
  // InvalidArgument for an unsorted set.
  Status Insert(uint64_t id, std::span<const uint64_t> signatures);
  // Errors: NotFound.
  Status Remove(uint64_t id);
  // Every stored id with Jaccard >= threshold, best first (ties by id).
  std::vector<SpotSigMatch> Query(std::span<const uint64_t> signatures) const;

  size_t size() const { return docs_.size(); }
  double threshold() const { return threshold_; }
  // Number of the size partition holding sets of `size` (>= 1) elements.
  size_t PartitionOf(size_t size) const;

 private:
  explicit SpotSigIndex(double threshold) : threshold_(threshold) {}
  using Postings = std::unordered_map<uint64_t, std::vector<uint64_t>>;

  double threshold_;
  std::map<size_t, Postings> partitions_;
  std::unordered_map<uint64_t, std::vector<uint64_t>> docs_;
};

}  // namespace neardup::index

#endif  // NEARDUP_INDEX_SPOTSIG_INDEX_H_
