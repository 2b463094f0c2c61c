// SPDX-License-Identifier: Apache-2.0
#include "index/exact_index.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

namespace neardup::index {
namespace {

// The oracle: for each key, its slots in insertion order.
class ExactOracle {
 public:
  void Insert(uint32_t slot, const Key128& k) {
    keys_[slot] = k;
    groups_[{k.lo, k.hi}].push_back(slot);
  }
  void Remove(uint32_t slot) {
    const Key128 k = keys_.at(slot);
    auto& g = groups_[{k.lo, k.hi}];
    g.erase(std::find(g.begin(), g.end(), slot));
    keys_.erase(slot);
  }
  std::vector<uint32_t> Find(const Key128& k) const {
    auto it = groups_.find({k.lo, k.hi});
    return it == groups_.end() ? std::vector<uint32_t>{} : it->second;
  }
  bool Has(uint32_t slot) const { return keys_.contains(slot); }
  size_t size() const { return keys_.size(); }
  size_t distinct() const {
    size_t n = 0;
    for (const auto& [k, g] : groups_) n += !g.empty();
    return n;
  }

 private:
  std::map<uint32_t, Key128> keys_;
  std::map<std::pair<uint64_t, uint64_t>, std::vector<uint32_t>> groups_;
};

// Keys share their low half (the table's hash) in threes, so probe runs are
// long and deletions shift entries back across them and around the table's
// end; a fifth of the documents repeat an earlier key.
Key128 RandomKey(std::mt19937_64& rng, int distinct) {
  const uint64_t k = rng() % static_cast<uint64_t>(distinct);
  return {k / 3 * 0x9E3779B97F4A7C15ull, k};
}

TEST(ExactIndexTest, ReserveOnAnEmptyOrAFilledIndexKeepsEveryKey) {
  for (const uint32_t before : {0u, 300u}) {
    ExactIndex idx;
    auto key = [](uint32_t s) { return Key128{s / 3 * 0x9E3779B97F4A7C15ull, s / 3}; };
    for (uint32_t s = 0; s < before; ++s) ASSERT_TRUE(idx.Insert(s, key(s)));
    idx.Reserve(20000);
    for (uint32_t s = before; s < 19998; ++s) ASSERT_TRUE(idx.Insert(s, key(s)));
    for (uint32_t s = 0; s < 19998; s += 3) {
      std::vector<uint32_t> found;
      idx.Find(key(s), &found);
      ASSERT_EQ(found, (std::vector<uint32_t>{s, s + 1, s + 2})) << before << " " << s;
    }
  }
}

TEST(ExactIndexTest, MatchesOracleUnderRandomInsertsAndRemoves) {
  for (int distinct : {5, 300, 20000}) {
    std::mt19937_64 rng(distinct);
    ExactIndex index;
    ExactOracle oracle;
    std::vector<uint32_t> live;
    for (int step = 0; step < 60000; ++step) {
      // A restore's hint, on an empty index too: it changes nothing.
      index.Prefetch(RandomKey(rng, distinct), step % 2);
      if (live.empty() || rng() % 5 < 3) {
        const auto slot = static_cast<uint32_t>(rng() % 100000);
        const Key128 key = RandomKey(rng, distinct);
        ASSERT_EQ(index.Insert(slot, key), !oracle.Has(slot));
        if (!oracle.Has(slot)) {
          oracle.Insert(slot, key);
          live.push_back(slot);
        }
      } else {
        const size_t i = rng() % live.size();
        ASSERT_TRUE(index.Remove(live[i]));
        ASSERT_FALSE(index.Remove(live[i]));
        oracle.Remove(live[i]);
        live[i] = live.back();
        live.pop_back();
      }
      if (step % 97 == 0) {
        const Key128 key = RandomKey(rng, distinct);
        std::vector<uint32_t> got = {7};  // Find appends
        index.Find(key, &got);
        std::vector<uint32_t> want = {7};
        for (uint32_t s : oracle.Find(key)) want.push_back(s);
        ASSERT_EQ(got, want) << "step " << step;
      }
    }
    EXPECT_EQ(index.size(), oracle.size());
    EXPECT_EQ(index.keys(), oracle.distinct());
    // Every group, then empty the index and check nothing is left.
    for (int k = 0; k < distinct; ++k) {
      const Key128 key{static_cast<uint64_t>(k) / 3 * 0x9E3779B97F4A7C15ull,
                       static_cast<uint64_t>(k)};
      std::vector<uint32_t> got;
      index.Find(key, &got);
      ASSERT_EQ(got, oracle.Find(key));
    }
    for (uint32_t s : live) ASSERT_TRUE(index.Remove(s));
    EXPECT_EQ(index.size(), 0u);
    EXPECT_EQ(index.keys(), 0u);
  }
}

TEST(ExactIndexTest, OldestCopyOfALargeGroupLeavesInConstantTime) {
  // A sliding window evicting the oldest of 200k identical texts: each
  // Remove is O(1), so this runs in milliseconds (a scan per removal would
  // take 2e10 steps and time the test out).
  ExactIndex index;
  const Key128 key{42, 43};
  constexpr uint32_t kN = 200000;
  for (uint32_t s = 0; s < kN; ++s) ASSERT_TRUE(index.Insert(s, key));
  for (uint32_t s = 0; s + 1 < kN; ++s) ASSERT_TRUE(index.Remove(s));
  std::vector<uint32_t> got;
  index.Find(key, &got);
  EXPECT_EQ(got, std::vector<uint32_t>{kN - 1});
}

TEST(ExactIndexTest, RejectsDoubleInsertAndUnknownRemove) {
  ExactIndex index;
  EXPECT_FALSE(index.Remove(3));
  EXPECT_TRUE(index.Insert(3, {1, 2}));
  EXPECT_FALSE(index.Insert(3, {5, 6}));
  EXPECT_FALSE(index.Insert(0xFFFFFFFFu, {1, 2}));
  EXPECT_TRUE(index.Contains(3));
  EXPECT_FALSE(index.Contains(1u << 30));
  std::vector<uint32_t> got;
  index.Find({5, 6}, &got);
  EXPECT_TRUE(got.empty());
}

// 24 bytes a slot plus the table: 1.5M distinct keys fill 2^21 cells to 0.75
// (5.3 bytes a key) instead of doubling them at half full (10.7), and every
// key is still found.
TEST(ExactIndexTest, MemoryIsTensOfBytesPerDocument) {
  ExactIndex index;
  constexpr uint32_t kN = 3 << 19;
  for (uint32_t s = 0; s < kN; ++s) ASSERT_TRUE(index.Insert(s, {s * 0x9E3779B97F4A7C15ull, s}));
  EXPECT_LE(index.MemoryBytes(), 30u * kN);
  EXPECT_GE(index.MemoryBytes(), 24u * kN);
  std::vector<uint32_t> got;
  for (uint32_t s = 0; s < kN; s += 7) {
    got.clear();
    index.Find({s * 0x9E3779B97F4A7C15ull, s}, &got);
    ASSERT_EQ(got, std::vector<uint32_t>{s});
  }
}

}  // namespace
}  // namespace neardup::index
