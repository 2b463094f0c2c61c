// SPDX-License-Identifier: Apache-2.0
#include "cluster/union_find.h"

#include <gtest/gtest.h>

#include <random>

namespace neardup::cluster {
namespace {

TEST(UnionFindTest, ChainNeverGrowsPastTheCap) {
  for (size_t cap : {1u, 2u, 3u, 5u, 8u}) {
    CappedUnionFind uf(40, cap);
    // A~B, B~C, C~D, ...: unchecked chaining would make one set of 40.
    for (size_t i = 0; i + 1 < 40; ++i) uf.Union(i, i + 1);
    for (size_t i = 0; i < 40; ++i) EXPECT_LE(uf.SetSize(i), cap) << "cap " << cap;
    // Greedy along the chain: blocks of exactly `cap` consecutive elements.
    EXPECT_EQ(uf.SetSize(0), cap);
    EXPECT_EQ(uf.Find(0) == uf.Find(cap - 1), true);
    if (cap < 40) {
      EXPECT_NE(uf.Find(0), uf.Find(cap));
    }
  }
}

TEST(UnionFindTest, RandomPairsRespectCapAndMatchReference) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 20; ++trial) {
    const size_t n = 200, cap = 1 + rng() % 12;
    CappedUnionFind uf(n, cap);
    std::vector<size_t> label(n);  // reference: explicit set labels
    for (size_t i = 0; i < n; ++i) label[i] = i;
    for (int p = 0; p < 600; ++p) {
      const size_t a = rng() % n, b = rng() % n;
      const size_t la = label[a], lb = label[b];
      size_t sa = 0, sb = 0;
      for (size_t l : label) sa += l == la, sb += l == lb;
      const UnionResult expected = la == lb        ? UnionResult::kSameSet
                                   : sa + sb > cap ? UnionResult::kCapExceeded
                                                   : UnionResult::kJoined;
      ASSERT_EQ(uf.Union(a, b), expected);
      if (expected == UnionResult::kJoined)
        for (size_t& l : label) l = l == lb ? la : l;
    }
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; j += 17) EXPECT_EQ(uf.Find(i) == uf.Find(j), label[i] == label[j]);
  }
}

TEST(UnionFindTest, NoCapJoinsEverything) {
  CappedUnionFind uf(10, 0);
  for (size_t i = 0; i + 1 < 10; ++i) EXPECT_EQ(uf.Union(i, i + 1), UnionResult::kJoined);
  EXPECT_EQ(uf.SetSize(3), 10u);
  EXPECT_EQ(uf.Union(0, 9), UnionResult::kSameSet);
  EXPECT_EQ(uf.refused(), 0u);
}

TEST(UnionFindTest, KeepPolicies) {
  CappedUnionFind uf(5, 0);
  uf.Union(1, 3);
  uf.Union(3, 4);  // {1,3,4} {0} {2}
  const std::vector<uint64_t> rank = {4, 2, 3, 0, 1};
  const std::vector<size_t> length = {10, 5, 7, 9, 9};
  auto first = KeptMembers(uf, KeepPolicy::kFirst, {});
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(*first, (std::vector<size_t>{0, 1, 2, 1, 1}));
  auto smallest = KeptMembers(uf, KeepPolicy::kSmallestId, {.id_rank = rank, .length = {}});
  ASSERT_TRUE(smallest.ok());
  EXPECT_EQ(*smallest, (std::vector<size_t>{0, 3, 2, 3, 3}));
  auto longest = KeptMembers(uf, KeepPolicy::kLongest, {.id_rank = {}, .length = length});
  ASSERT_TRUE(longest.ok());
  EXPECT_EQ(*longest, (std::vector<size_t>{0, 3, 2, 3, 3}));  // 3 and 4 tie at 9: first wins
  EXPECT_FALSE(KeptMembers(uf, KeepPolicy::kLongest, {}).ok());
}

}  // namespace
}  // namespace neardup::cluster
