// SPDX-License-Identifier: Apache-2.0
// TF-IDF weights from document frequencies learned from the corpus itself.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/pipeline.h"
#include "features/feature.h"

namespace neardup::engine {
namespace {

EngineOptions Learned() {
  EngineOptions o = EngineOptions::FromProfile("zh-news").value();
  o.idf = "learned";
  return o;
}

TEST(LearnedIdfTest, CountsDocumentsAndWeighsByTheirFrequencies) {
  auto p = Pipeline::Create(Learned());
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  const std::vector<std::string> corpus = {
      "国家统计局发布数据，居民消费价格同比上涨。",
      "国家统计局表示，工业生产保持稳定增长。",
      "女排联赛半决赛，海滨队逆转击败山城队。",
  };
  for (const auto& t : corpus) ASSERT_TRUE((*p)->Learn(t).ok());
  auto df = (*p)->learned_idf();
  ASSERT_NE(df, nullptr);
  EXPECT_EQ(df->num_documents(), 3u);
  // 国家统计局 is in two of three documents: idf = ln(4/3) + 1. 女排 in one: ln(4/2) + 1.
  EXPECT_EQ(df->DocumentFrequency(features::HashFeature("国家统计局")), 2u);
  EXPECT_NEAR(df->Idf(features::HashFeature("国家统计局")), std::log(4.0 / 3.0) + 1.0, 1e-12);
  EXPECT_NEAR(df->Idf(features::HashFeature("女排")), std::log(2.0) + 1.0, 1e-12);
  std::string normalized;
  std::vector<features::Feature> feats;
  ASSERT_TRUE((*p)->Features(corpus[0], &normalized, &feats).ok());
  for (const auto& f : feats) {
    if (f.hash == features::HashFeature("国家统计局")) EXPECT_NEAR(f.weight, std::log(4.0 / 3.0) + 1.0, 1e-6);
  }
}

TEST(LearnedIdfTest, FingerprintsFollowTheLearnedWeights) {
  auto p = Pipeline::Create(Learned());
  ASSERT_TRUE(p.ok());
  const std::string doc = "统计局统计局统计局发布数据。女排比赛。";
  const uint64_t before = (*p)->Fingerprint(doc).value();
  for (int i = 0; i < 50; ++i) ASSERT_TRUE((*p)->Learn("统计局发布数据" + std::to_string(i)).ok());
  // 统计局 is now common and weighs little; the fingerprint moves.
  EXPECT_NE((*p)->Fingerprint(doc).value(), before);
}

TEST(LearnedIdfTest, Errors) {
  auto jieba = Pipeline::Create(EngineOptions::FromProfile("zh-news").value());
  ASSERT_TRUE(jieba.ok());
  EXPECT_EQ((*jieba)->Learn("文本").code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ((*jieba)->learned_idf(), nullptr);
  EngineOptions bad = Learned();
  bad.idf = "nope";
  EXPECT_TRUE(Pipeline::Create(bad).status().IsInvalidArgument());
  auto p = Pipeline::Create(Learned());
  EXPECT_TRUE((*p)->Learn("bad \xFF utf8").IsInvalidArgument());
}

}  // namespace
}  // namespace neardup::engine
