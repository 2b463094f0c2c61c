// SPDX-License-Identifier: Apache-2.0
#include "eval/truth.h"

#include <gtest/gtest.h>

#include <random>

#include "eval/shingles.h"
#include "normalize/t2s.h"

namespace neardup::eval {
namespace {

using Sets = std::vector<std::vector<uint64_t>>;

std::vector<SimilarPair> BruteForce(const Sets& sets, double t) {
  std::vector<SimilarPair> out;
  for (uint32_t a = 0; a < sets.size(); ++a) {
    for (uint32_t b = a + 1; b < sets.size(); ++b) {
      if (sets[a].empty() || sets[b].empty()) continue;
      const double j = Jaccard(sets[a], sets[b]);
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

TEST(Shingler, CharShinglesAreSetsAfterNormalization) {
  ShinglerOptions o;
  auto s = Shingler::Create(o);
  ASSERT_TRUE(s.ok());
  auto a = (*s)->Shingle("明月明月明月明月");
  auto b = (*s)->Shingle("明月，明月");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_DOUBLE_EQ(Jaccard(*a, *b), 1.0);  // repetition does not change a set
  EXPECT_TRUE(ShingleSpec::Parse("char:0").status().IsInvalidArgument());
  EXPECT_TRUE(ShingleSpec::Parse("line:3").status().IsInvalidArgument());
  EXPECT_EQ(ShingleSpec::Parse("word:5")->kind, ShingleSpec::Kind::kWord);
}

TEST(Shingler, T2SFoldsTraditionalToSimplified) {
  ShinglerOptions o;
  o.t2s = true;
  auto s = Shingler::Create(o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto trad = (*s)->Shingle("列出目錄內容與檔案");
  auto simp = (*s)->Shingle("列出目录内容与档案");
  ASSERT_TRUE(trad.ok() && simp.ok());
  EXPECT_DOUBLE_EQ(Jaccard(*trad, *simp), 1.0);
  o.t2s = false;
  auto plain = Shingler::Create(o);
  EXPECT_LT(Jaccard(*(*plain)->Shingle("列出目錄內容與檔案"), *simp), 0.5);
}

TEST(Shingler, MissingT2STableIsNotFound) {
  ShinglerOptions o;
  o.t2s = true;
  o.data_dir = "/nonexistent";
  EXPECT_TRUE(Shingler::Create(o).status().IsNotFound());
}

}  // namespace
}  // namespace neardup::eval
