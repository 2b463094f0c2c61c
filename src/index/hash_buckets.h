// SPDX-License-Identifier: Apache-2.0
//
// HashBuckets: documents grouped by an exact 128-bit key (an I-Match
// signature), for the imatch signal. The exact signal uses ExactIndex
// (exact_index.h), which also keeps each slot's key.
//
// Thread safety: const calls may run concurrently; writers need exclusive
// access. Complexity: O(1) expected per call, O(bucket) for Remove.
#ifndef NEARDUP_INDEX_HASH_BUCKETS_H_
#define NEARDUP_INDEX_HASH_BUCKETS_H_

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace neardup::index {

struct Key128 {
  uint64_t lo = 0;
  uint64_t hi = 0;
  friend bool operator==(const Key128&, const Key128&) = default;
};

class HashBuckets {
 public:
  void Insert(uint32_t slot, const Key128& key) { buckets_[key].push_back(slot); }
  void Remove(uint32_t slot, const Key128& key) {
    auto it = buckets_.find(key);
    if (it == buckets_.end()) return;
    std::erase(it->second, slot);
    if (it->second.empty()) buckets_.erase(it);
  }
  // The slots filed under `key`, in insertion order, or null.
  const std::vector<uint32_t>* Find(const Key128& key) const {
    auto it = buckets_.find(key);
    return it == buckets_.end() ? nullptr : &it->second;
  }
  size_t MemoryBytes() const {
    return buckets_.size() * (sizeof(Key128) + sizeof(std::vector<uint32_t>) + 32);
  }

 private:
  struct Hasher {
    size_t operator()(const Key128& k) const { return static_cast<size_t>(k.lo ^ (k.hi * 31)); }
  };
  std::unordered_map<Key128, std::vector<uint32_t>, Hasher> buckets_;
};

}  // namespace neardup::index

#endif  // NEARDUP_INDEX_HASH_BUCKETS_H_
