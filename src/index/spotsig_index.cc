// SPDX-License-Identifier: Apache-2.0
#include "index/spotsig_index.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "base/sorted_set.h"
#include "base/status_macros.h"

namespace neardup::index {
namespace {

// Smallest overlap a set of size n needs with any set to reach Jaccard tau.
size_t MinOverlap(size_t n, double tau) {
  return std::max<size_t>(1, static_cast<size_t>(std::ceil(tau * static_cast<double>(n) - 1e-9)));
}

}  // namespace

Result<SpotSigIndex> SpotSigIndex::Create(double threshold) {
  if (!(threshold > 0.0 && threshold <= 1.0)) {
    return Status::InvalidArgument("SpotSig threshold must be in (0, 1]");
  }
  return SpotSigIndex(threshold);
}

size_t SpotSigIndex::PartitionOf(size_t size) const {
  size_t k = 0;
  for (size_t lo = 1;; ++k) {
    const size_t next =
        std::max(lo + 1, static_cast<size_t>(std::floor(static_cast<double>(lo) / threshold_)) + 1);
    if (size < next) return k;
    lo = next;
  }
}

Status SpotSigIndex::Insert(uint64_t id, std::span<const uint64_t> signatures) {
  if (docs_.contains(id)) return Status::AlreadyExists("id " + std::to_string(id));
  for (size_t i = 1; i < signatures.size(); ++i) {
    if (signatures[i - 1] >= signatures[i]) {
      return Status::InvalidArgument("SpotSig signatures must be sorted and distinct");
    }
  }
  docs_.emplace(id, std::vector<uint64_t>(signatures.begin(), signatures.end()));
  if (signatures.empty()) return Status::OK();
  Postings& postings = partitions_[PartitionOf(signatures.size())];
  for (uint64_t s : signatures) postings[s].push_back(id);
  return Status::OK();
}

Status SpotSigIndex::Remove(uint64_t id) {
  auto it = docs_.find(id);
  if (it == docs_.end()) return Status::NotFound("id " + std::to_string(id));
  if (!it->second.empty()) {
    auto part = partitions_.find(PartitionOf(it->second.size()));
    NEARDUP_CHECK(part != partitions_.end());
    for (uint64_t s : it->second) {
      auto list = part->second.find(s);
      NEARDUP_CHECK(list != part->second.end());
      auto pos = std::find(list->second.begin(), list->second.end(), id);
      NEARDUP_CHECK(pos != list->second.end());
      *pos = list->second.back();
      list->second.pop_back();
      if (list->second.empty()) part->second.erase(list);
    }
    if (part->second.empty()) partitions_.erase(part);
  }
  docs_.erase(it);
  return Status::OK();
}

std::vector<SpotSigMatch> SpotSigIndex::Query(std::span<const uint64_t> signatures) const {
  std::vector<SpotSigMatch> out;
  const size_t n = signatures.size();
  if (n == 0) return out;
  const double tau = threshold_;
  const size_t min_size = MinOverlap(n, tau);
  const size_t max_size = static_cast<size_t>(std::floor(static_cast<double>(n) / tau + 1e-9));
  const size_t probes = n - MinOverlap(n, tau) + 1;
  std::vector<uint64_t> candidates;
  std::vector<std::pair<size_t, uint64_t>> lists;  // (posting length, signature)
  for (auto part = partitions_.lower_bound(PartitionOf(min_size));
       part != partitions_.end() && part->first <= PartitionOf(max_size); ++part) {
    lists.clear();
    for (uint64_t s : signatures) {
      auto it = part->second.find(s);
      lists.emplace_back(it == part->second.end() ? 0 : it->second.size(), s);
    }
    // Probe the shortest lists; any match owns one of these signatures.
    std::partial_sort(lists.begin(), lists.begin() + static_cast<ptrdiff_t>(probes), lists.end());
    for (size_t i = 0; i < probes; ++i) {
      if (lists[i].first == 0) continue;
      const auto& ids = part->second.at(lists[i].second);
      candidates.insert(candidates.end(), ids.begin(), ids.end());
    }
  }
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  for (uint64_t id : candidates) {
    const auto& other = docs_.at(id);
    if (other.size() < min_size || other.size() > max_size) continue;
    const double j = SortedSetJaccard<uint64_t>(signatures, other);
    if (j >= tau - 1e-12) out.push_back({id, j});
  }
  std::sort(out.begin(), out.end(), [](const SpotSigMatch& a, const SpotSigMatch& b) {
    return a.jaccard != b.jaccard ? a.jaccard > b.jaccard : a.id < b.id;
  });
  return out;
}

}  // namespace neardup::index
