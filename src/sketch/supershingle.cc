// SPDX-License-Identifier: Apache-2.0
#include "sketch/supershingle.h"

#include <xxhash.h>

#include <algorithm>
#include <string>

namespace neardup::sketch {

Result<SuperShingler> SuperShingler::Create(const SuperShingleOptions& options) {
  if (options.groups < 1 || options.group_size < 1 || options.groups * options.group_size > 4096) {
    return Status::InvalidArgument(
        "super-shingles need groups, group_size >= 1 and "
        "groups*group_size <= 4096");
  }
  if (options.min_equal < 1 || options.min_equal > options.groups) {
    return Status::InvalidArgument("min_equal must be in [1, groups], got " +
                                   std::to_string(options.min_equal));
  }
  NEARDUP_ASSIGN_OR_RETURN(
      MinHasher hasher,
      MinHasher::Create({.num_perm = options.groups * options.group_size, .seed = options.seed}));
  return SuperShingler(options, std::move(hasher));
}

std::vector<uint64_t> SuperShingler::Sketch(std::span<const uint64_t> shingles) const {
  return FromMinHashes(hasher_.Sketch(shingles));
}

std::vector<uint64_t> SuperShingler::FromMinHashes(std::span<const uint32_t> minhashes) const {
  const size_t g = static_cast<size_t>(options_.group_size);
  NEARDUP_CHECK(minhashes.size() == g * static_cast<size_t>(options_.groups));
  std::vector<uint64_t> supers(static_cast<size_t>(options_.groups));
  for (size_t i = 0; i < supers.size(); ++i) {
    supers[i] = XXH3_64bits_withSeed(minhashes.data() + i * g, g * sizeof(uint32_t), i);
  }
  return supers;
}

int CountEqualSuperShingles(std::span<const uint64_t> a, std::span<const uint64_t> b) {
  NEARDUP_CHECK(a.size() == b.size());
  int equal = 0;
  for (size_t i = 0; i < a.size(); ++i) equal += a[i] == b[i];
  return equal;
}

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

}  // namespace neardup::sketch
