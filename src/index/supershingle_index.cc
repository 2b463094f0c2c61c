// SPDX-License-Identifier: Apache-2.0
#include "index/supershingle_index.h"

#include <algorithm>
#include <string>

#include "base/status_macros.h"

namespace neardup::index {

Status SuperShingleIndex::Insert(uint64_t id, std::span<const uint64_t> supers) {
  if (supers.size() != static_cast<size_t>(groups_)) {
    return Status::InvalidArgument("expected " + std::to_string(groups_) + " super-shingles");
  }
  if (stored_.contains(id)) return Status::AlreadyExists("id " + std::to_string(id));
  stored_.emplace(id, std::vector<uint64_t>(supers.begin(), supers.end()));
  for (int i = 0; i < groups_; ++i) postings_[Key(i, supers[i])].push_back(id);
  return Status::OK();
}

Status SuperShingleIndex::Remove(uint64_t id) {
  auto it = stored_.find(id);
  if (it == stored_.end()) return Status::NotFound("id " + std::to_string(id));
  for (int i = 0; i < groups_; ++i) {
    auto p = postings_.find(Key(i, it->second[i]));
    NEARDUP_CHECK(p != postings_.end());
    auto pos = std::find(p->second.begin(), p->second.end(), id);
    NEARDUP_CHECK(pos != p->second.end());
    *pos = p->second.back();
    p->second.pop_back();
    if (p->second.empty()) postings_.erase(p);
  }
  stored_.erase(it);
  return Status::OK();
}

Result<std::vector<SuperShingleCandidate>> SuperShingleIndex::Query(
    std::span<const uint64_t> supers) const {
  if (supers.size() != static_cast<size_t>(groups_)) {
    return Status::InvalidArgument("expected " + std::to_string(groups_) + " super-shingles");
  }
  std::vector<uint64_t> hits;
  for (int i = 0; i < groups_; ++i) {
    auto p = postings_.find(Key(i, supers[i]));
    if (p != postings_.end()) hits.insert(hits.end(), p->second.begin(), p->second.end());
  }
  std::sort(hits.begin(), hits.end());
  std::vector<SuperShingleCandidate> out;
  for (size_t i = 0; i < hits.size();) {
    size_t j = i;
    while (j < hits.size() && hits[j] == hits[i]) ++j;
    // An id is listed once per equal position, so the run length is the count.
    if (static_cast<int>(j - i) >= min_equal_) out.push_back({hits[i], static_cast<int>(j - i)});
    i = j;
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.equal > b.equal; });
  return out;
}

}  // namespace neardup::index
