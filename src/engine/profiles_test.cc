// SPDX-License-Identifier: Apache-2.0
// The Chinese-text profiles (zh-news, zh-short, en-news, auto) end to end
// through the pipeline.
#include <gtest/gtest.h>

#include <bit>
#include <filesystem>

#include "engine/pipeline.h"
#include "neardup/options.h"
#include "resources/data_dir.h"
#include "tokenize/segmenter.h"

namespace neardup::engine {
namespace {

// Our own sample text, Simplified and a Traditional copy of it.
constexpr char kSimplified[] =
    "本市今天召开经济工作会议，总结过去一年的发展成绩，部署明年的重点任务。会议指出，"
    "全市经济运行总体平稳，工业生产稳步回升，消费市场持续活跃，对外贸易保持增长。"
    "会议要求，各部门要坚持稳中求进的工作总基调，加快推进产业结构调整，"
    "进一步优化营商环境，切实保障和改善民生，确保完成全年目标任务。";
constexpr char kTraditional[] =
    "本市今天召開經濟工作會議，總結過去一年的發展成績，部署明年的重點任務。會議指出，"
    "全市經濟運行總體平穩，工業生產穩步回升，消費市場持續活躍，對外貿易保持增長。"
    "會議要求，各部門要堅持穩中求進的工作總基調，加快推進產業結構調整，"
    "進一步優化營商環境，切實保障和改善民生，確保完成全年目標任務。";
constexpr char kOther[] =
    "昨夜一场大雨过后，山区的溪流水位明显上涨，村民们早早起床查看农田情况。"
    "气象部门提醒，未来三天仍有强降雨，请游客不要前往河谷地带露营，注意防范山洪和泥石流。";

bool HaveData() { return std::filesystem::exists(resources::JiebaDir() + "/jieba.dict.utf8"); }

std::unique_ptr<Pipeline> Make(std::string_view profile) {
  auto o = EngineOptions::FromProfile(profile);
  EXPECT_TRUE(o.ok()) << o.status().ToString();
  auto p = Pipeline::Create(*o);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return std::move(p).value();
}

int Distance(const Pipeline& p, std::string_view a, std::string_view b) {
  return std::popcount(p.Fingerprint(a).value() ^ p.Fingerprint(b).value());
}

TEST(ProfilesTest, NamesResolve) {
  for (const auto& name : EngineOptions::ProfileNames()) {
    auto o = EngineOptions::FromProfile(name);
    ASSERT_TRUE(o.ok()) << name;
    EXPECT_EQ(o->profile, name);
  }
  EXPECT_TRUE(EngineOptions::FromProfile("zh-nope").status().IsNotFound());
  auto zh = EngineOptions::FromProfile("zh-news");
  EXPECT_EQ(zh->features, "words");
  EXPECT_EQ(zh->weights, "tfidf");
  EXPECT_TRUE(zh->fold_t2s && zh->drop_stop_words);
  EXPECT_EQ(zh->max_distance, 5);  // chosen in docs/quality.md
}

TEST(ProfilesTest, BadFeatureOrWeightOptions) {
  EngineOptions o;
  o.features = "sentences";
  EXPECT_TRUE(Pipeline::Create(o).status().IsInvalidArgument());
  o.features = "longest-sentence:0";
  EXPECT_TRUE(Pipeline::Create(o).status().IsInvalidArgument());
  o.features = "char-ngram";
  o.weights = "bm25";
  EXPECT_TRUE(Pipeline::Create(o).status().IsInvalidArgument());
}

TEST(ProfilesTest, TraditionalCopyMatchesUnderChineseProfiles) {
  if (!HaveData()) GTEST_SKIP() << "run scripts/setup";
  for (const char* name : {"zh-news", "zh-short", "auto"}) {
    auto p = Make(name);
    EXPECT_EQ(Distance(*p, kSimplified, kTraditional), 0) << name;
    EXPECT_GT(Distance(*p, kSimplified, kOther), 3) << name;
  }
  // Without folding the copy is far.
  auto plain = Make("default");
  EXPECT_GT(Distance(*plain, kSimplified, kTraditional), 3);
}

TEST(ProfilesTest, ZhNewsFeaturesAreWeightedKeywords) {
  if (!HaveData()) GTEST_SKIP() << "run scripts/setup";
  auto p = Make("zh-news");
  std::string norm;
  std::vector<features::Feature> f;
  ASSERT_TRUE(p->Features(kSimplified, &norm, &f).ok());
  ASSERT_FALSE(f.empty());
  for (size_t i = 1; i < f.size(); ++i) EXPECT_LT(f[i - 1].hash, f[i].hash);  // merged
  EXPECT_EQ(std::count_if(
                f.begin(), f.end(),
                [](const features::Feature& x) { return x.hash == features::HashFeature("的"); }),
            0);
  auto o = EngineOptions::FromProfile("zh-news").value();
  o.top_n = 5;
  auto top = Pipeline::Create(o).value();
  std::vector<features::Feature> g;
  ASSERT_TRUE(top->Features(kSimplified, &norm, &g).ok());
  EXPECT_EQ(g.size(), 5u);
}

TEST(ProfilesTest, AutoPicksByScriptAndLength) {
  if (!HaveData()) GTEST_SKIP() << "run scripts/setup";
  auto p = Make("auto");
  const std::string article = std::string(kSimplified) + kOther + kSimplified;  // 300+ Han
  EXPECT_EQ(p->ProfileFor(article), "zh-news");
  EXPECT_EQ(p->ProfileFor(kOther), "zh-short");
  EXPECT_EQ(p->ProfileFor("这道题怎么做？"), "zh-short");
  EXPECT_EQ(p->ProfileFor("The council met on Tuesday to discuss the budget."), "en-news");
  // The same text gets the same fingerprint as under the picked profile.
  auto zs = Make("zh-short");
  EXPECT_EQ(p->Fingerprint("这道题怎么做？").value(), zs->Fingerprint("这道题怎么做？").value());
}

TEST(ProfilesTest, LongestSentenceIgnoresEditsElsewhere) {
  EngineOptions o;
  o.features = "longest-sentence:1";
  auto p = Pipeline::Create(o).value();
  const std::string a = std::string("短讯。") + kOther + "完。";
  const std::string b = std::string("另一条完全不同的短讯！") + kOther + "结束了。";
  EXPECT_EQ(p->Fingerprint(a).value(), p->Fingerprint(b).value());
  auto whole = Pipeline::Create(EngineOptions{}).value();
  EXPECT_NE(whole->Fingerprint(a).value(), whole->Fingerprint(b).value());
}

}  // namespace
}  // namespace neardup::engine
