// SPDX-License-Identifier: Apache-2.0
#include "index/lsh_index.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

namespace neardup::index {
namespace {

std::vector<uint64_t> Keys(std::mt19937_64& rng, int bands, int universe) {
  std::vector<uint64_t> k(bands);
  for (auto& v : k) v = rng() % universe;
  return k;
}

TEST(LshIndexTest, InsertQueryRemove) {
  LshIndex index(4);
  ASSERT_TRUE(index.Insert(1, {{10, 20, 30, 40}}).ok());
  ASSERT_TRUE(index.Insert(2, {{10, 21, 31, 40}}).ok());
  ASSERT_TRUE(index.Insert(3, {{11, 22, 32, 42}}).ok());
  EXPECT_TRUE(index.Insert(1, {{1, 2, 3, 4}}).IsAlreadyExists());
  EXPECT_TRUE(index.Insert(4, {{1, 2, 3}}).IsInvalidArgument());
  std::vector<LshIndex::Hit> hits;
  ASSERT_TRUE(index.Query({{10, 20, 99, 40}}, &hits).ok());
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].slot, 1u);  // three bands shared
  EXPECT_EQ(hits[0].bands, 3u);
  EXPECT_EQ(hits[1].slot, 2u);
  EXPECT_EQ(hits[1].bands, 2u);
  ASSERT_TRUE(index.Remove(1).ok());
  EXPECT_TRUE(index.Remove(1).IsNotFound());
  hits.clear();
  ASSERT_TRUE(index.Query({{10, 20, 99, 40}}, &hits).ok());
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].slot, 2u);
  EXPECT_EQ(index.size(), 2u);
  ASSERT_TRUE(index.Insert(1, {{10, 20, 30, 40}}).ok());  // the slot comes back
  EXPECT_EQ(index.size(), 3u);
}

// Random inserts and removals over a small key universe (long buckets, table
// growth and backward-shift deletions), checked against a brute-force map.
TEST(LshIndexTest, MatchesBruteForce) {
  std::mt19937_64 rng(12);
  const int bands = 6;
  LshIndex index(bands);
  std::map<uint32_t, std::vector<uint64_t>> live;
  for (int step = 0; step < 20000; ++step) {
    const uint32_t slot = static_cast<uint32_t>(rng() % 3000);
    if (live.count(slot)) {
      ASSERT_TRUE(index.Remove(slot).ok());
      live.erase(slot);
    } else {
      auto k = Keys(rng, bands, 400);
      ASSERT_TRUE(index.Insert(slot, k).ok());
      live[slot] = k;
    }
    if (step % 500 != 0) continue;
    for (int q = 0; q < 20; ++q) {
      const auto keys = Keys(rng, bands, 400);
      std::map<uint32_t, uint32_t> want;
      for (const auto& [s, k] : live) {
        uint32_t shared = 0;
        for (int b = 0; b < bands; ++b) shared += k[b] == keys[b];
        if (shared > 0) want[s] = shared;
      }
      std::vector<LshIndex::Hit> hits;
      ASSERT_TRUE(index.Query(keys, &hits).ok());
      std::map<uint32_t, uint32_t> got;
      for (const auto& h : hits) got[h.slot] = h.bands;
      ASSERT_EQ(got, want) << "step " << step;
      for (size_t i = 1; i < hits.size(); ++i) ASSERT_GE(hits[i - 1].bands, hits[i].bands);
    }
  }
  EXPECT_EQ(index.size(), live.size());
}

}  // namespace
}  // namespace neardup::index
