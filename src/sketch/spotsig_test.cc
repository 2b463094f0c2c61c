// SPDX-License-Identifier: Apache-2.0
#include "sketch/spotsig.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

namespace neardup::sketch {
namespace {

using ::testing::ElementsAre;

TEST(SpotSigTest, WorkedExampleEnglish) {
  auto ex = SpotSigExtractor::Create(EnglishSpotSigOptions());
  ASSERT_TRUE(ex.ok());
  // Normalized text (lower case, no punctuation). Antecedents: a, the, is.
  const std::string text =
      "at a meeting to open the new city library the mayor said it is a gift to the readers";
  // a        -> meeting (to: stop) open
  // the      -> new city
  // the      -> mayor (said: antecedent, a stop word) (it: stop) (is: stop) (a: stop) gift
  // said     -> (it is a) gift (to the) readers
  // is, a    -> gift readers
  // the      -> readers, then the text ends: chain dropped
  EXPECT_THAT(ex->ExtractStrings(text),
              ElementsAre("a:meeting:open", "the:new:city", "the:mayor:gift", "said:gift:readers",
                          "is:gift:readers", "a:gift:readers"));
  const auto sigs = ex->Extract(text);
  EXPECT_EQ(sigs.size(), 6u);
  EXPECT_TRUE(std::is_sorted(sigs.begin(), sigs.end()));
}

TEST(SpotSigTest, SpotDistanceAndChainLength) {
  SpotSigOptions o;
  o.antecedents = {"the"};
  o.stop_words = {"of"};
  o.chain_length = 3;
  o.spot_distance = 2;
  auto ex = SpotSigExtractor::Create(o);
  ASSERT_TRUE(ex.ok());
  EXPECT_THAT(ex->ExtractStrings("the w1 of w2 w3 w4 w5 w6 w7"), ElementsAre("the:w2:w4:w6"));
  EXPECT_TRUE(ex->ExtractStrings("the w1 w2 w3 w4 w5").empty());  // w6 missing
  o.antecedents.clear();
  EXPECT_FALSE(SpotSigExtractor::Create(o).ok());
}

TEST(SpotSigTest, ChineseTokensAndSignatures) {
  auto o = ChineseSpotSigOptions(NEARDUP_DEFAULT_DATA_DIR
                                 "/nodejieba/submodules/cppjieba/dict/stop_words.utf8");
  if (!o.ok())
    GTEST_SKIP() << "run scripts/setup for the jieba stop words: " << o.status().ToString();
  auto ex = SpotSigExtractor::Create(*o);
  ASSERT_TRUE(ex.ok());
  std::vector<std::string_view> tokens;
  // 一方面 is a multi-character stop word: one token (longest match).
  ex->Tokenize("一方面市场的需求 abc", &tokens);
  EXPECT_THAT(tokens, ElementsAre("一方面", "市", "场", "的", "需", "求", "abc"));
  const std::string text = "今天是晴天 我们在公园的湖边散步";
  // 是 -> 晴 天; 在 -> 公 园; 的 -> 湖 (边: a stop word, skipped) 散. 今 and 我们 are stop
  // words but not antecedents.
  EXPECT_THAT(ex->ExtractStrings(text), ElementsAre("是:晴:天", "在:公:园", "的:湖:散"));
}

TEST(SpotSigTest, SortedSetJaccard) {
  std::vector<uint64_t> a = {1, 2, 3, 4}, b = {3, 4, 5}, e;
  EXPECT_DOUBLE_EQ(SortedSetJaccard(a, b), 2.0 / 5.0);
  EXPECT_DOUBLE_EQ(SortedSetJaccard(a, a), 1.0);
  EXPECT_DOUBLE_EQ(SortedSetJaccard(e, e), 0.0);
  EXPECT_DOUBLE_EQ(SortedSetJaccard(a, e), 0.0);
}

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
        const double j = SortedSetJaccard(sets[q], sets[i]);
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
}  // namespace neardup::sketch
