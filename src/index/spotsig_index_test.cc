// SPDX-License-Identifier: Apache-2.0
#include "index/spotsig_index.h"

#include <gtest/gtest.h>

#include <random>

#include "base/sorted_set.h"
#include "sketch/spotsig.h"

namespace neardup::index {
namespace {
using namespace ::neardup::sketch;

TEST(SpotSigTest, IndexMatchesBruteForce) {
  std::mt19937_64 rng(17);
  for (double tau : {0.3, 0.5, 0.8, 1.0}) {
    auto index = SpotSigIndex::Create(tau);
    ASSERT_TRUE(index.ok());
    std::vector<std::vector<uint64_t>> sets;
    for (int i = 0; i < 300; ++i) {
      std::vector<uint64_t> s;
      const int n = static_cast<int>(rng() % 30);
      // Small universe with a skewed distribution: long and short posting lists.
      for (int k = 0; k < n; ++k) s.push_back(rng() % 3 == 0 ? rng() % 5 : rng() % 60);
      std::sort(s.begin(), s.end());
      s.erase(std::unique(s.begin(), s.end()), s.end());
      sets.push_back(s);
      ASSERT_TRUE(index->Insert(i, s).ok());
    }
    for (int i = 0; i < 300; i += 4) ASSERT_TRUE(index->Remove(i).ok());
    for (int q = 0; q < 300; q += 5) {
      std::vector<SpotSigMatch> expected;
      for (int i = 0; i < 300; ++i) {
        if (i % 4 == 0 || sets[q].empty() || sets[i].empty()) continue;
        const double j = SortedSetJaccard<uint64_t>(sets[q], sets[i]);
        if (j >= tau - 1e-12) expected.push_back({static_cast<uint64_t>(i), j});
      }
      std::sort(expected.begin(), expected.end(), [](const auto& a, const auto& b) {
        return a.jaccard != b.jaccard ? a.jaccard > b.jaccard : a.id < b.id;
      });
      const auto got = index->Query(sets[q]);
      ASSERT_EQ(got.size(), expected.size()) << "tau " << tau << " query " << q;
      for (size_t k = 0; k < got.size(); ++k) {
        EXPECT_EQ(got[k].id, expected[k].id);
        EXPECT_DOUBLE_EQ(got[k].jaccard, expected[k].jaccard);
      }
    }
  }
  auto index = SpotSigIndex::Create(0.5);
  std::vector<uint64_t> unsorted = {3, 1};
  EXPECT_TRUE(index->Insert(1, unsorted).IsInvalidArgument());
  EXPECT_FALSE(SpotSigIndex::Create(0).ok());
}

TEST(SpotSigTest, PartitionsGrowGeometrically) {
  auto index = SpotSigIndex::Create(0.5);
  ASSERT_TRUE(index.ok());
  // Boundaries 1, 3, 7, 15, 31, ..., 511, 1023: [1,3) [3,7) [7,15) ... [511,1023)
  EXPECT_EQ(index->PartitionOf(1), 0u);
  EXPECT_EQ(index->PartitionOf(2), 0u);
  EXPECT_EQ(index->PartitionOf(3), 1u);
  EXPECT_EQ(index->PartitionOf(6), 1u);
  EXPECT_EQ(index->PartitionOf(7), 2u);
  EXPECT_EQ(index->PartitionOf(1000), 8u);
  EXPECT_EQ(index->PartitionOf(1023), 9u);
}

}  // namespace
}  // namespace neardup::index
