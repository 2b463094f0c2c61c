// SPDX-License-Identifier: Apache-2.0
#include "cluster/union_find.h"

#include <limits>
#include <numeric>
#include <string>

#include "base/status_macros.h"

namespace neardup::cluster {

CappedUnionFind::CappedUnionFind(size_t n, size_t cap) : parent_(n), size_(n, 1), cap_(cap) {
  NEARDUP_CHECK(n <= std::numeric_limits<uint32_t>::max());
  std::iota(parent_.begin(), parent_.end(), 0u);
}

size_t CappedUnionFind::Find(size_t x) {
  NEARDUP_CHECK(x < parent_.size());
  while (parent_[x] != x) {
    parent_[x] = parent_[parent_[x]];  // path halving
    x = parent_[x];
  }
  return x;
}

UnionResult CappedUnionFind::Union(size_t a, size_t b) {
  size_t ra = Find(a), rb = Find(b);
  if (ra == rb) return UnionResult::kSameSet;
  if (cap_ != 0 && static_cast<size_t>(size_[ra]) + size_[rb] > cap_) {
    ++refused_;
    return UnionResult::kCapExceeded;
  }
  if (size_[ra] < size_[rb]) std::swap(ra, rb);
  parent_[rb] = static_cast<uint32_t>(ra);
  size_[ra] += size_[rb];
  return UnionResult::kJoined;
}

Result<std::vector<size_t>> KeptMembers(CappedUnionFind& uf, KeepPolicy policy,
                                        const KeepInputs& inputs) {
  const size_t n = uf.size();
  if (policy == KeepPolicy::kSmallestId && inputs.id_rank.size() != n) {
    return Status::InvalidArgument("smallest-id needs one id rank per element");
  }
  if (policy == KeepPolicy::kLongest && inputs.length.size() != n) {
    return Status::InvalidArgument("longest needs one length per element");
  }
  // better(x, y): x should be kept over y.
  auto better = [&](size_t x, size_t y) {
    switch (policy) {
      case KeepPolicy::kSmallestId:
        return inputs.id_rank[x] != inputs.id_rank[y] ? inputs.id_rank[x] < inputs.id_rank[y]
                                                      : x < y;
      case KeepPolicy::kLongest:
        return inputs.length[x] != inputs.length[y] ? inputs.length[x] > inputs.length[y] : x < y;
      case KeepPolicy::kFirst:
        break;
    }
    return x < y;
  };
  constexpr size_t kNone = std::numeric_limits<size_t>::max();
  std::vector<size_t> best_of_root(n, kNone);
  for (size_t i = 0; i < n; ++i) {
    size_t& best = best_of_root[uf.Find(i)];
    if (best == kNone || better(i, best)) best = i;
  }
  std::vector<size_t> kept(n);
  for (size_t i = 0; i < n; ++i) kept[i] = best_of_root[uf.Find(i)];
  return kept;
}

}  // namespace neardup::cluster
