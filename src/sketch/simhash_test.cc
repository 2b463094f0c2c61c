// SPDX-License-Identifier: Apache-2.0
#include "sketch/simhash.h"

#include <gtest/gtest.h>

#include <bit>
#include <random>

#include "features/char_ngram.h"
#include "normalize/normalizer.h"

namespace neardup::sketch {
namespace {

using features::Feature;

// Reference: the textbook definition with a plain vector of doubles.
uint64_t Reference(const std::vector<Feature>& fs) {
  double v[64] = {};
  for (const auto& f : fs)
    for (int i = 0; i < 64; ++i) v[i] += ((f.hash >> i) & 1) ? f.weight : -f.weight;
  uint64_t fp = 0;
  for (int i = 0; i < 64; ++i)
    if (v[i] > 0) fp |= 1ULL << i;
  return fp;
}

TEST(SimHashTest, MatchesReferenceDefinition) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<Feature> fs;
    const int n = rng() % 2000;
    for (int i = 0; i < n; ++i) {
      float w = (rng() % 3 == 0) ? static_cast<float>(rng() % 100) / 7.0f : 1.0f;
      fs.push_back({rng(), w});
    }
    EXPECT_EQ(SimHash(fs), Reference(fs)) << "trial " << trial;
  }
}

TEST(SimHashTest, EmptyIsZeroAndSingleFeatureIsItsHash) {
  EXPECT_EQ(SimHash({}), 0u);
  std::vector<Feature> one = {{0xDEADBEEFCAFEF00DULL, 1.0f}};
  EXPECT_EQ(SimHash(one), 0xDEADBEEFCAFEF00DULL);
}

class TextSimHashTest : public ::testing::Test {
 protected:
  uint64_t Fp(std::string_view text) {
    auto n = normalize::Normalizer::Create({});
    auto ex = features::CharNgramExtractor::Create({});
    std::string norm;
    EXPECT_TRUE((*n)->Normalize(text, &norm).ok());
    std::vector<Feature> fs;
    EXPECT_TRUE((*ex)->Extract(norm, &fs).ok());
    return SimHash(fs);
  }
};

constexpr std::string_view kArticle =
    "国家统计局今天发布数据显示，十月份全国居民消费价格同比上涨百分之二点一，"
    "其中城市上涨百分之二点零，农村上涨百分之二点三；食品价格上涨百分之三点八，"
    "非食品价格上涨百分之一点七；消费品价格上涨百分之二点四，服务价格上涨百分之一点六。"
    "一至十月平均，全国居民消费价格比去年同期上涨百分之二点零。";

TEST_F(TextSimHashTest, IdenticalTextEqualFingerprint) {
  EXPECT_EQ(Fp(kArticle), Fp(kArticle));
  // Normalization makes full-width punctuation and spacing irrelevant.
  EXPECT_EQ(Fp("Hello,  World!"), Fp("hello world"));
}

TEST_F(TextSimHashTest, SmallEditSmallDistance) {
  std::string edited(kArticle);
  edited.replace(edited.find("今天"), 6, "昨日");  // change two characters
  const int d = std::popcount(Fp(kArticle) ^ Fp(edited));
  EXPECT_LE(d, 6);
}

TEST_F(TextSimHashTest, UnrelatedTextsNear32) {
  const std::vector<std::string> texts = {
      std::string(kArticle),
      "床前明月光，疑是地上霜。举头望明月，低头思故乡。",
      "The quick brown fox jumps over the lazy dog while the farmer sleeps in the barn.",
      "北京时间昨晚，中国女排在世界杯比赛中以三比零战胜对手，取得开门红，主教练表示球队状态良好。",
      "Stock markets rallied on Tuesday after the central bank signalled it would pause rate "
      "hikes.",
      "机器学习是人工智能的一个分支，它使计算机能够在没有明确编程的情况下从数据中学习规律。"};
  double total = 0;
  int pairs = 0;
  for (size_t i = 0; i < texts.size(); ++i)
    for (size_t j = i + 1; j < texts.size(); ++j) {
      const int d = std::popcount(Fp(texts[i]) ^ Fp(texts[j]));
      EXPECT_GE(d, 16) << i << "," << j;
      total += d;
      ++pairs;
    }
  EXPECT_NEAR(total / pairs, 32.0, 6.0);
}

}  // namespace
}  // namespace neardup::sketch
