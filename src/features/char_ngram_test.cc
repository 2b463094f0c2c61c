// SPDX-License-Identifier: Apache-2.0
#include "features/char_ngram.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace neardup::features {
namespace {

std::vector<uint64_t> Hashes(std::string_view text, CharNgramOptions o = {}) {
  auto ex = CharNgramExtractor::Create(o);
  EXPECT_TRUE(ex.ok());
  std::vector<Feature> f;
  EXPECT_TRUE((*ex)->Extract(text, &f).ok());
  std::vector<uint64_t> h;
  for (const auto& x : f) {
    EXPECT_EQ(x.weight, 1.0f);
    h.push_back(x.hash);
  }
  return h;
}

std::vector<uint64_t> Expect(std::initializer_list<std::string_view> tokens) {
  std::vector<uint64_t> h;
  for (auto t : tokens) h.push_back(HashFeature(t));
  return h;
}

TEST(CharNgramTest, HanTrigrams) {
  EXPECT_EQ(Hashes("今天天气好"), Expect({"今天天", "天天气", "天气好"}));
}

TEST(CharNgramTest, ShortRunIsOneFeature) { EXPECT_EQ(Hashes("你好"), Expect({"你好"})); }

TEST(CharNgramTest, HanRunContinuesAcrossSpaces) {
  EXPECT_EQ(Hashes("今天 天气好"), Hashes("今天天气好"));
}

TEST(CharNgramTest, WordsForSpacedScripts) {
  EXPECT_EQ(Hashes("hello world"), Expect({"hello", "world"}));
  EXPECT_EQ(Hashes("café olé"), Expect({"café", "olé"}));
}

TEST(CharNgramTest, MixedScriptsSplitRuns) {
  // Latin interrupts the Han run: 苹果 and 发布会 are separate runs.
  EXPECT_EQ(Hashes("苹果iphone15发布会"), Expect({"苹果", "发布会", "iphone15"}));
}

TEST(CharNgramTest, WordShingles) {
  CharNgramOptions o;
  o.word_ngram = 2;
  EXPECT_EQ(Hashes("a b c", o), Expect({"a b", "b c"}));
  EXPECT_EQ(Hashes("a", o), Expect({"a"}));
}

TEST(CharNgramTest, EmptyTextHasNoFeatures) { EXPECT_TRUE(Hashes("").empty()); }

TEST(CharNgramTest, RejectsBadOptions) {
  EXPECT_FALSE(CharNgramExtractor::Create({.ngram = 0}).ok());
  EXPECT_FALSE(CharNgramExtractor::Create({.ngram = 3, .word_ngram = 9}).ok());
}

TEST(CharNgramTest, HashIsStable) {
  // The feature hash is part of the on-disk format: XXH3-64, seed 0.
  EXPECT_EQ(HashFeature(""), 0x2D06800538D394C2ULL);
}

}  // namespace
}  // namespace neardup::features
