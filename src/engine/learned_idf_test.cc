// SPDX-License-Identifier: Apache-2.0
// TF-IDF weights from document frequencies learned from the corpus itself.
#include <gtest/gtest.h>

#include <cmath>

#include "features/feature.h"
#include "pipeline/pipeline.h"

namespace neardup::engine {
namespace {

using pipeline::Pipeline;

EngineOptions Learned() {
  EngineOptions o = EngineOptions::FromProfile("zh-news").value();
  o.features.idf = IdfSource::kLearned;
  return o;
}

TEST(LearnedIdfTest, CountsDocumentsAndWeighsByTheirFrequencies) {
  auto p = Pipeline::Create(Learned(), true, false);
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
  ASSERT_TRUE((*p)->Normalize(corpus[0], &normalized).ok());
  ASSERT_TRUE((*p)->Features(normalized, &feats).ok());
  for (const auto& f : feats) {
    if (f.hash == features::HashFeature("国家统计局")) {
      EXPECT_NEAR(f.weight, std::log(4.0 / 3.0) + 1.0, 1e-6);
    }
  }
}

TEST(LearnedIdfTest, FingerprintsFollowTheLearnedWeights) {
  auto p = Pipeline::Create(Learned(), true, false);
  ASSERT_TRUE(p.ok());
  const std::string doc = "统计局统计局统计局发布数据。女排比赛。";
  const uint64_t before = (*p)->Fingerprint(doc).value();
  for (int i = 0; i < 50; ++i) ASSERT_TRUE((*p)->Learn("统计局发布数据" + std::to_string(i)).ok());
  // 统计局 is now common and weighs little; the fingerprint moves.
  EXPECT_NE((*p)->Fingerprint(doc).value(), before);
}

TEST(LearnedIdfTest, Errors) {
  auto jieba = Pipeline::Create(EngineOptions::FromProfile("zh-news").value(), true, false);
  ASSERT_TRUE(jieba.ok());
  EXPECT_EQ((*jieba)->Learn("文本").code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ((*jieba)->learned_idf(), nullptr);
  EngineOptions bad = Learned();
  bad.features.weights = Weights::kTf;
  bad.features.learn_idf = true;
  EXPECT_TRUE(Pipeline::Create(bad, true, false).status().IsInvalidArgument());
  auto p = Pipeline::Create(Learned(), true, false);
  EXPECT_TRUE((*p)->Learn("bad \xFF utf8").IsInvalidArgument());
}

}  // namespace
}  // namespace neardup::engine

#include <cstdio>
#include <filesystem>

#include "neardup/engine.h"

namespace neardup {
namespace {

EngineOptions LearnedEngine(bool stream) {
  EngineOptions o = EngineOptions::FromProfile("zh-news").value();
  o.features.idf = IdfSource::kLearned;
  o.features.learn_idf = stream;
  return o;
}

const std::vector<std::string> kNews = {
    "国家统计局今天发布数据显示，十月份全国居民消费价格同比上涨，其中城市上涨，农村上涨。",
    "北京时间昨晚，中国女排在世界杯比赛中以三比零战胜对手，取得开门红。",
    "市交通运输局宣布，全市将于下月起新开通十二条公交快线，覆盖城东新区和大学城。",
};

TEST(EngineLearnedIdfTest, StreamingCountsEachAddedDocument) {
  auto e = Engine::Create(LearnedEngine(true));
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  for (size_t i = 0; i < kNews.size(); ++i)
    ASSERT_TRUE((*e)->Add({"d" + std::to_string(i), kNews[i]}).ok());
  EXPECT_EQ((*e)->IdfDocuments(), 3u);
  std::vector<Document> batch = {{"b0", kNews[0]}, {"b1", kNews[1]}};
  for (auto& r : (*e)->AddBatch(batch)) ASSERT_TRUE(r.ok());
  EXPECT_EQ((*e)->IdfDocuments(), 5u);
  auto q = (*e)->Query(kNews[2]);  // queries do not learn
  ASSERT_TRUE(q.ok());
  EXPECT_EQ((*e)->IdfDocuments(), 5u);
}

TEST(EngineLearnedIdfTest, BatchLearningThenSaveAndLoad) {
  auto a = Engine::Create(LearnedEngine(false));
  ASSERT_TRUE(a.ok());
  for (const auto& t : kNews) ASSERT_TRUE((*a)->LearnIdf(t).ok());
  // Documents sharing some words with kNews[0], so its weights are uneven.
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE((*a)->LearnIdf("国家统计局今天发布数据显示城市农村").ok());
  EXPECT_EQ((*a)->IdfDocuments(), 7u);
  const uint64_t fp = (*a)->Fingerprint(kNews[0]).value();
  const std::string path =
      (std::filesystem::temp_directory_path() / "neardup_learned_idf_test.bin").string();
  ASSERT_TRUE((*a)->SaveIdf(path).ok());
  auto b = Engine::Create(LearnedEngine(false));
  ASSERT_TRUE(b.ok());
  EXPECT_NE((*b)->Fingerprint(kNews[0]).value(), fp);  // nothing learned yet
  ASSERT_TRUE((*b)->LoadIdf(path).ok());
  EXPECT_EQ((*b)->IdfDocuments(), 7u);
  EXPECT_EQ((*b)->Fingerprint(kNews[0]).value(), fp);  // same state, same fingerprint
  std::remove(path.c_str());
  EXPECT_FALSE((*b)->LoadIdf(path).ok());
}

TEST(EngineLearnedIdfTest, Errors) {
  EngineOptions bad = EngineOptions::FromProfile("zh-news").value();
  bad.features.learn_idf = true;  // idf is jieba
  EXPECT_TRUE(Engine::Create(bad).status().IsInvalidArgument());
  auto e = Engine::Create(EngineOptions{});
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->LearnIdf("x").code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ((*e)->SaveIdf("/tmp/x").code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ((*e)->IdfDocuments(), 0u);
}

}  // namespace
}  // namespace neardup
