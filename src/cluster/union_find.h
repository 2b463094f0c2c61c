// SPDX-License-Identifier: Apache-2.0
//
// Batch clustering: union-find (disjoint-set forest with union by size and
// path halving; Tarjan, "Efficiency of a good but not linear set union
// algorithm", JACM 1975) with a cap on cluster size. Union(a, b) joins the
// two sets only when their total size stays within the cap, so a chain of
// pairwise-similar records A~B~C~... cannot snowball into a giant cluster of
// unrelated records; the refused pair is reported. Which pairs win under the
// cap depends on their order: feed pairs best (most similar) first.
//
// Elements are dense indices 0..n-1; callers map their ids. A keep policy
// picks each cluster's representative (the document kept when deduplicating):
//   kSmallestId: the smallest id rank (callers pass each element's rank in
//                id order), kFirst: the smallest index (input order),
//   kLongest:    the longest text, ties to the smallest index.
//
// Thread safety: not synchronized; one thread at a time (Find() mutates by
// path halving). Complexity: near-constant amortized per operation.
#ifndef NEARDUP_CLUSTER_UNION_FIND_H_
#define NEARDUP_CLUSTER_UNION_FIND_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "neardup/status.h"

namespace neardup::cluster {

enum class UnionResult { kJoined, kSameSet, kCapExceeded };

class CappedUnionFind {
 public:
  // `cap` >= 1 is the largest allowed set size; 0 means no cap.
  CappedUnionFind(size_t n, size_t cap);

  size_t Find(size_t x);
  // Errors never; out-of-range indices are a caller bug (checked).
  UnionResult Union(size_t a, size_t b);
  size_t SetSize(size_t x) { return size_[Find(x)]; }
  size_t size() const { return parent_.size(); }
  size_t cap() const { return cap_; }
  // Number of Union calls refused because of the cap.
  size_t refused() const { return refused_; }

 private:
  std::vector<uint32_t> parent_;
  std::vector<uint32_t> size_;
  size_t cap_;
  size_t refused_ = 0;
};

enum class KeepPolicy { kSmallestId, kFirst, kLongest };

struct KeepInputs {
  std::span<const uint64_t> id_rank = {};  // kSmallestId: rank of each element's id
  std::span<const size_t> length = {};     // kLongest: text length of each element
};

// For each element, the index of the kept member of its set under `policy`.
// Errors: InvalidArgument when the policy's input is missing or has the wrong
// size.
Result<std::vector<size_t>> KeptMembers(CappedUnionFind& uf, KeepPolicy policy,
                                        const KeepInputs& inputs);

}  // namespace neardup::cluster

#endif  // NEARDUP_CLUSTER_UNION_FIND_H_
