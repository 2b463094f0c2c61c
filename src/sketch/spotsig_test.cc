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

}  // namespace
}  // namespace neardup::sketch
