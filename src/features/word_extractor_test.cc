// SPDX-License-Identifier: Apache-2.0
#include "features/word_extractor.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "features/longest_sentence.h"
#include "normalize/normalizer.h"
#include "resources/data_dir.h"

namespace neardup::features {
namespace {

class WordExtractorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(resources::JiebaDir() + "/jieba.dict.utf8")) {
      GTEST_SKIP() << "jieba data missing: run scripts/setup";
    }
  }
  static std::vector<std::string> Words(std::string_view text, int min_chars = 1) {
    WordExtractorOptions o;
    o.min_chars = min_chars;
    auto w = WordExtractor::Create(o);
    EXPECT_TRUE(w.ok()) << w.status().ToString();
    std::vector<std::string_view> v;
    (*w)->Words(text, &v);
    return {v.begin(), v.end()};
  }
};

using V = std::vector<std::string>;

TEST_F(WordExtractorTest, HanRunsAreSegmentedOtherRunsAreIcuWords) {
  // Han runs are cut as jieba cuts them; Latin and digits are ICU words.
  EXPECT_EQ(Words("我来到北京清华大学"), (V{"我", "来到", "北京", "清华大学"}));
  EXPECT_EQ(Words("iphone6s 手机 2024年 café"), (V{"iphone6s", "手机", "2024", "年", "café"}));
  EXPECT_EQ(Words("他来到了网易杭研大厦\n第二句"),
            (V{"他", "来到", "了", "网易", "杭研", "大厦", "第二句"}));
  EXPECT_EQ(Words(""), V{});
  EXPECT_EQ(Words("   "), V{});
}

TEST_F(WordExtractorTest, MinCharsDropsShortWords) {
  EXPECT_EQ(Words("我来到北京清华大学 a bc", 2), (V{"来到", "北京", "清华大学", "bc"}));
}

TEST_F(WordExtractorTest, ExtractHashesEveryWord) {
  auto w = WordExtractor::Create({});
  ASSERT_TRUE(w.ok());
  std::vector<Feature> f;
  ASSERT_TRUE((*w)->Extract("北京 北京 大学", &f).ok());
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].hash, HashFeature("北京"));
  EXPECT_EQ(f[1].hash, HashFeature("北京"));
  EXPECT_EQ(f[2].hash, HashFeature("大学"));
  EXPECT_FLOAT_EQ(f[2].weight, 1.0f);
  EXPECT_TRUE(
      WordExtractor::Create({.segmenter = {}, .min_chars = 0}).status().IsInvalidArgument());
}

std::unique_ptr<FeatureExtractor> Trigrams() { return CharNgramExtractor::Create({}).value(); }

TEST(LongestSentenceTest, ParsesSpec) {
  EXPECT_EQ(*ParseLongestSentenceSpec("longest-sentence"), 1);
  EXPECT_EQ(*ParseLongestSentenceSpec("longest-sentence:3"), 3);
  EXPECT_FALSE(ParseLongestSentenceSpec("longest-sentence:0").ok());
  EXPECT_FALSE(ParseLongestSentenceSpec("longest-sentence:65").ok());
  EXPECT_FALSE(ParseLongestSentenceSpec("longest-sentence:x").ok());
  EXPECT_FALSE(ParseLongestSentenceSpec("longest-sentence3").ok());
  EXPECT_FALSE(ParseLongestSentenceSpec("char-ngram").ok());
}

TEST(LongestSentenceTest, PicksLongestInTextOrderAndIgnoresEdits) {
  auto inner = CharNgramExtractor::Create({});
  ASSERT_TRUE(inner.ok());
  auto ls = LongestSentenceExtractor::Create(2, std::move(*inner));
  ASSERT_TRUE(ls.ok());
  std::vector<std::string_view> s;
  (*ls)->Sentences("短句\n这是最长的一个句子啊\n中等长度句子\n\n也是中等长度句\n", &s);
  EXPECT_EQ(s, (std::vector<std::string_view>{"这是最长的一个句子啊", "也是中等长度句"}));

  // An edit outside the longest sentence leaves the features unchanged.
  normalize::NormalizerOptions no;
  no.keep_sentence_breaks = true;
  auto norm = normalize::Normalizer::Create(no);
  ASSERT_TRUE(norm.ok());
  std::string a, b;
  ASSERT_TRUE(
      (*norm)
          ->Normalize("今天天气很好。我们去公园散步，看到了很多美丽的花朵和蝴蝶！晚上回家。", &a)
          .ok());
  ASSERT_TRUE(
      (*norm)
          ->Normalize("今天下雨了。我们去公园散步，看到了很多美丽的花朵和蝴蝶！晚上在家看书。", &b)
          .ok());
  auto one = LongestSentenceExtractor::Create(1, Trigrams());
  ASSERT_TRUE(one.ok());
  std::vector<Feature> fa, fb;
  ASSERT_TRUE((*one)->Extract(a, &fa).ok());
  ASSERT_TRUE((*one)->Extract(b, &fb).ok());
  ASSERT_FALSE(fa.empty());
  ASSERT_EQ(fa.size(), fb.size());
  for (size_t i = 0; i < fa.size(); ++i) EXPECT_EQ(fa[i].hash, fb[i].hash);
  EXPECT_FALSE(LongestSentenceExtractor::Create(0, Trigrams()).ok());
  EXPECT_FALSE(LongestSentenceExtractor::Create(1, nullptr).ok());
}

}  // namespace
}  // namespace neardup::features
