// SPDX-License-Identifier: Apache-2.0
//
// Pigeonhole multi-table index (Manku, Jain, Das Sarma, "Detecting
// Near-Duplicates for Web Crawling", WWW 2007, section 3). Split the 64 bits
// into m = k+1 contiguous blocks; if two fingerprints differ in at most k bits,
// at least one block is identical. One hash table per block maps the block's
// value to the docs holding it; candidates are verified with popcount. A doc
// found through block i is reported only if no earlier block j < i matches
// exactly, so each result appears once without a visited set.
#include <unordered_map>

#include "index/hamming_index.h"

namespace neardup::index {
namespace {

class PigeonholeIndex final : public HammingIndex {
 public:
  explicit PigeonholeIndex(int max_distance) : max_k_(max_distance) {
    const int m = max_distance + 1;
    int start = 0;
    for (int i = 0; i < m; ++i) {
      int width = 64 / m + (i < 64 % m ? 1 : 0);
      shifts_.push_back(start);
      masks_.push_back(width >= 64 ? ~0ULL : ((1ULL << width) - 1));
      start += width;
    }
    tables_.resize(m);
  }

  Status Insert(uint32_t doc, uint64_t fp) override {
    if (doc < present_.size() && present_[doc]) {
      return Status::AlreadyExists("doc slot " + std::to_string(doc) + " is in the index");
    }
    if (doc >= present_.size()) {
      present_.resize(doc + 1, false);
      fps_.resize(doc + 1, 0);
    }
    present_[doc] = true;
    fps_[doc] = fp;
    for (size_t t = 0; t < tables_.size(); ++t) tables_[t][Block(fp, t)].push_back(doc);
    ++size_;
    return Status::OK();
  }

  Status Remove(uint32_t doc) override {
    if (doc >= present_.size() || !present_[doc]) {
      return Status::NotFound("doc slot " + std::to_string(doc) + " is not in the index");
    }
    const uint64_t fp = fps_[doc];
    for (size_t t = 0; t < tables_.size(); ++t) {
      auto it = tables_[t].find(Block(fp, t));
      NEARDUP_CHECK(it != tables_[t].end());
      auto& v = it->second;
      for (size_t i = 0; i < v.size(); ++i) {
        if (v[i] == doc) {
          v[i] = v.back();
          v.pop_back();
          break;
        }
      }
      if (v.empty()) tables_[t].erase(it);
    }
    present_[doc] = false;
    --size_;
    return Status::OK();
  }

  Status Search(uint64_t fp, int k, std::vector<HammingHit>* out) const override {
    if (k < 0 || k > max_k_) {
      return Status::OutOfRange("distance " + std::to_string(k) + " exceeds the index maximum " +
                                std::to_string(max_k_));
    }
    for (size_t t = 0; t < tables_.size(); ++t) {
      auto it = tables_[t].find(Block(fp, t));
      if (it == tables_[t].end()) continue;
      for (uint32_t doc : it->second) {
        const uint64_t other = fps_[doc];
        const int d = Distance(fp, other);
        if (d > k) continue;
        bool seen_earlier = false;
        for (size_t j = 0; j < t && !seen_earlier; ++j) seen_earlier = Block(other, j) == Block(fp, j);
        if (!seen_earlier) out->push_back({doc, static_cast<uint32_t>(d)});
      }
    }
    return Status::OK();
  }

  Result<uint64_t> Get(uint32_t doc) const override {
    if (doc >= present_.size() || !present_[doc]) return Status::NotFound("doc slot not present");
    return fps_[doc];
  }

  size_t size() const override { return size_; }
  int max_distance() const override { return max_k_; }

  size_t MemoryBytes() const override {
    size_t bytes = fps_.capacity() * sizeof(uint64_t) + present_.capacity() / 8;
    for (const auto& t : tables_) {
      bytes += t.bucket_count() * sizeof(void*);
      for (const auto& [key, v] : t) bytes += 48 + v.capacity() * sizeof(uint32_t);
    }
    return bytes;
  }

 private:
  uint64_t Block(uint64_t fp, size_t t) const { return (fp >> shifts_[t]) & masks_[t]; }

  int max_k_;
  std::vector<int> shifts_;
  std::vector<uint64_t> masks_;
  std::vector<std::unordered_map<uint64_t, std::vector<uint32_t>>> tables_;
  std::vector<uint64_t> fps_;
  std::vector<bool> present_;
  size_t size_ = 0;
};

}  // namespace

Result<std::unique_ptr<HammingIndex>> HammingIndex::Create(const HammingIndexOptions& options) {
  if (options.max_distance < 0 || options.max_distance > 32) {
    return Status::InvalidArgument("max_distance must be in [0, 32], got " +
                                   std::to_string(options.max_distance));
  }
  return std::unique_ptr<HammingIndex>(new PigeonholeIndex(options.max_distance));
}

}  // namespace neardup::index
