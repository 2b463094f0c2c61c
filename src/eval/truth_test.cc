// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <random>

#include "base/sorted_set.h"
#include "neardup/eval.h"

namespace neardup::eval {
namespace {

using Sets = std::vector<std::vector<uint64_t>>;

std::vector<SimilarPair> BruteForce(const Sets& sets, double t) {
  std::vector<SimilarPair> out;
  for (uint32_t a = 0; a < sets.size(); ++a) {
    for (uint32_t b = a + 1; b < sets.size(); ++b) {
      if (sets[a].empty() || sets[b].empty()) continue;
      const double j = SortedSetJaccard<uint64_t>(sets[a], sets[b]);
      if (j + 1e-9 >= t) out.push_back({a, b, j});
    }
  }
  return out;
}

// Families of sets drawn from a few base sets with random edits, so many
// pairs sit near every threshold; plus empty and identical sets.
Sets RandomFamilies(uint32_t seed, int n) {
  std::mt19937_64 rng(seed);
  Sets bases;
  for (int b = 0; b < 8; ++b) {
    std::vector<uint64_t> s;
    const int size = 1 + rng() % 40;
    for (int i = 0; i < size; ++i) s.push_back(rng() % 300);  // shared vocabulary
    bases.push_back(s);
  }
  Sets sets;
  for (int i = 0; i < n; ++i) {
    std::vector<uint64_t> s = bases[rng() % bases.size()];
    const int edits = rng() % 12;
    for (int e = 0; e < edits && !s.empty(); ++e) {
      if (rng() % 2) {
        s.erase(s.begin() + rng() % s.size());
      } else {
        s.push_back(rng() % 300);
      }
    }
    if (rng() % 25 == 0) s.clear();
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    sets.push_back(s);
  }
  return sets;
}

void ExpectSame(const std::vector<SimilarPair>& got, const std::vector<SimilarPair>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].a, want[i].a);
    EXPECT_EQ(got[i].b, want[i].b);
    EXPECT_DOUBLE_EQ(got[i].jaccard, want[i].jaccard);
  }
}

TEST(AllPairsJaccard, MatchesBruteForceAcrossThresholdsAndThreads) {
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    const Sets sets = RandomFamilies(seed, 300);
    for (double t : {0.1, 0.3, 0.5, 2.0 / 3, 0.8, 0.95, 1.0}) {
      const auto want = BruteForce(sets, t);
      for (int threads : {1, 3}) {
        auto got = AllPairsJaccard(sets, t, threads);
        ASSERT_TRUE(got.ok()) << got.status().ToString();
        SCOPED_TRACE(testing::Message() << "seed " << seed << " t " << t << " threads " << threads);
        ExpectSame(*got, want);
      }
    }
  }
}

TEST(AllPairsJaccard, ExactBoundaryIsIncluded) {
  // {1,2,3} and {2,3,4}: J = 2/4 = 0.5 exactly.
  const Sets sets = {{1, 2, 3}, {2, 3, 4}, {7}};
  auto got = AllPairsJaccard(sets, 0.5, 1);
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ((*got)[0].a, 0u);
  EXPECT_EQ((*got)[0].b, 1u);
  EXPECT_DOUBLE_EQ((*got)[0].jaccard, 0.5);
}

TEST(AllPairsJaccard, RejectsBadInput) {
  EXPECT_TRUE(AllPairsJaccard({{1, 2}}, 0, 1).status().IsInvalidArgument());
  EXPECT_TRUE(AllPairsJaccard({{1, 2}}, 1.5, 1).status().IsInvalidArgument());
  EXPECT_TRUE(AllPairsJaccard({{2, 1}}, 0.5, 1).status().IsInvalidArgument());
}

}  // namespace
}  // namespace neardup::eval
